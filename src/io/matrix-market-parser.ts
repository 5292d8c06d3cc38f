/**
 * Incremental Matrix Market parser over ASCII bytes.

 * Lines and blanks, one rule on every line (banner, comments, size line, entries; whole-buffer and
 * streamed alike): a line ends at LF; the blanks that separate words and may stand at either end of a
 * line are space, tab and CR, so LF, CRLF and stray CRs all read the same. No other character is a
 * blank (a no-break space or any other Unicode space is an error), and a UTF-8 byte-order mark is
 * accepted only as the first bytes of the input. `push()` takes chunks of any size; only complete
 * lines are parsed, straight out of the chunk. The one partial line at a chunk's end is copied into a
 * small carry buffer and completed by the next chunk, so parser state survives arbitrary boundaries
 * (mid-number, between CR and LF) without ever holding more than one line of the input.
 *
 * Every parsed range ends with '\n' (finish() appends one to an unterminated last line), so the
 * byte scanners stop at a newline at the latest and never need an explicit end bound.
 */
import { beyondF32, components, isComplex, type DType, type ValueArray } from '../dtype.js';
import { ParseError, UnsupportedError } from '../errors.js';
import { COOMatrix } from '../formats/coo.js';
import { DenseMatrix } from '../formats/dense.js';
import type { MMField, MMFormat, MMSymmetry, MatrixMarketHeader, MatrixMarketResult } from './matrix-market-types.js';
import { newCursor, scanFloat, scanUint } from './number-parse.js';
import { reserveMemory, withMemoryBudget } from '../memory-budget.js';

const NL = 10;
const CR = 13;
const SP = 32;
const TAB = 9;
const PCT = 37;

const PHASE_BANNER = 0;
const PHASE_SIZE = 1;
const PHASE_DATA = 2;

// Field and symmetry codes, so the hot loops compare small integers instead of strings.
const F_REAL = 0;
const F_INTEGER = 1;
const F_COMPLEX = 2;
const F_PATTERN = 3;
const S_GENERAL = 0;
const S_SYMMETRIC = 1;
const S_SKEW = 2;
const S_HERMITIAN = 3;

const FORMATS: readonly MMFormat[] = ['coordinate', 'array'];
const FIELDS: readonly MMField[] = ['real', 'integer', 'complex', 'pattern'];
const SYMMETRIES: readonly MMSymmetry[] = ['general', 'symmetric', 'skew-symmetric', 'hermitian'];

const MAX_INDEX = 0x7fffffff; // indices are Int32
/** Largest array-format matrix (elements), matching DenseMatrix's default maxSlots. */
const MAX_DENSE = 2 ** 28;

// ignoreBOM: a BOM stays in the text (the banner accepts one at the start of the input; anywhere else it is no blank)
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function isBlank(c: number): boolean {
  return c === SP || c === TAB || c === CR;
}

/**
 * The incremental parser behind {@link parseMatrixMarket} and {@link readMatrixMarket}, for input that
 * arrives in pieces under your own control: `push()` chunks of bytes of any size as they come, then
 * `finish()` for the result. Only one line of the input is ever held besides the entries.
 *
 * @example
 * ```js
 * // Chunks that cut lines and numbers anywhere
 * import { MatrixMarketParser } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const bytes = new TextEncoder().encode('%%MatrixMarket matrix array real general\n2 2\n1.5\n2\n3\n4.25\n');
 * const parser = new MatrixMarketParser({ dtype: 'f32' });
 * for (let i = 0; i < bytes.length; i += 3) parser.push(bytes.subarray(i, i + 3));
 * assert.equal(parser.bytesRead, bytes.length);
 * const { matrix } = parser.finish();
 * assert.deepEqual([matrix.format, ...matrix.values], ['dense', 1.5, 3, 2, 4.25]);   // column-major in the file
 * ```
 */
