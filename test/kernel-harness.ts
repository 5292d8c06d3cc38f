/**
 * Test harness for calling kernels directly: one heap, both builds (SIMD and plain) over it, and
 * helpers to copy arrays in and out. Used by the kernel unit tests; the public API tests go through
 * createRuntime instead.
 */
import { WasmHeap, type Region } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels, type KernelExports, type WasmFlavor } from '../src/cpu/wasm.js';

export interface Harness {
  heap: WasmHeap;
  kernels: KernelExports;
  /** the exported kernel `name`; throws when the build lacks it */
  kernel(name: string): KernelExports[string];
  /** copies an array into the heap and returns its region (ptr = region.ptr) */
  put(a: Float32Array | Float64Array | Int32Array | Int16Array | Uint8Array): Region;
  /** a zeroed region of `bytes` */
  zeros(bytes: number): Region;
  /** copies `length` elements of kind out of a region */
  get(r: Region, kind: 'f32' | 'f64' | 'i32', length?: number): Float32Array | Float64Array | Int32Array;
}

export async function makeHarness(flavor: WasmFlavor): Promise<Harness> {
  const heap = new WasmHeap({ shared: true });
  const kernels = await instantiateKernels(await compileKernels(flavor, true), heap.memory);
  return {
    heap,
    kernels,
    kernel: (name) => {
      const f = kernels[name];
      if (!f) throw new Error(`missing kernel ${name}`);
      return f;
    },
    put: (a) => heap.allocCopy(a),
    zeros: (bytes) => {
      const r = heap.alloc(bytes);
      r.view('u8').fill(0);
      return r;
    },
    get: (r, kind, length) => r.view(kind, length).slice(),
  };
}

/** frees every region */
export const disposeAll = (...rs: Region[]) => rs.forEach((r) => r.dispose());

// ---- the kernels' dtypes, and random arrays of them ----

export type DT = 'f32' | 'f64' | 'c64' | 'c128';
export const DTYPES: DT[] = ['f32', 'f64', 'c64', 'c128'];
export const isC = (dt: DT) => dt === 'c64' || dt === 'c128';
/** components per element */
export const comp = (dt: DT) => (isC(dt) ? 2 : 1);
export const kind = (dt: DT) => (dt === 'f32' || dt === 'c64' ? 'f32' : 'f64') as 'f32' | 'f64';
export const prec = (dt: DT) => (kind(dt) === 'f32' ? 'single' : 'double') as 'single' | 'double';
export const Arr = (dt: DT) => (kind(dt) === 'f32' ? Float32Array : Float64Array);

/** an array of dt with `len` components, component k = f(k) (rounded to the dtype's precision) */
export function fromFn(dt: DT, len: number, f: (k: number) => number): Float32Array | Float64Array {
  const a = new (Arr(dt))(len);
  for (let k = 0; k < len; k++) a[k] = f(k);
  return a;
}
/** `n` elements of dt, every component uniform in [−mag, mag) from `r` (e.g. test/random.ts's mulberry32) */
export const randArr = (dt: DT, n: number, r: () => number, mag = 1) => fromFn(dt, n * comp(dt), () => (2 * r() - 1) * mag);

/** a complex scalar as [re, im], or a real one */
export type Cx = number | [number, number];
export const re = (a: Cx) => (typeof a === 'number' ? a : a[0]);
export const im = (a: Cx) => (typeof a === 'number' ? 0 : a[1]);
