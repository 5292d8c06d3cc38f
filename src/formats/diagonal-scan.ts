import { releaseMemory, reserveMemory } from '../memory-budget.js';
import { isPrivateCanonical, type CSRMatrix } from './csr.js';
import { rememberOffsets } from './dia.js';

/** The most diagonals DIA is chosen with (src/runtime/features.ts): a scan keeps the offsets of no more. */
export const DIA_MAX_DIAGONALS = 256;

/** What one pass over a CSR's entries tells of its diagonals and row lengths: the format choice's pass. */
export interface DiagonalScan {
  /** distinct diagonals holding entries */
  diagonals: number;
  /** longest row */
  maxRow: number;
  /** Σ of the squared row lengths */
  sumSq: number;
}

/**
 * The scans of runtime-private canonical CSRs (their arrays never change) made by rt.solve's structure
 * check (src/solvers/structure.ts), which walks every entry anyway: the features of the format choice
 * that follows then need no pass of their own (poisson3D(64): 1.8 M entries).
 */
const scans = new WeakMap<CSRMatrix, DiagonalScan>();

/** A's scan when a pass over its entries made one (only a private CSR's are kept). */
export function knownScan(A: CSRMatrix): DiagonalScan | undefined {
  return scans.get(A);
}

/** A mark per possible diagonal of a rows × cols matrix (diagonal j − i at j − i + rows − 1), counted against the memory budget. */
export function diagonalMarks(rows: number, cols: number): Uint8Array {
  const n = Math.max(0, rows + cols - 1);
  reserveMemory(n, `matrix features: a mark for each of ${n} diagonals`);
  return new Uint8Array(n);
}

/**
 * Ends a scan of A with `found` the first DIA_MAX_DIAGONALS marks as they were set (a scan pushes
 * each new mark while there are no more: no pass over the rows + cols − 1 marks afterwards): with
 * `keep` (A runtime-private), the offsets a DIA conversion of A would scan the entries for (when DIA
 * could be chosen: few diagonals) and the scan itself are kept for A; the `marks` bytes diagonalMarks
 * reserved are given back (0: the marks were elsewhere, the CPU pool's).
 */
export function finishScan(A: CSRMatrix, marks: number, found: number[], scan: DiagonalScan, keep: boolean): DiagonalScan {
  if (keep && scan.diagonals <= DIA_MAX_DIAGONALS) rememberOffsets(A, Int32Array.from(found, (d) => d - (A.rows - 1)).sort());
  if (keep && isPrivateCanonical(A)) scans.set(A, scan);
  releaseMemory(marks);
  return scan;
}
