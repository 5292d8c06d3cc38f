/** The metrics of DESIGN.md, shared by the CLI, the benchmark and the demo. */

/** GFLOP/s of an SpMV: 2·nnz flops for real, 8·nnz for complex. */
export function spmvGflops(nnz: number, complex: boolean, seconds: number): number {
  return ((complex ? 8 : 2) * nnz) / seconds / 1e9;
}

/** Effective bandwidth: (bytes read + bytes written) / 10⁹ / seconds. */
export function effectiveGBs(bytes: number, seconds: number): number {
  return bytes / 1e9 / seconds;
}

/** Median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Times `fn` until at least `minMs` have passed and `minReps` runs are done (after one warm-up run),
 * and returns the median time per run in milliseconds. `fn` may be synchronous or return a promise.
 */
export async function timeMedianMs(fn: () => unknown, minMs = 100, minReps = 5, maxReps = 1000): Promise<number> {
  await fn();
  const times: number[] = [];
  const t0 = performance.now();
  while (times.length < maxReps && (times.length < minReps || performance.now() - t0 < minMs)) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** max |y − ref| / max |ref|: a normwise relative error that stays meaningful where ref has zeros. */
export function maxRelativeError(y: ArrayLike<number>, ref: ArrayLike<number>): number {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < ref.length; i++) {
    err = Math.max(err, Math.abs(y[i] - ref[i]));
    scale = Math.max(scale, Math.abs(ref[i]));
  }
  return scale === 0 ? err : err / scale;
}
