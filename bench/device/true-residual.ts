import type { CSRMatrix } from '../../src/formats/csr.js';

/** ‖b − A·x‖ / ‖b‖ in f64, on the host: the device scripts' independent check of a solve. */
export function trueResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  let rr = 0;
  let bb = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += A.values[k] * x[A.colIdx[k]];
    rr += (b[i] - s) ** 2;
    bb += b[i] * b[i];
  }
  return Math.sqrt(rr / bb);
}
