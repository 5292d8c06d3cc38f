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
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  const { d, constraints } = saddleDiagonal(A, 'K', 'none', "'amg', 'ic0' or 'jacobi'");
  let kept = 0;
  for (let i = 0; i < n; i++) if (d[i] !== 0) for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (d[colIdx[k]] !== 0) kept++;
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

/**
 * The block upper-triangular preconditioner P = [[F, B₁ᵀ], [0, −S]] of a nonsymmetric saddle point
 * A = [[F, B₁ᵀ], [B₂, 0]] (the Oseen equations of a linearized Navier–Stokes step, constraints of a
 * nonsymmetric operator), for a nonsymmetric Krylov method (BiCGSTAB under 'auto'): with P exact, A·P⁻¹
 * has the eigenvalue 1 and those of S_true·S⁻¹, so it needs few iterations where the block-diagonal one
 * (MINRES's) made restarted GMRES stall (Elman, Silvester & Wathen, ch. 9). S is the diagonal of B₂·diag(F)⁻¹·B₁ᵀ, sᵢ = Σⱼ aᵢⱼ·aⱼᵢ / fⱼⱼ.
 * z = P⁻¹·r as z_p = −S⁻¹·r_p, z_u = F̃⁻¹·(r_u + B₁ᵀ·S⁻¹·r_p): `T` maps r to the velocity right-hand
 * side (its constraint rows empty), `M` is the matrix whose multigrid cycle is F̃⁻¹ — F's symmetric
 * part (F + Fᵀ)/2, which smoothed aggregation takes, beside the constraints' |sᵢ| (the cycle maps their
 * zero right-hand side to zero) — and `Z` adds z_p (its velocity rows empty).
 */
export function saddleTriangularMatrices(A: CSRMatrix): { M: CSRMatrix; T: CSRMatrix; Z: CSRMatrix; constraints: number } {
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  const { d, constraints } = saddleDiagonal(A, 'F', 'ilu0', "'ilu0' or 'jacobi'");
  const At = A.transpose();
  const s = new Float64Array(n);
  let mNnz = 0;
  let tNnz = 0;
  for (let i = 0; i < n; i++) {
    if (d[i] === 0) {
      // sᵢ = Σⱼ aᵢⱼ·aⱼᵢ / fⱼⱼ over F's columns: row i of A against row i of Aᵀ, both sorted
      let sum = 0;
      for (let k = rowPtr[i], q = At.rowPtr[i], qe = At.rowPtr[i + 1]; k < rowPtr[i + 1]; k++) {
        const j = colIdx[k];
        while (q < qe && At.colIdx[q] < j) q++;
        if (q < qe && At.colIdx[q] === j && d[j] !== 0) sum += (values[k] * At.values[q]) / d[j];
      }
      if (!(sum !== 0 && Math.abs(sum) < Infinity)) throw new UnsupportedError(`saddle: constraint row ${i} couples to no unknown of F through both blocks (its Schur diagonal is ${sum}); A is singular there`);
      s[i] = sum;
      mNnz++;
      continue;
    }
    tNnz++;
    mNnz += mergedCount(rowPtr, colIdx, At.rowPtr, At.colIdx, i, d);
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (d[colIdx[k]] === 0) tNnz++;
  }
  const mPtr = new Int32Array(n + 1);
  const mIdx = new Int32Array(mNnz);
  const mVal = new Float64Array(mNnz);
  const tPtr = new Int32Array(n + 1);
  const tIdx = new Int32Array(tNnz);
  const tVal = new Float64Array(tNnz);
  const zPtr = new Int32Array(n + 1);
  const zIdx = new Int32Array(constraints);
  const zVal = new Float64Array(constraints);
  let m = 0;
  let t = 0;
  let z = 0;
  for (let i = 0; i < n; i++) {
    if (d[i] === 0) {
      mIdx[m] = i;
      mVal[m++] = Math.abs(s[i]);
      zIdx[z] = i;
      zVal[z++] = -1 / s[i];
    } else {
      // M: (F + Fᵀ)/2 over F's columns, the union of row i of A and of Aᵀ
      let k = rowPtr[i];
      let q = At.rowPtr[i];
      const ke = rowPtr[i + 1];
      const qe = At.rowPtr[i + 1];
      while (k < ke || q < qe) {
        const j = k < ke && (q >= qe || colIdx[k] <= At.colIdx[q]) ? colIdx[k] : At.colIdx[q];
        let v = 0;
        if (k < ke && colIdx[k] === j) v += values[k++];
        if (q < qe && At.colIdx[q] === j) v += At.values[q++];
        if (d[j] === 0) continue;
        mIdx[m] = j;
        mVal[m++] = 0.5 * v;
      }
      // T: the identity on F's rows, and B₁ᵀ·S⁻¹'s entries aᵢⱼ / sⱼ (sorted: the diagonal among them)
      let placed = false;
      for (let k2 = rowPtr[i]; k2 < ke; k2++) {
        const j = colIdx[k2];
        if (!placed && j > i) {
          tIdx[t] = i;
          tVal[t++] = 1;
          placed = true;
        }
        if (d[j] !== 0) continue;
        tIdx[t] = j;
        tVal[t++] = values[k2] / s[j];
      }
      if (!placed) {
        tIdx[t] = i;
        tVal[t++] = 1;
      }
    }
    mPtr[i + 1] = m;
    tPtr[i + 1] = t;
    zPtr[i + 1] = z;
  }
  const cast = (X: CSRMatrix) => (A.dtype === 'f64' ? X : X.astype(A.dtype));
  return {
    M: cast(new CSRMatrix(n, n, 'f64', mPtr, mIdx, mVal)),
    T: cast(new CSRMatrix(n, n, 'f64', tPtr, tIdx, tVal)),
    Z: cast(new CSRMatrix(n, n, 'f64', zPtr, zIdx, zVal)),
    constraints,
  };
}

