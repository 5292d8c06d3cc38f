/** What every SpMV benchmark peer returns: a timing plus the y it computed (checked by the runner). */
export type RealArray = Float32Array | Float64Array;

/** ms: median milliseconds per product; y: the product, so a broken peer cannot report a fast wrong time. */
export type PeerResult = { ms: number; y: RealArray } | { skipped: string };

/** Timing knobs shared by the JS-side peers (passed to timeMedianMs); defaults match bench/run.ts. */
export interface PeerTiming {
  minMs?: number;
  minReps?: number;
}
