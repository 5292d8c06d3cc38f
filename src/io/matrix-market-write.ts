/**
 * Matrix Market writer. Coordinate entries are written in row-major order (the order of the canonical
 * CSR: rows ascending, columns ascending within a row, duplicates summed); array files are column-major
 * as the format requires. Symmetric / skew-symmetric / hermitian output stores the lower triangle only
 * (skew: strictly lower), after checking that the matrix really has that symmetry.
 *
 * Numbers round-trip exactly: the shortest decimal that reads back to the same f64 (for f32 storage,
 * to the same f32); inf, -inf and nan for non-finite values; -0 keeps its sign.
 */
import { checkOptions, optionKeys } from '../options-check.js';
import { componentBytes, components, isComplex, type DType, type ValueArray } from '../dtype.js';
import { FormatError, ShapeError, UnsupportedError } from '../errors.js';
import { DenseMatrix } from '../formats/dense.js';
import type { MMField, MMFormat, MMSymmetry } from './matrix-market-types.js';
import { shownValue } from '../shown-value.js';

/** Options of {@link writeMatrixMarket}. */
export interface MatrixMarketWriteOptions {
  /** default: array for a DenseMatrix, coordinate otherwise */
  format?: MMFormat;
  /** default: complex for c64/c128, real otherwise; integer requires integral values; pattern drops them */
  field?: MMField;
  /** default general; 'auto' picks the strongest the matrix has (symmetric, then hermitian, then skew-symmetric) */
  symmetry?: MMSymmetry | 'auto';
  /** written as '%'-prefixed lines after the banner, one per line of the text */
  comment?: string;
  /** significant digits; default: shortest exact round trip. Set it and values are rounded. */
  precision?: number;
}

/** What the writer needs of a sparse matrix: a CSR with sorted, duplicate-free rows. */
export interface CSRLike {
  /** number of rows */
  rows: number;
  /** number of columns */
  cols: number;
  /** element type */
  dtype: DType;
  /** rows + 1 offsets into colIdx and values */
  rowPtr: Int32Array;
  /** column of each entry, ascending within a row */
  colIdx: Int32Array;
  /** value of each entry (interleaved re, im when complex) */
  values: ValueArray;
}
/** Any matrix the writer can write: every format class of simdgl is one. */
export interface WritableMatrix {
  /** number of rows */
  rows: number;
  /** number of columns */
  cols: number;
  /** element type */
  dtype: DType;
  /** the matrix as a canonical CSR */
  toCSR(): CSRLike;
}

/** Read access for the writer: dense (row-major) or sparse (CSR) storage. */
interface View {
  rows: number;
  cols: number;
  comp: 1 | 2;
  /** dense row-major values, or null */
  dense: ValueArray | null;
  rowPtr: Int32Array;
  colIdx: Int32Array;
  values: ValueArray;
}

const MAX_DENSE = 2 ** 28;

const WRITE_OPTION_KEYS = optionKeys<MatrixMarketWriteOptions>({ format: true, field: true, symmetry: true, comment: true, precision: true });

/**
 * Writes any matrix as Matrix Market text: coordinate entries in row-major order (a DenseMatrix as an
 * array file, column-major, unless `opts.format` says otherwise). Numbers read back bit for bit. Asking
 * for a symmetry checks that the matrix has it and writes one triangle; `symmetry: 'auto'` picks the
 * strongest that holds.
 *
 * @throws {@link UnsupportedError} for an unknown format, field or symmetry, a combination the format
 * rules out (a complex matrix as real or integer, array + pattern, hermitian without complex,
 * skew-symmetric pattern), an array file over 2²⁸ elements, or a precision outside 1…100.
 * @throws {@link ShapeError} when a symmetry is asked of a matrix that is not square.
 * @throws {@link FormatError} when the matrix lacks the symmetry asked for, the integer field meets a
 * value that is not an integer, or the matrix breaks an invariant of its format.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * // Round trip, one triangle of a symmetric matrix
 * import { parseMatrixMarket, poisson2D, writeMatrixMarket } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = poisson2D(3);
 * const text = writeMatrixMarket(A, { symmetry: 'auto', comment: '2-D Poisson, n = 3' });
 * assert.ok(text.startsWith('%%MatrixMarket matrix coordinate real symmetric\n%2-D Poisson, n = 3\n9 9 21\n'));
 * const back = parseMatrixMarket(text).matrix.toCSR();
 * assert.deepEqual(back.values, A.values);
 * ```
 */
