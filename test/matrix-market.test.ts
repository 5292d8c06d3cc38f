import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DType } from '../src/dtype.js';
import { FormatError, ParseError, ShapeError, UnsupportedError } from '../src/errors.js';
import { COOMatrix } from '../src/formats/coo.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { parseMatrixMarket, readMatrixMarket, writeMatrixMarket, type MatrixMarketResult } from '../src/io/index.js';
import { newCursor, scanFloat } from '../src/io/number-parse.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MATRICES = path.resolve(here, '../data/matrices');

/** Any parsed matrix as a dense row-major number[] (duplicates summed; complex interleaved). */
function dense(m: COOMatrix | DenseMatrix): number[] {
  const comp = m.dtype === 'c64' || m.dtype === 'c128' ? 2 : 1;
  if (m instanceof DenseMatrix) return Array.from(m.values);
  const out = new Array<number>(m.rows * m.cols * comp).fill(0);
  for (let k = 0; k < m.nnz; k++) {
    const o = (m.rowIdx[k] * m.cols + m.colIdx[k]) * comp;
    for (let c = 0; c < comp; c++) out[o + c] += m.values[k * comp + c];
  }
  return out;
}

/** Expected matrices written as rows of numbers or [re, im] pairs. */
function flat(rows: (number | [number, number])[][]): number[] {
  return rows.flat().flatMap((x) => (typeof x === 'number' ? [x] : x));
}

const banner = (f: string, fld: string, s: string): string => `%%MatrixMarket matrix ${f} ${fld} ${s}\n`;

// A 3×3 real symmetric, skew-symmetric and complex hermitian matrix, and a 2×3 general one.
const GEN = [
  [1, 0, -2.5],
  [0, 4, 6],
];
const SYM = [
  [1, 2, 0],
  [2, 0, 3],
  [0, 3, 5],
];
const SKEW = [
  [0, -2, 0],
  [2, 0, -3],
  [0, 3, 0],
];

interface Variant {
  name: string;
  text: string;
  expected: number[];
  fmt: 'coordinate' | 'array';
}
const variants: Variant[] = [
  // coordinate real / integer
  { name: 'coordinate real general', fmt: 'coordinate', text: `${banner('coordinate', 'real', 'general')}2 3 4\n1 1 1\n1 3 -2.5\n2 2 4\n2 3 6\n`, expected: flat(GEN) },
  { name: 'coordinate real symmetric', fmt: 'coordinate', text: `${banner('coordinate', 'real', 'symmetric')}3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 5\n`, expected: flat(SYM) },
  { name: 'coordinate real skew-symmetric', fmt: 'coordinate', text: `${banner('coordinate', 'real', 'skew-symmetric')}3 3 2\n2 1 2\n3 2 3\n`, expected: flat(SKEW) },
  { name: 'coordinate integer general', fmt: 'coordinate', text: `${banner('coordinate', 'integer', 'general')}2 3 3\n1 1 1\n2 2 4\n2 3 6\n`, expected: flat([[1, 0, 0], [0, 4, 6]]) },
  { name: 'coordinate integer symmetric', fmt: 'coordinate', text: `${banner('coordinate', 'integer', 'symmetric')}3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 5\n`, expected: flat(SYM) },
  { name: 'coordinate integer skew-symmetric', fmt: 'coordinate', text: `${banner('coordinate', 'integer', 'skew-symmetric')}3 3 2\n2 1 2\n3 2 3\n`, expected: flat(SKEW) },
  // coordinate complex
  {
    name: 'coordinate complex general', fmt: 'coordinate',
    text: `${banner('coordinate', 'complex', 'general')}2 2 3\n1 1 1 2\n1 2 0 -1\n2 1 3.5 0\n`,
    expected: flat([[[1, 2], [0, -1]], [[3.5, 0], [0, 0]]]),
  },
  {
    name: 'coordinate complex symmetric', fmt: 'coordinate',
    text: `${banner('coordinate', 'complex', 'symmetric')}2 2 3\n1 1 1 2\n2 1 3 4\n2 2 5 6\n`,
    expected: flat([[[1, 2], [3, 4]], [[3, 4], [5, 6]]]),
  },
  {
    name: 'coordinate complex skew-symmetric', fmt: 'coordinate',
    text: `${banner('coordinate', 'complex', 'skew-symmetric')}2 2 1\n2 1 3 4\n`,
    expected: flat([[[0, 0], [-3, -4]], [[3, 4], [0, 0]]]),
  },
  {
    name: 'coordinate complex hermitian', fmt: 'coordinate',
    text: `${banner('coordinate', 'complex', 'hermitian')}2 2 3\n1 1 1 0\n2 1 3 4\n2 2 5 0\n`,
    expected: flat([[[1, 0], [3, -4]], [[3, 4], [5, 0]]]),
  },
  // coordinate pattern
  { name: 'coordinate pattern general', fmt: 'coordinate', text: `${banner('coordinate', 'pattern', 'general')}2 3 2\n1 3\n2 1\n`, expected: flat([[0, 0, 1], [1, 0, 0]]) },
  {
    name: 'coordinate pattern symmetric', fmt: 'coordinate',
    text: `${banner('coordinate', 'pattern', 'symmetric')}3 3 3\n1 1\n3 1\n3 2\n`,
    expected: flat([[1, 0, 1], [0, 0, 1], [1, 1, 0]]),
  },
  // array (column-major in the file)
  { name: 'array real general', fmt: 'array', text: `${banner('array', 'real', 'general')}2 3\n1\n0\n0\n4\n-2.5\n6\n`, expected: flat(GEN) },
  // symmetric: lower triangle column by column (1,1) (2,1) (3,1) (2,2) (3,2) (3,3)
  { name: 'array real symmetric', fmt: 'array', text: `${banner('array', 'real', 'symmetric')}3 3\n1\n2\n0\n0\n3\n5\n`, expected: flat(SYM) },
  // skew: strictly lower (2,1) (3,1) (3,2)
  { name: 'array real skew-symmetric', fmt: 'array', text: `${banner('array', 'real', 'skew-symmetric')}3 3\n2\n0\n3\n`, expected: flat(SKEW) },
  { name: 'array integer general', fmt: 'array', text: `${banner('array', 'integer', 'general')}2 2\n1\n-3\n7\n0\n`, expected: flat([[1, 7], [-3, 0]]) },
  { name: 'array integer symmetric', fmt: 'array', text: `${banner('array', 'integer', 'symmetric')}3 3\n1\n2\n0\n0\n3\n5\n`, expected: flat(SYM) },
  { name: 'array integer skew-symmetric', fmt: 'array', text: `${banner('array', 'integer', 'skew-symmetric')}3 3\n2\n0\n3\n`, expected: flat(SKEW) },
  {
    name: 'array complex general', fmt: 'array',
    text: `${banner('array', 'complex', 'general')}2 2\n1 2\n3 4\n5 6\n7 8\n`,
    expected: flat([[[1, 2], [5, 6]], [[3, 4], [7, 8]]]),
  },
  {
    name: 'array complex symmetric', fmt: 'array',
    text: `${banner('array', 'complex', 'symmetric')}2 2\n1 2\n3 4\n5 6\n`,
    expected: flat([[[1, 2], [3, 4]], [[3, 4], [5, 6]]]),
  },
  {
    name: 'array complex skew-symmetric', fmt: 'array',
    text: `${banner('array', 'complex', 'skew-symmetric')}2 2\n3 4\n`,
    expected: flat([[[0, 0], [-3, -4]], [[3, 4], [0, 0]]]),
  },
  {
    name: 'array complex hermitian', fmt: 'array',
    text: `${banner('array', 'complex', 'hermitian')}2 2\n1 0\n3 4\n5 0\n`,
    expected: flat([[[1, 0], [3, -4]], [[3, 4], [5, 0]]]),
  },
];

