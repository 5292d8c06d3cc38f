/**
 * The block-diagonal preconditioner of a symmetric saddle point A = [[K, Bᵀ], [B, 0]] (Stokes, Lagrange
 * multipliers), in A's own numbering: the unknowns with a nonzero diagonal are K's, the others the
 * constraints'. M = [[K, 0], [0, S]] with S the diagonal of the Schur complement B·diag(K)⁻¹·Bᵀ — for
 * inf-sup stable discretizations spectrally equivalent to the pressure mass matrix, so MINRES with a
 * multigrid cycle of M converges in a number of iterations that hardly grows with the mesh (Silvester
 * & Wathen 1994; Elman, Silvester & Wathen, "Finite Elements and Fast Iterative Solvers", ch. 4). M is
 * one sparse matrix of A's size, symmetric positive definite where K is, whose constraint rows hold
 * only their diagonal: any preconditioner of M (AMG by default) is then M's blocks' preconditioners
 * side by side, on every path, with no gather or scatter.
 */
import { CSRMatrix, diagonalSums } from '../../formats/csr.js';
import { isComplex } from '../../dtype.js';
import { UnsupportedError } from '../../errors.js';

/** M of a real symmetric A with zero diagonal entries (see above); UnsupportedError where A is no such saddle point. */
export function saddleBlockMatrix(A: CSRMatrix): { M: CSRMatrix; constraints: number } {
  if (isComplex(A.dtype)) throw new UnsupportedError(`saddle: takes real matrices, got ${A.dtype}; use 'ilu0' or 'none'`);
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  const d = diagonalSums(A);
  let constraints = 0;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (d[i] === 0) constraints++;
    else if (!(d[i] > 0)) throw new UnsupportedError(`saddle: the diagonal entry A[${i},${i}] is ${d[i]}; its block K must be positive definite (a positive diagonal), use 'none'`);
    else for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (d[colIdx[k]] !== 0) kept++;
  }
  if (constraints === 0) throw new UnsupportedError(`saddle: A has no zero diagonal entry (no constraint block); use 'amg', 'ic0' or 'jacobi'`);
  const mPtr = new Int32Array(n + 1);
  const mIdx = new Int32Array(kept + constraints);
  const mVal = new Float64Array(kept + constraints);
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (d[i] !== 0) {
      // K's row: A's entries in K's columns (rows stay sorted)
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
        if (d[colIdx[k]] === 0) continue;
        mIdx[m] = colIdx[k];
        mVal[m++] = values[k];
      }
    } else {
      // S's diagonal: Σⱼ bᵢⱼ² / kⱼⱼ over K's columns (an entry between two constraints, outside B, is left out)
      let s = 0;
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (d[colIdx[k]] !== 0) s += (values[k] * values[k]) / d[colIdx[k]];
      if (!(s > 0 && s < Infinity)) throw new UnsupportedError(`saddle: constraint row ${i} couples to no unknown of K (its Schur diagonal is ${s}); A is singular there`);
      mIdx[m] = i;
      mVal[m++] = s;
    }
    mPtr[i + 1] = m;
  }
  const M = new CSRMatrix(n, n, 'f64', mPtr, mIdx, mVal);
  return { M: A.dtype === 'f64' ? M : M.astype(A.dtype), constraints };
}
