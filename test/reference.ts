/**
 * Independent f64 reference for the tests: y = α·op(A)·x + β·y computed from plain triplets with
 * ordinary JavaScript numbers. It knows nothing of the storage formats or the kernels.
 */
export type Op = 'N' | 'T' | 'H';

export interface Triplets {
  rows: number;
  cols: number;
  complex: boolean;
  rowIdx: ArrayLike<number>;
  colIdx: ArrayLike<number>;
  /** interleaved re/im when complex */
  values: ArrayLike<number>;
}

/** A CSR matrix's entries as triplets, straight from its arrays: the reference sees exactly the stored (rounded) values. */
export function csrTriplets(A: { rows: number; cols: number; dtype: string; nnz: number; rowPtr: Int32Array; colIdx: Int32Array; values: ArrayLike<number> }): Triplets {
  const rowIdx = new Int32Array(A.nnz);
  for (let i = 0; i < A.rows; i++) rowIdx.fill(i, A.rowPtr[i], A.rowPtr[i + 1]);
  return { rows: A.rows, cols: A.cols, complex: A.dtype === 'c64' || A.dtype === 'c128', rowIdx, colIdx: A.colIdx, values: A.values };
}

export interface RefResult {
  /** the exact-ish f64 result (interleaved when complex) */
  y: Float64Array;
  /** per output component: |α|·Σ|a||x| + |β|·|y0|, the scale a rounding error bound is relative to */
  scale: Float64Array;
  /** per output element: number of terms summed (for bounds that grow with the row length) */
  terms: Int32Array;
}

export function referenceSpmv(
  A: Triplets,
  x: ArrayLike<number>,
  y0: ArrayLike<number> | null,
  alpha: number | [number, number],
  beta: number | [number, number],
  op: Op = 'N',
): RefResult {
  const c = A.complex ? 2 : 1;
  const [ar, ai] = typeof alpha === 'number' ? [alpha, 0] : alpha;
  const [br, bi] = typeof beta === 'number' ? [beta, 0] : beta;
  const outLen = op === 'N' ? A.rows : A.cols;
  const acc = new Float64Array(outLen * c);
  const mag = new Float64Array(outLen);
  const terms = new Int32Array(outLen);
  const n = A.rowIdx.length;
  for (let k = 0; k < n; k++) {
    const i = A.rowIdx[k];
    const j = A.colIdx[k];
    const [out, inp] = op === 'N' ? [i, j] : [j, i];
    terms[out]++;
    if (c === 1) {
      acc[out] += A.values[k] * x[inp];
      mag[out] += Math.abs(A.values[k] * x[inp]);
    } else {
      const vr = A.values[2 * k];
      const vi = op === 'H' ? -A.values[2 * k + 1] : A.values[2 * k + 1];
      const xr = x[2 * inp];
      const xi = x[2 * inp + 1];
      acc[2 * out] += vr * xr - vi * xi;
      acc[2 * out + 1] += vr * xi + vi * xr;
      mag[out] += Math.hypot(vr, vi) * Math.hypot(xr, xi);
    }
  }
  const y = new Float64Array(outLen * c);
  const scale = new Float64Array(outLen * c);
  const amag = Math.hypot(ar, ai);
  const bmag = Math.hypot(br, bi);
  for (let i = 0; i < outLen; i++) {
    if (c === 1) {
      const yb = beta === 0 || !y0 ? 0 : br * y0[i];
      y[i] = ar * acc[i] + yb;
      scale[i] = amag * mag[i] + (y0 && beta !== 0 ? bmag * Math.abs(y0[i]) : 0);
    } else {
      const pr = ar * acc[2 * i] - ai * acc[2 * i + 1];
      const pi = ar * acc[2 * i + 1] + ai * acc[2 * i];
      const useY = y0 && !(br === 0 && bi === 0);
      const yr = useY ? br * y0![2 * i] - bi * y0![2 * i + 1] : 0;
      const yi = useY ? br * y0![2 * i + 1] + bi * y0![2 * i] : 0;
      y[2 * i] = pr + yr;
      y[2 * i + 1] = pi + yi;
      const s = amag * mag[i] + (useY ? bmag * Math.hypot(y0![2 * i], y0![2 * i + 1]) : 0);
      scale[2 * i] = s;
      scale[2 * i + 1] = s;
    }
  }
  return { y, scale, terms };
}

/**
 * Checks `got` against the reference with a componentwise bound that grows with the number of terms:
 * |got - ref| ≤ (terms + 4)·u·scale, u the unit round-off of the computation's precision (2⁻²⁴ for
 * f32/c64, 2⁻⁵³ for f64/c128), times a safety factor of 4 (complex products, α and β roundings).
 * Returns a description of the first violation, or null.
 */
export function checkAgainst(
  got: ArrayLike<number>,
  ref: RefResult,
  precision: 'single' | 'double',
  complex: boolean,
): string | null {
  const u = precision === 'single' ? 2 ** -24 : 2 ** -53;
  const c = complex ? 2 : 1;
  if (got.length !== ref.y.length) return `length ${got.length}, expected ${ref.y.length}`;
  for (let k = 0; k < got.length; k++) {
    const terms = ref.terms[Math.floor(k / c)];
    const bound = 4 * (terms + 4) * u * ref.scale[k];
    const err = Math.abs(got[k] - ref.y[k]);
    if (!(err <= bound) && !(Number.isNaN(got[k]) && Number.isNaN(ref.y[k]))) {
      return `component ${k}: got ${got[k]}, expected ${ref.y[k]} (error ${err}, bound ${bound}, ${terms} terms)`;
    }
  }
  return null;
}
