/**
 * max |xᵢ| over the components of an f64 vector, once per vector: a solve's finiteness test and its
 * certificate's bound (solvers/true-residual.ts trueResult and certified, solve.ts
 * rowSumResidualBound) read it from one pass instead of two, or from none where the path that
 * delivered x measured it as x came back (WebGPU's join on the GPU: noteLargestComponent) — two host
 * passes over 2 M entries after poisson3D(128)'s read-back on the H200's host.
 */
const LARGEST = new WeakMap<Float64Array, number>();

/**
 * Records `bound` ≥ max |xᵢ| (at most 2^-20 of it above it, 2^-1042 where it is subnormal; NaN where some
 * xᵢ is ±Inf or NaN) for x, as a path returns x: only for a fresh array that nothing writes to before
 * its solve ends.
 */
export function noteLargestComponent(x: Float64Array, bound: number): void {
  LARGEST.set(x, bound);
}

/**
 * max |xᵢ| (an upper bound, noteLargestComponent's, where a path noted it): NaN where x holds NaN, Infinity where
 * it holds ±Inf and no NaN was met first. Kept for x: call it only on a solve's answer, which nothing
 * writes to after it is made.
 */
export function largestComponent(x: Float64Array): number {
  let m = LARGEST.get(x);
  if (m !== undefined) return m;
  m = 0;
  for (let i = 0; i < x.length; i++) {
    const a = Math.abs(x[i]);
    if (a > m) m = a;
    else if (a !== a) {
      m = NaN;
      break;
    }
  }
  LARGEST.set(x, m);
  return m;
}
