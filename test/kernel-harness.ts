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
  /** copies an array into the heap and returns its region (ptr = region.ptr) */
  put(a: Float32Array | Float64Array | Int32Array): Region;
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
    put: (a) => heap.allocCopy(a),
    zeros: (bytes) => {
      const r = heap.alloc(bytes);
      r.view('u8').fill(0);
      return r;
    },
    get: (r, kind, length) => r.view(kind, length).slice(),
  };
}
