import { MemoryLimitError } from '../errors.js';
import { releaseMemory, reserveMemory } from '../memory-budget.js';
import { isPrivateCanonical, validateCanonical, type CSRMatrix } from './csr.js';
import { checkPointers, checkRange, checkValueArray } from './common.js';
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
  /** of a real A's values, where the pass read them (validateCanonicalScanning): looseAbsNorms' findings (src/solvers/solve.ts) */
  abs?: AbsScan;
}

/** The largest |aᵢⱼ| and row sum Σⱼ|aᵢⱼ| (summed in the row's order) of a real A, and whether A holds NaN (maxAbs then the largest of the others). */
export interface AbsScan {
  maxAbs: number;
  maxRowSum: number;
  nan: boolean;
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
  if (keep) keepScan(A, found, scan);
  releaseMemory(marks);
  return scan;
}

/** finishScan's `keep`: the offsets of A's first DIA_MAX_DIAGONALS diagonals (when there are no more) and, A runtime-private, the scan. */
function keepScan(A: CSRMatrix, found: number[], scan: DiagonalScan): void {
  if (scan.diagonals <= DIA_MAX_DIAGONALS) rememberOffsets(A, Int32Array.from(found, (d) => d - (A.rows - 1)).sort());
  if (isPrivateCanonical(A)) scans.set(A, scan);
}

/**
 * The fewest entries for which validateCanonicalScanning scans: a small matrix's separate passes cost
 * microseconds, and its solve (a factorization) reads neither — the scan's marks and the values' sums
 * took 4–8 µs more than validation alone on west0479 and bcsstk01 (0.1–0.7 ms uploads + solves).
 */
export const SCAN_MIN_ENTRIES = 1 << 16;

/**
 * validateCanonical(A) (src/formats/csr.ts: the same answer, the same FormatError at the same first
 * entry) with, in its pass over the entries, the format features' scan (src/runtime/features.ts) and,
 * for a real dtype, looseAbsNorms' findings: rt.upload's 'auto' copy had the three passes one after the
 * other, before its first solve (poisson3D(64): 1.8 M entries each). `keep`, called once A is marked
 * runtime-private (markPrivateCanonical), keeps the scan for A as finishScan does; a copy that is not
 * canonical is sorted into another CSR, which this scan does not describe: nothing to keep then.
 * `minEntries`: SCAN_MIN_ENTRIES (tests: 0, to scan the small matrices too).
 */
export function validateCanonicalScanning(A: CSRMatrix, minEntries = SCAN_MIN_ENTRIES): { canonical: boolean; keep: () => void } {
  const { rows, cols, rowPtr, colIdx, values } = A;
  // fewer entries than minEntries, marks beyond the bytes of A's indices (a wide matrix, few entries),
  // or marks past the memory budget: the scan waits for the format choice, which may never come (a
  // factorization), as before
  const seen = colIdx.length >= minEntries && rows + cols - 1 <= rowPtr.byteLength + colIdx.byteLength ? marksWithin(rows, cols) : null;
  if (!seen) return { canonical: validateCanonical(A), keep: () => {} };
  checkPointers('CSR', 'rowPtr', rowPtr, 0, colIdx.length, 'colIdx.length');
  // the values' checks come after the entries' (their error after any column's), as validateCanonical's
  // do: a real dtype's values are read in the pass only where they will pass them
  const real = A.dtype === 'f64' || A.dtype === 'f32';
  const readValues = real && (values instanceof Float64Array || values instanceof Float32Array) && values.length === colIdx.length;
  const found: number[] = [];
  let canonical = true;
  let diagonals = 0;
  let maxRow = 0;
  let sumSq = 0;
  let maxAbs = 0;
  let maxRowSum = 0;
  let nan = false;
  let end = rowPtr[0];
  for (let i = 0; i < rows; i++) {
    const start = end;
    end = rowPtr[i + 1];
    const len = end - start;
    if (len > maxRow) maxRow = len;
    sumSq += len * len;
    const base = rows - 1 - i;
    let prev = -1;
    let sum = 0;
    for (let k = start; k < end; k++) {
      const j = colIdx[k];
      // (an int32 below 0 is past cols unsigned: one comparison)
      if (!(j >>> 0 < cols)) checkRange('CSR', 'colIdx', colIdx, 0, cols, k, k + 1);
      if (j <= prev) canonical = false;
      prev = j;
      const d = j + base;
      if (!seen[d]) {
        seen[d] = 1;
        if (++diagonals <= DIA_MAX_DIAGONALS) found.push(d);
      }
      if (readValues) {
        const a = Math.abs(values[k]);
        sum += a;
        if (a > maxAbs) maxAbs = a;
      }
    }
    // a NaN's row sums to NaN (sums of |aᵢⱼ| ≥ 0 make none of their own): one test a row, not an entry
    if (sum > maxRowSum) maxRowSum = sum;
    else if (sum !== sum) nan = true;
  }
  releaseMemory(seen.length);
  checkValueArray('CSR', A.dtype, values, colIdx.length);
  const scan: DiagonalScan = { diagonals, maxRow, sumSq };
  if (readValues) scan.abs = { maxAbs, maxRowSum, nan };
  return { canonical, keep: () => canonical && keepScan(A, found, scan) };
}

/** diagonalMarks, or null where they would pass the memory budget. */
function marksWithin(rows: number, cols: number): Uint8Array | null {
  try {
    return diagonalMarks(rows, cols);
  } catch (e) {
    if (e instanceof MemoryLimitError) return null;
    throw e;
  }
}
