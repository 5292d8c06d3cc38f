/**
 * Micro-benchmark of the CSR gather kernel alone: ms per SpMV (y = A·x) for the SIMD build, the plain
 * build and a plain JavaScript CSR loop over typed arrays, one thread, same data. Used to check the
 * "CSR SIMD ≥ 3× plain JS" goal without the runtime's dispatch overhead. Run it directly (poisson3D_64
 * and the power-law matrix of `npm run bench`, f32 and f64):
 *   npx esbuild bench/kernels-csr.ts --bundle --platform=node --format=esm --outfile=dist/kernels-csr.js && node dist/kernels-csr.js [rounds]
 */
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';

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
  // the loop of src/cli/js-csr.ts (jsCsrSpmv), on raw arrays
  const n = y.length;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let k = ptr[i]; k < ptr[i + 1]; k++) sum += val[k] * x[idx[k]];
    y[i] = sum;
  }
}

const median = (a: number[]): number => {
  const b = [...a].sort((p, q) => p - q);
  return b[b.length >> 1];
};

/**
 * Median ms per call of the JS loop, the SIMD build and the plain build, interleaved: `rounds` rounds,
 * each timing every contender over 5 calls (median), so load from other processes hits all alike.
 */
export async function benchCsrKernels(A: RawCSR, rounds = 15): Promise<CsrKernelTiming> {
  const f32 = A.values instanceof Float32Array;
  const Ctor = f32 ? Float32Array : Float64Array;
  const x = f32 ? Float32Array.from({ length: A.cols }, (_, i) => Math.sin(i)) : Float64Array.from({ length: A.cols }, (_, i) => Math.sin(i));
  const yJs = new Ctor(A.rows);
  const runs: Array<[keyof CsrKernelTiming, () => void]> = [['js', () => jsCsr(A.ptr, A.idx, A.values, x, yJs)]];
  const checks: Array<() => void> = [];
  for (const flavor of ['simd', 'plain'] as const) {
    const heap = new WasmHeap({ shared: false, initialPages: 16 });
    const k = await instantiateKernels(await compileKernels(flavor, false), heap.memory);
    const rp = heap.allocCopy(A.ptr), ri = heap.allocCopy(A.idx), rv = heap.allocCopy(A.values), rx = heap.allocCopy(x);
    const ry = heap.alloc(A.rows * (f32 ? 4 : 8));
    const fn = k[f32 ? 'csr_f32' : 'csr_f64'];
    runs.push([flavor, () => fn(rp.ptr, ri.ptr, rv.ptr, rx.ptr, ry.ptr, 1, 0, 0, A.rows)]);
    // sanity: same result as the JS loop (up to summation order)
    checks.push(() => {
      const y = ry.view(f32 ? 'f32' : 'f64', A.rows);
      for (let i = 0; i < A.rows; i += 997) {
        if (Math.abs(y[i] - yJs[i]) > 1e-3 * (1 + Math.abs(yJs[i]))) throw new Error(`${flavor} csr mismatch at row ${i}`);
      }
    });
  }
  const per: Record<string, number[]> = {};
  for (const [name, f] of runs) {
    per[name] = [];
    for (let i = 0; i < 5; i++) f(); // warm up (tier-up of the JS loop, wasm compile tiers)
  }
  checks.forEach((c) => c());
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of runs) {
      const t: number[] = [];
      for (let i = 0; i < 5; i++) {
        const s = performance.now();
        f();
        t.push(performance.now() - s);
      }
      per[name].push(median(t));
    }
  }
  return { js: median(per.js), simd: median(per.simd), plain: median(per.plain) };
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

if (typeof process !== 'undefined' && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const rounds = Number(process.argv[2] ?? 15);
  const mats = {
    poisson3D_64: () => poisson3D(64),
    powerlaw_250k: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  };
  for (const [name, load] of Object.entries(mats)) {
    const A = load();
    for (const dt of ['f32', 'f64'] as const) {
      const values = dt === 'f32' ? Float32Array.from(A.values) : Float64Array.from(A.values);
      const t = await benchCsrKernels({ rows: A.rows, cols: A.cols, ptr: A.rowPtr, idx: A.colIdx, values }, rounds);
      console.log(
        `${name} csr_${dt}: simd ${t.simd.toFixed(3)} ms, plain ${t.plain.toFixed(3)} ms, js ${t.js.toFixed(3)} ms — ` +
          `js/simd ${(t.js / t.simd).toFixed(2)}×, plain/simd ${(t.plain / t.simd).toFixed(2)}×`,
      );
    }
  }
}
