/**
 * writeMatrixMarket's symmetries and a matrix's stored pattern: a symmetric, hermitian or skew-symmetric
 * file stores one triangle and the reader mirrors it, so a stored entry (an explicit zero included)
 * whose mirror is not stored cannot be written so — it would be dropped (above the diagonal) or gain a
 * stored mirror (below), and ILU(0)'s fill or a refactor's pattern check would meet another matrix.
 * symmetry 'auto' picks such a symmetry only when the stored pattern has it too; asking for one is a
 * FormatError naming the entry. Checked against a reference written here: the stored entries as a map
 * (i, j) → value, and the symmetries the map has.
 */
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import { COOMatrix } from '../src/formats/coo.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';
import type { MMSymmetry } from '../src/io/matrix-market-types.js';
import { poisson2D } from '../src/generators/poisson.js';
import { mulberry32 } from './random.js';

type Entries = Map<string, [number, number]>;

/** The stored entries of a COO (duplicates summed), as (i, j) → [re, im]. */
function entriesOf(A: { rows: number; nnz: number; rowIdx: Int32Array; colIdx: Int32Array; values: ArrayLike<number>; dtype: string }): Entries {
  const c = A.dtype === 'c128' || A.dtype === 'c64' ? 2 : 1;
  const m: Entries = new Map();
  for (let k = 0; k < A.nnz; k++) {
    const key = `${A.rowIdx[k]},${A.colIdx[k]}`;
    const v = m.get(key) ?? [0, 0];
    v[0] += A.values[c * k];
    if (c === 2) v[1] += A.values[c * k + 1];
    m.set(key, v);
  }
  return m;
}

/** Which symmetries the stored entries have, pattern included (the reference for 'auto'). */
function symmetriesOf(m: Entries, n: number, complex: boolean): Set<MMSymmetry> {
  const has = new Set<MMSymmetry>(['symmetric', 'skew-symmetric', ...(complex ? (['hermitian'] as const) : [])]);
  for (const [key, [re, im]] of m) {
    const [i, j] = key.split(',').map(Number);
    const mirror = m.get(`${j},${i}`);
    if (!mirror) {
      has.clear();
      break;
    }
    if (i === j) {
      has.delete('skew-symmetric');
      if (im !== 0) has.delete('hermitian');
      continue;
    }
    if (!(mirror[0] === re && mirror[1] === im)) has.delete('symmetric');
    if (!(mirror[0] === -re && mirror[1] === -im)) has.delete('skew-symmetric');
    if (!(mirror[0] === re && mirror[1] === -im)) has.delete('hermitian');
  }
  if (n === 0) has.clear();
  return has;
}

/**
 * A small n×n matrix built symmetric (or skew, or hermitian) and then spoiled in the ways that matter
 * here: values set to explicit zeros, one of a pair dropped (its mirror kept: an explicit zero or not),
 * a diagonal zero stored.
 */
