import type { CSRMatrix } from '../formats/csr.js';
import { DIA_MAX_DIAGONALS, diagonalMarks, finishScan, knownScan, type DiagonalScan } from '../formats/diagonal-scan.js';
import { elementBytes } from '../dtype.js';
import type { FormatName } from '../formats/index.js';
import { defaultSortWindow, hybWidth, sellDefaultC, sellSlots } from '../formats/index.js';
import type { PathKind } from '../path.js';
import { useCacheTiles } from '../cpu/tiles.js';
import { csrLayoutOf, type CsrLayoutKind } from '../cpu/csr-layout.js';
import { slotPitch } from '../formats/common.js';
import { compactValues } from '../formats/dia.js';

/**
 * Cheap structural features of a matrix (one pass over its CSR), the inputs of the runtime's format
 * choice: the best storage format differs from matrix to matrix (Sandhu, Herrera and Hendren, "Sparse
 * matrices on the web", 2018), and these are the features that tell them apart.
 */
export interface MatrixFeatures {
  /** number of rows */
  rows: number;
  /** number of columns */
  cols: number;
  /** stored entries of the canonical CSR */
  nnz: number;
  /** mean row length */
  meanRow: number;
  /** longest row */
  maxRow: number;
  /** coefficient of variation (std/mean) of the row lengths: 0 for equal rows */
  rowCv: number;
  /** distinct diagonals holding entries */
  diagonals: number;
  /** DIA's stored slots per entry (1 = no padding) */
  diaFill: number;
  /** ELL's stored slots per entry at the longest row's width */
  ellFill: number;
  /** HYB's ELL width (row-length histogram rule, {@link hybWidth}) */
  hybWidth: number;
  /** the share of entries HYB's ELL part holds */
  hybEllShare: number;
  /** bytes of x (cols × element size in the matrix's dtype) */
  xBytes: number;
  /** SELL-C-σ's default C for the matrix's dtype ({@link sellDefaultC}); in rt.explain, a SELLMatrix's own C, σ and slots */
  sellC: number;
  /** SELL-C-σ's default σ for this matrix ({@link defaultSortWindow}) */
  sellSigma: number;
  /** the slots SELL-C-σ stores with that C and σ, padding included */
  sellSlots: number;
  /**
   * the CPU path runs this matrix's CSR in cache tiles: a real dtype, x beyond 1 MiB and columns
   * scattered far from the diagonal (src/cpu/tiles.ts)
   */
  cacheTiles: boolean;
  /**
   * how the CPU path lays out this matrix's CSR (src/cpu/csr-layout.ts): 'csr16' — columns as 16-bit
   * offsets from the diagonal (every entry within ±32767 of it; at least 1 Mi entries or half of the
   * 4-row groups uniform), 'csrg' — i32 columns with half of the groups or more uniform; uniform groups
   * (4 equal rows with the same offsets, a stencil's interior) interleaved, one row per SIMD lane;
   * 'plain' — CSR as it is
   */
  csrLayout: CsrLayoutKind;
  /**
   * the values are f64 that are all exactly f32 (src/formats/dia.ts compactValues): the CPU path keeps
   * such a matrix's DIA values as f32, and its estimates count them at 4 bytes
   */
  valuesF32: boolean;
}

/**
 * `lazyScans`: the features that need whole passes of their own are computed on first read (their
 * closures keep A: pass true only where A lives as long as the features anyway).
 */
