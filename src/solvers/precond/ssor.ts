import { components, isComplex } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { CSRMatrix } from '../../formats/csr.js';
import { div } from '../krylov/complex.js';

/**
 * The two triangular factors of SSOR(ω), M = ω/(2−ω)·(D/ω + L)·(D/ω)⁻¹·(D/ω + U), arranged so that
 * M⁻¹·r is two triangular solves and nothing else: lower = D/ω + L, upper = ω²/(2−ω)·D⁻¹·(D/ω + U)
 * (the middle scaling folded into the upper factor's rows). ω = 1 is symmetric Gauss–Seidel. A zero
 * diagonal entry is a ShapeError naming the row.
 */
export function ssorFactors(A: CSRMatrix, omega: number): { lower: CSRMatrix; upper: CSRMatrix } {
  const n = A.rows;
  const c = components(A.dtype);
  const complex = isComplex(A.dtype);
  const dt = complex ? 'c128' : 'f64';
  const dr = new Float64Array(n);
  const di = new Float64Array(n);
  let lowerNnz = 0;
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      if (j < i) lowerNnz++;
      if (j !== i) continue;
      dr[i] += A.values[c * k];
      if (complex) di[i] += A.values[c * k + 1];
    }
    if (dr[i] === 0 && di[i] === 0) throw new ShapeError(`ssor: the diagonal entry A[${i},${i}] is zero; use preconditioner 'ilu0' or 'none'`);
  }
  const scale = (omega * omega) / (2 - omega);
  const lp = new Int32Array(n + 1);
  const up = new Int32Array(n + 1);
  const li = new Int32Array(lowerNnz + n);
  const ui = new Int32Array(A.nnz - lowerNnz + n);
  const lv = new Float64Array(li.length * c);
  const uv = new Float64Array(ui.length * c);
  let l = 0;
  let u = 0;
  for (let i = 0; i < n; i++) {
    // scale/dᵢ, multiplying row i of the upper factor; range-safe (|dᵢ|² overflowed or underflowed
    // from 1e±154: no convergence for A·1e160, 'nan' for A·1e-200)
    const [sr, si] = div([scale, 0], [dr[i], di[i]]);
    const put = (v: Float64Array, p: number, re: number, im: number): void => {
      v[c * p] = re;
      if (complex) v[c * p + 1] = im;
    };
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      const re = A.values[c * k];
      const im = complex ? A.values[c * k + 1] : 0;
      if (j < i) {
        li[l] = j;
        put(lv, l++, re, im);
      } else if (j > i) {
        ui[u] = j;
        put(uv, u++, re * sr - im * si, re * si + im * sr);
      }
    }
    li[l] = i;
    put(lv, l++, dr[i] / omega, di[i] / omega);
    ui[u] = i;
    put(uv, u++, omega / (2 - omega), 0);
    lp[i + 1] = l;
    up[i + 1] = u;
  }
  // the diagonal went last in each row; CSR's rows are sorted, so re-canonicalise
  return {
    lower: new CSRMatrix(n, n, dt, lp, li.subarray(0, l), lv.subarray(0, l * c)).toCSR(),
    upper: new CSRMatrix(n, n, dt, up, ui.subarray(0, u), uv.subarray(0, u * c)).toCSR(),
  };
}
