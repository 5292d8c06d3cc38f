import { CSRMatrix } from '../../formats/csr.js';
import type { PreconditionerOperator } from '../operator.js';
import type { ResidentOperator, SolverOps } from '../ops.js';
import type { AmgHierarchy } from './hierarchy.js';

/**
 * The V-cycle of a hierarchy made resident on a path, as a preconditioner: every level's A, D⁻¹, R, P
 * and the coarse inverse uploaded through ops.operator, the cycle made of the path's SpMV and BLAS-1
 * operations only, so it runs wherever the solve runs (CPU pool, WebGPU).
 *
 * SolverOps' vectors all have the fine level's length n, so a coarse level's matrices are stored
 * padded to n×n (rows past the level's size empty) and its vectors are length-n vectors whose tail
 * stays zero: BLAS-1 on a coarse level costs as much as on the fine one (the price of reusing the
 * solve's operations unchanged; a sized vector in SolverOps would remove it).
 *
 * Damped Jacobi (ω = (4/3)/ρ(D⁻¹A)) before and after the coarse correction, the same number of sweeps,
 * so the cycle is a symmetric positive definite operator for CG.
 */
export function vCycle<V>(ops: SolverOps<V>, h: AmgHierarchy): PreconditionerOperator<V> {
  const n = ops.n;
  const made: ResidentOperator<V>[] = [];
  const vectors: V[] = [];
  const op = (M: CSRMatrix) => {
    const r = ops.operator(padded(M, n));
    made.push(r);
    return r;
  };
  const vec = () => {
    const v = ops.vector();
    vectors.push(v);
    return v;
  };
  const last = h.levels.length - 1;
  try {
    const levels = h.levels.map((L, l) => ({
      // the fine level's A is the solve's own (ops.spmv); coarse ones are uploaded
      A: l === 0 ? undefined : op(L.A),
      dinv: l === last ? undefined : op(diagonal(L.dinv)),
      omega: 4 / 3 / L.rho,
      R: L.R && op(L.R),
      P: L.P && op(L.P),
      b: l === 0 ? undefined : vec(),
      x: l === 0 ? undefined : vec(),
      r: l === last ? undefined : vec(),
    }));
    const coarse = op(denseCSR(h.coarseInverse, h.levels[last].A.rows));
    const sweeps = h.options.sweeps;
    const residual = async (l: number, b: V, x: V, r: V) => {
      await ops.copy(b, r);
      const A = levels[l].A;
      if (A) await A.apply(x, r, -1, 1);
      else await ops.spmv(x, r, -1, 1);
    };
    const cycle = async (l: number, b: V, x: V): Promise<void> => {
      if (l === last) return coarse.apply(b, x, 1, 0);
      const L = levels[l];
      const [dinv, r, R, P] = [L.dinv!, L.r!, L.R!, L.P!];
      const next = levels[l + 1];
      await dinv.apply(b, x, L.omega, 0);
      for (let s = 1; s < sweeps; s++) {
        await residual(l, b, x, r);
        await dinv.apply(r, x, L.omega, 1);
      }
      await residual(l, b, x, r);
      await R.apply(r, next.b!, 1, 0);
      await cycle(l + 1, next.b!, next.x!);
      await P.apply(next.x!, x, 1, 1);
      for (let s = 0; s < sweeps; s++) {
        await residual(l, b, x, r);
        await dinv.apply(r, x, L.omega, 1);
      }
    };
    return {
      method: `V-cycle over ${h.levels.length} levels (${sweeps} damped-Jacobi sweep${sweeps > 1 ? 's' : ''} before and after, dense inverse of ${h.levels[last].A.rows} rows)`,
      apply: (r, z) => cycle(0, r, z),
      dispose: () => {
        for (const m of made) m.dispose();
        for (const v of vectors) ops.release(v);
      },
    };
  } catch (e) {
    for (const m of made) m.dispose();
    for (const v of vectors) ops.release(v);
    throw e;
  }
}

/** M (at most n×n) as an n×n matrix: the rows past M's are empty. */
function padded(M: CSRMatrix, n: number): CSRMatrix {
  if (M.rows === n && M.cols === n) return M;
  const ptr = new Int32Array(n + 1);
  ptr.set(M.rowPtr);
  ptr.fill(M.rowPtr[M.rows], M.rows + 1);
  return new CSRMatrix(n, n, 'f64', ptr, M.colIdx, M.values);
}

function diagonal(d: Float64Array): CSRMatrix {
  const n = d.length;
  return new CSRMatrix(n, n, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, (_, i) => i), d);
}

function denseCSR(a: Float64Array, n: number): CSRMatrix {
  const ptr = Int32Array.from({ length: n + 1 }, (_, i) => i * n);
  const idx = Int32Array.from({ length: n * n }, (_, k) => k % n);
  return new CSRMatrix(n, n, 'f64', ptr, idx, a);
}
