import * as binaries from './wasm-binaries.generated.js';

/** Which compiled variant of the kernels to use. */
export type WasmFlavor = 'simd' | 'plain';

// The smallest module that uses a v128 instruction: (func (result v128) i32.const 0 i8x16.splat)
// — validating it tells whether the engine has WebAssembly SIMD, without running anything.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function hasWasmSimd(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** Whether this engine can create a shared WebAssembly memory (needs SharedArrayBuffer). */
export function hasSharedMemory(): boolean {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    return true;
  } catch {
    return false;
  }
}

function decodeBase64(b64: string): Uint8Array {
  if (typeof Buffer !== 'undefined') {
    const b = Buffer.from(b64, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const moduleCache = new Map<string, Promise<WebAssembly.Module>>();

/** The compiled kernel module for a flavor and memory kind; compiled once per process and cached. */
export function compileKernels(flavor: WasmFlavor, shared: boolean): Promise<WebAssembly.Module> {
  const key = `${flavor}-${shared ? 'shared' : 'local'}`;
  let p = moduleCache.get(key);
  if (!p) {
    const b64 =
      flavor === 'simd' ? (shared ? binaries.simdShared : binaries.simd) : shared ? binaries.plainShared : binaries.plain;
    p = WebAssembly.compile(decodeBase64(b64) as BufferSource);
    moduleCache.set(key, p);
  }
  return p;
}

/** Instantiates the kernels over `memory`. The exports are plain functions over byte offsets. */
export async function instantiateKernels(module: WebAssembly.Module, memory: WebAssembly.Memory): Promise<KernelExports> {
  const instance = await WebAssembly.instantiate(module, {
    env: {
      memory,
      abort(_msg: number, _file: number, line: number, col: number) {
        throw new Error(`simdgl kernel aborted at ${line}:${col}`);
      },
    },
  });
  return instance.exports as unknown as KernelExports;
}

/** Kernel exports, looked up by name (see assembly/index.ts for the list and their signatures). */
export type KernelExports = Record<string, (...args: number[]) => number>;