export function writeMatrixMarket(A: WritableMatrix | DenseMatrix, opts: MatrixMarketWriteOptions = {}): string {
  checkOptions('writeMatrixMarket', opts, WRITE_OPTION_KEYS);
  const isDense = A instanceof DenseMatrix || (A as { format?: string }).format === 'dense';
  const format = opts.format ?? (isDense ? 'array' : 'coordinate');
  const cplx = isComplex(A.dtype);
  const field = opts.field ?? (cplx ? 'complex' : 'real');
  if (format !== 'coordinate' && format !== 'array') throw new UnsupportedError(`Matrix Market: unknown format ${shownValue(format)}`);
  if (!['real', 'integer', 'complex', 'pattern'].includes(field)) throw new UnsupportedError(`Matrix Market: unknown field ${shownValue(field)}`);
  if (cplx && (field === 'real' || field === 'integer')) {
    throw new UnsupportedError(`Matrix Market: a ${A.dtype} matrix cannot be written with the ${field} field; use complex or pattern`);
  }
  if (format === 'array' && field === 'pattern') throw new UnsupportedError('Matrix Market: the pattern field needs coordinate format');

  const view = makeView(A, isDense, format);
  let symmetry = opts.symmetry ?? 'general';
  if (symmetry === 'auto') {
    symmetry = detectSymmetry(view, field);
  } else if (symmetry !== 'general') {
    if (!['symmetric', 'skew-symmetric', 'hermitian'].includes(symmetry)) {
      throw new UnsupportedError(`Matrix Market: unknown symmetry ${shownValue(symmetry)}`);
    }
    if (symmetry === 'hermitian' && field !== 'complex') throw new UnsupportedError('Matrix Market: hermitian symmetry needs the complex field');
    if (symmetry === 'skew-symmetric' && field === 'pattern') throw new UnsupportedError('Matrix Market: the pattern field cannot be skew-symmetric');
    if (view.rows !== view.cols) throw new ShapeError(`Matrix Market: a ${symmetry} matrix must be square, this one is ${view.rows}×${view.cols}`);
    const bad = findAsymmetry(view, symmetry, field === 'pattern');
    if (bad !== null) throw new FormatError(`Matrix Market: the matrix is not ${symmetry}: ${bad}`);
  }

  const fmt = numberFormatter(componentBytes(A.dtype) === 4, opts.precision);
  const out: string[] = [`%%MatrixMarket matrix ${format} ${field} ${symmetry}`];
  if (opts.comment !== undefined) for (const c of opts.comment.split(/\r?\n/)) out.push(`%${c}`);
  const value = valueWriter(field, view.comp, fmt);
  const sym = symmetry;
  const lower = sym !== 'general';
  const strict = sym === 'skew-symmetric';

  if (format === 'array') {
    const d = view.dense!;
    const { rows, cols, comp } = view;
    out.push(`${rows} ${cols}`);
    for (let j = 0; j < cols; j++) {
      for (let i = lower ? (strict ? j + 1 : j) : 0; i < rows; i++) out.push(value(d, (i * cols + j) * comp, i, j));
    }
  } else {
    const sizeAt = out.length;
    out.push('');
    const { rowPtr, colIdx, values, comp } = view;
    const pattern = field === 'pattern';
    for (let i = 0; i < view.rows; i++) {
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
        const j = colIdx[k];
        if (lower && (j > i || (strict && j === i))) continue;
        out.push(pattern ? `${i + 1} ${j + 1}` : `${i + 1} ${j + 1} ${value(values, k * comp, i, j)}`);
      }
    }
    out[sizeAt] = `${view.rows} ${view.cols} ${out.length - sizeAt - 1}`;
  }
  out.push('');
  return out.join('\n');
}

