/**
 * CG on poisson3D_64 to 1e-8 in f64 on 2 threads: total time, time per iteration, and where it goes
 * (SpMV, vector operations, and the pool's dispatch round trips inside them), with the fused vector
 * step (x, r and ‖r‖² in one pass) and with separate operations, so the faster is known.
 */
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { cg } from '../src/solvers/krylov/cg.js';
import type { SolverOps } from '../src/solvers/ops.js';
import type { CpuVector } from '../src/cpu/resident.js';
import { dispatchRoundTripUs } from './parallel.js';

export interface CgFigures {
  threads: number;
  fused: boolean;
  iterations: number;
  totalMs: number;
  perIterationMs: number;
  spmvMs: number;
  vectorMs: number;
  calls: number;
  dispatchUs: number;
}

/** Wraps every operation to add its wall time to a bucket. */
function timed(ops: SolverOps<CpuVector>, buckets: Record<'spmv' | 'vector', number>, counter: { calls: number }): SolverOps<CpuVector> {
  const wrap =
    <A extends unknown[], R>(bucket: 'spmv' | 'vector', f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      const r = await f(...a);
      buckets[bucket] += performance.now() - t;
      counter.calls++;
      return r;
    };
  return {
    ...ops,
    spmv: wrap('spmv', ops.spmv),
    axpy: wrap('vector', ops.axpy),
    aypx: wrap('vector', ops.aypx),
    copy: wrap('vector', ops.copy),
    dot: wrap('vector', ops.dot),
    nrm2: wrap('vector', ops.nrm2),
    precondition: ops.precondition && wrap('vector', ops.precondition),
    cgUpdate: ops.cgUpdate && wrap('vector', ops.cgUpdate),
  };
}

export async function benchCg(threads = 2, fused = true, n = 64): Promise<CgFigures> {
  const rt = await createRuntime({ workers: threads });
  const A = poisson3D(n);
  const h = rt.upload(A);
  const b = new Float64Array(A.rows).fill(1);
  await rt.cg(h, b, { tol: 1e-8, maxIter: 20 }); // warm-up: kernels compiled, partitions cached
  const B = rt.cpuBackend;
  const M = B.upload(A);
  const ops = cpuSolverOps(B, M, 'none', fused);
  const bv = B.vector('f64', A.rows);
  bv.view().set(b);
  const buckets = { spmv: 0, vector: 0 };
  const counter = { calls: 0 };
  const t0 = performance.now();
  const r = await cg(timed(ops, buckets, counter), bv, { tol: 1e-8 });
  const totalMs = performance.now() - t0;
  ops.release(r.x);
  ops.dispose();
  bv.dispose();
  M.dispose();
  rt.dispose();
  const dispatchUs = threads > 1 ? await dispatchRoundTripUs(threads) : 0;
  return {
    threads,
    fused,
    iterations: r.iterations,
    totalMs,
    perIterationMs: totalMs / r.iterations,
    spmvMs: buckets.spmv,
    vectorMs: buckets.vector,
    calls: counter.calls,
    dispatchUs,
  };
}

export function formatCg(f: CgFigures): string {
  const pct = (x: number) => `${((100 * x) / f.totalMs).toFixed(0)}%`;
  const dispatchMs = (f.calls * f.dispatchUs) / 1000;
  return [
    `CG poisson3D_64 f64 to 1e-8, ${f.threads} thread(s), ${f.fused ? 'fused' : 'separate'} vector step: ${f.iterations} iterations, ${f.totalMs.toFixed(0)} ms total, ${f.perIterationMs.toFixed(3)} ms per iteration`,
    `  SpMV ${f.spmvMs.toFixed(0)} ms (${pct(f.spmvMs)}), vector operations ${f.vectorMs.toFixed(0)} ms (${pct(f.vectorMs)}), ` +
      `the rest (solver bookkeeping) ${(f.totalMs - f.spmvMs - f.vectorMs).toFixed(0)} ms`,
    `  ${f.calls} operations; at a ${f.dispatchUs.toFixed(1)} µs round trip, dispatch accounts for ≈ ${dispatchMs.toFixed(1)} ms (${pct(dispatchMs)}) of that`,
  ].join('\n');
}