export function matrixFeatures(A: CSRMatrix, lazyScans = false): MatrixFeatures {
  const { rows, cols, rowPtr } = A;
  const nnz = A.nnz;
  // a private CSR's solve structure check may have scanned it already (src/formats/diagonal-scan.ts)
  const { maxRow, sumSq, diagonals } = (lazyScans && knownScan(A)) || scan(A, lazyScans);
  const meanRow = rows ? nnz / rows : 0;
  const variance = rows ? sumSq / rows - meanRow * meanRow : 0;
  const pitch = slotPitch(rows);
  const per = (slots: number): number => (nnz ? slots / nnz : 1);
  const sellC = sellDefaultC(A.dtype);
  const f = {
    rows,
    cols,
    nnz,
    meanRow,
    maxRow,
    rowCv: meanRow ? Math.sqrt(Math.max(0, variance)) / meanRow : 0,
    diagonals,
    diaFill: per(diagonals * pitch),
    ellFill: per(maxRow * pitch),
    // placeholders, so the keys keep their place: made lazy below
    hybWidth: 0,
    hybEllShare: 0,
    xBytes: cols * elementBytes(A.dtype),
    sellC,
  } as MatrixFeatures;
  // on first read: a DIA or ELL choice (a stencil) reads none of them, and they cost whole passes over
  // the CSR (SELL's sorted slots twice, the CPU layout's scan: ≈ 25 ms of poisson3D(64)'s set-up; HYB's
  // width and share, passes over the rows: ≈ 1.5 ms there, more in a process's first call)
  lazy(f, 'sellSigma', () => defaultSortWindow(A, sellC));
  lazy(f, 'sellSlots', () => sellSlots(rowPtr, rows, sellC, f.sellSigma));
  lazy(f, 'cacheTiles', () => useCacheTiles(A));
  lazy(f, 'csrLayout', () => csrLayoutOf(A));
  // a pass over the values, read by a CPU DIA estimate only (it stops at the first value that is not f32)
  lazy(f, 'valuesF32', () => compactValues(A));
  // HYB's (a GPU path's choice, and explain's estimates): the row-length histogram and a pass over the rows
  lazy(f, 'hybWidth', () => hybWidth(A));
  lazy(f, 'hybEllShare', () => {
    const k = f.hybWidth;
    let inEll = 0;
    for (let i = 0; i < rows; i++) inEll += Math.min(k, rowPtr[i + 1] - rowPtr[i]);
    return nnz ? inEll / nnz : 1;
  });
  return lazyScans ? f : { ...f };
}

/**
 * One pass over A's entries: its diagonals (diagonal k = j − i + rows − 1 marked) and row lengths;
 * with `keep`, the offsets of a DIA conversion are kept for A (src/formats/diagonal-scan.ts).
 */
function scan(A: CSRMatrix, keep: boolean): DiagonalScan {
  const { rows, cols, rowPtr, colIdx } = A;
  const seen = diagonalMarks(rows, cols);
  const found: number[] = [];
  let maxRow = 0;
  let sumSq = 0;
  let diagonals = 0;
  // each row's bounds and diagonal base read once, not per entry (poisson3D(128): 42–47 → 32–35 ms CPU)
  let end = rowPtr[0];
  for (let i = 0; i < rows; i++) {
    const start = end;
    end = rowPtr[i + 1];
    const len = end - start;
    if (len > maxRow) maxRow = len;
    sumSq += len * len;
    const base = rows - 1 - i;
    for (let k = start; k < end; k++) {
      const d = colIdx[k] + base;
      if (!seen[d]) {
        seen[d] = 1;
        if (++diagonals <= DIA_MAX_DIAGONALS) found.push(d);
      }
    }
  }
  return finishScan(A, seen.length, found, { diagonals, maxRow, sumSq }, keep);
}

/** Defines f[key] as an enumerable property computed once, on its first read. */
function lazy<K extends keyof MatrixFeatures>(f: MatrixFeatures, key: K, get: () => MatrixFeatures[K]): void {
  let v: MatrixFeatures[K] | undefined;
  Object.defineProperty(f, key, { enumerable: true, configurable: true, get: () => (v ??= get()) });
}

