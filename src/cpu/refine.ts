/**
 * Iterative refinement of an f32 DIA matrix kept on the CPU pool (SolverOps.refinement, driven by
 * src/solvers/solve.ts: f32 CG's residual replacements, or restarted refinement): b and x in f64, r =
 * b − A·x recomputed in f64 from A's f32 values (assembly/cg_fused.ts refine_residual_dia_f32) after
 * each correction, rounded to f32 for the inner solve. Where the host did it (hostRefinement) each
 * replacement cost a host product (5.5–6.4 ms for poisson3D(64), load 6–7), a read and an upload,
 * against 1.0–1.1 ms here.
 */
import type { PathRefinement } from '../solvers/ops.js';
import type { CpuBackend } from './backend.js';
import type { CpuMatrix, CpuVector } from './resident.js';
import { sumPartials } from './blas1.js';

/** Whether cpuRefinement takes A: f32 values in DIA, square. */
export function refinesOnPool(M: CpuMatrix): boolean {
  return M.dtype === 'f32' && M.format === 'dia' && M.rows === M.cols;
}

/** Sets up refinement of A·x = b from x0 (else 0) for a matrix refinesOnPool accepts. */
export async function cpuRefinement(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined): Promise<PathRefinement<CpuVector>> {
  const n = M.rows;
  const bv = B.vector('f64', n);
  let x = B.vector('f64', n);
  let next = B.vector('f64', n);
  const rhs = B.vector('f32', n);
  const vectors = () => [bv, x, next, rhs];
  // rhs ← b − A·v in f32, returning ‖b − A·v‖ in f64 (NaN when not finite)
  const residual = async (v: CpuVector): Promise<number> => {
    const parts = await B.runReduction('refine_residual_dia_f32', () => [M.ptr('offsets'), M.params.ndiag, M.ptr('data'), M.params.pitch, n, v.ptr, bv.ptr, rhs.ptr], n);
    const norm = Math.sqrt(sumPartials(parts)[0]);
    return Number.isFinite(norm) ? norm : NaN;
  };
  let bnorm = 0;
  let rnorm: number;
  try {
    bv.view().set(b);
    x.view().fill(0);
    for (let i = 0; i < n; i++) bnorm += b[i] * b[i];
    bnorm = Math.sqrt(bnorm);
    if (x0) x.view().set(x0);
    rnorm = await residual(x);
  } catch (e) {
    for (const v of vectors()) v.dispose();
    throw e;
  }
  return {
    bnorm: Number.isFinite(bnorm) ? bnorm : NaN,
    rnorm,
    // r is computed in f64, as the host's residual is
    roundoff: 0,
    rhs: () => rhs,
    async correct(d) {
      // next ← x + d; a correction holding Inf or NaN is not applied: x stays the last finite iterate
      const check = sumPartials(await B.runReduction('refine_add_f32', () => [x.ptr, d.ptr, next.ptr], n))[0];
      if (Number.isNaN(check)) return NaN;
      const norm = await residual(next);
      if (Number.isNaN(norm)) {
        // rhs must stay the residual of the x kept
        await residual(x);
        return NaN;
      }
      [x, next] = [next, x];
      return norm;
    },
    read: async () => new Float64Array(x.view() as Float64Array),
    dispose: () => {
      for (const v of vectors()) v.dispose();
    },
  };
}
