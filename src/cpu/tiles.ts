/**
 * CSR in cache tiles: the CPU path's layout for matrices whose columns scatter over an x far larger
 * than a core's L2 (power-law graphs, random matrices). A CSR sweep there fetches nearly every x element
 * from L3 or memory at random; cut into bands of R rows and, within a band, tiles of W columns, each tile
 * reads W consecutive x elements, in order, and adds into the band's R accumulators
 * (assembly/spmv_tiles.ts). Measured on the power-law matrix of 1 M rows against the native C CSR loop
 * (`npm run bench -- --only formats`): 0.96–1.75× on 1–16 threads of the device machine's Xeon
 * (bench/device/results-2026-11-23e/formats-final.log); at 2 threads on a 2-vCPU EPYC, whose shared 32 MB
 * L3 holds x only when the neighbours are quiet, 1.36–1.38× in f32 and 1.10–1.12× in f64 in two runs
 * (f64 0.38–0.80× before the tiles could read their x in order, nextTouchX). README: How the runtime
 * chooses. The layout is built
 * from the CSR at upload; it stores as many bytes per entry as CSR (a 32-bit packed row/column pair and
 * the value) plus one accumulator per row.
 */
import type { CSRMatrix } from '../formats/csr.js';
import { elementBytes } from '../dtype.js';
import { shownValue } from '../shown-value.js';
import { InputRangeError } from '../errors.js';
import { median } from '../metrics.js';

/** Columns per tile: x slices of 64 KiB in f32, 128 KiB in f64 (an L2 of 512 KiB holds one several times). */
const TILE_COLS = 16384;
/** A packed pair holds a tile column in colBits(W) bits, so tiles are at most 65536 columns wide. */
const MAX_TILE_COLS = 1 << 16;
/** Below this x size the whole of x stays in cache and plain CSR wins. */
export const TILES_MIN_X_BYTES = 1 << 20;

/** Bits of a packed pair that hold the column within a tile of W columns (0 for W = 1). */
export function colBits(W: number): number {
  return 32 - Math.clz32(W - 1);
}

/** The highest band a packed pair can address with tiles of W columns: the 32 − colBits(W) row bits. */
export function maxBandRows(W: number): number {
  return 2 ** (32 - colBits(W));
}

export interface CacheTiles {
  /** rows per band (the last may be shorter) */
  R: number;
  /** columns per tile */
  W: number;
  bands: number;
  /** tiles of band b: [bandPtr[b], bandPtr[b + 1]) */
  bandPtr: Int32Array;
  /** entries of tile t: [tilePtr[t], tilePtr[t + 1]) */
  tilePtr: Int32Array;
  /** first column of tile t */
  tileCol: Int32Array;
  /** (row − band start) << colBits(W) | (column − tile start), as int32 bits */
  rc: Int32Array;
  values: CSRMatrix['values'];
}

/** A band's accumulators (R of them) take at most this many bytes. */
const BAND_WORK_BYTES = 512 * 1024;

/**
 * Band height and tile width. x is read once per band, in order (each tile's slice before its entries),
 * so the higher the band the less x traffic; but a band's accumulators are swept once per tile, and
 * where they outgrow L2 each sweep goes to L3. Bands hold up to 512 KiB of accumulators (65536 rows in
 * f64, 131072 in f32), cut evenly so that every pool thread gets the same number of equal bands (bands
 * are the unit the pool balances); tiles are 16384 columns (x slices of 64 KiB in f32, 128 KiB in f64).
 * Measured on the power-law matrix (1 M rows), native C ms / ours, `npm run bench -- --only formats`:
 * - 16-core Xeon (2 MiB L2 per core; bench/device/results-2026-11-23e): f64 `auto` at 8 threads 1.31× and
 *   1.35× with these bands (formats-xtouch*.log), 1.13× and 0.88× with bands of 1 MiB (formats-band-1mib.log,
 *   formats-tuned-1mib.log); bands of 2 MiB were 10% slower than 512 KiB at 1–4 threads (formats-tall-bands.log).
 * - 2-vCPU EPYC (512 KiB L2, which no f64 band's accumulators fit;
 *   bench/results-local/2026-11-23/formats-band-shapes.log), f64 at 1 / 2 threads: 37.4–41.7 / 17.9–20.3 ms
 *   in bands of 125056 rows, 36.4 / 19.7 in 65536, 24.8 / 16.2 in 262144. Taller bands pay there and lose
 *   on the Xeon; the kernel alone on one thread (`CASES=… node build/tiles-probe.js`,
 *   bench/kernels-tiles-probe.ts) had 65536 to 262144 rows within 5%. f32 131072 × 16384 17.3 / 15.5 ms
 *   against 19.2 / 17.2 in the earlier 65536 × 32768.
 * Neither R, W nor the thread count changes a result's bits (a row's entries are added in the order of
 * its tiles, by column, wherever the bands start).
 */