/** The columns of F (a nonzero diagonal in d) in row i of A or of Aᵀ, counted once. */
function mergedCount(aPtr: Int32Array, aIdx: Int32Array, tPtr: Int32Array, tIdx: Int32Array, i: number, d: Float64Array): number {
  let c = 0;
  let k = aPtr[i];
  let q = tPtr[i];
  const ke = aPtr[i + 1];
  const qe = tPtr[i + 1];
  while (k < ke || q < qe) {
    const j = k < ke && (q >= qe || aIdx[k] <= tIdx[q]) ? aIdx[k] : tIdx[q];
    if (k < ke && aIdx[k] === j) k++;
    if (q < qe && tIdx[q] === j) q++;
    if (d[j] !== 0) c++;
  }
  return c;
}

/**
 * A's diagonal and its count of zeros (the constraints), where A is a real matrix with some zero
 * diagonal entries and the others positive (`block`: the name of those unknowns' block); else the
 * UnsupportedError saying which, with `instead` (and `other`, for a matrix with no constraint) to use.
 */
function saddleDiagonal(A: CSRMatrix, block: string, instead: string, other: string): { d: Float64Array; constraints: number } {
  if (isComplex(A.dtype)) throw new UnsupportedError(`saddle: takes real matrices, got ${A.dtype}; use 'ilu0' or 'none'`);
  const d = diagonalSums(A);
  let constraints = 0;
  for (let i = 0; i < A.rows; i++) {
    if (d[i] === 0) constraints++;
    else if (!(d[i] > 0)) throw new UnsupportedError(`saddle: the diagonal entry A[${i},${i}] is ${d[i]}; its block ${block} must have a positive diagonal, use '${instead}'`);
  }
  if (constraints === 0) throw new UnsupportedError(`saddle: A has no zero diagonal entry (no constraint block); use ${other}`);
  return { d, constraints };
}
