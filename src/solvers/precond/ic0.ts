import { components, isComplex } from '../../dtype.js';
import { CSRMatrix } from '../../formats/csr.js';
import { ilu0, SHIFTS } from './ilu0.js';

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
  if (!isComplex(A.dtype)) return realIc0(A);
  const f = ilu0(A, true);
  if (typeof f === 'string') return null;
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

/**
 * IC(0) of a real symmetric A straight from its lower triangle, row by row in typed arrays (the
 * up-looking form: lᵢₖ = (aᵢₖ − Σⱼ<ₖ lᵢⱼ·lₖⱼ)/lₖₖ over the pattern, lᵢᵢ = √(aᵢᵢ − Σⱼ<ᵢ lᵢⱼ²)): the same
 * factor as the ILU(0) route up to rounding, without its full-pattern copy, U and rescaling. The same
 * pivot test (not finite, or ≤ 1e-14 of the row's scale) and diagonal shifts (SHIFTS) as ilu0.
 */
function realIc0(A: CSRMatrix): IncompleteCholesky | null {
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  // the lower triangle's pattern with every diagonal present, the diagonal last in its row
  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let m = 1;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (colIdx[k] < i) m++;
    ptr[i + 1] = ptr[i] + m;
  }
  const idx = new Int32Array(ptr[n]);
  const a = new Float64Array(ptr[n]);
  const scale = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let p = ptr[i];
    let d = 0;
    let m = 0;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const j = colIdx[k];
      const v = values[k];
      m = Math.max(m, Math.abs(v));
      if (j < i) {
        idx[p] = j;
        a[p++] = v;
      } else if (j === i) d += v;
    }
    idx[p] = i;
    a[p] = d;
    scale[i] = d !== 0 ? Math.abs(d) : m > 0 ? m : 1;
  }
  const v = new Float64Array(ptr[n]);
  for (const shift of SHIFTS) {
    if (factorRows(n, ptr, idx, a, v, scale, shift)) {
      const L = new CSRMatrix(n, n, 'f64', ptr, idx, v);
      return { L, LH: L.conjugateTranspose(), shift };
    }
  }
  return null;
}

/** The row-by-row elimination into v; false at the first pivot that is not positive enough. */
function factorRows(n: number, ptr: Int32Array, idx: Int32Array, a: Float64Array, v: Float64Array, scale: Float64Array, shift: number): boolean {
  for (let i = 0; i < n; i++) {
    const s = ptr[i];
    const di = ptr[i + 1] - 1;
    let sq = 0;
    for (let p = s; p < di; p++) {
      const k = idx[p];
      const dk = ptr[k + 1] - 1;
      // Σ lᵢⱼ·lₖⱼ over the columns j < k both rows hold (both sorted: a merge)
      let t = a[p];
      let q = ptr[k];
      for (let e = s; e < p && q < dk; ) {
        const je = idx[e];
        const jq = idx[q];
        if (je === jq) t -= v[e++] * v[q++];
        else if (je < jq) e++;
        else q++;
      }
      const l = t / v[dk];
      v[p] = l;
      sq += l * l;
    }
    const d = a[di] + shift * scale[i] - sq;
    if (!(d > 1e-14 * scale[i]) || !Number.isFinite(d)) return false;
    v[di] = Math.sqrt(d);
  }
  return true;
}