export function tileShape(dtype: CSRMatrix['dtype'], rows = 0, threads = 1): { R: number; W: number } {
  const maxR = Math.min(BAND_WORK_BYTES / elementBytes(dtype), maxBandRows(TILE_COLS));
  const bands = threads * Math.max(1, Math.ceil(Math.ceil(rows / threads) / maxR));
  return { R: Math.max(1024, Math.ceil(rows / bands / 64) * 64), W: TILE_COLS };
}

/**
 * createRuntime({ cacheTiles }): 'auto' (default) applies useCacheTiles with tileShape; false runs every
 * CSR matrix row by row (for a machine whose cache holds x near enough that tiles do not pay, as
 * `npm run bench -- --only formats` shows); { rows, cols } applies useCacheTiles with this band height and
 * tile width.
 */
export type CacheTilesOption =
  | 'auto'
  | false
  | {
      /** band height R: rows whose accumulators one band holds (1 to maxBandRows(cols): 262144 for 16384 columns) */
      rows: number;
      /** tile width W: consecutive x elements one tile reads (1–65536) */
      cols: number;
    };

/** The option as given, or an InputRangeError that says what is wrong with it. */
export function checkCacheTiles(v: unknown, where: string): CacheTilesOption {
  if (v === undefined || v === 'auto') return 'auto';
  if (v === false) return false;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => k !== 'rows' && k !== 'cols');
    if (extra.length) throw new InputRangeError(`${where}: cacheTiles takes { rows, cols }, not ${shownValue(extra[0])}`);
    const inRange = (k: 'rows' | 'cols', max: number, why: string) => {
      const n = o[k];
      if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > max) {
        throw new InputRangeError(`${where}: cacheTiles.${k} must be an integer in [1, ${max}]${why}, got ${shownValue(n)}`);
      }
    };
    inRange('cols', MAX_TILE_COLS, '');
    inRange('rows', maxBandRows(o.cols as number), ` with cols ${o.cols as number}`);
    return { rows: o.rows as number, cols: o.cols as number };
  }
  throw new InputRangeError(`${where}: cacheTiles must be 'auto', false or { rows, cols }, got ${shownValue(v)}`);
}

/** The tile shape the option gives A on `threads` threads, or null where A runs row by row. */
export function cacheTilesFor(A: CSRMatrix, option: CacheTilesOption, threads: number): { R: number; W: number } | null {
  if (option === false || !useCacheTiles(A)) return null;
  return option === 'auto' ? tileShape(A.dtype, A.rows, threads) : { R: option.rows, W: option.cols };
}

/**
 * Whether the CPU path runs a CSR matrix in cache tiles: a real dtype, x beyond TILES_MIN_X_BYTES, and
 * at least half of the entries farther from the diagonal (scaled to the matrix's shape) than half a tile —
 * banded and stencil matrices read x in a narrow moving window already, and stay plain CSR.
 */
export function useCacheTiles(A: CSRMatrix): boolean {
  if (A.dtype !== 'f32' && A.dtype !== 'f64') return false;
  if (A.cols * elementBytes(A.dtype) < TILES_MIN_X_BYTES || A.nnz === 0) return false;
  const half = TILE_COLS / 2;
  const scale = A.cols / A.rows;
  let far = 0;
  // a sample of rows is enough to tell a scattered matrix from a banded one
  const step = Math.max(1, Math.floor(A.rows / 4096));
  let seen = 0;
  for (let i = 0; i < A.rows; i += step) {
    const d = i * scale;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (Math.abs(A.colIdx[k] - d) > half) far++;
    seen += A.rowPtr[i + 1] - A.rowPtr[i];
  }
  return 2 * far > seen;
}

