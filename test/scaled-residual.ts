/**
 * Plain-f64 norms and residuals for the attack tests whose entries reach f64's ends: every square is
 * taken after dividing by max |vᵢ|, so entries near 1e±300 neither overflow nor underflow.
 */
import type { CSRMatrix } from '../src/formats/csr.js';

/** ‖v‖₂ through max |vᵢ| (0, NaN or ±Inf max returned as it is) */
export function scaledNorm(v: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i]));
  if (!(m > 0) || !Number.isFinite(m)) return m;
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] / m) ** 2;
  return m * Math.sqrt(s);
}

/** b − A·x of a real CSR in plain f64 */
export function residualVector(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const r = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) {
    let s = b[i];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s -= A.values[k] * x[A.colIdx[k]];
    r[i] = s;
  }
  return r;
}

/** ‖b − A·x‖ / ‖b‖ in plain f64 */
export function scaledRelativeResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  return scaledNorm(residualVector(A, x, b)) / scaledNorm(b);
}
