import type { Runtime } from '../runtime/runtime.js';
import type { MatrixHandle, ResidentVector } from '../runtime/handles.js';
import type { PathId } from '../path.js';
import { median } from '../metrics.js';

/** Median milliseconds per product of `run` (which does `perRun` products), after one warm-up. */
export async function medianPerRun(run: () => Promise<void>, perRun: number, minMs: number): Promise<number> {
  await run();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 3 || (performance.now() - start < minMs && times.length < 200)) {
    const t = performance.now();
    await run();
    times.push((performance.now() - t) / perRun);
  }
  return median(times);
}

/**
 * Median milliseconds per y = A·x on one path with resident x and y: a batch of products ended by
 * one read of y, which waits for a device path to finish the batch (its calls only record work).
 * Batches of 10, or one product at a time where one takes over 20 ms (a software GPU adapter).
 */
export async function timeResidentSpmv(rt: Runtime, h: MatrixHandle, xv: ResidentVector, yv: ResidentVector, path: PathId, minMs: number): Promise<number> {
  const products = async (k: number): Promise<void> => {
    for (let i = 0; i < k; i++) await rt.spmv(h, xv, { y: yv, path });
    await yv.read();
  };
  const t0 = performance.now();
  await products(1);
  const batch = performance.now() - t0 > 20 ? 1 : 10;
  return medianPerRun(() => products(batch), batch, minMs);
}
