/**
 * Micro-benchmark of the CSR gather kernel alone: ms per SpMV (y = A·x) for the SIMD build, the plain
 * build and a plain JavaScript CSR loop over typed arrays, one thread, same data. Used to check the
 * "CSR SIMD ≥ 3× plain JS" goal without the runtime's dispatch overhead.
 */
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';

export interface RawCSR {
  rows: number;
  cols: number;
  ptr: Int32Array;
  idx: Int32Array;
  /** Float32Array for f32, Float64Array for f64 */
  values: Float32Array | Float64Array;
}

export interface CsrKernelTiming {
  simd: number;
  plain: number;
  js: number;
}

function jsCsr(ptr: Int32Array, idx: Int32Array, val: Float32Array | Float64Array, x: Float32Array | Float64Array, y: Float32Array | Float64Array) {
  const n = y.length;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = ptr[i], e = ptr[i + 1]; k < e; k++) s += val[k] * x[idx[k]];
    y[i] = s;
  }
}

/** Median-of-batches ms per call of `f`, running batches until `minMs` have elapsed. */
function time(f: () => void, minMs: number): number {
  for (let i = 0; i < 3; i++) f(); // warm up (tier-up of the JS loop, wasm compile tiers)
  const per: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || per.length < 5) {
    const s = performance.now();
    f();
    per.push(performance.now() - s);
  }
  per.sort((a, b) => a - b);
  return per[per.length >> 1];
}

export async function benchCsrKernels(A: RawCSR, minMs = 300): Promise<CsrKernelTiming> {
  const f32 = A.values instanceof Float32Array;
  const Ctor = f32 ? Float32Array : Float64Array;
  const x = Ctor.from({ length: A.cols }, (_, i) => Math.sin(i));
  const yJs = new Ctor(A.rows);
  const out: Partial<CsrKernelTiming> = { js: time(() => jsCsr(A.ptr, A.idx, A.values, x, yJs), minMs) };
  for (const flavor of ['simd', 'plain'] as const) {
    const heap = new WasmHeap({ shared: false, initialPages: 16 });
    const k = await instantiateKernels(await compileKernels(flavor, false), heap.memory);
    const rp = heap.allocCopy(A.ptr), ri = heap.allocCopy(A.idx), rv = heap.allocCopy(A.values), rx = heap.allocCopy(x);
    const ry = heap.alloc(A.rows * (f32 ? 4 : 8));
    const fn = k[f32 ? 'csr_f32' : 'csr_f64'];
    out[flavor] = time(() => fn(rp.ptr, ri.ptr, rv.ptr, rx.ptr, ry.ptr, 1, 0, 0, A.rows), minMs);
    // sanity: same result as the JS loop (up to summation order)
    const y = ry.view(f32 ? 'f32' : 'f64', A.rows);
    for (let i = 0; i < A.rows; i += 997) {
      if (Math.abs(y[i] - yJs[i]) > 1e-3 * (1 + Math.abs(yJs[i]))) throw new Error(`${flavor} csr mismatch at row ${i}`);
    }
  }
  return out as CsrKernelTiming;
}

/** 7-point 3-D Poisson matrix on an n³ grid (the usual SpMV benchmark shape), as raw CSR. */
export function poisson3DRaw(n: number, dtype: 'f32' | 'f64'): RawCSR {
  const N = n * n * n;
  const ptr = new Int32Array(N + 1);
  const idx: number[] = [];
  const val: number[] = [];
  for (let z = 0; z < n; z++)
    for (let yy = 0; yy < n; yy++)
      for (let xx = 0; xx < n; xx++) {
        const i = (z * n + yy) * n + xx;
        const nb: Array<[boolean, number]> = [
          [z > 0, i - n * n], [yy > 0, i - n], [xx > 0, i - 1], [true, i], [xx < n - 1, i + 1], [yy < n - 1, i + n], [z < n - 1, i + n * n],
        ];
        for (const [ok, j] of nb) if (ok) { idx.push(j); val.push(j === i ? 6 : -1); }
        ptr[i + 1] = idx.length;
      }
  return { rows: N, cols: N, ptr, idx: Int32Array.from(idx), values: (dtype === 'f32' ? Float32Array : Float64Array).from(val) };
}