export class MatrixMarketParser {
  /** 1-based number of the line being read */
  private line = 1;
  private phase = PHASE_BANNER;
  private readonly wantDType: DType | undefined;
  private header: MatrixMarketHeader | null = null;
  private readonly comments: string[] = [];
  private field = F_REAL;
  private sym = S_GENERAL;
  private dtype: DType = 'f64';
  private comp: 1 | 2 = 1;
  private rows = 0;
  private cols = 0;
  /** entries the file promises (coordinate: the size line's count; array: elements stored) */
  private total = 0;
  /** entries read so far */
  private k = 0;
  /** line of the size line, for count errors */
  private sizeLine = 0;
  // entry storage (values in file order; indices for coordinate files), grown geometrically up to
  // `total` as entries arrive, so a lying size line cannot force a huge allocation
  private rowIdx = new Int32Array(0);
  private colIdx = new Int32Array(0);
  private vals: ValueArray = new Float64Array(0);
  private diag = 0;
  // array format: next (row, col) position, column-major
  private ai = 0;
  private aj = 0;
  private readonly cur = newCursor();
  private carry = new Uint8Array(256);
  private carryLen = 0;
  private bytes = 0;

  /** Input length when known (whole-buffer parses): bounds the first allocation. */
  private readonly expectedBytes: number | undefined;
  /** memory budget of this read in MiB (undefined: the module's, see setMemoryBudget) */
  private readonly maxMemoryMB: number | undefined;

  /**
   * A parser for one file. `opts.dtype` and `opts.maxMemoryMB` as in {@link MatrixMarketReadOptions};
   * `opts.expectedBytes`, the input's length when known, bounds the first allocation.
   */
  constructor(opts?: { dtype?: DType; expectedBytes?: number; maxMemoryMB?: number }) {
    this.wantDType = opts?.dtype;
    this.expectedBytes = opts?.expectedBytes;
    this.maxMemoryMB = opts?.maxMemoryMB;
  }

  /** bytes pushed so far */
  get bytesRead(): number {
    return this.bytes;
  }

