/**
 * Matrix Market reader. Accepted input (ASCII; UTF-8 only inside comments):
 * - banner `%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern>
 *   <general|symmetric|skew-symmetric|hermitian>`, words case-insensitive, separated by spaces/tabs;
 *   an optional UTF-8 byte-order mark before it. Combinations the format rules out are errors:
 *   array+pattern, hermitian without complex, pattern+skew-symmetric.
 * - then, anywhere: blank lines and comment lines (first non-blank character '%'), returned in
 *   `comments` without the '%'. Lines end at LF; space, tab and CR are the blanks (any number) between
 *   words and at either end of any line, so CRLF and stray CRs read like LF; no other character is a
 *   blank (a no-break space is an error).
 * - storage grows with the entries that arrive, never with the size line's promise alone (a short file
 *   is a ParseError); each step is checked against the memory budget (setMemoryBudget, or the
 *   maxMemoryMB option) with what the finished matrix needs, so a file too big for it is a
 *   MemoryLimitError before its storage is allocated.
 * - size line `rows cols entries` (coordinate) or `rows cols` (array): unsigned integers below 2^31.
 * - coordinate entries: `row col` (1-based) then nothing (pattern), one integer (integer), one real
 *   (real) or two reals (complex); symmetric/hermitian files must hold only i >= j, skew-symmetric only
 *   i > j. Duplicates are kept (COO sums them). Array entries: one value (two for complex) per line,
 *   column by column; symmetric/hermitian hold the lower triangle with the diagonal, skew-symmetric the
 *   strictly lower triangle. Hermitian diagonals must be real.
 * - reals: [+-] digits [. digits] or [+-] . digits, exponent [eEdD][+-]digits optional; also inf,
 *   infinity, nan (any case, signed). Integers: [+-] digits. Values are correctly rounded to f64, then
 *   stored in the dtype's array (f32/c64 round once more, to the nearest f32).
 * Anything else is a ParseError with its 1-based line (and column) and what was expected vs found.
 */
import { checkOptions, optionKeys } from '../options-check.js';
import { MatrixMarketParser } from './matrix-market-parser.js';
import { checkBudgetMB } from '../memory-budget.js';
import type { MatrixMarketReadOptions, MatrixMarketResult } from './matrix-market-types.js';

/** A whole Matrix Market file in memory: text, or its bytes (UTF-8/ASCII). */
export type MatrixMarketSource = string | ArrayBuffer | Uint8Array;
/** A Matrix Market file as a stream of chunks: a web ReadableStream, a Node Readable, any async iterable. */
export type MatrixMarketStream = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

/** The bytes of an input or chunk: text (UTF-8), an ArrayBuffer or any view of one (TypeError otherwise). */
function toBytes(input: MatrixMarketSource | ArrayBufferView): Uint8Array {
  if (typeof input === 'string') return new TextEncoder().encode(input);
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  const got = input === null || typeof input !== 'object' ? String(input) : ((input as object).constructor?.name ?? 'an object');
  throw new TypeError(`Matrix Market input must be a string, an ArrayBuffer or a Uint8Array (or a stream of them), got ${got}`);
}

const PARSE_OPTION_KEYS = optionKeys<Pick<MatrixMarketReadOptions, 'dtype' | 'maxMemoryMB'>>({ dtype: true, maxMemoryMB: true });
const READ_OPTION_KEYS = optionKeys<MatrixMarketReadOptions>({ dtype: true, onProgress: true, maxMemoryMB: true });

/**
 * Parses a whole Matrix Market file held in memory (synchronously): coordinate files give a
 * {@link COOMatrix}, array files a {@link DenseMatrix}; symmetric, skew-symmetric and hermitian storage
 * is expanded. Real, integer and pattern files read as f64 and complex ones as c128 unless
 * `opts.dtype` says otherwise.
 *
 * @throws {@link ParseError} for malformed input, with the 1-based `line` (and `column`) and what was
 * expected against what was found: a bad banner, size line or entry, an index out of range, more or
 * fewer entries than the size line promises, an entry a symmetric file may not hold.
 * @throws {@link UnsupportedError} when `dtype` is unknown, or real for a complex file.
 * @throws {@link MemoryLimitError} when the entries read, and the matrix built from them, need more than the memory budget.
 * @throws {@link InputTypeError} or {@link InputRangeError} when `maxMemoryMB` is not a finite number ≥ 1.
 * @throws TypeError when `input` is not a string, an ArrayBuffer or a Uint8Array.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * import { parseMatrixMarket } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const { matrix, header, comments } = parseMatrixMarket(`%%MatrixMarket matrix coordinate complex hermitian
 * % a 2×2 hermitian matrix
 * 2 2 2
 * 1 1 2 0
 * 2 1 1 -1
 * `, { dtype: 'c64' });
 * assert.deepEqual([header.field, header.symmetry, comments[0]], ['complex', 'hermitian', ' a 2×2 hermitian matrix']);
 * assert.deepEqual([matrix.format, matrix.dtype, matrix.nnz], ['coo', 'c64', 3]);   // (1, 2) = conj((2, 1)) added
 * ```
 */
