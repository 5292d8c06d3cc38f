import { MAX_CHUNKS } from './control.js';

/**
 * Contiguous chunks balanced by work (seed 001's CPU-friendly partitioning): chunk boundaries are
 * found by binary search on a nondecreasing prefix of per-row cost, e.g. CSR's row pointers plus one
 * per row for the row's own overhead.
 */

/**
 * Splits [0, n) into `parts` contiguous ranges of near-equal cost, where `prefix(i)` is the cost of
 * rows [0, i) (nondecreasing, prefix(0) = 0). Boundaries are rounded to multiples of `align` rows so
 * that kernels working on several rows per vector see the same row groups whatever the split.
 * Returns parts+1 boundaries; empty ranges are allowed (more workers than rows).
 */
export function balancedBounds(n: number, parts: number, prefix: (i: number) => number, align = 4): Int32Array {
  const bounds = new Int32Array(parts + 1);
  bounds[parts] = n;
  const total = prefix(n);
  for (let p = 1; p < parts; p++) {
    const target = (total * p) / parts;
    let lo = bounds[p - 1];
    let hi = n;
    // first i with prefix(i) >= target
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (prefix(mid) < target) lo = mid + 1;
      else hi = mid;
    }
    // the nearer of the two boundaries around the target: with coarse items (cache-tile bands, one or
    // two per thread) the first one past it would hand some chunks two items and others none
    if (lo > bounds[p - 1] && target - prefix(lo - 1) < prefix(lo) - target) lo--;
    const rounded = Math.min(n, Math.round(lo / align) * align);
    bounds[p] = Math.max(bounds[p - 1], rounded);
  }
  return bounds;
}

/** Splits [0, n) into `parts` contiguous ranges of near-equal length (items of equal cost): parts+1 boundaries. */
export function evenBounds(n: number, parts: number): Int32Array {
  return Int32Array.from({ length: parts + 1 }, (_, c) => Math.round((c * n) / parts));
}

/**
 * Chunks of a claimed job (CpuBackend.runClaimedSync) on `threads` threads: CLAIMED_PER_THREAD each, so a
 * late, slow or descheduled thread's share goes to the others in pieces of about 1/8 of a thread's
 * (one chunk when alone; at most MAX_CHUNKS).
 */
export function claimedParts(threads: number): number {
  return threads <= 1 ? 1 : Math.min(MAX_CHUNKS, threads * CLAIMED_PER_THREAD);
}
const CLAIMED_PER_THREAD = 8;

/** Row-cost prefix of a pointer array: entries before row i plus i (each row costs one more). */
export function pointerPrefix(ptr: Int32Array): (i: number) => number {
  return (i) => ptr[i] + i;
}

/** Uniform cost per row (ELL, DIA, dense, vectors). */
export const uniformPrefix = (i: number): number => i;

