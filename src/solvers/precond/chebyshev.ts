import { components } from '../../dtype.js';
import { diagonalSums, type CSRMatrix } from '../../formats/csr.js';
import { DIAMatrix } from '../../formats/dia.js';
import { jsCsrSpmv } from '../../host-spmv.js';
import type { ChebyshevPolynomial, SolverOps } from '../ops.js';

/**
 * Extreme eigenvalue estimates of D⁻¹·A (A Hermitian with a positive diagonal; D⁻¹·A is similar to the
 * Hermitian D^-½·A·D^-½) from `steps` Lanczos steps in f64 on the host, from a fixed start vector.
 * The largest is accurate after a few steps (from below); the smallest is an over-estimate. A complex
 * vector is taken as its interleaved real components: the realified Hermitian matrix is real symmetric
 * with the same eigenvalues.
 */
export function lanczosBounds(A: CSRMatrix, steps = 20): { min: number; max: number } {
  const n = A.rows;
  const c = components(A.dtype);
  const d = diagonalSums(A);
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) s[i] = 1 / Math.sqrt(d[c * i]);
  const len = n * c;
  let [v, vPrev, w, t] = [new Float64Array(len), new Float64Array(len), new Float64Array(len), new Float64Array(len)];
  const nv = Math.sqrt(lanczosStart(v));
  for (let i = 0; i < len; i++) v[i] /= nv;
  if (c === 1) return realLanczos(A, s, [v, vPrev, w, t], Math.min(steps, n));
  const alpha: number[] = [];
  const beta: number[] = [];
  let b = 0;
  // plain loops over typed arrays, no per-step allocation: this runs on every level of an AMG setup
  for (let j = 0; j < Math.min(steps, n); j++) {
    for (let i = 0, p = 0; i < n; i++) for (let q = 0; q < c; q++, p++) t[p] = v[p] * s[i];
    jsCsrSpmv(A, t, w);
    for (let i = 0, p = 0; i < n; i++) for (let q = 0; q < c; q++, p++) w[p] = w[p] * s[i] - b * vPrev[p];
    let a = 0;
    for (let i = 0; i < len; i++) a += v[i] * w[i];
    for (let i = 0; i < len; i++) w[i] -= a * v[i];
    alpha.push(a);
    b = Math.sqrt(dotSelf(w));
    if (!(b > 1e-12 * Math.abs(a))) break;
    beta.push(b);
    // rotate the three buffers: vPrev ← v, v ← w/b, w reuses the old vPrev
    const old = vPrev;
    vPrev = v;
    v = w;
    for (let i = 0; i < len; i++) v[i] /= b;
    w = old;
  }
  return { min: tridiagonalEigen(alpha, beta, 'min'), max: tridiagonalEigen(alpha, beta, 'max') };
}

/**
 * lanczosBounds' steps for a real A on a path's own operations (a GPU path: its SpMV and dots on the
 * device, the matrix already there), from the same start vector, with D^-1/2 = √dinv as a resident
 * diagonal operator: two scalars come back a step, where the host would make its own copy of A and
 * run 20 SpMVs (for 2 M rows ≈ 1 s on the CPU pool, bench/device/results-2026-11-27-gpu/call6). The
 * bounds are the host's up to the path's rounding (double-single f64 on WebGPU).
 */
export async function pathLanczosBounds<V>(ops: SolverOps<V>, upload: (v: Float64Array) => V, dinv: ArrayLike<number>, steps = 20): Promise<{ min: number; max: number }> {
  const n = ops.n;
  const pitch = (n + 3) & ~3;
  const sd = new Float64Array(pitch);
  for (let i = 0; i < n; i++) sd[i] = Math.sqrt(dinv[i]);
  const S = ops.operator(new DIAMatrix(n, n, 'f64', Int32Array.of(0), pitch, sd));
  const start = new Float64Array(n);
  const c0 = 1 / Math.sqrt(lanczosStart(start));
  for (let i = 0; i < n; i++) start[i] *= c0;
  let v = upload(start);
  let [vPrev, w] = [ops.vector(), ops.vector()];
  const [t, u] = [ops.vector(), ops.vector()];
  try {
    const alpha: number[] = [];
    const beta: number[] = [];
    let b = 0;
    for (let j = 0; j < Math.min(steps, n); j++) {
      // w = S·A·S·v − b·vPrev, a = v·w, w −= a·v, b = ‖w‖
      await S.apply(v, t, 1, 0);
      await ops.spmv(t, u, 1, 0);
      await S.apply(u, w, 1, 0);
      if (b) await ops.axpy([-b, 0], vPrev, w);
      const a = (await ops.dot(v, w))[0];
      await ops.axpy([-a, 0], v, w);
      alpha.push(a);
      b = Math.sqrt((await ops.dot(w, w))[0]);
      if (!(b > 1e-12 * Math.abs(a))) break;
      beta.push(b);
      await ops.scal([1 / b, 0], w);
      [vPrev, v, w] = [v, w, vPrev];
    }
    return { min: tridiagonalEigen(alpha, beta, 'min'), max: tridiagonalEigen(alpha, beta, 'max') };
  } finally {
    for (const x of [v, vPrev, w, t, u]) ops.release(x);
    S.dispose();
  }
}