/**
 * The tiled layout of a CSR matrix: a row's entries go to their tiles in ascending tile order and keep
 * their CSR order within a tile (duplicates included), which is the order its sum adds them in.
 */
export function cacheTiles(A: CSRMatrix, shape = tileShape(A.dtype, A.rows)): CacheTiles {
  const { R, W } = shape;
  if (W > MAX_TILE_COLS || R > maxBandRows(W)) {
    throw new RangeError(`cache tiles of ${R} × ${W}: the packed pairs hold at most ${MAX_TILE_COLS} columns and ${maxBandRows(W)} rows for ${W}`);
  }
  const cb = colBits(W);
  const { rows, cols, rowPtr, colIdx } = A;
  const bands = Math.ceil(rows / R);
  const tileCols = Math.max(1, Math.ceil(cols / W));
  const bandPtr = new Int32Array(bands + 1);
  const rc = new Int32Array(A.nnz);
  const values = new (A.values.constructor as { new (n: number): CSRMatrix['values'] })(A.nnz);
  const tilePtr: number[] = [0];
  const tileCol: number[] = [];
  const count = new Int32Array(tileCols + 1);
  for (let b = 0; b < bands; b++) {
    const r0 = b * R;
    const r1 = Math.min(rows, r0 + R);
    const base = rowPtr[r0];
    count.fill(0);
    for (let k = base; k < rowPtr[r1]; k++) count[((colIdx[k] / W) | 0) + 1]++;
    for (let t = 0; t < tileCols; t++) count[t + 1] += count[t];
    // tile t of this band takes entries base + [count[t], count[t + 1]); rows in order, so sorted by row
    // then (CSR order) column
    for (let t = 0; t < tileCols; t++) {
      if (count[t + 1] > count[t]) {
        tileCol.push(t * W);
        tilePtr.push(base + count[t + 1]);
      }
    }
    const next = count.slice(0, tileCols);
    for (let r = r0; r < r1; r++) {
      for (let k = rowPtr[r]; k < rowPtr[r + 1]; k++) {
        const c = colIdx[k];
        const t = (c / W) | 0;
        const e = base + next[t]++;
        rc[e] = ((r - r0) << cb) | (c - t * W);
        values[e] = A.values[k];
      }
    }
    bandPtr[b + 1] = tileCol.length;
  }
  return { R, W, bands, bandPtr, tilePtr: Int32Array.from(tilePtr), tileCol: Int32Array.from(tileCol), rc, values };
}

/** Products timed, alternately with and without the x reads, before a matrix keeps the faster. */
export const TOUCH_TRIALS = 6;
const touchTrials = new WeakMap<Record<string, number>, [number[], number[]]>();

/**
 * touchX for a matrix's next product (params.touchX: −1 until decided, then 0 or 1; matrices not in
 * tiles have none and get 0), and, while undecided, where to report the product's time. Reading each tile's x slice first pays where x is
 * not in L3 — the 2-vCPU EPYC, whose shared L3 loses an 8 MB x to its neighbours: f64 tiles 25–38 ms
 * against 54–106 on one thread — and costs where it is and many threads stream it: the 16-core Xeon,
 * power-law f64 at 16 threads, 4.3–5.0 ms against 2.2–3.2 without (bench/device/results-2026-11-23e/
 * touch-ab.log), even on one thread 33.4 against 33.9. The bits are the same either way, so each matrix
 * measures: its first product runs with the reads, untimed (warm-up); the next TOUCH_TRIALS alternate,
 * and it keeps the one with the lower median.
 */
export function nextTouchX(params: Record<string, number>): { touchX: number; record?: (ms: number) => void } {
  if (!params.tiled) return { touchX: 0 };
  if (params.touchX >= 0) return { touchX: params.touchX };
  const times = touchTrials.get(params);
  if (!times) {
    touchTrials.set(params, [[], []]);
    return { touchX: 1 };
  }
  const touchX = (times[0].length + times[1].length) % 2 === 0 ? 1 : 0;
  return {
    touchX,
    record: (ms) => {
      times[touchX].push(ms);
      if (times[0].length + times[1].length < TOUCH_TRIALS) return;
      params.touchX = median(times[1]) <= median(times[0]) ? 1 : 0;
      touchTrials.delete(params);
    },
  };
}
