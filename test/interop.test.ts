// The `from` factories (SciPy's names, any numeric array-like, strided ndarray views) and the error a
// foreign object gets where a matrix is expected, against references written here in plain JavaScript.
import { describe, expect, it } from 'vitest';
import {
  COOMatrix, CSCMatrix, CSRMatrix, DenseMatrix, InputRangeError, InputTypeError, ShapeError, FormatError, UnsupportedError,
  convert, createRuntime, poisson2D,
} from '../src/index.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

type Triplet = { i: number; j: number; v: number[] };

/** The entries of a CSR as triplets, read with a plain loop (values as [re] or [re, im]). */
function triplets(A: CSRMatrix): Triplet[] {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const out: Triplet[] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) out.push({ i, j: A.colIdx[k], v: Array.from(A.values.subarray(k * c, k * c + c)) });
  }
  return out;
}

/** SciPy's compressed arrays of triplets, major axis `byRow`: sorted, duplicates summed (plain sort). */
function compressed(t: Triplet[], outer: number, byRow: boolean) {
  const key = (e: Triplet) => (byRow ? [e.i, e.j] : [e.j, e.i]);
  const s = [...t].sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
  const indptr = new Array(outer + 1).fill(0);
  const indices: number[] = [];
  const data: number[][] = [];
  for (const e of s) {
    const [o, inner] = key(e);
    if (indices.length > 0 && indices[indices.length - 1] === inner && data.length > indptr[o]) {
      data[data.length - 1] = data[data.length - 1].map((x, q) => x + e.v[q]);
      continue;
    }
    indices.push(inner);
    data.push(e.v);
    for (let r = o + 1; r <= outer; r++) indptr[r] = indices.length;
  }
  return { indptr, indices, data: data.flat() };
}

/** Fisher–Yates with a fixed LCG, so a failure reproduces. */
function shuffled<T>(a: T[], seed = 7): T[] {
  const out = [...a];
  let s = seed;
  for (let k = out.length - 1; k > 0; k--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const r = s % (k + 1);
    [out[k], out[r]] = [out[r], out[k]];
  }
  return out;
}

describe('CSR/CSC/COO.from on the shared matrices', () => {
  for (const name of sharedMatrixNames().slice(0, 6)) {
    it(name, () => {
      const A = loadShared(name);
      const t = shuffled(triplets(A));
      const csr = compressed(t, A.rows, true);
      const csc = compressed(t, A.cols, false);
      const shape = [A.rows, A.cols];
      const dtype = A.dtype;
      // indices as numpy exports them (int64), uint32 and number[]
      const R = CSRMatrix.from({ indptr: BigInt64Array.from(csr.indptr, BigInt), indices: Uint32Array.from(csr.indices), data: csr.data, shape, dtype });
      expect([R.rows, R.cols, R.dtype]).toEqual([A.rows, A.cols, dtype]);
      expect(Array.from(R.rowPtr)).toEqual(csr.indptr);
      expect(Array.from(R.colIdx)).toEqual(csr.indices);
      expect(Array.from(R.values)).toEqual(Array.from(dtype === 'f32' || dtype === 'c64' ? Float32Array.from(csr.data) : csr.data));
      const C = CSCMatrix.from({ indptr: csc.indptr, indices: BigUint64Array.from(csc.indices, BigInt), data: Float64Array.from(csc.data), shape, dtype });
      expect(Array.from(C.toCSR().colIdx)).toEqual(csr.indices);
      expect(Array.from(C.toCSR().values)).toEqual(Array.from(R.values));
      const O = COOMatrix.from({ row: t.map((e) => e.i), col: new Int32Array(t.map((e) => e.j)), data: t.flatMap((e) => e.v), shape, dtype });
      expect(O.nnz).toBe(t.length);
      expect(Array.from(O.toCSR().rowPtr)).toEqual(csr.indptr);
      expect(Array.from(O.toCSR().values)).toEqual(Array.from(R.values));
    });
  }

  it('copies: changing the source arrays afterwards changes nothing', () => {
    const indices = new Int32Array([0, 2, 1]);
    const data = new Float64Array([1, 2, 3]);
    const A = CSRMatrix.from({ indptr: [0, 2, 3], indices, data, shape: [2, 3] });
    indices[0] = 9;
    data[0] = 9;
    expect([A.colIdx[0], A.values[0]]).toEqual([0, 1]);
  });

  it('dtype: f32 from a Float32Array, as asked otherwise; keeps unsorted rows as SciPy does', () => {
    expect(CSRMatrix.from({ indptr: [0, 1], indices: [0], data: new Float32Array([1]), shape: [1, 1] }).dtype).toBe('f32');
    expect(CSRMatrix.from({ indptr: [0, 1], indices: [0], data: [1, 2], shape: [1, 1], dtype: 'c128' }).values).toEqual(new Float64Array([1, 2]));
    const U = CSRMatrix.from({ indptr: [0, 2], indices: [1, 0], data: [5, 6], shape: [1, 2] });
    expect(U.isCanonical()).toBe(false);
    expect(Array.from(U.toCSR().values)).toEqual([6, 5]);
  });
});