export function parseMatrixMarket(input: MatrixMarketSource, opts?: Pick<MatrixMarketReadOptions, 'dtype' | 'maxMemoryMB'>): MatrixMarketResult {
  checkOptions('parseMatrixMarket', opts, PARSE_OPTION_KEYS);
  checkBudgetMB(opts?.maxMemoryMB, 'parseMatrixMarket');
  const bytes = toBytes(input);
  const parser = new MatrixMarketParser({ dtype: opts?.dtype, expectedBytes: bytes.length, maxMemoryMB: opts?.maxMemoryMB });
  parser.push(bytes);
  return parser.finish();
}

/**
 * Reads a Matrix Market file from memory or from a stream of byte chunks (a web ReadableStream, a
 * Node Readable, any async iterable). Chunks are parsed as they arrive, whatever their boundaries;
 * storage grows with the entries that arrive, not with what the size line promises. Same result as
 * {@link parseMatrixMarket}; `opts.onProgress` hears the bytes read after each chunk.
 *
 * @throws {@link ParseError} for malformed input, with the 1-based `line` (and `column`) and what was
 * expected against what was found: a bad banner, size line or entry, an index out of range, more or
 * fewer entries than the size line promises, an entry a symmetric file may not hold.
 * @throws {@link UnsupportedError} when `dtype` is unknown, or real for a complex file.
 * @throws {@link MemoryLimitError} when the entries read, and the matrix built from them, need more than the memory budget.
 * @throws {@link InputTypeError} or {@link InputRangeError} when `maxMemoryMB` is not a finite number ≥ 1.
 * @throws TypeError when a chunk is not a string, an ArrayBuffer or a view of one; errors of the
 * stream itself propagate (a ReadableStream is then cancelled).
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * // A file of the shared collection, streamed from disk
 * import { readMatrixMarket } from 'simdgl';
 * import { createReadStream } from 'node:fs';
 * import assert from 'node:assert/strict';
 *
 * let bytes = 0;
 * const { matrix, header } = await readMatrixMarket(createReadStream('data/matrices/bcsstk13.mtx'), {
 *   onProgress: (n) => { bytes = n; },
 * });
 * assert.deepEqual([header.symmetry, matrix.rows, matrix.cols], ['symmetric', 2003, 2003]);
 * assert.ok(bytes > 0);
 * ```
 */
export async function readMatrixMarket(
  input: MatrixMarketSource | MatrixMarketStream,
  opts?: MatrixMarketReadOptions,
): Promise<MatrixMarketResult> {
  checkOptions('readMatrixMarket', opts, READ_OPTION_KEYS);
  checkBudgetMB(opts?.maxMemoryMB, 'readMatrixMarket');
  const parser = new MatrixMarketParser({ dtype: opts?.dtype, maxMemoryMB: opts?.maxMemoryMB });
  const progress = opts?.onProgress;
  const feed = (chunk: Uint8Array | string): void => {
    parser.push(toBytes(chunk));
    progress?.(parser.bytesRead);
  };
  if (typeof input === 'string' || input instanceof Uint8Array || input instanceof ArrayBuffer) {
    feed(toBytes(input));
  } else if (typeof (input as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (input as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        feed(value);
      }
    } catch (err) {
      // stop the producer: nothing more will be read
      reader.cancel(err).catch(() => {});
      throw err;
    } finally {
      reader.releaseLock();
    }
  } else {
    for await (const chunk of input as AsyncIterable<Uint8Array | string>) feed(chunk);
  }
  return parser.finish();
}
