import { KernelLoadError } from '../errors.js';
import { nodeBuiltin } from '../node-builtins.js';

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

/** The four builds of assembly/ (asconfig.json's targets): SIMD or not × shared memory or not. */
type Variant = 'simd-shared' | 'simd' | 'plain-shared' | 'plain';

// Each variant's file, as a literal `new URL('…', import.meta.url)`: the pattern Vite, webpack 5,
// Parcel and Rollup's URL plugins recognise, so they copy that file next to the bundle and a page
// downloads only the variant it uses.
function wasmUrl(v: Variant): URL {
  switch (v) {
    case 'simd-shared':
      return new URL('./wasm/simd-shared.wasm', import.meta.url);
    case 'simd':
      return new URL('./wasm/simd.wasm', import.meta.url);
    case 'plain-shared':
      return new URL('./wasm/plain-shared.wasm', import.meta.url);
    case 'plain':
      return new URL('./wasm/plain.wasm', import.meta.url);
  }
}

// The same bytes gzip-compressed as base64, one module per variant behind a dynamic import: the
// fallback where the file cannot be fetched (esbuild leaves the URL pointing beside the bundle, where
// nothing was copied; engines without fetch). Bundlers that split chunks load it only then.
function embedded(v: Variant): Promise<{ gzipBase64: string }> {
  switch (v) {
    case 'simd-shared':
      return import('./wasm/simd-shared.generated.js');
    case 'simd':
      return import('./wasm/simd.generated.js');
    case 'plain-shared':
      return import('./wasm/plain-shared.generated.js');
    case 'plain':
      return import('./wasm/plain.generated.js');
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

/** How the kernels of this process were loaded: from the .wasm file, or from the embedded copy (and why). */
export const wasmLoad: { source: 'file' | 'embedded' | null; reason: string } = { source: null, reason: '' };

/** The module compiled from the variant's file: read in Node, fetched and compiled while streaming elsewhere. */
async function compileFile(url: URL): Promise<WebAssembly.Module> {
  if (url.protocol === 'file:') {
    const fs = nodeBuiltin('node:fs');
    if (!fs) throw new Error('a file: URL outside Node');
    return WebAssembly.compile((await fs.promises.readFile(url)) as BufferSource);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} answered ${response.status}`);
  // compileStreaming needs the server to say application/wasm; other servers get the plain compile
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/.test(response.headers.get('content-type') ?? '')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/** gunzip through the streams API (every engine with WebAssembly SIMD, Node 18+, workers included). */
async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  if (typeof DecompressionStream !== 'function') throw new Error('this engine has no DecompressionStream to unpack them');
  const unpacked = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(unpacked).arrayBuffer());
}

async function compileVariant(v: Variant): Promise<WebAssembly.Module> {
  let why: string;
  try {
    const module = await compileFile(wasmUrl(v));
    wasmLoad.source = 'file';
    wasmLoad.reason = '';
    return module;
  } catch (e) {
    why = (e as Error)?.message ?? String(e);
  }
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile((await gunzip(decodeBase64((await embedded(v)).gzipBase64))) as BufferSource);
  } catch (e) {
    // a corrupted or truncated copy fails in the gunzip (zlib's 'unexpected end of file', 'incorrect
    // header check') or the compile: said as what it is, not as zlib's or the engine's bare error
    throw new KernelLoadError(`the CPU path's ${v} kernels could not be loaded: the ${v}.wasm file failed (${why}), and the copy embedded in the library could not be unpacked and compiled (${(e as Error)?.message ?? String(e)}): the library's files are damaged or incomplete`);
  }
  wasmLoad.source = 'embedded';
  wasmLoad.reason = `the ${v}.wasm file could not be loaded (${why}); the copy embedded in the library was used`;
  return module;
}

const moduleCache = new Map<Variant, Promise<WebAssembly.Module>>();

/** The compiled kernel module for a flavor and memory kind; compiled once per process and cached. */
export function compileKernels(flavor: WasmFlavor, shared: boolean): Promise<WebAssembly.Module> {
  const v: Variant = `${flavor}${shared ? '-shared' : ''}`;
  let p = moduleCache.get(v);
  if (!p) {
    // a failure is not kept: the next runtime tries again (a chunk lost to the network may come next time)
    p = compileVariant(v).catch((e: unknown) => {
      moduleCache.delete(v);
      throw e;
    });
    moduleCache.set(v, p);
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