describe('from: bad input is a typed error naming it', () => {
  const ok = { indptr: [0, 2, 3], indices: [0, 2, 1], data: [1, 2, 3], shape: [2, 3] };
  const cases: [string, () => unknown, Function, RegExp, number?][] = [
    ['negative index', () => CSRMatrix.from({ ...ok, indices: [0, -1, 1] }), InputRangeError, /indices\[1\] = -1/, 1],
    ['fractional index', () => CSRMatrix.from({ ...ok, indices: [0, 1.5, 1] }), InputRangeError, /indices\[1\] = 1\.5/, 1],
    ['index ≥ 2³¹', () => COOMatrix.from({ row: [0], col: new Float64Array([2 ** 31]), data: [1], shape: [1, 1] }), InputRangeError, /col\[0\] = 2147483648/, 0],
    ['uint32 index ≥ 2³¹', () => CSCMatrix.from({ indptr: [0, 1], indices: new Uint32Array([2 ** 31 + 5]), data: [1], shape: [1, 1] }), InputRangeError, /indices\[0\]/, 0],
    ['bigint beyond 2⁵³', () => CSRMatrix.from({ ...ok, indices: new BigInt64Array([0n, 2n ** 60n, 1n]) }), InputRangeError, /indices\[1\]/, 1],
    ['NaN index', () => CSRMatrix.from({ ...ok, indptr: [0, NaN, 3] }), InputRangeError, /indptr\[1\] = NaN/, 1],
    ['string element', () => CSRMatrix.from({ ...ok, data: [1, '2' as never, 3] }), InputTypeError, /data\[1\].*the string "2"/, 1],
    ['missing field', () => CSRMatrix.from({ indptr: [0], indices: [], shape: [0, 0] } as never), InputTypeError, /data is missing/],
    ['misspelt field', () => COOMatrix.from({ ...{ row: [0], col: [0], data: [1], shape: [1, 1] }, cols: [0] } as never), InputTypeError, /unknown field "cols"/],
    ['not an object', () => CSRMatrix.from(null as never), InputTypeError, /got null/],
    ['indptr length', () => CSRMatrix.from({ ...ok, indptr: [0, 3] }), ShapeError, /indptr has 2 entries, expected rows \+ 1 = 3/],
    ['CSC indptr length', () => CSCMatrix.from(ok), ShapeError, /expected cols \+ 1 = 4/],
    ['data length', () => CSRMatrix.from({ ...ok, data: [1, 2] }), ShapeError, /data has 2 numbers, expected 3/],
    ['COO lengths', () => COOMatrix.from({ row: [0, 1], col: [0], data: [1, 2], shape: [2, 2] }), ShapeError, /col has 1 entries, row 2/],
    ['shape', () => CSRMatrix.from({ ...ok, shape: [2, -3] }), ShapeError, /shape must be \[rows, cols\]/],
    ['column outside shape', () => CSRMatrix.from({ ...ok, shape: [2, 2] }), FormatError, /colIdx\[1\] = 2 is out of range/],
    ['decreasing indptr', () => CSRMatrix.from({ ...ok, indptr: [0, 4, 3] }), FormatError, /rowPtr\[2\] = 3 is less than/],
    ['dtype', () => CSRMatrix.from({ ...ok, dtype: 'f16' as never }), UnsupportedError, /unknown dtype "f16"/],
  ];
  for (const [what, f, type, msg, index] of cases) {
    it(what, () => {
      let err: unknown;
      try { f(); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(type);
      expect((err as Error).message).toMatch(msg);
      if (index !== undefined) expect((err as InputRangeError).index).toBe(index);
    });
  }
});

describe('DenseMatrix.from', () => {
  // M[i][j] = 10·i + j + 0.5, 4×3
  const M = [0, 1, 2, 3].map((i) => [0, 1, 2].map((j) => 10 * i + j + 0.5));
  const rowMajor = M.flat();

  it('rows of numbers, typed arrays or BigInt64Arrays', () => {
    const A = DenseMatrix.from(M);
    expect([A.rows, A.cols, A.dtype]).toEqual([4, 3, 'f64']);
    expect(Array.from(A.values)).toEqual(rowMajor);
    const B = DenseMatrix.from([new BigInt64Array([1n, 2n]), new Int32Array([3, 4])], 'f32');
    expect([B.dtype, ...B.values]).toEqual(['f32', 1, 2, 3, 4]);
    expect(DenseMatrix.from([]).nnz).toBe(0);
  });

  it('ragged rows and bad elements are errors naming the row', () => {
    expect(() => DenseMatrix.from([[1, 2], [3, 4], [5]])).toThrow(/row 2 has 1 elements, row 0 has 2/);
    expect(() => DenseMatrix.from([[1, 2], [3, 4], [5]])).toThrow(ShapeError);
    expect(() => DenseMatrix.from([[1, 2], [3, 'x' as never]])).toThrow(InputTypeError);
    expect(() => DenseMatrix.from([[1, 2], [3, 'x' as never]])).toThrow(/row 1\[1\]/);
    expect(() => DenseMatrix.from(M, 'c64')).toThrow(UnsupportedError);
  });

  it('strided views: C order, F order, a transpose, a flipped sub-block with an offset', () => {
    const at = (d: ArrayLike<number>, off: number, s0: number, s1: number, r: number, c: number) =>
      Array.from({ length: r * c }, (_, k) => d[off + Math.floor(k / c) * s0 + (k % c) * s1]);
    expect(Array.from(DenseMatrix.from({ data: rowMajor, shape: [4, 3] }).values)).toEqual(rowMajor);
    const colMajor = [0, 1, 2].flatMap((j) => M.map((r) => r[j]));
    expect(Array.from(DenseMatrix.from({ data: colMajor, shape: [4, 3], order: 'F' }).values)).toEqual(rowMajor);
    expect(Array.from(DenseMatrix.from({ data: new Float32Array(colMajor), shape: [4, 3], strides: [1, 4] }).values)).toEqual(rowMajor);
    // Mᵀ as a view of M's row-major data
    const T = DenseMatrix.from({ data: rowMajor, shape: [3, 4], stride: [1, 3], offset: 0 });
    expect(Array.from(T.values)).toEqual([0, 1, 2].flatMap((j) => M.map((r) => r[j])));
    // rows 2..1 reversed, columns 1..2 of M: offset 2·3 + 1, strides [−3, 1]
    const V = DenseMatrix.from({ data: rowMajor, shape: [2, 2], stride: [-3, 1], offset: 7 });
    expect(Array.from(V.values)).toEqual([M[2][1], M[2][2], M[1][1], M[1][2]]);
    expect(Array.from(V.values)).toEqual(at(rowMajor, 7, -3, 1, 2, 2));
  });

  it('a view that would read outside its data is refused, never misread', () => {
    // NumPy's strides are bytes: [24, 8] for a 4×3 f64 array, read as elements they overrun
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 3], strides: [24, 8] })).toThrow(ShapeError);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 3], strides: [24, 8] })).toThrow(/reads data\[0\.\.88\], outside its 12 elements/);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 3] , stride: [-3, 1] })).toThrow(ShapeError);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 4] })).toThrow(ShapeError);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 3], stride: [3, 1.5] })).toThrow(/stride must be two integers/);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [4, 3], order: 'K' as never })).toThrow(/order must be/);
    expect(() => DenseMatrix.from({ data: rowMajor, shape: [12] } as never)).toThrow(ShapeError);
  });
});

