import { CSRMatrix } from './formats/csr.js';
import { isComplex, type ValueArray } from './dtype.js';

/**
 * The plain JavaScript CSR loop over typed arrays: the baseline every benchmark compares against,
 * and (run on f64/c128 data) the reference that errors are measured from. y = A·x.
 */
export function jsCsrSpmv(A: CSRMatrix, x: ValueArray, y: ValueArray): void {
  const { rowPtr, colIdx, values } = A;
  if (!isComplex(A.dtype)) {
    for (let i = 0; i < A.rows; i++) {
      let sum = 0;
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) sum += values[k] * x[colIdx[k]];
      y[i] = sum;
    }
    return;
  }
  for (let i = 0; i < A.rows; i++) {
    let re = 0;
    let im = 0;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const ar = values[2 * k];
      const ai = values[2 * k + 1];
      const j = 2 * colIdx[k];
      re += ar * x[j] - ai * x[j + 1];
      im += ar * x[j + 1] + ai * x[j];
    }
    y[2 * i] = re;
    y[2 * i + 1] = im;
  }
}

/** r = b − A·x in f64 (c128 for complex), whatever A's precision: the true residual of a solve. */
export function hostResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const r = new Float64Array(b.length);
  jsCsrSpmv(A, x as ValueArray, r);
  for (let i = 0; i < r.length; i++) r[i] = b[i] - r[i];
  return r;
}

/**
 * hostResidual and its hostNorm, for a real A in one pass over the rows (f32 CG's residual
 * replacements: poisson3D(64)'s 1.8 M entries, min of 15 at load 7: 7.3 → 5.7 ms): the plain sum of squares, rescaled by
 * hostNorm only when it over- or underflows.
 */
export function hostResidualNorm(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): { r: Float64Array; norm: number } {
  if (isComplex(A.dtype)) {
    const r = hostResidual(A, x, b);
    return { r, norm: hostNorm(r) };
  }
  const { rowPtr, colIdx, values } = A;
  const r = new Float64Array(A.rows);
  let ss = 0;
  for (let i = 0, k = rowPtr[0]; i < r.length; i++) {
    let s = 0;
    for (const e = rowPtr[i + 1]; k < e; k++) s += values[k] * x[colIdx[k]];
    const ri = b[i] - s;
    r[i] = ri;
    ss += ri * ri;
  }
  return { r, norm: normFromSquares(ss, r) };
}

/**
 * ‖v‖₂ from ss, the plain sum of v's squares a caller took in a pass of its own, or by hostNorm where
 * that sum over- or underflowed (not finite, or below 1e-280, where terms may have been lost).
 */
export function normFromSquares(ss: number, v: ArrayLike<number>): number {
  return Number.isFinite(ss) && ss > 1e-280 ? Math.sqrt(ss) : hostNorm(v);
}

/**
 * ‖v‖₂ of real or interleaved complex f64 components, scaled against overflow. One pass where the
 * largest |vᵢ| is within 2^±500 (no square over- or underflows enough to matter); the scaled two-pass
 * sum only beyond (a 2 M vector 13–15 → 6–7 ms on a loaded 2-core host: runSolve takes ‖b‖ and ‖x‖).
 */
export function hostNorm(v: ArrayLike<number>): number {
  let m = 0;
  let q = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]);
    q += a * a;
    if (a > m) m = a;
  }
  // a NaN entry makes q NaN (the max above skips it); otherwise m is the largest |vᵢ|, ±Inf included
  if (Number.isNaN(q)) return NaN;
  if (m >= 2 ** -500 && m <= 2 ** 500 && Number.isFinite(q)) return Math.sqrt(q);
  if (m === 0 || !Number.isFinite(m)) return m === 0 ? 0 : NaN;
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] / m) ** 2;
  return m * Math.sqrt(s);
}

/** Veltkamp's splitter for f64 (2²⁷ + 1): TwoProduct without a fused multiply-add. */
const SPLIT = 134217729;

/** u·v − p for p = u·v rounded (Dekker's TwoProduct; |u|, |v| below 2^996) */
function productError(u: number, v: number, p: number): number {
  const cu = SPLIT * u;
  const uh = cu - (cu - u);
  const ul = u - uh;
  const cv = SPLIT * v;
  const vh = cv - (cv - v);
  const vl = v - vh;
  return uh * vh - p + uh * vl + ul * vh + ul * vl;
}

/**
 * ‖b − A·x‖₂ as if each row's sum were computed in twice f64's precision and rounded once (Ogita, Rump
 * and Oishi's Dot2: every product and sum with its rounding error carried): what certifies an answer
 * whose plain f64 residual is rounding, |A|·|x| far above |b − A·x| (a factor with a rounding-level pivot of
 * a singular A: x ≈ 1e16, plain residual 0, true 1.15). Real or complex A; an entry past 2^996, whose
 * split overflows, falls back to the plain sum of its row.
 */