describe('Matrix Market variants', () => {
  for (const v of variants) {
    it(v.name, () => {
      const r = parseMatrixMarket(v.text);
      const [, , fmt, field, sym] = v.text.split('\n')[0].split(' ');
      expect(r.header).toEqual({ object: 'matrix', format: fmt, field, symmetry: sym });
      expect(r.matrix).toBeInstanceOf(v.fmt === 'array' ? DenseMatrix : COOMatrix);
      expect(r.matrix.dtype).toBe(field === 'complex' ? 'c128' : 'f64');
      expect(dense(r.matrix)).toEqual(v.expected);
      // the same through the async reader
      return readMatrixMarket(new TextEncoder().encode(v.text)).then((s) => expect(dense(s.matrix)).toEqual(v.expected));
    });
  }

  it('expands symmetric coordinate storage: mirror after each off-diagonal entry, diagonal once', () => {
    const m = parseMatrixMarket(variants[1].text).matrix as COOMatrix;
    expect(Array.from(m.rowIdx)).toEqual([0, 1, 0, 2, 1, 2]);
    expect(Array.from(m.colIdx)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(m.nnz).toBe(6);
  });

  it('keeps duplicates of coordinate files (COO sums them)', () => {
    const r = parseMatrixMarket(`${banner('coordinate', 'real', 'general')}1 1 2\n1 1 1.5\n1 1 2\n`);
    expect(r.matrix.nnz).toBe(2);
    expect(dense(r.matrix)).toEqual([3.5]);
  });

  it('honours opts.dtype', () => {
    const real = variants[0].text;
    const f32 = parseMatrixMarket(real, { dtype: 'f32' }).matrix;
    expect(f32.dtype).toBe('f32');
    expect(f32.values).toBeInstanceOf(Float32Array);
    const c128 = parseMatrixMarket(real, { dtype: 'c128' }).matrix;
    expect(dense(c128)).toEqual(flat(GEN.map((row) => row.map((x) => [x, 0] as [number, number]))));
    const c64 = parseMatrixMarket(variants[6].text, { dtype: 'c64' }).matrix;
    expect(c64.dtype).toBe('c64');
    expect(() => parseMatrixMarket(variants[6].text, { dtype: 'f64' })).toThrow(UnsupportedError);
    expect(() => parseMatrixMarket(variants[6].text, { dtype: 'f32' })).toThrow(/complex file cannot be read as f32/);
    // f32 rounding of a value that is not an f32
    const r = parseMatrixMarket(`${banner('array', 'real', 'general')}1 1\n0.1\n`, { dtype: 'f32' });
    expect(r.matrix.values[0]).toBe(Math.fround(0.1));
  });

  it('returns comments without their %, and accepts an empty matrix', () => {
    const r = parseMatrixMarket(`%%MatrixMarket matrix coordinate real general\n% first\n%second\r\n\n   % indented\n0 0 0\n`);
    expect(r.comments).toEqual([' first', 'second', ' indented']);
    expect(r.matrix.rows).toBe(0);
    expect(r.matrix.nnz).toBe(0);
  });
});

describe('number syntax', () => {
  const num = (s: string): number => {
    const cur = newCursor();
    const b = new TextEncoder().encode(`${s}\n`);
    const v = scanFloat(b, cur);
    if (!cur.ok || b[cur.pos] !== 10) throw new Error(`not a number: ${s}`);
    return v;
  };

  it('accepts signs, points, e/E/d/D exponents, inf and nan', () => {
    const cases: [string, number][] = [
      ['+1', 1], ['-0', -0], ['.5', 0.5], ['5.', 5], ['-.5e1', -5], ['1E3', 1000], ['1d-3', 0.001], ['2.5D+2', 250],
      ['inf', Infinity], ['-INF', -Infinity], ['+Infinity', Infinity], ['nan', NaN], ['-NaN', NaN], ['1e400', Infinity],
      ['4.9406564584124654e-324', 5e-324], ['1.7976931348623157e308', 1.7976931348623157e308], ['00012.50', 12.5],
    ];
    for (const [s, v] of cases) expect(Object.is(num(s), v), s).toBe(true);
    for (const s of ['e5', '.', '-', '1e', '1e+', 'in', 'nanx', '0x10', '1.2.3', '--1']) expect(() => num(s), s).toThrow();
  });

  it('rounds correctly on every path (fast, double-double and fallback)', () => {
    // seeded random doubles printed in several ways, compared with Number()
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    const bits = new Float64Array(1);
    const words = new Uint32Array(bits.buffer);
    const bad: string[] = [];
    for (let i = 0; i < 20000; i++) {
      words[0] = rand() * 2 ** 32;
      words[1] = rand() * 2 ** 32;
      const x = bits[0];
      const y = (rand() - 0.5) * 10 ** Math.floor(rand() * 50 - 25);
      for (const v of [x, y]) {
        if (!Number.isFinite(v)) continue;
        for (const s of [String(v), v.toExponential(), v.toPrecision(16), v.toPrecision(18), v.toPrecision(19), v.toPrecision(21)]) {
          if (!Object.is(num(s), Number(s))) bad.push(s);
        }
      }
    }
    expect(bad).toEqual([]);
    // halfway cases: the exact decimal midpoint of 1 and its successor, and neighbours of it
    expect(num('1.00000000000000011102230246251565404236316680908203125')).toBe(1);
    expect(num('1.00000000000000011102230246251565404236316680908203126')).toBe(1 + 2 ** -52);
    expect(num('1.000000000000000111')).toBe(1);
    expect(num('1.000000000000000112')).toBe(1 + 2 ** -52);
    expect(num('9007199254740993')).toBe(9007199254740992);
    expect(num('9007199254740995')).toBe(9007199254740996);
  });
});

describe('whitespace, comments, line endings', () => {
  const plain = `${banner('coordinate', 'complex', 'general')}3 2 3\n1 1 1.5 -2\n3 2 2e-3 0\n2 1 -7 +4\n`;
  const variantsOfPlain = [
    plain.replace(/\n/g, '\r\n'),
    plain.replace(/ /g, '\t').replace('%%MatrixMarket\tmatrix', '%%MatrixMarket matrix'),
    plain.replace(/ /g, '   '),
    plain.replace('3 2 3\n', '% a comment\n\n  \t\n3 2 3\n%another\n\n').replace('3 2 2e-3', '   3  2 2E-3'),
    plain.replace('%%MatrixMarket matrix coordinate complex general', '%%matrixmarket MATRIX Coordinate COMPLEX General'),
    plain.slice(0, -1), // no final newline
    `${plain}\n\n% trailing comment\n`,
    plain.replace('1 1 1.5 -2', '1 1 1.5d0 -2.0D+00 \t'),
    `\ufeff${plain}`,
  ];
  const want = dense(parseMatrixMarket(plain).matrix);

  it('parses each variant to the same matrix', () => {
    expect(want).toEqual(flat([[[1.5, -2], [0, 0]], [[-7, 4], [0, 0]], [[0, 0], [0.002, 0]]]));
    for (const t of variantsOfPlain) expect(dense(parseMatrixMarket(t).matrix), JSON.stringify(t)).toEqual(want);
  });

  it('reports line numbers that count comments, blank lines and CRLF lines', () => {
    const t = `${banner('coordinate', 'real', 'general')}% c\r\n\r\n2 2 2\r\n\r\n1 1 1\r\n% c\r\n2 3 1\r\n`;
    expect(() => parseMatrixMarket(t)).toThrow(expect.objectContaining({ line: 8, column: 3 }));
  });
});

/** Splits bytes at the given offsets into chunks. */
function chunks(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(bytes.slice(prev, c));
    prev = c;
  }
  return out;
}
async function* iterate(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}
function webStream(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (i < parts.length) ctrl.enqueue(parts[i++]);
      else ctrl.close();
    },
  });
}
function sameResult(a: MatrixMarketResult, b: MatrixMarketResult): void {
  expect(b.header).toEqual(a.header);
  expect(b.comments).toEqual(a.comments);
  expect(b.matrix.dtype).toBe(a.matrix.dtype);
  if (a.matrix instanceof COOMatrix && b.matrix instanceof COOMatrix) {
    expect(firstDiff(a.matrix.rowIdx, b.matrix.rowIdx)).toBe('');
    expect(firstDiff(a.matrix.colIdx, b.matrix.colIdx)).toBe('');
  }
  expect(firstDiff(a.matrix.values, b.matrix.values)).toBe('');
}
/** '' when a and b hold the same numbers (Object.is, so -0 ≠ 0 and NaN = NaN), else where they differ. */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): string {
  if (a.length !== b.length) return `lengths ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return `element ${i}: ${a[i]} vs ${b[i]}`;
  return '';
}

describe('streaming input', () => {
  const text =
    `${banner('coordinate', 'complex', 'hermitian')}% streamed\r\n\r\n4 4 5\r\n1 1 1.25 0\r\n2 1 -3.5e-2 12345.678901234567\r\n` +
    `%mid\r\n4 2 1D2 -0.5\r\n3 3 +7 -0\r\n4 4 6.02214076e23 0\r\n`;
  const bytes = new TextEncoder().encode(text);
  const whole = parseMatrixMarket(bytes);

  it('gives identical results for a split at every byte (mid-number, mid-CRLF, mid-banner)', async () => {
    for (let c = 1; c < bytes.length; c++) sameResult(whole, await readMatrixMarket(iterate(chunks(bytes, [c]))));
  });

  it('gives identical results for 1-, 2- and 3-byte chunks, two cuts anywhere, and web streams', async () => {
    for (const size of [1, 2, 3, 7]) {
      const cuts: number[] = [];
      for (let c = size; c < bytes.length; c += size) cuts.push(c);
      sameResult(whole, await readMatrixMarket(iterate(chunks(bytes, cuts))));
      sameResult(whole, await readMatrixMarket(webStream(chunks(bytes, cuts))));
    }
    for (let a = 1; a < bytes.length; a += 3) for (let b = a; b < bytes.length; b += 5) sameResult(whole, await readMatrixMarket(iterate(chunks(bytes, [a, b]))));
    // empty chunks are harmless
    sameResult(whole, await readMatrixMarket(iterate([new Uint8Array(0), bytes.slice(0, 10), new Uint8Array(0), bytes.slice(10)])));
  });

  it('accepts string, ArrayBuffer and Uint8Array input and reports progress', async () => {
    sameResult(whole, parseMatrixMarket(text));
    sameResult(whole, parseMatrixMarket(bytes.slice().buffer));
    const seen: number[] = [];
    sameResult(whole, await readMatrixMarket(iterate(chunks(bytes, [10, 50])), { onProgress: (n) => seen.push(n) }));
    expect(seen).toEqual([10, 50, bytes.length]);
  });

  it('reports errors from streams with the same line as from whole input', async () => {
    const bad = text.replace('3 3 +7 -0', '3 3 +7 -0x');
    const e1 = (() => { try { parseMatrixMarket(bad); } catch (e) { return e as ParseError; } })();
    expect(e1?.line).toBe(9);
    await expect(readMatrixMarket(webStream(chunks(new TextEncoder().encode(bad), [100, 101])))).rejects.toMatchObject({ line: 9 });
  });
});

describe('bad input → ParseError with line numbers', () => {
  const cr = banner('coordinate', 'real', 'general');
  const cases: { name: string; text: string; line: number; msg: RegExp; column?: number }[] = [
    { name: 'empty input', text: '', line: 1, msg: /expected the banner.*found end of input/ },
    { name: 'missing banner', text: '3 3 1\n1 1 1\n', line: 1, msg: /expected the banner.*found "3 3 1"/ },
    { name: 'short banner', text: '%%MatrixMarket matrix coordinate real\n1 1 0\n', line: 1, msg: /found only 4 of its 5 words/ },
    { name: 'unknown object', text: '%%MatrixMarket vector coordinate real general\n', line: 1, msg: /unknown object "vector".*expected one of matrix/, column: 16 },
    { name: 'unknown format', text: '%%MatrixMarket matrix sparse real general\n', line: 1, msg: /unknown format "sparse".*coordinate, array/, column: 23 },
    { name: 'unknown field', text: '%%MatrixMarket matrix coordinate double general\n', line: 1, msg: /unknown field "double".*real, integer, complex, pattern/ },
    { name: 'unknown symmetry', text: '%%MatrixMarket matrix coordinate real upper\n', line: 1, msg: /unknown symmetry "upper".*general, symmetric, skew-symmetric, hermitian/ },
    { name: 'extra banner word', text: '%%MatrixMarket matrix coordinate real general extra\n', line: 1, msg: /unexpected "extra" after the symmetry/ },
    { name: 'array pattern', text: '%%MatrixMarket matrix array pattern general\n', line: 1, msg: /pattern field is only valid with coordinate/ },
    { name: 'real hermitian', text: '%%MatrixMarket matrix coordinate real hermitian\n', line: 1, msg: /hermitian symmetry requires the complex field, found real/ },
    { name: 'pattern skew', text: '%%MatrixMarket matrix coordinate pattern skew-symmetric\n', line: 1, msg: /skew-symmetric symmetry is not valid with the pattern field/ },
    { name: 'missing size line', text: `${cr}% only a comment\n`, line: 3, msg: /expected the size line, found end of input/ },
    { name: 'size line with 2 numbers', text: `${cr}% c\n3 3\n`, line: 3, msg: /bad size line: expected "rows cols entries" as 3 non-negative integers, found "3 3"/ },
    { name: 'array size line with 3 numbers', text: `${banner('array', 'real', 'general')}3 3 9\n`, line: 2, msg: /expected "rows cols" as 2 non-negative integers, found "3 3 9"/ },
    { name: 'non-integer size', text: `${cr}3 3.0 1\n`, line: 2, msg: /bad size line.*found "3 3.0 1"/ },
    { name: 'negative size', text: `${cr}-3 3 1\n`, line: 2, msg: /bad size line/ },
    { name: 'non-square symmetric', text: `${banner('coordinate', 'real', 'symmetric')}3 4 1\n`, line: 2, msg: /symmetric matrix must be square, the size line says 3×4/ },
    { name: 'too few entries', text: `${cr}3 3 4\n1 1 1\n2 2 2\n`, line: 5, msg: /expected 4 entries \(size line 2\), found 2 at end of input/ },
    // the input ends on line 4 (it has no line 5)
    { name: 'too few (no final newline)', text: `${cr}3 3 4\n1 1 1\n2 2 2`, line: 4, msg: /expected 4 entries.*found 2 at end of input/ },
    { name: 'too few array', text: `${banner('array', 'real', 'symmetric')}3 3\n1\n2\n`, line: 5, msg: /expected 6 entries \(size line 2\), found 2 at end of input/ },
    { name: 'too many entries', text: `${cr}3 3 1\n1 1 1\n% c\n2 2 2\n`, line: 5, msg: /expected 1 entries \(size line 2\), found more than that/, column: 1 },
    { name: 'too many array', text: `${banner('array', 'real', 'general')}1 1\n1\n2\n`, line: 4, msg: /expected 1 entries.*found more/ },
    { name: 'row index 0', text: `${cr}3 3 1\n0 1 1\n`, line: 3, msg: /row index 0 is out of range 1\.\.3/, column: 1 },
    { name: 'column past size', text: `${cr}3 3 2\n1 1 1\n1  4 1\n`, line: 4, msg: /column index 4 is out of range 1\.\.3/, column: 4 },
    { name: 'non-integer index', text: `${cr}3 3 1\n1.0 1 1\n`, line: 3, msg: /expected a row index, found "1.0"/ },
    { name: 'missing column', text: `${cr}3 3 1\n1\n`, line: 3, msg: /expected a column index, found end of line/ },
    { name: 'missing value', text: `${cr}3 3 1\n1 1\r\n`, line: 3, msg: /expected a real value, found end of line/ },
    { name: 'non-number', text: `${cr}3 3 1\n1 1 abc\n`, line: 3, msg: /expected a real value, found "abc"/, column: 5 },
    { name: 'number with junk', text: `${cr}3 3 1\n1 1 1.5x\n`, line: 3, msg: /expected a real value, found "1.5x"/ },
    { name: 'extra token', text: `${cr}3 3 1\n1 1 1.5 2\n`, line: 3, msg: /expected end of line, found "2"/, column: 9 },
    { name: 'integer field with a point', text: `${banner('coordinate', 'integer', 'general')}3 3 1\n1 1 1.5\n`, line: 3, msg: /expected an integer value, found "1.5"/ },
    { name: 'pattern with a value', text: `${banner('coordinate', 'pattern', 'general')}3 3 1\n1 1 1\n`, line: 3, msg: /expected end of line, found "1"/ },
    { name: 'missing imaginary part', text: `${banner('coordinate', 'complex', 'general')}3 3 1\n1 1 1.5\n`, line: 3, msg: /expected the imaginary part, found end of line/, column: 8 },
    { name: 'missing imaginary part (array)', text: `${banner('array', 'complex', 'general')}1 1\n1.5 \n`, line: 3, msg: /expected the imaginary part, found end of line/ },
    { name: 'bad imaginary part', text: `${banner('coordinate', 'complex', 'general')}3 3 1\n1 1 1.5 i\n`, line: 3, msg: /expected the imaginary part, found "i"/ },
    { name: 'symmetric above diagonal', text: `${banner('coordinate', 'real', 'symmetric')}3 3 2\n2 1 1\n1 2 1\n`, line: 4, msg: /symmetric file stores the lower triangle only, found entry \(1, 2\) above the diagonal/ },
    { name: 'skew diagonal', text: `${banner('coordinate', 'real', 'skew-symmetric')}3 3 1\n2 2 0\n`, line: 3, msg: /skew-symmetric file has a diagonal entry \(2, 2\)/ },
    { name: 'hermitian complex diagonal', text: `${banner('coordinate', 'complex', 'hermitian')}3 3 1\n2 2 1 1\n`, line: 3, msg: /hermitian diagonal entry \(2, 2\) has imaginary part 1/ },
    { name: 'array hermitian complex diagonal', text: `${banner('array', 'complex', 'hermitian')}2 2\n1 0\n2 2\n3 5\n`, line: 5, msg: /hermitian diagonal entry \(2, 2\) has imaginary part 5/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let err: unknown;
      try {
        parseMatrixMarket(c.text);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParseError);
      const pe = err as ParseError;
      expect(pe.code).toBe('E_PARSE');
      expect(pe.line).toBe(c.line);
      expect(pe.message).toMatch(c.msg);
      expect(pe.message.startsWith(`line ${c.line}`)).toBe(true);
      if (c.column !== undefined) expect(pe.column).toBe(c.column);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Writer and round trips

let seed = 2024;
function rand(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
}
const SPECIALS = [0, -0, 1, -1, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, 1e21, 123456789012345680000, Infinity, -Infinity, NaN];
function randomValue(f32: boolean): number {
  const r = rand();
  if (r < 0.15) return SPECIALS[Math.floor(rand() * SPECIALS.length)];
  if (r < 0.5) return (rand() - 0.5) * 10 ** Math.floor(rand() * 80 - 40);
  // random bit patterns
  if (f32) {
    const v = new Float32Array(new Uint32Array([Math.floor(rand() * 2 ** 32)]).buffer)[0];
    return v;
  }
  return new Float64Array(new Uint32Array([Math.floor(rand() * 2 ** 32), Math.floor(rand() * 2 ** 32)]).buffer)[0];
}
function randomValues(dtype: DType, n: number): Float32Array | Float64Array {
  const f32 = dtype === 'f32' || dtype === 'c64';
  const a = f32 ? new Float32Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = randomValue(f32);
  return a;
}
/** Bitwise equality, except that every NaN equals every NaN (payloads are not written). */
function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): void {
  expect(firstDiff(a, b)).toBe('');
}
function randomCOO(dtype: DType, rows: number, cols: number, nnz: number): COOMatrix {
  const comp = dtype === 'c64' || dtype === 'c128' ? 2 : 1;
  const ri = new Int32Array(nnz);
  const ci = new Int32Array(nnz);
  for (let k = 0; k < nnz; k++) {
    ri[k] = Math.floor(rand() * rows);
    ci[k] = Math.floor(rand() * cols);
  }
  return new COOMatrix(rows, cols, dtype, ri, ci, randomValues(dtype, nnz * comp));
}

describe('writer round trips (bit-exact)', () => {
  for (const dtype of ['f64', 'f32', 'c128', 'c64'] as DType[]) {
    it(`coordinate ${dtype}`, () => {
      const A = randomCOO(dtype, 37, 23, 400);
      const text = writeMatrixMarket(A);
      const r = parseMatrixMarket(text, { dtype });
      const csr = A.toCSR();
      expect(r.header.symmetry).toBe('general');
      expect(r.matrix.nnz).toBe(csr.nnz);
      const m = r.matrix as COOMatrix;
      // written in row-major (CSR) order, so the parsed triplets are the CSR's
      const rows: number[] = [];
      for (let i = 0; i < csr.rows; i++) for (let k = csr.rowPtr[i]; k < csr.rowPtr[i + 1]; k++) rows.push(i);
      expect(Array.from(m.rowIdx)).toEqual(rows);
      expect(Array.from(m.colIdx)).toEqual(Array.from(csr.colIdx));
      sameBits(csr.values, m.values);
      expect(writeMatrixMarket(m)).toBe(text);
    });

    it(`array ${dtype}`, () => {
      const comp = dtype === 'c64' || dtype === 'c128' ? 2 : 1;
      const D = new DenseMatrix(9, 5, dtype, randomValues(dtype, 45 * comp));
      const text = writeMatrixMarket(D);
      expect(text.startsWith(`%%MatrixMarket matrix array ${comp === 2 ? 'complex' : 'real'} general\n9 5\n`)).toBe(true);
      const r = parseMatrixMarket(text, { dtype });
      expect(r.matrix).toBeInstanceOf(DenseMatrix);
      sameBits(D.values, r.matrix.values);
    });
  }

  it('writes f32 values with their shortest f32 repr', () => {
    const A = new DenseMatrix(1, 4, 'f32', new Float32Array([0.1, 1 / 3, 16777216, 3.4028234663852886e38]));
    expect(writeMatrixMarket(A).split('\n').slice(2, 6)).toEqual(['0.1', '0.33333334', '16777216', '3.4028235e+38']);
    const B = new DenseMatrix(1, 3, 'f64', new Float64Array([0.1, -0, NaN]));
    expect(writeMatrixMarket(B).split('\n').slice(2, 5)).toEqual(['0.1', '-0', 'nan']);
  });

  it('symmetric / skew / hermitian round trips write the lower triangle only', () => {
    const n = 12;
    const mk = (dtype: DType, kind: 'symmetric' | 'skew-symmetric' | 'hermitian'): COOMatrix => {
      const comp = dtype === 'c64' || dtype === 'c128' ? 2 : 1;
      const ri: number[] = [];
      const ci: number[] = [];
      const vs: number[] = [];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          if (rand() < 0.6 && i !== j) continue;
          if (i === j && kind === 'skew-symmetric') continue;
          const re = (rand() - 0.5) * 100;
          const im = comp === 2 && !(i === j && kind === 'hermitian') ? rand() : 0;
          ri.push(i);
          ci.push(j);
          vs.push(re, ...(comp === 2 ? [im] : []));
          if (i !== j) {
            ri.push(j);
            ci.push(i);
            const s = kind === 'skew-symmetric' ? -1 : 1;
            vs.push(s * re, ...(comp === 2 ? [kind === 'symmetric' ? im : -im] : []));
          }
        }
      }
      const V = comp === 2 && dtype === 'c64' ? new Float32Array(vs) : dtype === 'f32' ? new Float32Array(vs) : new Float64Array(vs);
      return new COOMatrix(n, n, dtype, Int32Array.from(ri), Int32Array.from(ci), V);
    };
    const combos: [DType, 'symmetric' | 'skew-symmetric' | 'hermitian'][] = [
      ['f64', 'symmetric'], ['f64', 'skew-symmetric'], ['f32', 'symmetric'], ['c128', 'symmetric'], ['c128', 'skew-symmetric'], ['c128', 'hermitian'], ['c64', 'hermitian'],
    ];
    for (const [dtype, kind] of combos) {
      const A = mk(dtype, kind);
      const csr = A.toCSR();
      for (const sym of [kind, 'auto'] as const) {
        const text = writeMatrixMarket(A, { symmetry: sym });
        const lines = text.trim().split('\n');
        expect(lines[0]).toBe(`%%MatrixMarket matrix coordinate ${dtype.startsWith('c') ? 'complex' : 'real'} ${kind}`);
        const stored = lines.slice(2).map((l) => l.split(' ').map(Number));
        expect(stored.every(([i, j]) => (kind === 'skew-symmetric' ? i > j : i >= j))).toBe(true);
        const diag = stored.filter(([i, j]) => i === j).length;
        expect(2 * stored.length - diag).toBe(csr.nnz);
        const back = parseMatrixMarket(text, { dtype }).matrix as COOMatrix;
        const bc = back.toCSR();
        expect(Array.from(bc.rowPtr)).toEqual(Array.from(csr.rowPtr));
        expect(Array.from(bc.colIdx)).toEqual(Array.from(csr.colIdx));
        sameBits(csr.values, bc.values);
      }
      // the same in array format
      const D = DenseMatrix.fromCSR(csr);
      const text = writeMatrixMarket(D, { symmetry: kind });
      expect(text.split('\n')[1]).toBe(`${n} ${n}`);
      expect(text.trim().split('\n').length - 2).toBe(kind === 'skew-symmetric' ? (n * (n - 1)) / 2 : (n * (n + 1)) / 2);
      sameBits(D.values, parseMatrixMarket(text, { dtype }).matrix.values);
      expect(writeMatrixMarket(D, { symmetry: 'auto' }).split('\n')[0]).toContain(kind);
    }
  });

  it("'auto' picks general for unsymmetric and rectangular matrices, symmetric for diagonal ones", () => {
    expect(writeMatrixMarket(randomCOO('f64', 5, 5, 12), { symmetry: 'auto' })).toMatch(/^%%MatrixMarket matrix coordinate real general\n/);
    expect(writeMatrixMarket(randomCOO('f64', 5, 4, 3), { symmetry: 'auto' })).toMatch(/ general\n/);
    const diag = new COOMatrix(3, 3, 'f64', Int32Array.from([0, 1, 2]), Int32Array.from([0, 1, 2]), Float64Array.from([1, 2, 3]));
    expect(writeMatrixMarket(diag, { symmetry: 'auto' })).toMatch(/ symmetric\n3 3 3\n/);
    expect(writeMatrixMarket(diag, { symmetry: 'auto', field: 'pattern' })).toBe('%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 2\n3 3\n');
  });

  it('refuses a symmetry the matrix lacks, naming the first offending entry', () => {
    const A = new COOMatrix(3, 3, 'f64', Int32Array.from([0, 1, 2, 2]), Int32Array.from([1, 0, 0, 2]), Float64Array.from([2, 2, 5, 1]));
    expect(() => writeMatrixMarket(A, { symmetry: 'symmetric' })).toThrow(FormatError);
    expect(() => writeMatrixMarket(A, { symmetry: 'symmetric' })).toThrow(/not symmetric: entry \(2, 0\) = 5 but \(0, 2\) = \(absent\)/);
    expect(() => writeMatrixMarket(A, { symmetry: 'skew-symmetric' })).toThrow(/not skew-symmetric: entry \(0, 1\) = 2 but \(1, 0\) = 2/);
    const S = new COOMatrix(2, 2, 'f64', Int32Array.from([0, 1, 1]), Int32Array.from([1, 0, 1]), Float64Array.from([2, -2, 1]));
    expect(() => writeMatrixMarket(S, { symmetry: 'skew-symmetric' })).toThrow(/diagonal entry \(1, 1\) = 1 must be zero/);
    const H = new COOMatrix(1, 1, 'c128', Int32Array.from([0]), Int32Array.from([0]), Float64Array.from([1, 2]));
    expect(() => writeMatrixMarket(H, { symmetry: 'hermitian' })).toThrow(/diagonal entry \(0, 0\) = 1\+2i must be real/);
    expect(() => writeMatrixMarket(randomCOO('f64', 3, 4, 3), { symmetry: 'symmetric' })).toThrow(ShapeError);
    const D = new DenseMatrix(2, 2, 'f64', Float64Array.from([1, 2, 3, 4]));
    expect(() => writeMatrixMarket(D, { symmetry: 'symmetric' })).toThrow(/entry \(1, 0\) = 3 but \(0, 1\) = 2/);
  });

  it('writes integer, pattern and complex fields, comments and precision', () => {
    const A = new COOMatrix(2, 3, 'f64', Int32Array.from([1, 0]), Int32Array.from([2, 0]), Float64Array.from([-7, 3e21]));
    expect(writeMatrixMarket(A, { field: 'integer', comment: ' made by simdgl\nsecond line' })).toBe(
      '%%MatrixMarket matrix coordinate integer general\n% made by simdgl\n%second line\n2 3 2\n1 1 3000000000000000000000\n2 3 -7\n',
    );
    const r = parseMatrixMarket(writeMatrixMarket(A, { field: 'integer', comment: ' made by simdgl' }));
    expect(r.comments).toEqual([' made by simdgl']);
    expect(dense(r.matrix)).toEqual([3e21, 0, 0, 0, 0, -7]);
    expect(() => writeMatrixMarket(new DenseMatrix(1, 1, 'f64', Float64Array.from([0.5])), { field: 'integer' })).toThrow(/entry \(0, 0\) = 0.5 is not an integer/);
    expect(writeMatrixMarket(A, { field: 'pattern' })).toBe('%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 1\n2 3\n');
    expect(writeMatrixMarket(A, { field: 'complex' })).toContain('\n2 3 -7 0\n');
    expect(writeMatrixMarket(new DenseMatrix(1, 1, 'f64', Float64Array.from([Math.PI])), { precision: 5 })).toContain('\n3.1416\n');
    // a dense matrix written as coordinate lists its nonzeros
    expect(writeMatrixMarket(new DenseMatrix(2, 2, 'f64', Float64Array.from([0, 2, 0, 0])), { format: 'coordinate' })).toBe(
      '%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2\n',
    );
    // a sparse matrix written as array
    expect(writeMatrixMarket(A, { format: 'array' })).toBe('%%MatrixMarket matrix array real general\n2 3\n3e+21\n0\n0\n0\n0\n-7\n');
    const C = new COOMatrix(1, 1, 'c128', Int32Array.from([0]), Int32Array.from([0]), Float64Array.from([1, 2]));
    expect(() => writeMatrixMarket(C, { field: 'real' })).toThrow(UnsupportedError);
    expect(() => writeMatrixMarket(A, { format: 'array', field: 'pattern' })).toThrow(UnsupportedError);
    expect(() => writeMatrixMarket(A, { symmetry: 'hermitian' })).toThrow(UnsupportedError);
  });
});

// ---------------------------------------------------------------------------------------------
// The real matrices of data/matrices, checked against a naive independent reading.

const README_TABLE: Record<string, [string, number, number, number]> = {
  '494_bus': ['coordinate real symmetric', 494, 494, 1080],
  Groebner_id2003_aug: ['coordinate integer general', 4967, 2456, 173670],
  ash219: ['coordinate real general', 219, 85, 438],
  bcsstk01: ['coordinate real symmetric', 48, 48, 224],
  bcsstk13: ['coordinate real symmetric', 2003, 2003, 42943],
  dwt_992: ['coordinate pattern symmetric', 992, 992, 8868],
  olm1000: ['coordinate real general', 1000, 1000, 3996],
  qc324: ['coordinate complex general', 324, 324, 26730],
  rajat01: ['coordinate pattern general', 6833, 6833, 43250],
  t1: ['coordinate real general', 4, 4, 10],
  west0479: ['coordinate real general', 479, 479, 1910],
  young1c: ['coordinate complex general', 841, 841, 4089],
};

/** The simplest possible reader: split lines and words, Number() each value. */
function naive(text: string): { banner: string[]; size: number[]; entries: number[][] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('%') || l.startsWith('%%'));
  const banner = lines[0].toLowerCase().split(/\s+/).slice(2);
  const size = lines[1].trim().split(/\s+/).map(Number);
  return { banner, size, entries: lines.slice(2).map((l) => l.trim().split(/\s+/).map(Number)) };
}

describe('real matrices from data/matrices', () => {
  for (const [name, [hdr, rows, cols, stored]] of Object.entries(README_TABLE)) {
    it(name, async () => {
      const file = path.join(MATRICES, `${name}.mtx`);
      const bytes = readFileSync(file);
      const text = bytes.toString('latin1');
      const ref = naive(text);
      expect(ref.banner.join(' ')).toBe(hdr);
      expect(ref.size).toEqual([rows, cols, stored]);
      expect(ref.entries.length).toBe(stored);

      const r = parseMatrixMarket(bytes);
      expect(`${r.header.format} ${r.header.field} ${r.header.symmetry}`).toBe(hdr);
      const m = r.matrix as COOMatrix;
      expect([m.rows, m.cols]).toEqual([rows, cols]);
      const symmetric = r.header.symmetry === 'symmetric';
      const diag = ref.entries.filter(([i, j]) => i === j).length;
      expect(m.nnz).toBe(symmetric ? 2 * stored - diag : stored);
      expect(m.dtype).toBe(r.header.field === 'complex' ? 'c128' : 'f64');
      m.validate();

      // every stored entry, in file order (each followed by its mirror when symmetric); the first
      // mismatch is reported (one expect per entry would be slow on 170k entries)
      const comp = r.header.field === 'complex' ? 2 : 1;
      let q = 0;
      let mismatch = '';
      const same = (k: number, i: number, j: number, want: number[]): void => {
        if (mismatch !== '') return;
        const got = [m.rowIdx[k] + 1, m.colIdx[k] + 1, ...Array.from(m.values.subarray(k * comp, (k + 1) * comp))];
        if (got.some((x, t) => x !== [i, j, ...want][t])) mismatch = `entry ${k}: got ${got} want ${[i, j, ...want]}`;
      };
      for (const e of ref.entries) {
        const [i, j] = e;
        const want = r.header.field === 'pattern' ? [1] : e.slice(2);
        same(q++, i, j, want);
        if (symmetric && i !== j) same(q++, j, i, want);
      }
      expect(mismatch).toBe('');
      expect(q).toBe(m.nnz);

      // streamed in odd-sized chunks: identical
      const parts: Uint8Array[] = [];
      for (let o = 0; o < bytes.length; o += 4093) parts.push(bytes.subarray(o, o + 4093));
      sameResult(r, await readMatrixMarket(iterate(parts)));

      // write → read is bit-exact (and symmetric files stay symmetric with 'auto')
      const back = parseMatrixMarket(writeMatrixMarket(m, { symmetry: 'auto' })).matrix as COOMatrix;
      const a = m.toCSR();
      const b = back.toCSR();
      expect(firstDiff(a.rowPtr, b.rowPtr)).toBe('');
      expect(firstDiff(a.colIdx, b.colIdx)).toBe('');
      sameBits(a.values, b.values);
    });
  }

  it('spot values looked up with a regex over the raw text', () => {
    const grep = (name: string, i: number, j: number): string[] => {
      const text = readFileSync(path.join(MATRICES, `${name}.mtx`), 'latin1');
      const m = text.match(new RegExp(`^${i}[ \\t]+${j}[ \\t]+(\\S+)(?:[ \\t]+(\\S+))?\\s*$`, 'm'));
      if (m === null) throw new Error(`no entry (${i}, ${j}) in ${name}`);
      return m.slice(1).filter((x) => x !== undefined);
    };
    const at = (name: string, i: number, j: number): number[] => {
      const m = parseMatrixMarket(readFileSync(path.join(MATRICES, `${name}.mtx`))).matrix as COOMatrix;
      const comp = m.dtype === 'c128' ? 2 : 1;
      for (let k = 0; k < m.nnz; k++) if (m.rowIdx[k] === i - 1 && m.colIdx[k] === j - 1) return Array.from(m.values.subarray(k * comp, (k + 1) * comp));
      throw new Error('absent');
    };
    expect(grep('bcsstk01', 1, 1)).toEqual(['2.83226851852e+06']);
    expect(at('bcsstk01', 1, 1)).toEqual([2832268.51852]);
    expect(grep('t1', 3, 3)).toEqual(['3.0']);
    expect(at('t1', 3, 3)).toEqual([3]);
    expect(at('t1', 2, 4)).toEqual([Number(grep('t1', 2, 4)[0])]);
    expect(grep('qc324', 1, 1)).toEqual(['0.3907881', '-0.05085988']);
    expect(at('qc324', 1, 1)).toEqual([0.3907881, -0.05085988]);
    expect(at('494_bus', 1, 1)).toEqual([2220.874]);
    // symmetric mirror: (i, j) stored below the diagonal reads back at (j, i)
    const [i, j, v] = naive(readFileSync(path.join(MATRICES, 'bcsstk13.mtx'), 'latin1')).entries.find(([a, b]) => a > b)!;
    expect(at('bcsstk13', j, i)).toEqual([v]);
    expect(at('young1c', 1, 1)).toEqual([-218.46, 0]);
  });
});
