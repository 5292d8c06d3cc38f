/**
 * The worker-pool benchmark: CSR SpMV f32/f64 on poisson3D_64, poisson3D_128 and a power-law matrix
 * for 1…cores threads, against its peers measured in the same run (the plain JS CSR loop,
 * @thi.ng/sparse, mathjs on the smaller matrix, native C with OpenMP at the same thread counts), and
 * the dispatch round trip of an empty operation.
 */
import os from 'node:os';
import { createRuntime } from '../src/runtime/runtime.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { allocValues, componentBytes, type DType } from '../src/dtype.js';
import { effectiveGBs, maxRelativeError, median, spmvGflops, timeMedianMs } from '../src/metrics.js';
import { jsCsrSpmv } from '../src/host-spmv.js';
import { nativeCsrSpmv } from './peers/native.js';
import { benchVector, referenceProduct } from './bench-data.js';
import { thingSparseSpmv } from './peers/thing-sparse.js';
import { mathjsSpmv } from './peers/mathjs.js';
import type { PeerResult } from './peers/common.js';

export interface ParallelRow {
  matrix: string;
  dtype: DType;
  impl: string;
  threads: number;
  ms: number | null;
  note?: string;
}

const MIN_MS = 400;

/** Median µs of a round trip through the pool for a job with nothing to do. */
export async function dispatchRoundTripUs(threads: number, reps = 5000): Promise<number> {
  const rt = await createRuntime({ workers: threads });
  const pool = rt.cpuBackend.workerPool!;
  const job = { kernel: 0, args: [], bounds: new Int32Array(pool.chunks + 1) };
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await pool.run(job);
    times.push(performance.now() - t);
  }
  rt.dispose();
  return median(times.slice(reps / 5)) * 1000;
}

export async function benchParallel(log: (s: string) => void): Promise<{ rows: ParallelRow[]; dispatchUs: number }> {
  const cores = os.availableParallelism();
  // SIMDGL_THREADS=1,2,4,8,16 measures only those thread counts (default 1…cores)
  const threadCounts = process.env.SIMDGL_THREADS ? process.env.SIMDGL_THREADS.split(',').map(Number) : Array.from({ length: cores }, (_, i) => i + 1);
  const matrices: Array<[string, () => CSRMatrix]> = [
    ['poisson3D_64', () => poisson3D(64)],
    ['poisson3D_128', () => poisson3D(128)],
    ['powerlaw_250k', () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 })],
  ];
  const rows: ParallelRow[] = [];
  const runtimes = await Promise.all(threadCounts.map((t) => createRuntime({ workers: t })));
  for (const [name, make] of matrices) {
    const base = make();
    for (const dtype of ['f32', 'f64'] as DType[]) {
      const A = base.astype(dtype);
      const x = benchVector(dtype, A.cols);
      const yRef = referenceProduct(base, x);
      const tol = dtype === 'f32' ? 1e-5 : 1e-12;
      const check = (impl: string, threads: number, r: PeerResult): void => {
        if ('skipped' in r) {
          rows.push({ matrix: name, dtype, impl, threads, ms: null, note: r.skipped });
          return;
        }
        const err = maxRelativeError(r.y, yRef);
        rows.push({ matrix: name, dtype, impl, threads, ms: r.ms, note: err > tol ? `WRONG RESULT (error ${err.toExponential(1)})` : undefined });
      };
      for (const [i, rt] of runtimes.entries()) {
        const h = rt.upload(A);
        const xv = rt.vector(x);
        const yv = rt.vector(A.rows, dtype);
        const ms = await timeMedianMs(() => rt.spmv(h, xv, { y: yv }), MIN_MS);
        check('simdgl', threadCounts[i], { ms, y: await yv.read() });
        h.dispose();
        xv.dispose();
        yv.dispose();
        log(`  ${name} ${dtype} simdgl ×${threadCounts[i]}: ${ms.toFixed(3)} ms`);
        check('native C', threadCounts[i], await nativeCsrSpmv(A, x, threadCounts[i]));
      }
      const yJs = allocValues(dtype, A.rows);
      check('plain JS', 1, { ms: await timeMedianMs(() => jsCsrSpmv(A, x, yJs), MIN_MS), y: yJs });
      if (dtype === 'f64') {
        check('@thi.ng/sparse', 1, await thingSparseSpmv(A, x, { minMs: MIN_MS }));
        if (name === 'poisson3D_64') check('mathjs', 1, await mathjsSpmv(A, x, { minMs: MIN_MS }));
      }
      printTable(log, name, A, dtype, rows.filter((r) => r.matrix === name && r.dtype === dtype), threadCounts);
    }
  }
  for (const rt of runtimes) rt.dispose();
  const dispatchUs = await dispatchRoundTripUs(Math.min(2, cores));
  return { rows, dispatchUs };
}

function printTable(log: (s: string) => void, name: string, A: CSRMatrix, dtype: DType, rows: ParallelRow[], threadCounts: number[]): void {
  const bytes = A.storageBytes() + (A.rows + A.cols) * componentBytes(dtype);
  const ours = (t: number) => rows.find((r) => r.impl === 'simdgl' && r.threads === t)?.ms ?? null;
  const one = ours(1);
  log(`\n${name} ${dtype}  ${A.rows} rows, nnz ${A.nnz}`);
  log('impl             threads       ms  GFLOP/s     GB/s  scaling  peer/simdgl');
  for (const r of rows) {
    const base = ours(r.threads) ?? ours(1);
    const cells = [
      r.impl.padEnd(15),
      String(r.threads).padStart(8),
      r.ms === null ? '       -' : r.ms.toFixed(3).padStart(9),
      r.ms === null ? '' : spmvGflops(A.nnz, false, r.ms / 1e3).toFixed(2).padStart(8),
      r.ms === null ? '' : effectiveGBs(bytes, r.ms / 1e3).toFixed(2).padStart(8),
      r.impl === 'simdgl' && one && r.ms ? `${(one / r.ms).toFixed(2)}×`.padStart(8) : ''.padStart(8),
      r.impl !== 'simdgl' && r.ms && base ? `${(r.ms / base).toFixed(2)}×`.padStart(12) : '',
      r.note ? ` ${r.note}` : '',
    ];
    log(cells.join(' '));
  }
  void threadCounts;
}
