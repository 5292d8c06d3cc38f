import type { CpuBackend } from './backend.js';
import { claimedParts, evenBounds } from './partition.js';

/**
 * A sparse product's one-thread passes over its rows (the longest row, the row pointers and multiply-adds
 * before each row, a transpose's column starts) as two passes on the pool: each chunk's total, then
 * each chunk's part from the totals before it (assembly/scan.ts). The sums are of integers, so the
 * results are spgemm_longest's, spgemm_row_pointers', spgemm_flops_before's and
 * spgemm_transpose_offsets' bits on any number of threads. Each function returns undefined, having
 * done nothing, under SCAN_POOL_FLOOR rows or on one thread: the caller runs that kernel. (On
 * poisson3D(128)'s AMG setup those kernels took ≈ 30 ms of the calling thread on the 16-core host.)
 * A chunk loaded as a pool of several threads starts (CpuBackend.poolScans): a page's first bundle
 * stays within webpack's size hint.
 */
const SCAN_POOL_FLOOR = 1 << 16;

/** Chunk bounds of a pool pass over n items, or undefined where one thread runs it. */
function chunksOf(B: CpuBackend, n: number): Int32Array | undefined {
  const parts = claimedParts(B.threads);
  if (n < SCAN_POOL_FLOOR || parts === 1) return undefined;
  return evenBounds(n, parts);
}

/**
 * Two pool passes over `bounds`' chunks: `totals` (with `totalArgs`) writes each chunk's totals (two f64,
 * or one i32) at out + 16·c, which become the sums of the chunks before it, read there by `starts`
 * (with `startArgs`); the grand totals returned.
 */
function twoPass(B: CpuBackend, bounds: Int32Array, totals: string, totalArgs: number[], starts: string, startArgs: number[], f64: boolean): number[] {
  const chunks = bounds.length - 1;
  const out = B.heap.alloc(16 * chunks);
  try {
    B.runClaimedSync(totals, [...totalArgs, out.ptr], bounds, totalArgs.length);
    const view = f64 ? out.view('f64', 2 * chunks) : out.view('i32', 4 * chunks);
    const step = view.length / chunks;
    const sum = [0, 0];
    for (let c = 0; c < chunks; c++) {
      for (let w = 0; w < (f64 ? 2 : 1); w++) {
        const t = view[step * c + w];
        view[step * c + w] = sum[w];
        sum[w] += t;
      }
    }
    B.runClaimedSync(starts, [...startArgs, out.ptr], bounds, startArgs.length);
    return sum;
  } finally {
    out.dispose();
  }
}

/** The longest of `rows` rows (row pointers at ptr). */
export function longestRow(B: CpuBackend, ptr: number, rows: number): number | undefined {
  const bounds = chunksOf(B, rows);
  if (!bounds) return undefined;
  const chunks = bounds.length - 1;
  const out = B.heap.alloc(16 * chunks);
  try {
    B.runClaimedSync('rows_longest', [ptr, out.ptr], bounds, 1);
    return out.view('i32', 4 * chunks).reduce((m, x, k) => (k % 4 === 0 ? Math.max(m, x) : m), 0);
  } finally {
    out.dispose();
  }
}

/**
 * A two-pass product's row pointers (in place at cp from the counts at cp[i + 1]) and, where fl is not
 * 0, the multiply-adds before each row (in place at fl, m + 1 f64); its entries returned (past 2³¹ − 1
 * the pointers wrapped).
 */
export function productPointers(B: CpuBackend, cp: number, fl: number, m: number): number | undefined {
  const bounds = chunksOf(B, m);
  if (!bounds) return undefined;
  const [nnz, flops] = twoPass(B, bounds, 'product_totals', [cp, fl], 'product_offsets', [cp, fl], true);
  new Int32Array(B.heap.memory.buffer, cp, 1)[0] = 0;
  if (fl) new Float64Array(B.heap.memory.buffer, fl + 8 * m, 1)[0] = flops;
  return nnz;
}

/** spgemm_transpose_offsets: each of `chunks` count arrays (addresses 16 bytes apart at slots) to its chunk's first positions in the n columns, and the transpose's row pointers at tp (nnz entries); true where done. */
export function transposeStarts(B: CpuBackend, slots: number, chunks: number, n: number, tp: number, nnz: number): true | undefined {
  const bounds = chunksOf(B, n);
  if (!bounds) return undefined;
  twoPass(B, bounds, 'transpose_totals', [slots, chunks], 'transpose_starts', [slots, chunks, tp], false);
  new Int32Array(B.heap.memory.buffer, tp + 4 * n, 1)[0] = nnz;
  return true;
}
