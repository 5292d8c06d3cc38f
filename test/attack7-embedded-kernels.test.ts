/**
 * Seventh adversarial pass, the gzip-compressed kernels embedded in the library (src/cpu/wasm.ts),
 * the fallback where the .wasm file cannot be read: a corrupted or truncated copy must be a typed
 * error that says what failed, and a failure must not stick. Before: zlib's bare `Error`
 * ('unexpected end of file', code Z_BUF_ERROR; 'incorrect header check') or a `CompileError`
 * reached createRuntime's caller without a word about simdgl's kernels, and the rejected compile
 * stayed cached: every later createRuntime of the process failed the same way. And
 * `createRuntime({ simd: true })` on an engine without SIMD threw a plain Error.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

// no node:fs (nor workers): the .wasm file cannot be read, as where a bundler left it behind
vi.mock('../src/node-builtins.js', () => ({ nodeBuiltin: () => null }));

const real = readFileSync(new URL('../src/cpu/wasm/simd-shared.wasm', import.meta.url));
const plainReal = readFileSync(new URL('../src/cpu/wasm/plain-shared.wasm', import.meta.url));
const gz = gzipSync(real);
const COPIES: Record<string, string> = {
  intact: gz.toString('base64'),
  'truncated to half': gz.subarray(0, gz.length >> 1).toString('base64'),
  'without its last 4 bytes': gz.subarray(0, gz.length - 4).toString('base64'),
  'not gzip': Buffer.from('not gzip at all').toString('base64'),
  'a flipped byte': Buffer.from(gz.map((b, i) => (i === 200 ? b ^ 0xff : b))).toString('base64'),
  'gzip of something else': gzipSync(Buffer.from('hello')).toString('base64'),
  empty: '',
};
let copy = 'intact';
// the embedded modules read the copy chosen now (getters: the module itself is imported once)
for (const v of ['simd-shared', 'simd']) vi.doMock(`../src/cpu/wasm/${v}.generated.js`, () => ({ get gzipBase64() { return COPIES[copy]; } }));
vi.doMock('../src/cpu/wasm/plain-shared.generated.js', () => ({ gzipBase64: gzipSync(plainReal).toString('base64') }));

/** The library as a fresh process sees it: nothing compiled yet. */
async function fresh() {
  vi.resetModules();
  const [{ createRuntime }, errors, { wasmLoad }] = await Promise.all([import('../src/runtime/runtime.js'), import('../src/errors.js'), import('../src/cpu/wasm.js')]);
  return { createRuntime, wasmLoad, ...errors };
}

afterEach(() => {
  vi.restoreAllMocks();
  copy = 'intact';
});

describe('the embedded kernels', () => {
  it('intact: the runtime runs on them and says so', async () => {
    const { createRuntime, wasmLoad } = await fresh();
    const rt = await createRuntime({ workers: 1, backend: 'cpu' });
    try {
      expect(wasmLoad.source).toBe('embedded');
      const v = rt.vector(new Float64Array([1, 2]));
      await rt.scal(3, v);
      expect(Array.from(await v.read())).toEqual([3, 6]);
    } finally {
      rt.dispose();
    }
  });
  for (const name of Object.keys(COPIES).filter((k) => k !== 'intact')) {
    it(`${name}: KernelLoadError naming the kernels, the file's failure and the copy's; the next createRuntime with an intact copy runs`, async () => {
      const { createRuntime, KernelLoadError } = await fresh();
      copy = name;
      const err = await createRuntime({ workers: 1, backend: 'cpu' }).then((rt) => (rt.dispose(), null), (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelLoadError);
      expect((err as { code: string }).code).toBe('E_KERNELS');
      expect((err as Error).message).toMatch(/^the CPU path's simd(-shared)? kernels could not be loaded: the simd(-shared)?\.wasm file failed \(.+\), and the copy embedded in the library could not be unpacked and compiled \(.+\)/);
      copy = 'intact';
      const rt = await createRuntime({ workers: 1, backend: 'cpu' });
      rt.dispose();
    });
  }
  it("without DecompressionStream: KernelLoadError that says so", async () => {
    const { createRuntime, KernelLoadError } = await fresh();
    vi.stubGlobal('DecompressionStream', undefined);
    try {
      const err = await createRuntime({ workers: 1, backend: 'cpu' }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelLoadError);
      expect((err as Error).message).toMatch(/this engine has no DecompressionStream to unpack them/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
  it('simd: true on an engine without WebAssembly SIMD: UnsupportedError (was a plain Error)', async () => {
    const { createRuntime, UnsupportedError } = await fresh();
    vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    await expect(createRuntime({ workers: 1, backend: 'cpu', simd: true })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(createRuntime({ workers: 1, backend: 'cpu', simd: true })).rejects.toThrow(/simd: true asks for WebAssembly SIMD, which this engine lacks/);
  });
});