/**
 * Fills v with lanczosBounds' start (unnormalized), returns ‖v‖²: a fixed, non-special vector in
 * [0.5, 1.5), no eigenvector of a regular stencil, from a linear congruential sequence (a sine per
 * entry cost more than the SpMVs' passes on large levels).
 */
export function lanczosStart(v: Float64Array): number {
  let ss = 0;
  for (let i = 0, h = 0x2545f491; i < v.length; i++) {
    h = (Math.imul(h, 1664525) + 1013904223) | 0;
    const x = 0.5 + (h >>> 8) / 16777216;
    v[i] = x;
    ss += x * x;
  }
  return ss;
}

/**
 * lanczosBounds' steps for a real A from the unit start vector v (then vPrev, w, t: zeroed work
 * vectors), with the passes fused: the scaling and the first orthogonalization ride on the SpMV's
 * row loop, the second and the norm share a pass, and the next step's scaled vector is made with the
 * new v.
 */
function realLanczos(A: CSRMatrix, s: Float64Array, vectors: Float64Array[], steps: number): { min: number; max: number } {
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  let [v, vPrev, w] = vectors;
  const t = vectors[3];
  for (let i = 0; i < n; i++) t[i] = v[i] * s[i];
  const alpha: number[] = [];
  const beta: number[] = [];
  let b = 0;
  for (let j = 0; j < steps; j++) {
    // w = S·A·S·v − b·vPrev, a = v·w
    let a = 0;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) sum += values[k] * t[colIdx[k]];
      const wi = sum * s[i] - b * vPrev[i];
      w[i] = wi;
      a += v[i] * wi;
    }
    let bb = 0;
    for (let i = 0; i < n; i++) {
      const wi = w[i] - a * v[i];
      w[i] = wi;
      bb += wi * wi;
    }
    alpha.push(a);
    b = Math.sqrt(bb);
    if (!(b > 1e-12 * Math.abs(a))) break;
    beta.push(b);
    // vPrev ← v, v ← w/b (and t = S·v), w reuses the old vPrev
    const old = vPrev;
    vPrev = v;
    v = w;
    for (let i = 0; i < n; i++) {
      const vi = v[i] / b;
      v[i] = vi;
      t[i] = vi * s[i];
    }
    w = old;
  }
  return { min: tridiagonalEigen(alpha, beta, 'min'), max: tridiagonalEigen(alpha, beta, 'max') };
}

function dotSelf(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  return s;
}

/** The extreme eigenvalue of the symmetric tridiagonal (alpha; beta) by Sturm-sequence bisection. */
export function tridiagonalEigen(alpha: number[], beta: number[], which: 'min' | 'max'): number {
  const m = alpha.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < m; i++) {
    const r = (i > 0 ? Math.abs(beta[i - 1]) : 0) + (i < m - 1 ? Math.abs(beta[i]) : 0);
    lo = Math.min(lo, alpha[i] - r);
    hi = Math.max(hi, alpha[i] + r);
  }
  // eigenvalues below x
  const below = (x: number): number => {
    let count = 0;
    let d = 1;
    for (let i = 0; i < m; i++) {
      d = alpha[i] - x - (i > 0 ? (beta[i - 1] * beta[i - 1]) / d : 0);
      if (d === 0) d = 1e-300;
      if (d < 0) count++;
    }
    return count;
  };
  const target = which === 'min' ? 1 : m;
  for (let it = 0; it < 200 && hi - lo > 1e-12 * Math.max(Math.abs(lo), Math.abs(hi)); it++) {
    const mid = (lo + hi) / 2;
    if (below(mid) >= target) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The coefficients (c1, c2) of each step of the Chebyshev iteration on [lo, hi] from z = 0 (Saad,
 * Iterative Methods, Alg. 12.1): step 0 d = c2·D⁻¹·r; step k d = c1·d + c2·D⁻¹·(r − A·z).
 */
export function chebyshevSteps(poly: ChebyshevPolynomial): [number, number][] {
  const theta = (poly.hi + poly.lo) / 2;
  const delta = (poly.hi - poly.lo) / 2;
  const sigma = theta / delta;
  const out: [number, number][] = [[0, 1 / theta]];
  let rho = 1 / sigma;
  for (let k = 1; k < poly.degree; k++) {
    const next = 1 / (2 * sigma - rho);
    out.push([next * rho, (2 * next) / delta]);
    rho = next;
  }
  return out;
}
