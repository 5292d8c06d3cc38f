import { isComplex } from '../../dtype.js';
import { UnsupportedError } from '../../errors.js';
import type { CSRMatrix } from '../../formats/csr.js';
import type { SolveStructure } from '../structure.js';
import { buildHierarchy, type AmgHierarchy, type AmgOptions } from './hierarchy.js';
import { amgInfo, checkAmgShape, type AmgInfo } from './info.js';
import type { SparseKernels, SparseSession } from './spgemm.js';

/**
 * The hierarchy of the 'amg' preconditioner, with the description explain shows. A complex, a
 * nonsymmetric matrix or one with a diagonal entry ≤ 0 is an UnsupportedError naming what to use
 * instead; so is one the setup finds indefinite (a negative Ritz value of D⁻¹A on some level, or a
 * negative pivot in the coarse Cholesky factorization). Never a silent divergence. `kernels` run the
 * setup's products and SpMVs (the CPU path's), in `session` where one is given (buildHierarchy's `open`).
 */
export function amgSetup(A: CSRMatrix, s: SolveStructure, kernels: SparseKernels, options: AmgOptions = {}, session?: SparseSession): { hierarchy: AmgHierarchy; info: AmgInfo; description: string } {
  if (isComplex(A.dtype) || !s.hermitian || !s.positiveDiagonal) {
    const why = isComplex(A.dtype) ? 'complex matrices are not supported' : !s.hermitian ? 'A is not symmetric' : 'a diagonal entry of A is ≤ 0';
    // a symmetric saddle point (zero diagonal entries): its own preconditioner runs AMG of its velocity block
    const instead = !isComplex(A.dtype) && s.hermitian && s.zeroDiagonals > 0 ? `'saddle' (A is a symmetric saddle point: ${s.zeroDiagonals} zero diagonal entries)` : `'ilu0' or 'jacobi'`;
    throw new UnsupportedError(`amg: smoothed aggregation needs a real symmetric matrix with a positive diagonal (${why}); use ${instead}`);
  }
  checkAmgShape(options, A.rows, 'amg');
  const hierarchy = buildHierarchy(A, kernels, options, session);
  const info = amgInfo(hierarchy);
  const description = `amg (smoothed aggregation, ${info.levels.length} levels [${info.levels.map((l) => l.rows).join(' → ')} rows], operator complexity ${info.operatorComplexity.toFixed(2)}, grid complexity ${info.gridComplexity.toFixed(2)}, ${info.cycle}, setup ${info.setupMs.toFixed(0)} ms; ${hierarchy.stopReason}; coarsest level ${info.coarse === 'dense' ? 'inverted dense' : 'factorized by sparse Cholesky'}: ${info.coarseReason})`;
  return { hierarchy, info, description };
}

/** Unknowns from which 'auto' prefers AMG to IC(0)/Chebyshev for a Laplacian-like SPD matrix (bench/amg.ts). */
export const AMG_AUTO_MIN_N = 50000;

/**
 * Whether 'auto' in rt.solve takes AMG: a real symmetric matrix with a positive diagonal and the sign
 * pattern of a diffusion stencil or graph Laplacian (laplacianLike), of at least AMG_AUTO_MIN_N rows,
 * where its iteration count stays flat while one-level preconditioners' grows. Returns the reason, or
 * undefined when it does not pay.
 */
export function amgPays(s: SolveStructure): string | undefined {
  if (!(s.hermitian && s.positiveDiagonal && s.laplacianLike && s.n >= AMG_AUTO_MIN_N)) return undefined;
  return `preconditioner amg: symmetric with Laplacian-like rows (off-diagonals ≤ 0, diagonally dominant) and ${s.n} ≥ ${AMG_AUTO_MIN_N} unknowns, where multigrid keeps the iterations flat as the grid grows`;
}
