import type { CpuBackend } from './backend.js';

// A product's passes over its row pointers: on the pool where it runs the scans (scan.ts, a chunk
// loaded with a pool of several threads), else by one kernel on this thread — the same bits.

/** The longest of `rows` rows (row pointers at ptr): a pass on the pool where it has the scans (scan.ts). */
export function longestRow(B: CpuBackend, ptr: number, rows: number): number {
  return B.poolScans?.longestRow(B, ptr, rows) ?? B.kernel('spgemm_longest')(ptr, rows);
}

/** A two-pass product's row pointers at cp (and, where fl is not 0, the multiply-adds before each row at fl): its entries. */
export function rowPointers(B: CpuBackend, cp: number, m: number, fl = 0): number {
  const nnz = B.poolScans?.productPointers(B, cp, fl, m);
  if (nnz !== undefined) return nnz;
  if (fl) B.kernel('spgemm_flops_before')(fl, m);
  return B.kernel('spgemm_row_pointers')(cp, m);
}