function makeView(A: WritableMatrix | DenseMatrix, isDense: boolean, format: MMFormat): View {
  const comp = components(A.dtype);
  const { rows, cols } = A;
  if (isDense && format === 'array') {
    const d = (A as DenseMatrix).values;
    return { rows, cols, comp, dense: d, rowPtr: new Int32Array(0), colIdx: new Int32Array(0), values: d };
  }
  // Coordinate output of a dense matrix lists its nonzeros (DenseMatrix.toCSR drops zeros).
  const csr = (A as WritableMatrix).toCSR();
  const view: View = { rows, cols, comp, dense: null, rowPtr: csr.rowPtr, colIdx: csr.colIdx, values: csr.values };
  if (format === 'array') {
    if (rows * cols > MAX_DENSE) throw new UnsupportedError(`Matrix Market: array format of ${rows}×${cols} is over the 2^28-element dense limit`);
    const d = new Float64Array(rows * cols * comp); // f32 values are exact in f64
    for (let i = 0; i < rows; i++) {
      for (let k = csr.rowPtr[i]; k < csr.rowPtr[i + 1]; k++) {
        const o = (i * cols + csr.colIdx[k]) * comp;
        d[o] += csr.values[k * comp];
        if (comp === 2) d[o + 1] += csr.values[k * comp + 1];
      }
    }
    view.dense = d;
  }
  return view;
}

function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * The first entry that breaks `symmetry`, described with 0-based indices, or null. A stored entry whose
 * mirror is not stored breaks every symmetry, an explicit zero too: a symmetric file stores both or
 * neither, so writing it would drop the entry (above the diagonal) or add its mirror (below), and
 * pattern-dependent code (ILU(0)'s fill, a refactor's pattern check) would meet another matrix; so does
 * a stored diagonal entry under skew-symmetry (none is written). Dense storage has no pattern (absent
 * is 0); with `pattern`, only the structure counts.
 */
function findAsymmetry(v: View, symmetry: MMSymmetry, pattern: boolean): string | null {
  const { comp } = v;
  const skew = symmetry === 'skew-symmetric';
  const herm = symmetry === 'hermitian';
  const show = (x: ValueArray | null, o: number): string =>
    x === null ? '(absent)' : comp === 2 ? `${x[o]}${x[o + 1] < 0 || Object.is(x[o + 1], -0) ? '-' : '+'}${Math.abs(x[o + 1])}i` : `${x[o]}`;
  const check = (i: number, j: number, a: ValueArray, ao: number, b: ValueArray | null, bo: number): string | null => {
    const ar = a[ao];
    const ai = comp === 2 ? a[ao + 1] : 0;
    // (a nonzero whose mirror is absent is named below, by its value)
    if (b === null && (pattern || (ar === 0 && ai === 0))) return `entry (${i}, ${j})${pattern ? '' : ` = ${show(a, ao)}`} is stored but (${j}, ${i}) is not`;
    if (pattern) return null;
    const br = b === null ? 0 : b[bo];
    const bi = b === null || comp === 1 ? 0 : b[bo + 1];
    let ok: boolean;
    if (i === j) ok = skew ? ar === 0 && ai === 0 : herm ? ai === 0 : true;
    else if (skew) ok = same(br, -ar) && same(bi, -ai);
    else if (herm) ok = same(br, ar) && same(bi, -ai);
    else ok = same(br, ar) && same(bi, ai);
    if (ok) return null;
    if (i === j) return `diagonal entry (${i}, ${i}) = ${show(a, ao)} must be ${skew ? 'zero' : 'real'}`;
    return `entry (${i}, ${j}) = ${show(a, ao)} but (${j}, ${i}) = ${show(b, bo)}`;
  };
  if (v.dense !== null) {
    const d = v.dense;
    const n = v.rows;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const r = check(i, j, d, (i * n + j) * comp, d, (j * n + i) * comp);
        if (r !== null) return r;
      }
    }
    return null;
  }
  const { rowPtr, colIdx, values } = v;
  for (let i = 0; i < v.rows; i++) {
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const j = colIdx[k];
      const t = j === i ? k : find(rowPtr, colIdx, j, i);
      const r = check(i, j, values, k * comp, t < 0 ? null : values, t * comp);
      if (r !== null) return r;
      // a skew-symmetric file stores no diagonal: a stored zero there would be dropped
      if (j === i && skew) return `diagonal entry (${i}, ${i}) = ${show(values, k * comp)} is stored, which a skew-symmetric file cannot hold`;
    }
  }
  return null;
}

