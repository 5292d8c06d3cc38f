import type { CSRMatrix } from '../formats/csr.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { balancedBounds, claimedParts } from './partition.js';
import { rowPointers } from './row-pointers.js';

/** A CSR matrix's arrays in the WebAssembly memory (byte addresses). */
export interface CsrAt {
  ptr: number;
  idx: number;
  val: number;
}

/** A's widest row up to which prolongOnePerRow takes the product (its rows' columns are put in order by insertion: assembly/prolong.ts). */
export const WIDEST = 64;

/** Whether prolongOnePerRow takes A·T: every row of T has one entry, and A's rows are at most WIDEST long. */
export function onePerRow(A: CSRMatrix, T: CSRMatrix): boolean {
  if (T.nnz !== T.rows) return false;
  const [ap, tp] = [A.rowPtr, T.rowPtr];
  for (let i = 0; i < A.rows; i++) if (tp[i + 1] - tp[i] !== 1 || ap[i + 1] - ap[i] > WIDEST) return false;
  return true;
}

/**
 * The smoothed prolongator T + diag(scale)·A·T (scale: an f64 per row at `scale`) for a T of nc
 * columns where onePerRow holds, by assembly/prolong.ts: a count pass and a fill pass, rows split by A's entries,
 * the same bits as the general product (spgemm_f64 with a scale vector). `alloc` places the result's
 * arrays (the caller owns them); returns where they are and the entries.
 */
export function prolongOnePerRow(backend: CpuBackend, A: CSRMatrix, a: CsrAt, nc: number, t: CsrAt, scale: number, chunks: number, alloc: (bytes: number) => Region): CsrAt & { nnz: number } {
  const m = A.rows;
  const ap = A.rowPtr;
  // claimed chunks, a workspace per thread (threadArg)
  const bounds = chunks === 1 ? Int32Array.of(0, m) : balancedBounds(m, claimedParts(chunks), (i) => ap[i] + i, 1);
  const work: Region[] = [];
  try {
    const slots = backend.heap.alloc(16 * chunks);
    work.push(slots);
    const slotView = slots.view('i32');
    for (let c = 0; c < chunks; c++) {
      const ws = backend.heap.alloc(Math.ceil(nc / 2) * 8 + 8 * nc);
      work.push(ws);
      slotView[4 * c] = ws.ptr;
    }
    const cp = alloc(4 * (m + 1));
    backend.runClaimedSync('prolong_count', [a.ptr, a.idx, t.idx, nc, slots.ptr, cp.ptr], bounds, undefined, 4);
    const nnz = rowPointers(backend, cp.ptr, m);
    const ci = alloc(4 * nnz);
    const cv = alloc(8 * nnz);
    backend.runClaimedSync('prolong_f64', [a.ptr, a.idx, a.val, t.idx, t.val, scale, nc, slots.ptr, cp.ptr, ci.ptr, cv.ptr], bounds, undefined, 7);
    return { ptr: cp.ptr, idx: ci.ptr, val: cv.ptr, nnz };
  } finally {
    for (const r of work) r.dispose();
  }
}
