/**
 * Arrays copied into the runtime's WebAssembly memory by the pool's threads together: a copy on one
 * thread runs at that core's bandwidth (the fine A of an AMG setup of poisson3D(128), 175 MB: ≈ 40 ms on
 * the H200 machine's host, 4.5 GB/s), the workers stream at ≈ 100 GB/s. A worker reads only shared
 * memory, so the arrays must lie on SharedArrayBuffers (rt.upload's private copy of a large CSR does,
 * formats/owned.ts): the calling thread posts them to every worker's port, then runs a COPY_IN job
 * (control.ts) whose chunks are ranges of 4-byte words of the arrays laid end to end; each worker takes
 * the message synchronously (Node: receiveMessageOnPort) and copies its words.
 */
import * as C from './control.js';
import { evenBounds } from './partition.js';
import type { WorkerPool } from './pool.js';

/** A source array (its whole length, a whole number of 4-byte words) and its destination's byte address in the memory. */
export interface CopyIn {
  src: Int32Array | Float64Array;
  to: number;
}

/** What the calling thread posts to each worker for the COPY_IN job tagged `tag` (its argument 0). */
export interface CopyInMessage {
  tag: number;
  sources: (Int32Array | Float64Array)[];
  to: number[];
}

/**
 * Words [start, end) of `sources` laid end to end (each a whole number of words) copied into `buffer`
 * (the memory's) from the byte addresses `to`. Both ranges stay within each source: a chunk boundary
 * inside a source splits it, never spills into the next.
 */
export function copyWords(buffer: ArrayBufferLike, sources: (Int32Array | Float64Array)[], to: number[], start: number, end: number): void {
  let base = 0;
  for (let k = 0; k < sources.length && base < end; k++) {
    const src = sources[k];
    const words = src.byteLength >> 2;
    const [s, e] = [Math.max(start, base) - base, Math.min(end, base + words) - base];
    if (e > s) new Int32Array(buffer, to[k] + 4 * s, e - s).set(new Int32Array(src.buffer, src.byteOffset + 4 * s, e - s));
    base += words;
  }
}

let tags = 0;

/**
 * `items` copied into the memory by the pool's threads (the calling thread too), each source a view of
 * a SharedArrayBuffer whose byteLength is a multiple of 4; false, having copied nothing, where the pool
 * cannot take the job now (its workers have no port, it is busy or not up): the caller copies them then.
 * A job of the workers' own (PoolJob.own): each worker takes its message in the job, none is left on a
 * port holding the arrays.
 */
export function copyInOnPool(pool: WorkerPool, items: CopyIn[]): boolean {
  const sources = items.map((i) => i.src);
  const to = items.map((i) => i.to);
  const words = sources.reduce((n, s) => n + (s.byteLength >> 2), 0);
  // every worker's chunk non-empty: a worker runs (and takes its message) only where it has words
  if (words < pool.chunks) return false;
  const tag = (tags = (tags + 1) | 0);
  if (!pool.postSync({ tag, sources, to } satisfies CopyInMessage)) return false;
  const bounds = evenBounds(words, pool.chunks);
  const buffer = pool.memory.buffer;
  return pool.runSync({ kernel: C.COPY_IN, args: [tag], bounds, own: true }, (_job, s, e) => copyWords(buffer, sources, to, s, e));
}
