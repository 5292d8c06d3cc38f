import type { Runtime } from '../runtime/runtime.js';
import type { MatrixHandle, ResidentVector } from '../runtime/handles.js';
import type { PathId } from '../path.js';
import { timeMedianMs } from '../metrics.js';

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
  return (await timeMedianMs(() => products(batch), minMs, 3, 200)) / batch;
}
