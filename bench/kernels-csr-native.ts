/**
 * CSR against the native C CSR (bench/native/spmv_csr.c, gcc -O3 -march=native, OpenMP) in the same
 * run: poisson3D_128 and the 1 M-row power-law matrix, f32 and f64, 1 and 2 threads, resident x and y
 * (`rt.spmv(h, xv, { y: yv })`, format 'csr'). Both sides are timed `rounds` times in alternation
 * (load from other processes hits both alike) and the medians of those medians are compared. Run:
 *   npx esbuild bench/kernels-csr-native.ts --bundle --platform=node --format=esm --packages=external --outfile=build/kernels-csr-native.js && node build/kernels-csr-native.js [rounds]
 */
import { createRuntime } from '../src/runtime/runtime.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { benchVector } from './bench-data.js';
import { median, maxRelativeError, timeMedianMs } from '../src/metrics.js';
import { nativeCsrSpmv } from './peers/native.js';

const rounds = Number(process.argv[2] ?? 3);
const matrices: Array<[string, () => CSRMatrix]> = [
  ['poisson3D_128', () => poisson3D(128)],
  ['powerlaw_1M', () => randomMatrix({ rows: 1e6, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 })],
];
const runtimes = new Map([1, 2].map((t) => [t, createRuntime({ workers: t })]));
console.log('CSR SpMV, resident vectors: ms per product (median of rounds), native / simdgl (goal ≥ 0.9×)');
console.log('matrix          dtype threads   simdgl  native C   ratio');
for (const [name, make] of matrices) {
  const base = make();
  for (const dtype of ['f32', 'f64'] as const) {
    const A = base.astype(dtype);
    const x = benchVector(dtype, A.cols) as Float32Array | Float64Array;
    for (const [threads, rtp] of runtimes) {
      const rt = await rtp;
      const h = rt.upload(A, { format: 'csr' });
      const xv = rt.vector(x);
      const yv = rt.vector(A.rows, dtype);
      const ours: number[] = [];
      const native: number[] = [];
      let err = 0;
      for (let r = 0; r < rounds; r++) {
        ours.push(await timeMedianMs(() => rt.spmv(h, xv, { y: yv }), 300));
        const n = await nativeCsrSpmv(A, x, threads, { minMs: 300 });
        if ('skipped' in n) throw new Error(n.skipped);
        native.push(n.ms);
        err = Math.max(err, maxRelativeError(await yv.read(), n.y));
      }
      h.dispose();
      xv.dispose();
      yv.dispose();
      const o = median(ours), nat = median(native);
      const bad = err > (dtype === 'f32' ? 1e-4 : 1e-12) ? `  MISMATCH ${err.toExponential(1)}` : '';
      console.log(`${name.padEnd(16)}${dtype.padEnd(6)}${String(threads).padStart(7)}${o.toFixed(2).padStart(9)}${nat.toFixed(2).padStart(10)}${(nat / o).toFixed(2).padStart(7)}×${bad}`);
    }
  }
}
for (const rt of runtimes.values()) (await rt).dispose();
