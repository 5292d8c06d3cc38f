import { checkOptions, optionKeys } from '../options-check.js';
import { CSRMatrix } from '../formats/csr.js';
import { allocValues, assertDType, components, type DType } from '../dtype.js';
import { ShapeError } from '../errors.js';
import { checkGeneratedSize } from './size.js';
import { Prng } from './prng.js';

/** Options of {@link randomMatrix}. */
export interface RandomMatrixOptions {
  /** number of rows */
  rows: number;
  /** number of columns (default rows) */
  cols?: number;
  /** mean stored entries per row (default 8) */
  meanRowLength?: number;
  /**
   * Row-length distribution. 'uniform': lengths uniform in [0, 2·mean]. 'powerlaw': Pareto-distributed
   * lengths (P(len ≥ k) ∝ k^-exponent), the shape of web and social graphs where a few rows are very long.
   */
  distribution?: 'uniform' | 'powerlaw';
  /** Pareto exponent for 'powerlaw' (default 1.5; smaller = heavier tail) */
  exponent?: number;
  /** the generator's seed (default 1): the same seed gives the same matrix in every engine */
  seed?: number;
  /** element type (default f64) */
  dtype?: DType;
}

const RANDOM_OPTION_KEYS = optionKeys<RandomMatrixOptions>({ rows: true, cols: true, meanRowLength: true, distribution: true, exponent: true, seed: true, dtype: true });

/**
 * A reproducible random sparse matrix in canonical CSR (sorted, distinct columns per row), values
 * uniform in [-1, 1) (both parts for complex). The same options give the same matrix everywhere.
 *
 * @throws {@link ShapeError} when rows or cols is not a non-negative integer, meanRowLength is
 * negative, or a power law has an exponent ≤ 1.
 * @throws {@link UnsupportedError} for an unknown dtype.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * // A power-law matrix: a few very long rows, as in web and social graphs
 * import { randomMatrix } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = randomMatrix({ rows: 10000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 });
 * const lengths = Array.from({ length: A.rows }, (_, i) => A.rowPtr[i + 1] - A.rowPtr[i]);
 * assert.ok(Math.max(...lengths) > 20 * (A.nnz / A.rows));                   // a heavy tail
 * assert.ok(A.isCanonical());
 * const B = randomMatrix({ rows: 10000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 });
 * assert.deepEqual(B.colIdx, A.colIdx);                                      // same seed, same matrix
 * ```
 */
export function randomMatrix(options: RandomMatrixOptions): CSRMatrix {
  checkOptions('randomMatrix', options, RANDOM_OPTION_KEYS);
  const { rows, cols = rows, meanRowLength = 8, distribution = 'uniform', exponent = 1.5, seed = 1, dtype = 'f64' } = options;
  assertDType(dtype, 'randomMatrix');
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0) {
    throw new ShapeError(`randomMatrix: rows and cols must be non-negative integers, got ${rows}×${cols}`);
  }
  if (!(meanRowLength >= 0)) throw new ShapeError(`randomMatrix: meanRowLength must be ≥ 0, got ${meanRowLength}`);
  if (distribution === 'powerlaw' && !(exponent > 1)) {
    throw new ShapeError(`randomMatrix: a power law needs exponent > 1 for a finite mean, got ${exponent}`);
  }
  // the lengths and row pointers, and half the entries the mean asks for (each 4 + 8 bytes or more)
  const half = Math.floor((rows * Math.min(meanRowLength, cols)) / 2);
  checkGeneratedSize('randomMatrix', rows, half, 8 * rows + 12 * half);
  const rng = new Prng(seed);
  const lengths = new Int32Array(rows);
  // Pareto with minimum m has mean m·a/(a-1); choose m so the mean row length is as asked.
  const paretoMin = (meanRowLength * (exponent - 1)) / exponent;
  for (let i = 0; i < rows; i++) {
    const raw =
      distribution === 'uniform'
        ? rng.next() * (2 * meanRowLength + 1)
        : paretoMin / Math.pow(1 - rng.next(), 1 / exponent);
    lengths[i] = Math.min(cols, Math.floor(raw));
  }
  let total = 0;
  for (let i = 0; i < rows; i++) total += lengths[i];
  checkGeneratedSize('randomMatrix', rows, total, 8 * rows + (4 + 8 * components(dtype)) * total);
  const rowPtr = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) rowPtr[i + 1] = rowPtr[i] + lengths[i];
  const nnz = rowPtr[rows];
  const colIdx = new Int32Array(nnz);
  const seen = new Set<number>();
  for (let i = 0; i < rows; i++) {
    const start = rowPtr[i];
    const len = lengths[i];
    if (len * 2 > cols) {
      // dense-ish row: pick columns by a selection pass over all columns (Knuth's algorithm S)
      let need = len;
      for (let j = 0, k = start; j < cols && need > 0; j++) {
        if (rng.next() * (cols - j) < need) {
          colIdx[k++] = j;
          need--;
        }
      }
    } else {
      seen.clear();
      for (let k = start; k < start + len; ) {
        const j = rng.int(cols);
        if (!seen.has(j)) {
          seen.add(j);
          colIdx[k++] = j;
        }
      }
      colIdx.subarray(start, start + len).sort();
    }
  }
  const values = allocValues(dtype, nnz);
  const n = nnz * components(dtype);
  for (let k = 0; k < n; k++) values[k] = rng.next() * 2 - 1;
  return new CSRMatrix(rows, cols, dtype, rowPtr, colIdx, values);
}