  /**
   * Parses the complete lines of a chunk; a partial last line waits for the next chunk.
   *
   * @throws {@link ParseError} at the first malformed line, with its 1-based line (and column).
   * @throws {@link UnsupportedError} when the dtype asked for is unknown, or real for a complex file.
   */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    this.bytes += n;
    let start = 0;
    if (this.carryLen > 0) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        this.appendCarry(chunk, 0, n);
        return;
      }
      this.appendCarry(chunk, 0, nl + 1);
      this.processLines(this.carry, 0, this.carryLen);
      this.carryLen = 0;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NL);
    if (last >= start) {
      this.processLines(chunk, start, last + 1);
      start = last + 1;
    }
    if (start < n) this.appendCarry(chunk, start, n);
  }

  /**
   * Ends the input (a last line without a line end included) and returns the matrix.
   *
   * @throws {@link ParseError} when the input ends early: no banner, no size line, or fewer entries
   * than the size line promises, or the last line is malformed.
   */
  finish(): MatrixMarketResult {
    // the end of input lies on the last line when that line has no '\n', else on the (empty) line after it
    let endLine = this.line;
    if (this.carryLen > 0) {
      this.appendCarry(new Uint8Array([NL]), 0, 1);
      this.processLines(this.carry, 0, this.carryLen);
      this.carryLen = 0;
      endLine = this.line - 1;
    }
    if (this.phase === PHASE_BANNER) {
      throw new ParseError('expected the banner "%%MatrixMarket matrix <format> <field> <symmetry>", found end of input', endLine);
    }
    if (this.phase === PHASE_SIZE) {
      throw new ParseError('expected the size line, found end of input', endLine);
    }
    if (this.k < this.total) {
      throw new ParseError(`expected ${this.total} entries (size line ${this.sizeLine}), found ${this.k} at end of input`, endLine);
    }
    const header = this.header!;
    const matrix = header.format === 'array' ? this.buildDense() : this.buildCOO();
    return { matrix, header, comments: this.comments };
  }

  private appendCarry(src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (this.carryLen + len > this.carry.length) {
      const bigger = new Uint8Array(Math.max(this.carry.length * 2, this.carryLen + len));
      bigger.set(this.carry.subarray(0, this.carryLen));
      this.carry = bigger;
    }
    this.carry.set(src.subarray(from, to), this.carryLen);
    this.carryLen += len;
  }

  /** Parses the complete lines in buf[pos, end); buf[end - 1] is '\n'. */
  private processLines(buf: Uint8Array, pos: number, end: number): void {
    while (pos < end) {
      if (this.phase === PHASE_DATA) {
        pos = this.header!.format === 'coordinate' ? this.coordinateLines(buf, pos, end) : this.arrayLines(buf, pos, end);
        continue;
      }
      const nl = buf.indexOf(NL, pos);
      const text = utf8.decode(buf.subarray(pos, trimCR(buf, pos, nl)));
      if (this.phase === PHASE_BANNER) this.banner(text);
      else this.sizeOrComment(text);
      this.line++;
      pos = nl + 1;
    }
  }

  private banner(text: string): void {
    const line = this.line;
    const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // UTF-8 byte-order mark
    const expected = 'expected the banner "%%MatrixMarket matrix <format> <field> <symmetry>"';
    const tokens: { t: string; col: number }[] = [];
    // six words at most: enough to report the first extra one, however long the line
    for (const m of s.matchAll(/[^ \t\r]+/g)) if (tokens.push({ t: m[0], col: m.index + 1 }) > 5) break;
    if (tokens.length === 0 || tokens[0].t.toLowerCase() !== '%%matrixmarket') {
      throw new ParseError(`${expected}, found ${JSON.stringify(clip(s))}`, line, 1);
    }
    if (tokens.length < 5) {
      throw new ParseError(`${expected}, found only ${tokens.length} of its 5 words: ${JSON.stringify(clip(s))}`, line);
    }
    if (tokens.length > 5) {
      throw new ParseError(`unexpected ${JSON.stringify(clip(tokens[5].t))} after the symmetry in the banner`, line, tokens[5].col);
    }
    const pick = <T extends string>(i: number, what: string, allowed: readonly T[]): T => {
      const v = tokens[i].t.toLowerCase() as T;
      if (!allowed.includes(v)) {
        throw new ParseError(
          `unknown ${what} ${JSON.stringify(clip(tokens[i].t))} in the banner, expected one of ${allowed.join(', ')}`,
          line,
          tokens[i].col,
        );
      }
      return v;
    };
    pick(1, 'object', ['matrix'] as const);
    const format = pick(2, 'format', FORMATS);
    const field = pick(3, 'field', FIELDS);
    const symmetry = pick(4, 'symmetry', SYMMETRIES);
    // Combinations the Matrix Market definition rules out.
    if (field === 'pattern' && format === 'array') throw new ParseError('pattern field is only valid with coordinate format', line, tokens[3].col);
    if (symmetry === 'hermitian' && field !== 'complex') throw new ParseError(`hermitian symmetry requires the complex field, found ${field}`, line, tokens[4].col);
    if (symmetry === 'skew-symmetric' && field === 'pattern') throw new ParseError('skew-symmetric symmetry is not valid with the pattern field', line, tokens[4].col);
    this.header = { object: 'matrix', format, field, symmetry };
    this.field = FIELDS.indexOf(field);
    this.sym = SYMMETRIES.indexOf(symmetry);
    const want = this.wantDType;
    if (want !== undefined) {
      if (field === 'complex' && !isComplex(want)) {
        throw new UnsupportedError(`Matrix Market: a complex file cannot be read as ${want}; ask for c64 or c128`);
      }
      if (!['f32', 'f64', 'c64', 'c128'].includes(want)) throw new UnsupportedError(`Matrix Market: unknown dtype ${JSON.stringify(want)}`);
      this.dtype = want;
    } else {
      this.dtype = field === 'complex' ? 'c128' : 'f64';
    }
    this.comp = components(this.dtype);
    this.phase = PHASE_SIZE;
  }

  private sizeOrComment(text: string): void {
    const lead = text.search(/[^ \t\r]/);
    if (lead < 0) return; // blank line
    if (text.charCodeAt(lead) === PCT) {
      this.comments.push(text.slice(lead + 1));
      return;
    }
    const h = this.header!;
    const coord = h.format === 'coordinate';
    const want = coord ? 3 : 2;
    const shape = coord ? '"rows cols entries"' : '"rows cols"';
    let end = text.length;
    while (isBlank(text.charCodeAt(end - 1))) end--; // a loop, not /[ \t\r]+$/, which is quadratic in a long run of blanks
    const body = text.slice(lead, end);
    const tokens = body.split(/[ \t\r]+/);
    if (tokens.length !== want || !tokens.every((t) => /^\+?[0-9]+$/.test(t))) {
      throw new ParseError(
        `bad size line: expected ${shape} as ${want} non-negative integers, found ${JSON.stringify(clip(body))}`,
        this.line,
        lead + 1,
      );
    }
    const [rows, cols, nnz] = tokens.map(Number);
    if (rows > MAX_INDEX || cols > MAX_INDEX || (coord && nnz > MAX_INDEX)) {
      throw new ParseError(`size ${tokens.join(' ')} is past the 32-bit index limit ${MAX_INDEX}`, this.line, lead + 1);
    }
    if (this.sym !== S_GENERAL && rows !== cols) {
      throw new ParseError(`a ${h.symmetry} matrix must be square, the size line says ${rows}×${cols}`, this.line, lead + 1);
    }
    this.rows = rows;
    this.cols = cols;
    this.sizeLine = this.line;
    if (coord) {
      this.total = nnz;
    } else {
      if (rows * cols > MAX_DENSE) {
        throw new ParseError(`array matrix of ${rows}×${cols} elements is over the dense limit of 2^28 elements`, this.line, lead + 1);
      }
      const n = rows;
      this.total = this.sym === S_GENERAL ? rows * cols : this.sym === S_SKEW ? (n * (n - 1)) / 2 : (n * (n + 1)) / 2;
      this.ai = this.sym === S_SKEW ? 1 : 0;
      this.aj = 0;
    }
    // Storage follows the bytes, never the size line's promise alone: an entry line takes at least
    // MIN_LINE bytes, so the input seen so far (all of it for whole-buffer parses) bounds what an honest
    // size line can need; past that, growCoordinate doubles as entries actually arrive.
    const seen = this.expectedBytes ?? this.bytes;
    this.growCoordinate(Math.min(this.total, Math.ceil(seen / (coord ? 4 : 2))));
    this.phase = PHASE_DATA;
  }

  /** Counts `bytes` against this read's memory budget (MemoryLimitError when they do not fit). */
  private reserve(bytes: number, what: string): void {
    withMemoryBudget(this.maxMemoryMB, () => reserveMemory(bytes, `Matrix Market line ${this.line}: ${what}`));
  }

  /** Bytes of one element of the dtype read into. */
  private get elementBytes(): number {
    return this.comp * (this.dtype === 'f32' || this.dtype === 'c64' ? 4 : 8);
  }

  /** A value array for the finished matrix, checked against the budget. */
  private allocValues(count: number): ValueArray {
    this.reserve(count * this.elementBytes, `${count} ${this.dtype} values`);
    return this.values(count);
  }

  private values(count: number): ValueArray {
    const n = count * this.comp;
    return this.dtype === 'f32' || this.dtype === 'c64' ? new Float32Array(n) : new Float64Array(n);
  }

  /**
   * Room for `cap` entries (values always; row/column indices for coordinate files). Storage grows
   * with the entries that arrive, and each step is checked against the budget with what the finished
   * matrix needs for that many entries (symmetric storage expands to twice as many).
   */
  private growCoordinate(cap: number): void {
    const coord = this.header!.format === 'coordinate';
    const expanded = coord && this.sym !== S_GENERAL ? 2 * cap : 0;
    this.reserve((cap + expanded) * (this.elementBytes + (coord ? 8 : 0)), `${cap} entries`);
    const v = this.values(cap);
    v.set(this.vals.subarray(0, this.k * this.comp));
    this.vals = v;
    if (this.header!.format === 'array') return;
    const ri = new Int32Array(cap);
    const ci = new Int32Array(cap);
    ri.set(this.rowIdx.subarray(0, this.k));
    ci.set(this.colIdx.subarray(0, this.k));
    this.rowIdx = ri;
    this.colIdx = ci;
  }

  /** More room when `k` entries fill the storage: double it (at least 1024), up to the promised total. */
  private grownFor(k: number, length: number): boolean {
    if (k < length) return false;
    this.k = k;
    this.growCoordinate(Math.min(this.total, Math.max(length * 2, 1024)));
    return true;
  }

  /** The hot loop for coordinate entries: `row col [re [im]]` per line. Returns `end`. */
  private coordinateLines(buf: Uint8Array, pos: number, end: number): number {
    const cur = this.cur;
    const rows = this.rows;
    const cols = this.cols;
    const total = this.total;
    const field = this.field;
    const sym = this.sym;
    const comp = this.comp;
    const single = this.dtype === 'f32' || this.dtype === 'c64';
    let line = this.line;
    let k = this.k;
    let ri = this.rowIdx;
    let ci = this.colIdx;
    let vals = this.vals;
    let diag = this.diag;
    let lineStart = pos;
    try {
      while (pos < end) {
        let c = buf[pos];
        while (c === SP || c === TAB || c === CR) c = buf[++pos];
        if (c === NL) {
          pos++;
          line++;
          lineStart = pos;
          continue;
        }
        if (c === PCT) {
          pos = this.comment(buf, pos);
          line++;
          lineStart = pos;
          continue;
        }
        if (k === total) {
          throw new ParseError(`expected ${total} entries (size line ${this.sizeLine}), found more than that`, line, pos - lineStart + 1);
        }
        if (this.grownFor(k, ri.length)) {
          ri = this.rowIdx;
          ci = this.colIdx;
          vals = this.vals;
        }
        const p0 = pos;
        cur.pos = pos;
        const r = scanUint(buf, cur);
        if (!cur.ok || !isSepOrEnd(buf[cur.pos])) throw this.expected('a row index', buf, pos, line, lineStart);
        if (r < 1 || r > rows) throw this.outOfRange('row', r, rows, pos, line, lineStart);
        pos = skipBlanks(buf, cur.pos);
        // column index
        if (buf[pos] === NL) throw this.expected('a column index', buf, pos, line, lineStart);
        cur.pos = pos;
        const j = scanUint(buf, cur);
        if (!cur.ok || !isSepOrEnd(buf[cur.pos])) throw this.expected('a column index', buf, pos, line, lineStart);
        if (j < 1 || j > cols) throw this.outOfRange('column', j, cols, pos, line, lineStart);
        if (sym !== S_GENERAL) {
          if (r < j) {
            throw new ParseError(
              `${this.header!.symmetry} file stores the lower triangle only, found entry (${r}, ${j}) above the diagonal`,
              line,
              p0 - lineStart + 1,
            );
          }
          if (r === j) {
            if (sym === S_SKEW) throw new ParseError(`skew-symmetric file has a diagonal entry (${r}, ${j}); its diagonal is zero and not stored`, line, p0 - lineStart + 1);
            diag++;
          }
        }
        pos = skipBlanks(buf, cur.pos);
        const o = k * comp;
        if (field === F_PATTERN) {
          vals[o] = 1;
        } else {
          if (buf[pos] === NL) throw this.expected(valueName(field), buf, pos, line, lineStart);
          cur.pos = pos;
          const v = scanFloat(buf, cur);
          if (!cur.ok || !isSepOrEnd(buf[cur.pos]) || (field === F_INTEGER && !cur.isInt)) {
            throw this.expected(valueName(field), buf, pos, line, lineStart);
          }
          if (cur.lost || (field === F_INTEGER && !exactInteger(buf, pos, cur.pos, v))) throw this.beyondDouble(v, r, j, buf, pos, cur.pos, line, lineStart);
          if (single && beyondF32(v)) throw this.beyondSingle(v, r, j, pos, line, lineStart);
          vals[o] = v;
          pos = skipBlanks(buf, cur.pos);
          if (field === F_COMPLEX) {
            if (buf[pos] === NL) throw this.expected('the imaginary part', buf, pos, line, lineStart);
            cur.pos = pos;
            const im = scanFloat(buf, cur);
            if (!cur.ok || !isSepOrEnd(buf[cur.pos])) throw this.expected('the imaginary part', buf, pos, line, lineStart);
            if (cur.lost) throw this.beyondDouble(im, r, j, buf, pos, cur.pos, line, lineStart);
            if (single && beyondF32(im)) throw this.beyondSingle(im, r, j, pos, line, lineStart);
            if (sym === S_HERMITIAN && r === j && im !== 0) {
              throw new ParseError(`hermitian diagonal entry (${r}, ${j}) has imaginary part ${im}; it must be real`, line, pos - lineStart + 1);
            }
            vals[o + 1] = im;
            pos = skipBlanks(buf, cur.pos);
          }
        }
        if (buf[pos] !== NL) throw this.expected('end of line', buf, pos, line, lineStart);
        ri[k] = r - 1;
        ci[k] = j - 1;
        k++;
        pos++;
        line++;
        lineStart = pos;
      }
    } finally {
      this.line = line;
      this.k = k;
      this.diag = diag;
    }
    return pos;
  }

  /** Array entries: one value (two for complex) per line, column by column. Returns `end`. */
  private arrayLines(buf: Uint8Array, pos: number, end: number): number {
    const cur = this.cur;
    const rows = this.rows;
    const total = this.total;
    const field = this.field;
    const sym = this.sym;
    const comp = this.comp;
    const single = this.dtype === 'f32' || this.dtype === 'c64';
    let vals = this.vals;
    let line = this.line;
    let k = this.k;
    let i = this.ai;
    let j = this.aj;
    let lineStart = pos;
    try {
      while (pos < end) {
        let c = buf[pos];
        while (c === SP || c === TAB || c === CR) c = buf[++pos];
        if (c === NL) {
          pos++;
          line++;
          lineStart = pos;
          continue;
        }
        if (c === PCT) {
          pos = this.comment(buf, pos);
          line++;
          lineStart = pos;
          continue;
        }
        if (k === total) {
          throw new ParseError(`expected ${total} entries (size line ${this.sizeLine}), found more than that`, line, pos - lineStart + 1);
        }
        cur.pos = pos;
        const re = scanFloat(buf, cur);
        if (!cur.ok || !isSepOrEnd(buf[cur.pos]) || (field === F_INTEGER && !cur.isInt)) {
          throw this.expected(valueName(field), buf, pos, line, lineStart);
        }
        if (cur.lost || (field === F_INTEGER && !exactInteger(buf, pos, cur.pos, re))) throw this.beyondDouble(re, i + 1, j + 1, buf, pos, cur.pos, line, lineStart);
        if (single && beyondF32(re)) throw this.beyondSingle(re, i + 1, j + 1, pos, line, lineStart);
        pos = skipBlanks(buf, cur.pos);
        let im = 0;
        if (field === F_COMPLEX) {
          if (buf[pos] === NL) throw this.expected('the imaginary part', buf, pos, line, lineStart);
          cur.pos = pos;
          im = scanFloat(buf, cur);
          if (!cur.ok || !isSepOrEnd(buf[cur.pos])) throw this.expected('the imaginary part', buf, pos, line, lineStart);
          if (cur.lost) throw this.beyondDouble(im, i + 1, j + 1, buf, pos, cur.pos, line, lineStart);
          if (single && beyondF32(im)) throw this.beyondSingle(im, i + 1, j + 1, pos, line, lineStart);
          if (sym === S_HERMITIAN && i === j && im !== 0) {
            throw new ParseError(`hermitian diagonal entry (${i + 1}, ${j + 1}) has imaginary part ${im}; it must be real`, line, pos - lineStart + 1);
          }
          pos = skipBlanks(buf, cur.pos);
        }
        if (buf[pos] !== NL) throw this.expected('end of line', buf, pos, line, lineStart);
        // kept in file order; buildDense places them once the file has delivered them all
        if (this.grownFor(k, vals.length / comp)) vals = this.vals;
        vals[k * comp] = re;
        if (comp === 2) vals[k * comp + 1] = im;
        k++;
        if (++i === rows) {
          j++;
          i = sym === S_GENERAL ? 0 : sym === S_SKEW ? j + 1 : j;
        }
        pos++;
        line++;
        lineStart = pos;
      }
    } finally {
      this.line = line;
      this.k = k;
      this.ai = i;
      this.aj = j;
    }
    return pos;
  }

  /** Records a comment line starting at the '%' at `pos`; returns the position after its '\n'. */
  private comment(buf: Uint8Array, pos: number): number {
    const nl = buf.indexOf(NL, pos);
    this.comments.push(utf8.decode(buf.subarray(pos + 1, trimCR(buf, pos + 1, nl))));
    return nl + 1;
  }

  /**
   * The row-major DenseMatrix of an array file's values (column-major, in file order; symmetric
   * storage holds the lower triangle, mirrored here).
   */
  private buildDense(): DenseMatrix {
    const { rows, cols, comp, sym, vals } = this;
    const out = this.allocValues(rows * cols);
    let q = 0;
    // no rows: no entries, and no column to visit (a 0 × 2³¹ file must not loop 2³¹ times)
    for (let j = 0; rows > 0 && j < cols; j++) {
      for (let i = sym === S_GENERAL ? 0 : sym === S_SKEW ? j + 1 : j; i < rows; i++, q++) {
        const re = vals[q * comp];
        const o = (i * cols + j) * comp;
        out[o] = re;
        if (comp === 2) out[o + 1] = vals[q * comp + 1];
        if (sym !== S_GENERAL && i !== j) {
          const t = (j * cols + i) * comp;
          // 0 - x, not -x: a stored zero mirrors to +0 (as the zero-filled diagonal is), not -0
          out[t] = sym === S_SKEW ? 0 - re : re;
          if (comp === 2) out[t + 1] = sym === S_SYMMETRIC ? vals[q * comp + 1] : 0 - vals[q * comp + 1]; // skew negates, hermitian conjugates
        }
      }
    }
    return new DenseMatrix(rows, cols, this.dtype, out);
  }

  /** Symmetric storage expanded: each off-diagonal entry followed by its mirror. */
  private buildCOO(): COOMatrix {
    const { rows, cols, dtype, comp, sym, k } = this;
    let ri = this.rowIdx;
    let ci = this.colIdx;
    let v = this.vals;
    if (ri.length !== k) {
      ri = ri.slice(0, k);
      ci = ci.slice(0, k);
      v = v.slice(0, k * comp);
    }
    if (sym === S_GENERAL) return new COOMatrix(rows, cols, dtype, ri, ci, v);
    const n = 2 * k - this.diag;
    const R = new Int32Array(n);
    const C = new Int32Array(n);
    const V = this.allocValues(n);
    let q = 0;
    for (let e = 0; e < k; e++) {
      const r = ri[e];
      const c = ci[e];
      R[q] = r;
      C[q] = c;
      V[q * comp] = v[e * comp];
      if (comp === 2) V[q * comp + 1] = v[e * comp + 1];
      q++;
      if (r !== c) {
        R[q] = c;
        C[q] = r;
        const re = v[e * comp];
        V[q * comp] = sym === S_SKEW ? 0 - re : re; // 0 - x: a stored zero mirrors to +0, not -0
        if (comp === 2) {
          const im = v[e * comp + 1];
          V[q * comp + 1] = sym === S_SYMMETRIC ? im : 0 - im; // skew negates, hermitian conjugates
        }
        q++;
      }
    }
    return new COOMatrix(rows, cols, dtype, R, C, V);
  }

  private expected(what: string, buf: Uint8Array, pos: number, line: number, lineStart: number): ParseError {
    let e = pos;
    while (!isSepOrEnd(buf[e])) e++;
    const found = e === pos ? 'end of line' : JSON.stringify(clip(utf8.decode(buf.subarray(pos, e))));
    return new ParseError(`expected ${what}, found ${found}`, line, pos - lineStart + 1);
  }

  /** A value read into f32 (dtype 'f32' or 'c64') that f32 cannot hold: IEEE rounding would make it ±Infinity or 0. */
  private beyondSingle(v: number, r: number, j: number, pos: number, line: number, lineStart: number): ParseError {
    return new ParseError(`entry (${r}, ${j}) is ${v}, which ${this.dtype} cannot hold (it would become ${Math.fround(v)}); read it as ${this.dtype === 'c64' ? 'c128' : 'f64'} or scale the file`, line, pos - lineStart + 1);
  }

  /** A value f64 cannot hold as written: a finite decimal past its range (±Infinity, or a nonzero 0), or an integer past 2⁵³ it rounds. */
  private beyondDouble(v: number, r: number, j: number, buf: Uint8Array, pos: number, end: number, line: number, lineStart: number): ParseError {
    const text = clip(utf8.decode(buf.subarray(pos, end)));
    return new ParseError(`entry (${r}, ${j}) is ${text}, which f64 cannot hold (it would become ${v}); scale the file`, line, pos - lineStart + 1);
  }

  private outOfRange(what: string, v: number, max: number, pos: number, line: number, lineStart: number): ParseError {
    return new ParseError(`${what} index ${v} is out of range 1..${max}`, line, pos - lineStart + 1);
  }
}

function valueName(field: number): string {
  return field === F_INTEGER ? 'an integer value' : field === F_COMPLEX ? 'the real part' : 'a real value';
}

/** Whether an integer token (buf[pos, end)) read as v is v exactly: always below 2⁵³, checked digit for digit from there (a value rounded down to 2⁵³ included). */
function exactInteger(buf: Uint8Array, pos: number, end: number, v: number): boolean {
  return !(Math.abs(v) >= 2 ** 53) || BigInt(utf8.decode(buf.subarray(pos, end))) === BigInt(v);
}

function isSepOrEnd(c: number): boolean {
  return c === SP || c === TAB || c === CR || c === NL;
}

function skipBlanks(buf: Uint8Array, pos: number): number {
  let c = buf[pos];
  while (isBlank(c)) c = buf[++pos];
  return pos;
}

/** End of the line's text at `nl` without its trailing CRs (CR is a blank: a CRLF line end included). */
function trimCR(buf: Uint8Array, start: number, nl: number): number {
  while (nl > start && buf[nl - 1] === CR) nl--;
  return nl;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