describe('a foreign object where a matrix is expected', () => {
  it('upload and convert say what they got and what reads it', async () => {
    const rt = await createRuntime({ workers: 1 });
    try {
      const scipyLike = { indptr: [0, 1], indices: [0], data: [1], shape: [1, 1] };
      expect(() => rt.upload(scipyLike as never)).toThrow(InputTypeError);
      expect(() => rt.upload(scipyLike as never)).toThrow(/got an object; for SciPy-style arrays use CSRMatrix\.from/);
      expect(() => rt.upload([[1, 2]] as never)).toThrow(/got an array of 1 elements; for rows of numbers use DenseMatrix\.from/);
      expect(() => rt.upload(undefined as never)).toThrow(/expected a matrix .* got undefined/);
      expect(() => rt.upload({ format: 'bsr' } as never)).toThrow(UnsupportedError);
      expect(() => convert({ row: [0], col: [0], data: [1] } as never, 'csr')).toThrow(/COOMatrix\.from/);
      expect(() => convert(null as never, 'csr')).toThrow(InputTypeError);
      // the direct solvers and the sparse product say the same, and where (they threw a plain TypeError)
      await expect(rt.factor(42 as never)).rejects.toThrow(/^factor: A: expected a matrix .* got the number 42/);
      expect(() => rt.estimateFactorCost(scipyLike as never)).toThrow(/^estimateFactorCost: A: expected a matrix .*CSRMatrix\.from/);
      expect(() => rt.spgemm(poisson2D(2), { format: 'bsr' } as never)).toThrow(/^spgemm: B: unknown matrix format/);
      await expect(rt.factor(42 as never)).rejects.toBeInstanceOf(InputTypeError);
      // and what from() builds uploads and multiplies like the library's own
      const P = poisson2D(5);
      const F = CSRMatrix.from({ indptr: Array.from(P.rowPtr), indices: Array.from(P.colIdx), data: Array.from(P.values), shape: [P.rows, P.cols] });
      const x = Float64Array.from({ length: 25 }, (_, k) => k);
      expect(Array.from(await rt.spmv(rt.upload(F), x))).toEqual(Array.from(await rt.spmv(rt.upload(P), x)));
    } finally {
      rt.dispose();
    }
  });
});