/** Position of column `col` in sorted row `row`, or -1. */
function find(rowPtr: Int32Array, colIdx: Int32Array, row: number, col: number): number {
  let lo = rowPtr[row];
  let hi = rowPtr[row + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = colIdx[mid];
    if (c === col) return mid;
    if (c < col) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function detectSymmetry(v: View, field: MMField): MMSymmetry {
  if (v.rows !== v.cols) return 'general';
  const order: MMSymmetry[] =
    field === 'pattern' ? ['symmetric'] : field === 'complex' ? ['symmetric', 'hermitian', 'skew-symmetric'] : ['symmetric', 'skew-symmetric'];
  for (const s of order) if (findAsymmetry(v, s, field === 'pattern') === null) return s;
  return 'general';
}

type Fmt = (x: number) => string;

function special(x: number): string {
  return x !== x ? 'nan' : x > 0 ? 'inf' : '-inf';
}

/**
 * x to `precision` significant digits, to nearest — or toward zero where that passes the dtype's largest
 * finite value: f64's largest at 2 digits is 1.8e+308, which reads back as +Inf (it was written as the
 * text "Infinity"); 1.7e+308 is written instead (f32's largest at 4 digits: 3.402e+38, not 3.403e+38).
 */
function roundedFinite(x: number, precision: number, f32: boolean): string {
  const near = x.toPrecision(precision);
  const back = Number(near);
  if (Number.isFinite(f32 ? Math.fround(back) : back)) return near;
  // the leading digits of x's exact decimal (toExponential's 100 digits: near the top of the range, far
  // more than any rounding of them can carry into the digits kept), cut after `precision`
  const [mantissa, exponent] = x.toExponential(100).split('e');
  const digits = mantissa.replace(/[-.]/g, '').slice(0, precision);
  return `${x < 0 ? '-' : ''}${digits[0]}${precision > 1 ? `.${digits.slice(1)}` : ''}e${exponent}`;
}

/** Shortest exact decimal of an f64 (or of an f32 value, when `f32`), or `precision` significant digits. */
function numberFormatter(f32: boolean, precision: number | undefined): Fmt {
  if (precision !== undefined) {
    if (!Number.isInteger(precision) || precision < 1 || precision > 100) throw new UnsupportedError(`Matrix Market: precision must be an integer in 1..100, got ${precision}`);
    return (x) => (Number.isFinite(x) ? (Object.is(x, -0) ? '-0' : String(Number(roundedFinite(x, precision, f32)))) : special(x));
  }
  if (!f32) return (x) => (Number.isFinite(x) ? (Object.is(x, -0) ? '-0' : String(x)) : special(x));
  return (x) => {
    if (!Number.isFinite(x)) return special(x);
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
    // Fewest significant digits (1..9) that read back to the same f32 through the reader's own path
    // (correctly rounded f64, then rounded to f32). Bisect: 9 digits always round-trip, and the result
    // is one that passed the check, so at worst it is not the very shortest.
    let lo = 1;
    let hi = 9;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Math.fround(Number(x.toPrecision(mid))) === x) hi = mid;
      else lo = mid + 1;
    }
    return String(Number(x.toPrecision(lo)));
  };
}

function valueWriter(field: MMField, comp: 1 | 2, fmt: Fmt): (a: ValueArray, o: number, i: number, j: number) => string {
  if (field === 'complex') return comp === 2 ? (a, o) => `${fmt(a[o])} ${fmt(a[o + 1])}` : (a, o) => `${fmt(a[o])} 0`;
  if (field === 'integer') {
    return (a, o, i, j) => {
      const x = a[o];
      if (!Number.isInteger(x)) throw new FormatError(`Matrix Market: integer field, but entry (${i}, ${j}) = ${x} is not an integer`);
      return Object.is(x, -0) ? '-0' : Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
    };
  }
  return (a, o) => fmt(a[o]);
}