function matrix(rand: () => number, complex: boolean): COOMatrix {
  const n = 1 + Math.floor(rand() * 6);
  const kind = Math.floor(rand() * 3); // 0 symmetric, 1 skew, 2 hermitian
  const m: Entries = new Map();
  const small = (): number => [0, 1, -2, 3][Math.floor(rand() * 4)];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      if (rand() < 0.5) continue;
      const re = small();
      const im = complex ? small() : 0;
      if (i === j) {
        if (kind !== 1) m.set(`${i},${i}`, [re, kind === 2 ? 0 : im]);
        continue;
      }
      m.set(`${i},${j}`, [re, im]);
      m.set(`${j},${i}`, kind === 0 ? [re, im] : kind === 1 ? [-re, -im] : [re, -im]);
    }
  }
  const keys = [...m.keys()];
  for (const key of keys) {
    const r = rand();
    if (r < 0.1) m.set(key, [0, 0]);
    else if (r < 0.2) {
      const [i, j] = key.split(',').map(Number);
      // drop the mirror of an entry made an explicit zero, or of one left as it is
      if (rand() < 0.5) m.set(key, [0, 0]);
      m.delete(`${j},${i}`);
    }
  }
  if (rand() < 0.2 && n > 0) m.set(`${n - 1},${n - 1}`, [0, 0]);
  const ri: number[] = [];
  const ci: number[] = [];
  const v: number[] = [];
  for (const [key, [re, im]] of m) {
    const [i, j] = key.split(',').map(Number);
    ri.push(i);
    ci.push(j);
    v.push(re);
    if (complex) v.push(im);
  }
  return new COOMatrix(n, n, complex ? 'c128' : 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

function expectSame(got: Entries, want: Entries): void {
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  // === compares -0 and 0 as equal: a mirror is written once, its sign of zero is the lower triangle's
  for (const [key, v] of want) expect(got.get(key)!.map((x) => x + 0)).toEqual(v.map((x) => x + 0));
}

describe("writeMatrixMarket: symmetry 'auto' and explicitly stored zeros", () => {
  it('a numerically symmetric matrix with an explicit zero whose mirror is not stored is written general, every stored entry kept', () => {
    // 3×3: (0,1) stored as 0, (1,0) not stored: A = Aᵀ in value, not in pattern; and the mirror case below the diagonal
    for (const [i, j] of [[0, 1], [1, 0]]) {
      const ri = [0, 1, 1, 2, 2, i];
      const ci = [0, 1, 2, 1, 2, j];
      const A = new COOMatrix(3, 3, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from([4, 4, -1, -1, 4, 0]));
      const text = writeMatrixMarket(A, { symmetry: 'auto' });
      // before: 'symmetric', and the file read back held 5 entries (the zero above the diagonal dropped) or 7 (a mirror added)
      expect(text.split('\n')[0]).toBe('%%MatrixMarket matrix coordinate real general');
      const back = parseMatrixMarket(text).matrix as COOMatrix;
      expectSame(entriesOf(back), entriesOf(A));
      expect(() => writeMatrixMarket(A, { symmetry: 'symmetric' })).toThrow(FormatError);
      expect(() => writeMatrixMarket(A, { symmetry: 'symmetric' })).toThrow(`entry (${i}, ${j}) = 0 is stored but (${j}, ${i}) is not`);
    }
  });

  it('a pattern-symmetric matrix with explicit zero pairs is still written symmetric, and read back with both zeros', () => {
    const P = poisson2D(6);
    const v = Float64Array.from(P.values);
    // zero the pair (7, 8) / (8, 7)
    for (let r = 7; r <= 8; r++) for (let k = P.rowPtr[r]; k < P.rowPtr[r + 1]; k++) if (P.colIdx[k] === 15 - r) v[k] = 0;
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
    const text = writeMatrixMarket(A, { symmetry: 'auto' });
    expect(text.split('\n')[0]).toBe('%%MatrixMarket matrix coordinate real symmetric');
    const back = parseMatrixMarket(text).matrix.toCSR();
    expect(back.nnz).toBe(A.nnz);
    expect(Array.from(back.colIdx)).toEqual(Array.from(A.colIdx));
    expect(Array.from(back.values)).toEqual(Array.from(v));
  });

  it('a stored zero diagonal entry of a skew-symmetric matrix keeps it general (a skew file stores no diagonal)', () => {
    const A = new COOMatrix(2, 2, 'f64', Int32Array.from([1, 0, 0]), Int32Array.from([0, 1, 0]), Float64Array.from([3, -3, 0]));
    expect(writeMatrixMarket(A, { symmetry: 'auto' }).split('\n')[0]).toBe('%%MatrixMarket matrix coordinate real general');
    expect(() => writeMatrixMarket(A, { symmetry: 'skew-symmetric' })).toThrow(/diagonal entry \(0, 0\) = 0 is stored, which a skew-symmetric file cannot hold/);
    // without it, skew-symmetric
    const B = new COOMatrix(2, 2, 'f64', Int32Array.from([1, 0]), Int32Array.from([0, 1]), Float64Array.from([3, -3]));
    expect(writeMatrixMarket(B, { symmetry: 'auto' }).split('\n')[0]).toBe('%%MatrixMarket matrix coordinate real skew-symmetric');
  });

  for (const complex of [false, true]) {
    it(`${complex ? 'complex' : 'real'} random patterns (400): 'auto' picks the first symmetry the reference finds in values and pattern, every symmetry the reference finds writes, the others refuse, and each file reads back the stored entries`, () => {
      const rand = mulberry32(complex ? 2 : 1);
      const order: MMSymmetry[] = complex ? ['symmetric', 'hermitian', 'skew-symmetric'] : ['symmetric', 'skew-symmetric'];
      const seen = new Set<string>();
      for (let t = 0; t < 400; t++) {
        const A = matrix(rand, complex);
        const want = entriesOf(A);
        const has = symmetriesOf(want, A.rows, complex);
        const auto = writeMatrixMarket(A, { symmetry: 'auto' });
        const chosen = order.find((s) => has.has(s)) ?? 'general';
        seen.add(chosen);
        expect(auto.split('\n')[0]).toBe(`%%MatrixMarket matrix coordinate ${complex ? 'complex' : 'real'} ${chosen}`);
        expectSame(entriesOf(parseMatrixMarket(auto).matrix as COOMatrix), want);
        for (const s of order) {
          if (has.has(s)) expectSame(entriesOf(parseMatrixMarket(writeMatrixMarket(A, { symmetry: s })).matrix as COOMatrix), want);
          else expect(() => writeMatrixMarket(A, { symmetry: s })).toThrow(FormatError);
        }
        // the pattern field: the stored pattern alone
        const pattern = writeMatrixMarket(A, { field: 'pattern', symmetry: 'auto' });
        const back = entriesOf(parseMatrixMarket(pattern).matrix as COOMatrix);
        expect([...back.keys()].sort()).toEqual([...want.keys()].sort());
      }
      // the generator reaches every outcome
      expect([...seen].sort()).toEqual([...order, 'general'].sort());
    });
  }
});