export function accurateResidualNorm(A: Pick<CSRMatrix, 'rows' | 'rowPtr' | 'colIdx' | 'values' | 'dtype'>, x: ArrayLike<number>, b: ArrayLike<number>): number {
  const { rowPtr, colIdx, values } = A;
  const complex = isComplex(A.dtype);
  const c = complex ? 2 : 1;
  const r = new Float64Array(b.length);
  let s = 0;
  let e = 0;
  // s + e += u·v, the product's and the sum's rounding errors into e
  const add = (u: number, v: number): void => {
    const p = u * v;
    // an operand from 2^996 on overflows its split: the error of the product with it scaled by 2^-64
    // (exact, as is that product), scaled back — x ≈ 1e302 of a matrix spanning 1e-303 … 1e-36 fell back
    // to the plain row, 'converged' at 1.2e-16 for a true 3.8e98
    const pe = Math.abs(u) < 2 ** 995 && Math.abs(v) < 2 ** 995 ? productError(u, v, p) : Math.abs(u) >= Math.abs(v) ? productError(u * 2 ** -64, v, p * 2 ** -64) * 2 ** 64 : productError(u, v * 2 ** -64, p * 2 ** -64) * 2 ** 64;
    const t = s + p;
    const z = t - s;
    e += s - (t - z) + (p - z) + pe;
    s = t;
  };
  for (let i = 0; i < A.rows; i++) {
    for (let part = 0; part < c; part++) {
      s = b[c * i + part];
      e = 0;
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
        const j = colIdx[k];
        if (!complex) add(-values[k], x[j]);
        else if (part === 0) {
          add(-values[2 * k], x[2 * j]);
          add(values[2 * k + 1], x[2 * j + 1]);
        } else {
          add(-values[2 * k], x[2 * j + 1]);
          add(-values[2 * k + 1], x[2 * j]);
        }
      }
      r[c * i + part] = s + e;
    }
    if (!(Number.isFinite(r[c * i]) && Number.isFinite(r[c * i + c - 1]))) {
      // A·x or its sums overflowed: this row as the plain residual has it
      const y = new Float64Array(c);
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
        const j = colIdx[k];
        if (!complex) y[0] += values[k] * x[j];
        else {
          y[0] += values[2 * k] * x[2 * j] - values[2 * k + 1] * x[2 * j + 1];
          y[1] += values[2 * k] * x[2 * j + 1] + values[2 * k + 1] * x[2 * j];
        }
      }
      for (let part = 0; part < c; part++) r[c * i + part] = b[c * i + part] - y[part];
    }
  }
  return hostNorm(r);
}

/** ‖b‖ outside [2^-RHS_RANGE, 2^RHS_RANGE] is scaled into [1/2, 2) (f32's dot products of 2^±16 entries stay in range; the direct solve's sums of squares and its subnormal x alike). */
export const RHS_RANGE = 16;

/** The range for an f64 solve (the direct solvers'): only b near f64's edges, subnormal or huge, is scaled. */
export const F64_RHS_RANGE = 900;

/** The range of max |aᵢⱼ| beyond which rt.solve's CPU path solves a copy of A scaled by a power of two (runtime solveMatrixOn). */
export const F64_MATRIX_RANGE = 128;

/** The power of two e with ‖b‖ ≈ 2^e where b is to be scaled, else 0 (b = 0, not finite, or within 2^±range), from `norm` = ‖b‖₂. */
export function rhsExponent(norm: number, range = RHS_RANGE): number {
  if (!(norm > 0) || !Number.isFinite(norm)) return 0;
  const e = Math.round(Math.log2(norm));
  return Math.abs(e) > range ? e : 0;
}

/**
 * Whether `norm` (a ‖b‖₂ computed elsewhere, within a relative 2^-20 of the host's) is within
 * [2^-range, 2^range]: then rhsExponent(‖b‖₂, range) is 0 (it scales only from 2^±(range + ½)). Zero and
 * non-finite norms are not: a path's norm of tiny or huge entries may flush or overflow where the host's does not.
 */
export function withinRange(norm: number, range = RHS_RANGE): boolean {
  return norm >= 2 ** -range && norm <= 2 ** range;
}

/**
 * rhsExponent of b from `norm` = ‖b‖₂, or from max |bᵢ| where ‖b‖₂ itself overflows (finite entries
 * near 2^1023: no exponent, and the solve went NaN).
 */
export function rhsExponentOf(b: ArrayLike<number>, norm: number, range = RHS_RANGE): number {
  if (norm !== Infinity) return rhsExponent(norm, range);
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(b[i]));
  return rhsExponent(m, range);
}

/** v ← 2^e·v in place, exact where no entry over- or underflows (two steps: 2^±1074 itself is not a number). */
export function scaleBy<T extends Float32Array | Float64Array>(v: T, e: number): T {
  const h = Math.trunc(e / 2);
  const s1 = 2 ** h;
  const s2 = 2 ** (e - h);
  for (let i = 0; i < v.length; i++) v[i] = v[i] * s1 * s2;
  return v;
}

/** 2^e·A: its values scaled, exactly where none leaves the range (its index arrays shared with A's). */
export function scaledCsr(A: CSRMatrix, e: number): CSRMatrix {
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, scaleBy(A.values.slice(), e));
}
