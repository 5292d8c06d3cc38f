import { components, isComplex } from '../../dtype.js';
import { CSRMatrix } from '../../formats/csr.js';
import { ilu0 } from './ilu0.js';

/** The zero-fill incomplete Cholesky factor L (A ≈ L·Lᴴ, L lower with a real positive diagonal). */
export interface IncompleteCholesky {
  L: CSRMatrix;
  /** Lᴴ, the upper factor the backward solve uses */
  LH: CSRMatrix;
  /** the diagonal shift needed (see IncompleteFactors.shift) */
  shift: number;
}

/**
 * IC(0) of a Hermitian (real symmetric) matrix with a symmetric pattern: its ILU(0) is L̃·D·L̃ᴴ up to
 * rounding (U = D·L̃ᴴ), so L = L̃·D^½, the textbook IC(0) factor. A pivot that is not positive (an
 * indefinite matrix, or one IC(0) breaks down on) shifts the diagonal as ILU(0) does. Null when every
 * shift fails.
 */
export function ic0(A: CSRMatrix): IncompleteCholesky | null {
  const f = ilu0(A, true);
  if (!f) return null;
  const { L: Lt, U, shift } = f;
  const n = A.rows;
  const c = components(Lt.dtype);
  const root = new Float64Array(n);
  // U's first entry of each row is its (real, positive) pivot
  for (let i = 0; i < n; i++) root[i] = Math.sqrt(U.values[c * U.rowPtr[i]]);
  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) ptr[i + 1] = ptr[i] + Lt.rowPtr[i + 1] - Lt.rowPtr[i] + 1;
  const idx = new Int32Array(ptr[n]);
  const val = new Float64Array(ptr[n] * c);
  for (let i = 0; i < n; i++) {
    let p = ptr[i];
    for (let k = Lt.rowPtr[i]; k < Lt.rowPtr[i + 1]; k++, p++) {
      const j = Lt.colIdx[k];
      idx[p] = j;
      for (let q = 0; q < c; q++) val[c * p + q] = Lt.values[c * k + q] * root[j];
    }
    idx[p] = i;
    val[c * p] = root[i];
  }
  const L = new CSRMatrix(n, n, isComplex(A.dtype) ? 'c128' : 'f64', ptr, idx, val);
  return { L, LH: L.conjugateTranspose(), shift };
}
