import { div, type C } from '../krylov/complex.js';
import { components, isComplex } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { CSRMatrix } from '../../formats/csr.js';

/**
 * The block size 'auto' picks: the largest b ≤ 6 dividing n for which every run of b rows shares one
 * column pattern (the unknowns of one node in a stiffness matrix: bcsstk's 6, 3 or 2), else 4.
 */
export function detectBlockSize(A: CSRMatrix): number {
  const n = A.rows;
  for (const b of [6, 5, 4, 3, 2]) {
    if (n % b || n < 2 * b) continue;
    let same = true;
    for (let s = 0; s < n && same; s += b) {
      const len = A.rowPtr[s + 1] - A.rowPtr[s];
      for (let i = s + 1; i < s + b && same; i++) {
        if (A.rowPtr[i + 1] - A.rowPtr[i] !== len) same = false;
        else for (let k = 0; k < len && same; k++) if (A.colIdx[A.rowPtr[i] + k] !== A.colIdx[A.rowPtr[s] + k]) same = false;
      }
    }
    if (same) return b;
  }
  return 4;
}

/**
 * The inverses of A's diagonal blocks (rows and columns [s, s + b), the last block shorter) as one
 * block-diagonal CSR in f64/c128, each inverted by Gauss–Jordan with partial pivoting. A singular
 * block is a ShapeError naming its rows.
 */
export function blockDiagonalInverse(A: CSRMatrix, b: number): CSRMatrix {
  const n = A.rows;
  const c = components(A.dtype);
  const complex = isComplex(A.dtype);
  let nnz = 0;
  for (let s = 0; s < n; s += b) nnz += Math.min(b, n - s) ** 2;
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(nnz);
  const val = new Float64Array(nnz * c);
  let p = 0;
  for (let s = 0; s < n; s += b) {
    const m = Math.min(b, n - s);
    // [block | I] in complex arithmetic (im = 0 for real)
    const w = 2 * m;
    const re = new Float64Array(m * w);
    const im = new Float64Array(m * w);
    for (let i = 0; i < m; i++) {
      re[i * w + m + i] = 1;
      for (let k = A.rowPtr[s + i]; k < A.rowPtr[s + i + 1]; k++) {
        const j = A.colIdx[k] - s;
        if (j < 0 || j >= m) continue;
        re[i * w + j] += A.values[c * k];
        if (complex) im[i * w + j] += A.values[c * k + 1];
      }
    }
    let norm = 0;
    for (let t = 0; t < m * m; t++) norm = Math.max(norm, Math.hypot(re[Math.floor(t / m) * w + (t % m)], im[Math.floor(t / m) * w + (t % m)]));
    for (let col = 0; col < m; col++) {
      let piv = col;
      for (let i = col + 1; i < m; i++) if (Math.hypot(re[i * w + col], im[i * w + col]) > Math.hypot(re[piv * w + col], im[piv * w + col])) piv = i;
      const pm = Math.hypot(re[piv * w + col], im[piv * w + col]);
      if (!(pm > 1e-14 * norm) || !Number.isFinite(pm)) {
        throw new ShapeError(`block-jacobi: the diagonal block of rows ${s}..${s + m - 1} is singular${norm === 0 ? ' (all zero)' : ''}; use another blockSize or preconditioner`);
      }
      for (let j = 0; j < w; j++) {
        [re[col * w + j], re[piv * w + j]] = [re[piv * w + j], re[col * w + j]];
        [im[col * w + j], im[piv * w + j]] = [im[piv * w + j], im[col * w + j]];
      }
      // the row divided by its pivot range-safely (|pivot|² overflowed from 1e154: NaN in every block of A·1e160)
      const d: C = [re[col * w + col], im[col * w + col]];
      for (let j = 0; j < w; j++) [re[col * w + j], im[col * w + j]] = div([re[col * w + j], im[col * w + j]], d);
      for (let i = 0; i < m; i++) {
        if (i === col) continue;
        const fr = re[i * w + col];
        const fi = im[i * w + col];
        if (fr === 0 && fi === 0) continue;
        for (let j = 0; j < w; j++) {
          re[i * w + j] -= fr * re[col * w + j] - fi * im[col * w + j];
          im[i * w + j] -= fr * im[col * w + j] + fi * re[col * w + j];
        }
      }
    }
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++, p++) {
        idx[p] = s + j;
        val[c * p] = re[i * w + m + j];
        if (complex) val[c * p + 1] = im[i * w + m + j];
      }
      ptr[s + i + 1] = p;
    }
  }
  return new CSRMatrix(n, n, complex ? 'c128' : 'f64', ptr, idx, val);
}
