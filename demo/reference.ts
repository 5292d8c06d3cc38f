// f64 references computed in the page, against which both paths' results are measured.
import type { CSRMatrix } from '../src/formats/index.js';
import { isComplex } from '../src/dtype.js';

/** y = A·x in f64 (c128 for complex: interleaved re, im). */
export function spmvRef(A: CSRMatrix, x: ArrayLike<number>): Float64Array {
  const { rowPtr, colIdx, values } = A;
  if (!isComplex(A.dtype)) {
    const y = new Float64Array(A.rows);
    for (let i = 0; i < A.rows; i++) {
      let s = 0;
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) s += values[k] * x[colIdx[k]];
      y[i] = s;
    }
    return y;
  }
  const y = new Float64Array(2 * A.rows);
  for (let i = 0; i < A.rows; i++) {
    let re = 0;
    let im = 0;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const ar = values[2 * k], ai = values[2 * k + 1], j = 2 * colIdx[k];
      re += ar * x[j] - ai * x[j + 1];
      im += ar * x[j + 1] + ai * x[j];
    }
    y[2 * i] = re;
    y[2 * i + 1] = im;
  }
  return y;
}

/** ‖b − A·x‖ / ‖b‖ in f64 (real or interleaved complex). */
export function relResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  const ax = spmvRef(A, x);
  let r2 = 0, b2 = 0;
  for (let i = 0; i < b.length; i++) {
    r2 += (b[i] - ax[i]) ** 2;
    b2 += b[i] ** 2;
  }
  return Math.sqrt(r2 / (b2 || 1));
}

/** Plain f64 Conjugate Gradient (real SPD A), the reference solution of the CG race. */
export function cgRef(A: CSRMatrix, b: Float64Array, tol = 1e-12, maxIter = 10 * A.rows + 100): { x: Float64Array; iterations: number } {
  const n = A.rows;
  const x = new Float64Array(n), r = Float64Array.from(b), p = Float64Array.from(b);
  const dot = (u: Float64Array, v: Float64Array) => { let s = 0; for (let i = 0; i < n; i++) s += u[i] * v[i]; return s; };
  const bb = Math.sqrt(dot(b, b)) || 1;
  let rr = dot(r, r);
  let it = 0;
  while (it < maxIter && Math.sqrt(rr) > tol * bb) {
    const q = spmvRef(A, p);
    const alpha = rr / dot(p, q);
    for (let i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * q[i]; }
    const rr1 = dot(r, r);
    const beta = rr1 / rr;
    rr = rr1;
    for (let i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
    it++;
  }
  return { x, iterations: it };
}

/** C = A·B in f64, row-major real or interleaved complex. */
export function gemmRef(n: number, a: ArrayLike<number>, b: ArrayLike<number>, complex: boolean): Float64Array {
  if (!complex) {
    const c = new Float64Array(n * n);
    const row = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      row.fill(0);
      for (let k = 0; k < n; k++) {
        const aik = a[i * n + k];
        const off = k * n;
        for (let j = 0; j < n; j++) row[j] += aik * b[off + j];
      }
      c.set(row, i * n);
    }
    return c;
  }
  const c = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const ar = a[2 * (i * n + k)], ai = a[2 * (i * n + k) + 1];
      for (let j = 0; j < n; j++) {
        const br = b[2 * (k * n + j)], bi = b[2 * (k * n + j) + 1];
        c[2 * (i * n + j)] += ar * br - ai * bi;
        c[2 * (i * n + j) + 1] += ar * bi + ai * br;
      }
    }
  }
  return c;
}

/** The transpose of an rows×cols row-major matrix (comp = 1 real, 2 complex). */
export function transposeRef(rows: number, cols: number, a: ArrayLike<number>, comp: number): Float64Array {
  const t = new Float64Array(rows * cols * comp);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      for (let c = 0; c < comp; c++) t[(j * rows + i) * comp + c] = a[(i * cols + j) * comp + c];
    }
  }
  return t;
}