/** A copy of f with some features replaced; the others unread stay unread (a spread would compute them all). */
export function withFeatures(f: MatrixFeatures, replaced: Partial<MatrixFeatures> = {}): MatrixFeatures {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(f)) as MatrixFeatures;
  for (const [key, value] of Object.entries(replaced)) Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/**
 * The storage format a path runs a matrix in, from its features, with the reason. The thresholds come
 * from the benchmarks (README, "How the runtime chooses"): DIA wins by a wide margin on banded
 * matrices when little padding is stored; ELL's SIMD-across-rows kernel wins when rows are of nearly
 * equal length; on the GPU, HYB takes irregular rows off the ELL part; on the CPU, rows of irregular
 * length run as SELL-C-σ while x fits in a core's cache (one row per SIMD lane, sorted slices, no
 * per-row loop exits to mispredict); beyond, CSR in cache tiles when the columns scatter (x read one
 * L2-sized tile at a time: 1.0–2.4× the native C CSR loop on the power-law matrix, 1–16 threads) and
 * JDS otherwise; CSR is the general case.
 */
export const CPU_IRREGULAR_CV = 0.3;
/** x up to this size counts as cache-resident for the SELL/JDS choice (measured: ≤ 55 KB SELL won, ≥ 4 MB JDS). */
export const CPU_CACHED_X_BYTES = 1 << 20;

/** The rule below, documented in the README ("How the runtime chooses"). */
export function chooseFormat(f: MatrixFeatures, path: PathKind): { format: FormatName; reason: string } {
  if (f.nnz === 0) return { format: 'csr', reason: 'empty matrix: CSR stores nothing' };
  const diaLimit = path === 'cpu' ? 1.5 : 2;
  if (f.diagonals <= DIA_MAX_DIAGONALS && f.diaFill <= diaLimit) {
    return { format: 'dia', reason: `${f.diagonals} diagonals, DIA stores ${f.diaFill.toFixed(2)} slots per entry (≤ ${diaLimit})` };
  }
  const ellLimit = path === 'cpu' ? 1.15 : 1.5;
  if (f.ellFill <= ellLimit) {
    return { format: 'ell', reason: `rows of nearly equal length: ELL stores ${f.ellFill.toFixed(2)} slots per entry (≤ ${ellLimit})` };
  }
  if (path === 'gpu' && f.hybEllShare >= 0.6 && f.rowCv > 0.5) {
    return {
      format: 'hyb',
      reason: `irregular rows (cv ${f.rowCv.toFixed(2)}): HYB keeps ${(100 * f.hybEllShare).toFixed(0)}% of the entries in an ELL part of width ${f.hybWidth}`,
    };
  }
  if (path === 'cpu' && f.rowCv >= CPU_IRREGULAR_CV) {
    const irregular = `irregular rows (cv ${f.rowCv.toFixed(2)} ≥ ${CPU_IRREGULAR_CV})`;
    const sell = `SELL-${f.sellC}-${f.sellSigma} (${(f.sellSlots / f.nnz).toFixed(2)} slots per entry)`;
    const xKiB = `x = ${(f.xBytes / 1024).toFixed(0)} KiB`;
    if (f.xBytes <= CPU_CACHED_X_BYTES) return { format: 'sell', reason: `${irregular}, ${xKiB} fits in cache: ${sell} measured fastest` };
    return f.cacheTiles
      ? { format: 'csr', reason: `${irregular}, ${xKiB} beyond cache, columns scattered: CSR in cache tiles measured fastest, ahead of JDS and ${sell}` }
      : { format: 'jds', reason: `${irregular}, ${xKiB} beyond cache: JDS measured fastest, ahead of ${sell} and CSR` };
  }
  const tiles =
    path !== 'cpu'
      ? ''
      : f.cacheTiles
        ? ' (in cache tiles: columns scattered over an x beyond cache)'
        : f.csrLayout === 'plain'
          ? ''
          : ` (${f.csrLayout === 'csr16' ? 'columns as 16-bit offsets from the diagonal, ' : ''}4 equal stencil rows per SIMD step)`;
  return { format: 'csr', reason: `general structure (row cv ${f.rowCv.toFixed(2)}, ELL fill ${f.ellFill.toFixed(2)}, DIA fill ${f.diaFill.toFixed(2)}): CSR${tiles}` };
}
