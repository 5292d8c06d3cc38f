/**
 * Storage formats. Every format is checked against an independent reference: each matrix is read
 * back into plain triplets by its format's own definition (the layout written in the contract, not
 * toCSR), duplicates summed and exact zeros dropped, and compared with the triplets it was built from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocValues, components, DTYPES, type DType, type ValueArray } from '../src/dtype.js';
import { FormatError, PaddingLimitError, ShapeError, UnsupportedError } from '../src/errors.js';
import { poisson3D } from '../src/generators/poisson.js';
import {
  convert,
  COOMatrix,
  CSCMatrix,
  CSRMatrix,
  DenseMatrix,
  DIAMatrix,
  ELLMatrix,
  FORMATS,
  HYBMatrix,
  MRSMatrix,
  SELLMatrix,
  type FormatName,
  type SparseMatrix,
} from '../src/formats/index.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { MATRIX_DIR, sharedMatrixNames } from './matrices.js';
import { mulberry32 as prng } from './random.js';
import { bandedMatrix } from './banded.js';
import { markPrivateCanonical } from '../src/formats/csr.js';
import { matrixFeatures } from '../src/runtime/features.js';

// ---------------------------------------------------------------- independent reference

interface Trip {
  rows: number;
  cols: number;
  entries: Map<number, [number, number]>;
}

/** Triplets of a matrix read by its format's definition; duplicates summed, exact zeros dropped. */
function reference(M: SparseMatrix): Trip {
  const c = components(M.dtype);
  const entries = new Map<number, [number, number]>();
  const add = (i: number, j: number, v: ValueArray, k: number): void => {
    if (!(i >= 0 && i < M.rows && j >= 0 && j < M.cols)) throw new Error(`${M.format}: (${i}, ${j}) outside ${M.rows}×${M.cols}`);
    const key = i * M.cols + j;
    const e = entries.get(key) ?? [0, 0];
    e[0] += v[k * c];
    if (c === 2) e[1] += v[2 * k + 1];
    entries.set(key, e);
  };
  switch (M.format) {
    case 'coo':
      for (let k = 0; k < M.nnz; k++) add(M.rowIdx[k], M.colIdx[k], M.values, k);
      break;
    case 'csr':
      for (let i = 0; i < M.rows; i++) for (let k = M.rowPtr[i]; k < M.rowPtr[i + 1]; k++) add(i, M.colIdx[k], M.values, k);
      break;
    case 'csc':
      for (let j = 0; j < M.cols; j++) for (let k = M.colPtr[j]; k < M.colPtr[j + 1]; k++) add(M.rowIdx[k], j, M.values, k);
      break;
    case 'mrs':
      for (let i = 0; i < Math.min(M.rows, M.cols); i++) add(i, i, M.values, i);
      for (let i = 0; i < M.rows; i++) for (let k = M.index[i]; k < M.index[i + 1]; k++) add(i, M.index[k], M.values, k);
      break;
    case 'dia':
      M.offsets.forEach((off, d) => {
        for (let i = 0; i < M.rows; i++) if (i + off >= 0 && i + off < M.cols) add(i, i + off, M.data, d * M.pitch + i);
      });
      break;
    case 'ell':
      for (let i = 0; i < M.rows; i++) {
        for (let k = 0; k < M.width; k++) if (M.colIdx[k * M.stride + i] >= 0) add(i, M.colIdx[k * M.stride + i], M.values, k * M.stride + i);
      }
      break;
    case 'jds':
      for (let k = 0; k + 1 < M.jdPtr.length; k++) {
        for (let p = 0; p < M.jdPtr[k + 1] - M.jdPtr[k]; p++) add(M.perm[p], M.colIdx[M.jdPtr[k] + p], M.values, M.jdPtr[k] + p);
      }
      break;
    case 'sell': {
      const C = M.sliceHeight;
      for (let s = 0; s + 1 < M.slicePtr.length; s++) {
        for (let t = M.slicePtr[s]; t < M.slicePtr[s + 1]; t++) {
          if (M.colIdx[t] >= 0) add(M.perm[s * C + ((t - M.slicePtr[s]) % C)], M.colIdx[t], M.values, t);
        }
      }
      break;
    }
    case 'hyb': {
      const [a, b] = [reference(M.ell), reference(M.coo)];
      for (const [key, [re, im]] of b.entries) {
        const e = a.entries.get(key) ?? [0, 0];
        a.entries.set(key, [e[0] + re, e[1] + im]);
      }
      return a;
    }
    case 'dense':
      for (let i = 0; i < M.rows; i++) for (let j = 0; j < M.cols; j++) add(i, j, M.values, i * M.cols + j);
      break;
  }
  for (const [key, [re, im]] of entries) if (re === 0 && im === 0) entries.delete(key);
  return { rows: M.rows, cols: M.cols, entries };
}

/** Same shape and entries; `rel` is the relative tolerance (0 = exact). */
function expectSame(got: Trip, want: Trip, rel = 0, what = ''): void {
  expect([got.rows, got.cols], what).toEqual([want.rows, want.cols]);
  expect(got.entries.size, `${what} entry count`).toBe(want.entries.size);
  for (const [key, w] of want.entries) {
    const g = got.entries.get(key);
    const same = g !== undefined && [0, 1].every((t) => Object.is(g[t], w[t]) || g[t] === w[t] || Math.abs(g[t] - w[t]) <= rel * Math.abs(w[t]));
    // expect() only on a mismatch: calling it per entry would dominate the run time
    if (!same) expect(g, `${what} (${Math.floor(key / want.cols)}, ${key % want.cols})`).toEqual(w);
  }
}

/** Sum of byteLength of every typed array a matrix holds (parts of HYB included). */
function bytesOf(M: object): number {
  let n = 0;
  for (const v of Object.values(M)) {
    if (ArrayBuffer.isView(v)) n += v.byteLength;
    else if (v && typeof v === 'object') n += bytesOf(v);
  }
  return n;
}

// ---------------------------------------------------------------- generators

/**
 * Random COO in any order with duplicates. Values are positive dyadic (k/8), so sums are exact in f32
 * and f64 and nothing cancels to 0; complex imaginary parts may be negative.
 */
function randomCOO(rows: number, cols: number, nnz: number, dtype: DType, seed: number, longRow = -1, longLen = 0): COOMatrix {
  const r = prng(seed);
  const n = rows && cols ? nnz + (longRow >= 0 ? longLen : 0) : 0;
  const rowIdx = new Int32Array(n);
  const colIdx = new Int32Array(n);
  const values = allocValues(dtype, n);
  const c = components(dtype);
  for (let k = 0; k < n; k++) {
    const long = k >= nnz;
    rowIdx[k] = long ? longRow : Math.floor(r() * r() * rows); // skewed: some rows long, some empty
    colIdx[k] = long ? Math.floor(r() * cols) : Math.floor(r() * cols);
    values[k * c] = (1 + Math.floor(r() * 64)) / 8;
    if (c === 2) values[2 * k + 1] = (Math.floor(r() * 64) - 32) / 8;
  }
  return new COOMatrix(rows, cols, dtype, rowIdx, colIdx, values);
}

const BIG = { maxSlots: 1e8 };

const SHAPES: [string, number, number, number][] = [
  ['0×0', 0, 0, 0],
  ['0×5', 0, 5, 0],
  ['5×0', 5, 0, 0],
  ['1×1', 1, 1, 3],
  ['1×1 empty', 1, 1, 0],
  ['7×3', 7, 3, 12],
  ['3×7', 3, 7, 12],
  ['40×40', 40, 40, 300],
  ['30×200 (long rows)', 30, 200, 1500],
  ['200×30', 200, 30, 500],
];

// ---------------------------------------------------------------- round trips

describe('every format × every dtype', () => {
  for (const dtype of DTYPES) {
    for (const [name, rows, cols, nnz] of SHAPES) {
      it(`${dtype} ${name}`, () => {
        const coo = randomCOO(rows, cols, nnz, dtype, rows * 131 + cols * 7 + nnz);
        const want = reference(coo);
        for (const fmt of FORMATS) {
          const M = convert(coo, fmt, BIG);
          expect(M.format).toBe(fmt);
          expect(M.dtype).toBe(dtype);
          expect(M.validate()).toBe(M);
          expectSame(reference(M), want, 0, fmt);
          expect(M.storageBytes(), `${fmt} storageBytes`).toBe(bytesOf(M));
          const csr = M.toCSR();
          expect(csr.validate().isCanonical()).toBe(true);
          expectSame(reference(csr), want, 0, `${fmt} → csr`);
          // format → CSR → format gives the same arrays
          expect(convert(csr, fmt, BIG), `${fmt} → csr → ${fmt}`).toEqual(M);
        }
      });
    }
  }

  it('nnz of each format', () => {
    const coo = randomCOO(40, 30, 200, 'f64', 5);
    const csr = coo.toCSR();
    const want = reference(coo).entries.size;
    expect(csr.nnz).toBe(want);
    for (const fmt of ['coo', 'csc', 'ell', 'jds', 'sell', 'hyb'] as const) expect(convert(coo, fmt).nnz, fmt).toBe(want);
    expect(convert(coo, 'dense').nnz).toBe(1200);
    let diag = 0;
    for (let i = 0; i < 30; i++) diag += reference(coo).entries.has(i * 30 + i) ? 0 : 1;
    expect(convert(coo, 'mrs').nnz).toBe(want + diag); // every diagonal slot counts
    const dia = convert(coo, 'dia', BIG);
    let slots = 0;
    for (const off of dia.offsets) for (let i = 0; i < 40; i++) if (i + off >= 0 && i + off < 30) slots++;
    expect(dia.nnz).toBe(slots);
  });
});

describe('COO → CSR', () => {
  it('sorts unsorted input and sums duplicates, keeping explicit zeros', () => {
    const coo = new COOMatrix(3, 4, 'f64', Int32Array.of(2, 0, 2, 0, 2, 1, 0), Int32Array.of(3, 1, 0, 1, 3, 2, 0), Float64Array.of(1, 2, 3, 4, 5, 0, 7));
    const csr = coo.toCSR();
    expect(Array.from(csr.rowPtr)).toEqual([0, 2, 3, 5]);
    expect(Array.from(csr.colIdx)).toEqual([0, 1, 2, 0, 3]);
    expect(Array.from(csr.values)).toEqual([7, 6, 0, 3, 6]);
    expect(COOMatrix.fromCSR(csr).rowIdx).toEqual(Int32Array.of(0, 0, 1, 2, 2));
  });

  it('sorts a row of 20,000 unsorted entries with duplicates (long-row path)', () => {
    const coo = randomCOO(3, 5000, 10, 'c128', 11, 1, 20000);
    const csr = coo.toCSR();
    expect(csr.isCanonical()).toBe(true);
    expectSame(reference(csr), reference(coo));
  });

  it('sorts long rows whose columns need all 32 bits (4 radix passes)', () => {
    const cols = 2 ** 31 - 1;
    const r = prng(6);
    const n = 500;
    const colIdx = Int32Array.from({ length: n }, (_, k) => (k % 7 === 0 ? cols - 1 - (k % 3) : Math.floor(r() * cols)));
    const coo = new COOMatrix(2, cols, 'c64', Int32Array.from({ length: n }, (_, k) => k % 2), colIdx, Float32Array.from({ length: 2 * n }, (_, k) => k + 1));
    const csr = coo.toCSR();
    expect(csr.isCanonical()).toBe(true);
    expect(csr.nnz).toBeLessThan(n); // the repeated columns near 2^31 were summed
    expectSame(reference(csr), reference(coo));
  });

  it('duplicates sum in input order (f32 rounding is deterministic)', () => {
    const v = Float32Array.of(1, 2 ** -24, 2 ** -24);
    const csr = new COOMatrix(1, 1, 'f32', new Int32Array(3), new Int32Array(3), v).toCSR();
    expect(csr.values[0]).toBe(Math.fround(Math.fround(1 + 2 ** -24) + 2 ** -24));
  });

  it('keeps NaN and Inf as data', () => {
    const coo = new COOMatrix(2, 2, 'f64', Int32Array.of(1, 0, 1), Int32Array.of(1, 0, 1), Float64Array.of(NaN, Infinity, 1));
    for (const fmt of FORMATS) {
      const M = convert(coo, fmt);
      M.validate();
      const e = reference(M).entries;
      expect(e.get(0)![0], fmt).toBe(Infinity);
      expect(e.get(3)![0], fmt).toBeNaN();
    }
  });

  it('converts 2M unsorted entries quickly', () => {
    const coo = randomCOO(100_000, 100_000, 2_000_000, 'f64', 3);
    const t0 = performance.now();
    const csr = coo.toCSR();
    const ms = performance.now() - t0;
    expect(csr.isCanonical()).toBe(true);
    console.log(`COO → CSR of 2M entries: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(3000);
  });
});

describe('CSR', () => {
  it('isCanonical and toCSR of a user-built CSR with unsorted/duplicate columns', () => {
    const csr = new CSRMatrix(2, 3, 'c64', Int32Array.of(0, 3, 4), Int32Array.of(2, 0, 2, 1), Float32Array.of(1, 1, 2, 2, 3, 3, 4, 4));
    expect(csr.isCanonical()).toBe(false);
    const c = csr.toCSR();
    expect(c).not.toBe(csr);
    expect(Array.from(c.colIdx)).toEqual([0, 2, 1]);
    expect(Array.from(c.values)).toEqual([2, 2, 4, 4, 4, 4]);
    expect(c.toCSR()).toBe(c);
    expect(CSRMatrix.fromCSR(c)).toBe(c);
    expect(convert(c, 'csr')).toBe(c); // canonical CSR converts to itself
    expect(convert(csr, 'csr')).toEqual(c);
  });

  it('fromTriplets checks its input', () => {
    expectFormatError(() => CSRMatrix.fromTriplets(2, 2, 'f64', Int32Array.of(0, 2), Int32Array.of(0, 0), new Float64Array(2)), /CSR.fromTriplets rowIdx\[1\] = 2 is out of range \[0, 2\)/);
    expect(CSRMatrix.fromTriplets(2, 2, 'f64', Int32Array.of(1, 0, 1), Int32Array.of(1, 0, 1), Float64Array.of(1, 2, 3)).values).toEqual(Float64Array.of(2, 4));
  });

  it('transpose and conjugateTranspose', () => {
    const coo = randomCOO(9, 5, 30, 'c128', 2);
    const csr = coo.toCSR();
    for (const conj of [false, true]) {
      const t = conj ? csr.conjugateTranspose() : csr.transpose();
      expect([t.rows, t.cols]).toEqual([5, 9]);
      expect(t.validate().isCanonical()).toBe(true);
      const a = reference(csr).entries;
      const b = reference(t).entries;
      expect(b.size).toBe(a.size);
      for (const [key, [re, im]] of a) expect(b.get((key % 5) * 9 + Math.floor(key / 5))).toEqual([re, conj ? -im : im]);
    }
  });
});

// ---------------------------------------------------------------- layouts from the contract

/** 3×4 [[1,2,0,3],[4,5,0,0],[0,6,7,0]] */
const A34 = new DenseMatrix(3, 4, 'f64', Float64Array.of(1, 2, 0, 3, 4, 5, 0, 0, 0, 6, 7, 0));

describe('layouts', () => {
  it('MRS: the seed example (corrected)', () => {
    const A = new DenseMatrix(4, 4, 'f64', Float64Array.of(1, 2, 3, 4, 0, 5, 6, 0, 0, 0, 7, 0, 0, 0, 8, 9));
    const m = convert(A, 'mrs');
    expect(Array.from(m.values)).toEqual([1, 5, 7, 9, 0, 2, 3, 4, 6, 8]);
    expect(Array.from(m.index)).toEqual([5, 8, 9, 9, 10, 1, 2, 3, 2, 2]);
    expect(m.nnz).toBe(9); // 4 diagonal slots + 5 off-diagonal entries
    const built = new MRSMatrix(4, 4, 'f64', Int32Array.of(5, 8, 9, 9, 10, 1, 2, 3, 2, 2), Float64Array.of(1, 5, 7, 9, 0, 2, 3, 4, 6, 8));
    expectSame(reference(built.validate().toCSR()), reference(A));
  });

  it('MRS: rectangular, missing diagonal, complex', () => {
    const coo = new COOMatrix(4, 2, 'c64', Int32Array.of(0, 3, 1), Int32Array.of(1, 0, 1), Float32Array.of(1, 2, 3, 4, 5, 6));
    const m = convert(coo, 'mrs');
    expect(Array.from(m.index)).toEqual([5, 6, 6, 6, 7, 1, 0]);
    expect(Array.from(m.values)).toEqual([0, 0, 5, 6, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
    expect(m.ndiag).toBe(2);
    expect(m.toCSR().nnz).toBe(3); // the absent (0,0) diagonal is not invented
  });

  it('DIA: the offsets are the sorted distinct col − row, whether marked (span within 4·nnz) or sorted (a huge sparse span); its CSR is canonical', () => {
    const rnd = prng(7);
    for (const [rows, cols, nnz] of [[40, 30, 200], [3000, 2500, 4], [1, 5000, 2]]) {
      const r = Int32Array.from({ length: nnz }, () => Math.floor(rnd() * rows));
      const c = Int32Array.from({ length: nnz }, () => Math.floor(rnd() * cols));
      const csr = new COOMatrix(rows, cols, 'f64', r, c, Float64Array.from({ length: nnz }, () => 1 + rnd())).toCSR();
      const want = [...new Set(Array.from(r, (ri, k) => c[k] - ri))].sort((a, b) => a - b);
      const d = DIAMatrix.fromCSR(csr, { maxSlots: 1e8 });
      expect(Array.from(d.offsets)).toEqual(want);
      const back = d.toCSR();
      expect(back.isCanonical()).toBe(true);
      expectSame(reference(back), reference(csr));
    }
  });

  it('DIA from CSR: rows holding every diagonal (placed in order) and rows missing some, each slot the entry or 0; with the offsets a private CSR\'s scan kept, the same', () => {
    const rnd = prng(11);
    for (const n of [1, 7, 300]) {
      for (const drop of [0, 0.2, 0.9]) {
        const offsets = [-5, -1, 0, 2, 9];
        const want = new Map<string, number>();
        const A = bandedMatrix(n, offsets, 'f64', (i, o) => {
          if (rnd() < drop) return undefined;
          const v = Math.round(rnd() * 64 - 32) / 4 || 1;
          want.set(`${i},${o}`, v);
          return v;
        });
        for (const C of [A, markPrivateCanonical(new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr.slice(), A.colIdx.slice(), A.values.slice()))]) {
          if (C !== A) matrixFeatures(C, true); // the runtime's scan: offsets remembered for the conversion
          const D = DIAMatrix.fromCSR(C, { maxSlots: 1e8 });
          for (let d = 0; d < D.offsets.length; d++) {
            for (let i = 0; i < n; i++) expect(D.data[d * D.pitch + i], `n ${n}, drop ${drop}, (${i}, ${i + D.offsets[d]})`).toBe(want.get(`${i},${D.offsets[d]}`) ?? 0);
          }
        }
      }
    }
  });

  it('DIA: offsets, pitch multiple of 4, zero outside the matrix', () => {
    const d = convert(A34, 'dia');
    expect(Array.from(d.offsets)).toEqual([-1, 0, 1, 3]);
    expect(d.pitch).toBe(4);
    expect(Array.from(d.data)).toEqual([0, 4, 6, 0, 1, 5, 7, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    expect(d.nnz).toBe(2 + 3 + 3 + 1);
    expect(convert(randomCOO(5, 5, 10, 'f32', 1), 'dia', BIG).pitch).toBe(8);
    // a multiple of 1024 rows gets 16 more, so the diagonals do not all start in one cache set
    const p3 = poisson3D(16); // 4096 rows
    const d3 = convert(p3, 'dia');
    expect(d3.pitch).toBe(4096 + 16);
    expect(convert(p3, 'ell').stride).toBe(4096 + 16);
    expect(convert(poisson3D(15), 'dia').pitch).toBe(3376); // 3375 rounded up to 4
    d3.validate();
    expect(convert(d3, 'csr').values).toEqual(p3.values);
  });

  it('ELL: column-major slots, −1 padding with value 0, stride multiple of 4', () => {
    const e = convert(A34, 'ell');
    expect([e.width, e.stride]).toEqual([3, 4]);
    expect(Array.from(e.colIdx)).toEqual([0, 0, 1, -1, 1, 1, 2, -1, 3, -1, -1, -1]);
    expect(Array.from(e.values)).toEqual([1, 4, 6, 0, 2, 5, 7, 0, 3, 0, 0, 0]);
    const wide = convert(A34, 'ell', { width: 5 });
    expect(wide.width).toBe(5);
    expect(Array.from(wide.colIdx.subarray(12))).toEqual(new Array(8).fill(-1));
    expect(() => convert(A34, 'ell', { width: 2 })).toThrow(ShapeError);
  });

  it('JDS: stable sort by decreasing length, perm and jdPtr', () => {
    // lengths [1, 3, 0, 2]
    const coo = new COOMatrix(4, 4, 'f64', Int32Array.of(0, 1, 1, 1, 3, 3), Int32Array.of(2, 0, 1, 3, 0, 3), Float64Array.of(1, 2, 3, 4, 5, 6));
    const j = convert(coo, 'jds');
    expect(Array.from(j.perm)).toEqual([1, 3, 0, 2]);
    expect(Array.from(j.jdPtr)).toEqual([0, 3, 5, 6]);
    expect(Array.from(j.colIdx)).toEqual([0, 0, 2, 1, 3, 3]);
    expect(Array.from(j.values)).toEqual([2, 5, 1, 3, 6, 4]);
    expect(j.njd).toBe(3);
    // ties keep their original order
    const ties = convert(new COOMatrix(3, 2, 'f64', Int32Array.of(2, 1, 0), Int32Array.of(0, 0, 0), Float64Array.of(1, 2, 3)), 'jds');
    expect(Array.from(ties.perm)).toEqual([0, 1, 2]);
  });

  it('SELL-C-σ: windows sorted by length, slices column-major with their own widths', () => {
    // lengths [1, 3, 0, 2, 1]
    const coo = new COOMatrix(5, 4, 'f64', Int32Array.of(0, 1, 1, 1, 3, 3, 4), Int32Array.of(2, 0, 1, 3, 0, 3, 1), Float64Array.of(1, 2, 3, 4, 5, 6, 7));
    const s = convert(coo, 'sell', { sliceHeight: 2, sortWindow: 4 });
    expect([s.sliceHeight, s.sortWindow, s.slices]).toEqual([2, 4, 3]);
    expect(Array.from(s.perm)).toEqual([1, 3, 0, 2, 4]); // window [0, 4) sorted, window [4, 5) alone
    expect(Array.from(s.slicePtr)).toEqual([0, 6, 8, 10]); // widths 3, 1, 1 (× C = 2)
    expect(Array.from(s.colIdx)).toEqual([0, 0, 1, 3, 3, -1, 2, -1, 1, -1]);
    expect(Array.from(s.values)).toEqual([2, 5, 3, 6, 4, 0, 1, 0, 7, 0]);
    expect(s.nnz).toBe(7);
    // σ = 1: rows stay in place, each slice as wide as its own longest row
    const u = convert(coo, 'sell', { sliceHeight: 2, sortWindow: 1 });
    expect(Array.from(u.perm)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(u.slicePtr)).toEqual([0, 6, 10, 12]);
    expect(() => convert(coo, 'sell', { sliceHeight: 3, sortWindow: 4 })).toThrow(ShapeError);
    expect(() => convert(coo, 'sell', { sliceHeight: 0 })).toThrow(/sliceHeight \(C\) = 0 must be an integer in \[1, 64\]/);
    // defaults: C = 8 rows for f32/c64, 4 for f64/c128; σ = 1 when unsorted slices pad ≤ 10%, else 4096
    expect(convert(coo, 'sell').sliceHeight).toBe(4);
    expect(convert(coo.astype('c64'), 'sell').sliceHeight).toBe(8);
    const skew = randomCOO(2000, 2000, 8000, 'f64', 12);
    expect(convert(skew, 'sell').sortWindow).toBe(4096);
    expect(convert(skew, 'sell', { sliceHeight: 24 }).sortWindow).toBe(4080); // a multiple of C
    const even = new COOMatrix(8, 8, 'f32', Int32Array.from({ length: 16 }, (_, k) => k >> 1), Int32Array.from({ length: 16 }, (_, k) => k % 8), new Float32Array(16).fill(1));
    expect(convert(even, 'sell').sortWindow).toBe(1); // equal rows: nothing to sort
  });

  it('HYB: K from the row-length histogram, remainder in row-sorted COO', () => {
    const lens = [1, 1, 1, 2, 2, 9];
    const r: number[] = [];
    const c: number[] = [];
    lens.forEach((n, i) => {
      for (let k = n - 1; k >= 0; k--) r.push(i), c.push(k + 2);
    });
    const coo = new COOMatrix(6, 12, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(r, (_, k) => k + 1));
    const h = convert(coo, 'hyb');
    expect(h.width).toBe(2); // 3 rows have >= 2 entries (>= 6/3), only 1 has >= 3
    expect(h.ell.nnz).toBe(9);
    expect(Array.from(h.coo.rowIdx)).toEqual(new Array(7).fill(5));
    expect(Array.from(h.coo.colIdx)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expectSame(reference(h), reference(coo));
    const h4 = convert(coo, 'hyb', { width: 4 });
    expect([h4.width, h4.coo.nnz]).toEqual([4, 5]);
    expect(convert(coo, 'hyb', { width: 0 }).coo.nnz).toBe(16);
    // a single row: K = its length, nothing spills
    expect(convert(new COOMatrix(1, 5, 'f64', Int32Array.of(0, 0), Int32Array.of(1, 4), Float64Array.of(1, 2)), 'hyb').width).toBe(2);
  });

  it('explicit zeros: kept by sparse formats, dropped where they cannot be told from padding', () => {
    // (0,1) = 0 off the diagonal, (0,0) = 0 on it, (1,1) = 5
    const coo = new COOMatrix(2, 2, 'f64', Int32Array.of(0, 1, 0), Int32Array.of(1, 1, 0), Float64Array.of(0, 5, 0));
    expect(coo.toCSR().nnz).toBe(3);
    for (const f of ['coo', 'csc', 'ell', 'jds', 'sell', 'hyb'] as const) expect(convert(coo, f).toCSR().nnz, f).toBe(3);
    expect(convert(coo, 'mrs').toCSR().nnz).toBe(2); // only the diagonal slot loses its explicit zero
    for (const f of ['dia', 'dense'] as const) expect(convert(coo, f).toCSR().nnz, f).toBe(1);
  });
});

// ---------------------------------------------------------------- validate

/** Expects `f` to throw a FormatError whose message matches. */
function expectFormatError(f: () => unknown, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(FormatError);
  expect((err as Error).message).toMatch(message);
}

describe('validate() catches corrupted arrays', () => {
  const csr = () => A34.toCSR(); // rowPtr 0 3 5 7, colIdx 0 1 3 0 1 1 2

  it('COO', () => {
    const m = convert(A34, 'coo');
    m.colIdx[2] = 99;
    expectFormatError(() => m.validate(), /^COO colIdx\[2\] = 99 is out of range \[0, 4\)$/);
    expectFormatError(() => m.toCSR(), /COO colIdx\[2\]/);
    m.colIdx[2] = 3;
    m.rowIdx[0] = -1;
    expectFormatError(() => m.validate(), /COO rowIdx\[0\] = -1 is out of range \[0, 3\)/);
    expectFormatError(() => new COOMatrix(1, 1, 'f64', new Int32Array(2), new Int32Array(1), new Float64Array(2)), /COO colIdx.length = 1, expected 2/);
  });

  it('CSR', () => {
    let m = csr();
    m.colIdx[5] = 9;
    expectFormatError(() => m.validate(), /^CSR colIdx\[5\] = 9 is out of range \[0, 4\)$/);
    m = csr();
    m.rowPtr[2] = 2;
    expectFormatError(() => m.validate(), /CSR rowPtr\[2\] = 2 is less than rowPtr\[1\] = 3/);
    m = csr();
    m.rowPtr[3] = 6;
    expectFormatError(() => m.validate(), /CSR rowPtr\[3\] = 6, expected colIdx.length = 7/);
    m = csr();
    m.rowPtr[0] = 1;
    expectFormatError(() => m.validate(), /CSR rowPtr\[0\] = 1, expected 0/);
    expectFormatError(() => new CSRMatrix(2, 2, 'f32', new Int32Array(3), new Int32Array(0), new Float64Array(0)), /CSR values must be a Float32Array for dtype f32, got Float64Array/);
    expectFormatError(() => new CSRMatrix(2, 2, 'c64', new Int32Array(3), new Int32Array(1), new Float32Array(1)), /CSR values.length = 1, expected 2 \(1 complex elements\)/);
    expect(() => new CSRMatrix(-1, 2, 'f64', new Int32Array(0), new Int32Array(0), new Float64Array(0))).toThrow(ShapeError);
    expect(() => new CSRMatrix(1, 2, 'f16' as DType, new Int32Array(2), new Int32Array(0), new Float64Array(0))).toThrow(UnsupportedError);
  });

  it('CSC', () => {
    const m = convert(A34, 'csc');
    m.rowIdx[0] = -1;
    expectFormatError(() => m.validate(), /^CSC rowIdx\[0\] = -1 is out of range \[0, 3\)$/);
    expectFormatError(() => new CSCMatrix(2, 3, 'f64', new Int32Array(3), new Int32Array(0), new Float64Array(0)), /CSC colPtr.length = 3, expected 4/);
  });

  it('MRS', () => {
    let m = convert(A34, 'mrs'); // index 4 6 7 8 | 1 3 0 1
    m.index[0] = 3;
    expectFormatError(() => m.validate(), /MRS index\[0\] = 3, expected 4/);
    m = convert(A34, 'mrs');
    m.index[4] = 0;
    expectFormatError(() => m.validate(), /MRS index\[4\] = 0 is the diagonal of row 0/);
    m = convert(A34, 'mrs');
    m.index[5] = 1;
    expectFormatError(() => m.validate(), /MRS index\[5\] = 1 is not greater than index\[4\] = 1/);
    m = convert(A34, 'mrs');
    m.index[7] = 4;
    expectFormatError(() => m.validate(), /MRS index\[7\] = 4 is out of range \[0, 4\)/);
    m = convert(A34, 'mrs');
    m.values[3] = 2;
    expectFormatError(() => m.validate(), /MRS unused slot values\[3\]: values element 3 = 2, expected 0/);
    const tall = convert(new DenseMatrix(3, 1, 'f64', Float64Array.of(1, 2, 3)), 'mrs');
    tall.values[2] = 8;
    expectFormatError(() => tall.validate(), /MRS diagonal slot 2 lies outside the 1 columns/);
  });

  it('DIA', () => {
    let m = convert(A34, 'dia');
    m.data[0] = 5; // offset −1, row 0: column −1
    expectFormatError(() => m.validate(), /DIA slot data\[0·4 \+ 0\] \(offset -1\) is outside the matrix: values element 0 = 5, expected 0/);
    m = convert(A34, 'dia');
    m.data[7] = 1; // pitch padding
    expectFormatError(() => m.validate(), /DIA slot data\[1·4 \+ 3\]/);
    m = convert(A34, 'dia');
    m.offsets[2] = 0;
    expectFormatError(() => m.validate(), /DIA offsets\[2\] = 0 is not greater than offsets\[1\] = 0/);
    m = convert(A34, 'dia');
    m.offsets[3] = 4;
    expectFormatError(() => m.validate(), /DIA offsets\[3\] = 4 is out of range \(-3, 4\)/);
    expectFormatError(() => new DIAMatrix(3, 3, 'f64', Int32Array.of(0), 3, new Float64Array(3)).validate(), /DIA pitch = 3, expected a multiple of 4/);
  });

  it('DIA: validate refuses a nonzero in each slot outside the matrix, naming it, and accepts any value in each slot inside', () => {
    // 5×6, pitch 8: slot (d, i) holds A[i, i + off]; outside where the row or the column is out of range
    const offsets = Int32Array.of(-4, -2, 0, 3, 5);
    const [rows, cols, pitch] = [5, 6, 8];
    for (let d = 0; d < offsets.length; d++) {
      for (let i = 0; i < pitch; i++) {
        const j = i + offsets[d];
        const inside = i < rows && j >= 0 && j < cols;
        for (const v of [7, -0.5, Number.NaN]) {
          const data = new Float64Array(offsets.length * pitch);
          data[d * pitch + i] = v;
          const m = new DIAMatrix(rows, cols, 'f64', offsets, pitch, data);
          if (inside) expect(m.validate(), `slot ${d}, ${i}`).toBe(m);
          else expectFormatError(() => m.validate(), new RegExp(`DIA slot data\\[${d}·${pitch} \\+ ${i}\\] \\(offset ${offsets[d]}\\) is outside the matrix`));
        }
      }
    }
  });

  it('ELL', () => {
    let m = convert(A34, 'ell'); // colIdx 0 0 1 -1 | 1 1 2 -1 | 3 -1 -1 -1
    m.values[3] = 1;
    expectFormatError(() => m.validate(), /ELL padding slot 3 \(row 3, entry 0\): values element 3 = 1, expected 0/);
    m = convert(A34, 'ell');
    m.colIdx[5] = -1;
    m.values[5] = 0;
    m.colIdx[9] = 3;
    expectFormatError(() => m.validate(), /ELL colIdx\[9\] = 3, expected -1: row 1 has padding before it/);
    m = convert(A34, 'ell');
    m.colIdx[7] = 0;
    expectFormatError(() => m.validate(), /ELL colIdx\[7\] = 0, expected -1: row 3 is stride padding/);
    m = convert(A34, 'ell');
    m.colIdx[8] = 4;
    expectFormatError(() => convert(m, 'csr'), /^ELL colIdx\[8\]/); // conversions validate first
    expectFormatError(() => m.validate(), /ELL colIdx\[8\] = 4 is out of range \[0, 4\) \(row 0, entry 2\)/);
    m = convert(A34, 'ell');
    m.colIdx[4] = 0;
    expectFormatError(() => m.validate(), /ELL colIdx\[4\] = 0 is not greater than colIdx\[0\] = 0/);
    expectFormatError(() => new ELLMatrix(3, 3, 'f64', 1, 3, new Int32Array(3), new Float64Array(3)).validate(), /ELL stride = 3/);
  });

  it('JDS', () => {
    const base = new COOMatrix(4, 4, 'f64', Int32Array.of(0, 1, 1, 1, 3, 3), Int32Array.of(2, 0, 1, 3, 0, 3), Float64Array.of(1, 2, 3, 4, 5, 6));
    let m = convert(base, 'jds'); // perm 1 3 0 2, jdPtr 0 3 5 6, colIdx 0 0 2 | 1 3 | 3
    m.perm[3] = 1;
    expectFormatError(() => m.validate(), /JDS perm\[3\] = 1 repeats/);
    m = convert(base, 'jds');
    m.jdPtr[1] = 2;
    expectFormatError(() => m.validate(), /JDS jagged diagonal 1 has length 3 \(jdPtr\[2\] − jdPtr\[1\]\), expected 1..2/);
    m = convert(base, 'jds');
    m.colIdx[3] = 0;
    expectFormatError(() => m.validate(), /JDS colIdx\[3\] = 0 is not greater than colIdx\[0\] = 0 \(row 1/);
    m = convert(base, 'jds');
    m.colIdx[5] = 7;
    expectFormatError(() => m.validate(), /JDS colIdx\[5\] = 7 is out of range \[0, 4\)/);
    const ties = convert(new COOMatrix(2, 2, 'f64', Int32Array.of(0, 1), Int32Array.of(0, 0), Float64Array.of(1, 2)), 'jds');
    ties.perm.set([1, 0]);
    expectFormatError(() => ties.validate(), /JDS perm\[1\] = 0 follows perm\[0\] = 1 with the same length 1 \(the row sort must be stable\)/);
  });

  it('SELL', () => {
    const base = new COOMatrix(5, 4, 'f64', Int32Array.of(0, 1, 1, 1, 3, 3, 4), Int32Array.of(2, 0, 1, 3, 0, 3, 1), Float64Array.of(1, 2, 3, 4, 5, 6, 7));
    const make = () => convert(base, 'sell', { sliceHeight: 2, sortWindow: 4 }); // perm 1 3 0 2 4, slicePtr 0 6 8 10
    let m = make();
    m.perm[2] = 4;
    expectFormatError(() => m.validate(), /SELL perm\[2\] = 4 is outside its sorting window \[0, 4\)/);
    m = make();
    m.perm[3] = 1;
    expectFormatError(() => m.validate(), /SELL perm\[3\] = 1 repeats/);
    m = make();
    m.slicePtr[1] = 5;
    expectFormatError(() => m.validate(), /SELL slice 0 has 5 slots \(slicePtr\[1\] − slicePtr\[0\]\), expected a multiple of C = 2/);
    m = make();
    m.values[5] = 1;
    expectFormatError(() => m.validate(), /SELL padding slot 5 \(slice 0, position 1, entry 2\): values element 5 = 1, expected 0/);
    m = make();
    m.colIdx[9] = 0;
    expectFormatError(() => m.validate(), /SELL colIdx\[9\] = 0, expected -1: position 5 is past the last row \(rows = 5\)/);
    m = make();
    m.colIdx[2] = 0;
    expectFormatError(() => m.validate(), /SELL colIdx\[2\] = 0 is not greater than colIdx\[0\] = 0 \(position 0/);
    m = make();
    m.colIdx[8] = 4;
    expectFormatError(() => convert(m, 'csr'), /^SELL colIdx\[8\] = 4 is out of range \[0, 4\)/);
    m = make();
    m.perm.set([3, 1], 0); // lengths 2, 3: not decreasing
    m.colIdx.set([0, 0, 3, 1, -1, 3]);
    m.values.set([5, 2, 6, 3, 0, 4]);
    expectFormatError(() => m.validate(), /SELL position 1 \(row 1, 3 entries\) follows position 0 \(row 3, 2 entries\)/);
    const wide = new SELLMatrix(1, 2, 'f64', 1, 1, Int32Array.of(0), Int32Array.of(0, 2), Int32Array.of(1, -1), Float64Array.of(1, 0));
    expectFormatError(() => wide.validate(), /SELL slice 0 has width 2 but its longest row has 1 entries/);
    expectFormatError(() => new SELLMatrix(4, 4, 'f64', 2, 3, new Int32Array(4), new Int32Array(3), new Int32Array(0), new Float64Array(0)), /SELL: sortWindow \(σ\) = 3 must be 1 or a positive multiple/);
    expectFormatError(() => new SELLMatrix(4, 4, 'f64', 2, 2, new Int32Array(4), new Int32Array(2), new Int32Array(0), new Float64Array(0)), /SELL slicePtr.length = 2, expected 3/);
  });

  it('HYB', () => {
    const lens = convert(randomCOO(12, 40, 120, 'f64', 9), 'hyb');
    expect(lens.coo.nnz).toBeGreaterThan(1);
    const { rowIdx, colIdx } = lens.coo;
    const k = rowIdx.findIndex((r, i) => i > 0 && r === rowIdx[i - 1]);
    [colIdx[k], colIdx[k - 1]] = [colIdx[k - 1], colIdx[k]];
    expectFormatError(() => lens.validate(), new RegExp(`HYB coo entry ${k} = .* must be sorted by \\(row, col\\)`));
    const h = convert(A34, 'hyb');
    h.ell.colIdx[0] = 7;
    expectFormatError(() => h.validate(), /ELL colIdx\[0\] = 7 is out of range/);
    const ell = convert(A34, 'ell');
    expectFormatError(() => new HYBMatrix(3, 5, 'f64', ell, convert(A34, 'coo')), /HYB ell is 3×4 f64, expected 3×5 f64/);
  });

  it('Dense', () => {
    expectFormatError(() => new DenseMatrix(2, 2, 'f64', new Float64Array(3)), /Dense values.length = 3, expected 4/);
    expectFormatError(() => new DenseMatrix(1, 1, 'c128', new Float32Array(2)), /Dense values must be a Float64Array for dtype c128/);
    expect(A34.validate()).toBe(A34);
  });
});

// ---------------------------------------------------------------- padding limits, astype

describe('padding limits', () => {
  /** 1000 × 10,000: row 0 full (10,000 entries), every other row one entry. */
  function oneLongRow(): CSRMatrix {
    const rows = 1000;
    const r: number[] = [];
    const c: number[] = [];
    for (let j = 0; j < 10_000; j++) r.push(0), c.push(j);
    for (let i = 1; i < rows; i++) r.push(i), c.push(i);
    return new COOMatrix(rows, 10_000, 'f32', Int32Array.from(r), Int32Array.from(c), Float32Array.from(r, () => 1)).toCSR();
  }

  it('ELL refuses one 10,000-entry row; the limit can be raised', () => {
    const A = oneLongRow();
    expect(A.nnz).toBe(10_999);
    let err: unknown;
    try {
      convert(A, 'ell');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaddingLimitError);
    const p = err as PaddingLimitError;
    expect([p.required, p.limit, p.code]).toEqual([10_000 * 1000, 109_990, 'E_PADDING']);
    expect(p.message).toMatch(/ELL would store 10000000 slots, over the limit of 109990 \(maxFill = 10 × 10999 entries\)/);
    expect(() => convert(A, 'ell', { maxFill: 900 })).toThrow(PaddingLimitError);
    const e = convert(A, 'ell', { maxFill: 1000 }).validate();
    expectSame(reference(e), reference(A));
    expect(convert(A, 'ell', { maxSlots: 10_000_000 }).width).toBe(10_000);
    expect(() => convert(A, 'ell', { maxSlots: 9_999_999 })).toThrow(/maxSlots = 9999999/);
    // HYB takes it in stride: K = 1, the long row spills to COO
    const h = convert(A, 'hyb').validate();
    expect([h.width, h.coo.nnz]).toEqual([1, 9_999]);
  });

  it('DIA refuses scattered diagonals; Dense refuses past maxSlots', () => {
    const A = randomCOO(100, 100, 100, 'f64', 4).toCSR();
    expect(() => convert(A, 'dia')).toThrow(PaddingLimitError);
    expect(convert(A, 'dia', { maxFill: 1e6 }).validate().nnz).toBeGreaterThan(0);
    expect(() => convert(A, 'dense', { maxSlots: 9999 })).toThrow(/Dense would store 10000 slots, over the limit of 9999/);
    expect(convert(A, 'dense').nnz).toBe(10_000);
    expect(() => DenseMatrix.fromCSR(new CSRMatrix(50_000, 50_000, 'f32', new Int32Array(50_001), new Int32Array(0), new Float32Array(0)))).toThrow(PaddingLimitError);
  });

  it('the empty matrix is never refused', () => {
    const Z = new CSRMatrix(100, 100, 'f64', new Int32Array(101), new Int32Array(0), new Float64Array(0));
    for (const f of FORMATS) expect(convert(Z, f).toCSR().nnz, f).toBe(0);
  });
});

describe('astype', () => {
  const coo = randomCOO(6, 5, 15, 'f64', 8);

  it('real → complex sets im = 0, f64 → f32 rounds, same dtype returns itself', () => {
    for (const fmt of FORMATS) {
      const M = convert(coo, fmt);
      expect(M.astype('f64')).toBe(M);
      const z = M.astype('c128').validate();
      expect(z.dtype).toBe('c128');
      expectSame(reference(z), reference(M));
      const f = M.astype('c64').astype('c128').validate();
      expectSame(reference(f), reference(M));
    }
    const x = new DenseMatrix(1, 2, 'f64', Float64Array.of(0.1, 3)).astype('c64');
    expect(Array.from(x.values)).toEqual([Math.fround(0.1), 0, 3, 0]);
  });

  it('complex → real throws UnsupportedError', () => {
    for (const fmt of FORMATS) {
      const M = convert(coo.astype('c64'), fmt);
      expect(() => M.astype('f32'), fmt).toThrow(UnsupportedError);
      expect(M.astype('c128').astype('c64')).toEqual(M);
    }
  });

  it('the copy does not alias the original', () => {
    const m = convert(coo, 'csr');
    const c = m.astype('f32');
    c.colIdx[0] = 4;
    expect(m.colIdx[0]).not.toBe(4);
  });
});

// ---------------------------------------------------------------- real matrices

/** Slots a padded format needs, computed here from the definition (for checking refusals). */
function paddedSlots(A: CSRMatrix, fmt: 'dia' | 'ell'): number {
  const rounded = Math.ceil(A.rows / 4) * 4;
  const pitch = rounded > 0 && rounded % 1024 === 0 ? rounded + 16 : rounded;
  if (fmt === 'ell') {
    let w = 0;
    for (let i = 0; i < A.rows; i++) w = Math.max(w, A.rowPtr[i + 1] - A.rowPtr[i]);
    return w * pitch;
  }
  const offs = new Set<number>();
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) offs.add(A.colIdx[k] - i);
  return offs.size * pitch;
}

describe('real matrices', () => {
  for (const name of sharedMatrixNames()) {
    it(name, () => {
      const src = parseMatrixMarket(readFileSync(`${MATRIX_DIR}${name}.mtx`)).matrix;
      const dtypes: DType[] = src.dtype === 'c128' || src.dtype === 'c64' ? ['c128', 'c64'] : ['f64', 'f32'];
      for (const dtype of dtypes) {
        const A = src.astype(dtype);
        const want = reference(A);
        const csr = A.toCSR().validate();
        expect(csr.isCanonical()).toBe(true);
        for (const fmt of FORMATS as readonly FormatName[]) {
          if (fmt === 'dense' && A.rows * A.cols > 4e6) continue; // the reference walk would dominate the suite
          let M: SparseMatrix;
          try {
            M = convert(A, fmt);
          } catch (e) {
            expect(e, `${fmt} may only refuse for padding`).toBeInstanceOf(PaddingLimitError);
            expect(fmt === 'dia' || fmt === 'ell').toBe(true);
            expect(paddedSlots(csr, fmt as 'dia' | 'ell')).toBeGreaterThan(10 * csr.nnz);
            continue;
          }
          if (fmt === 'dia' || fmt === 'ell') expect(paddedSlots(csr, fmt)).toBeLessThanOrEqual(10 * Math.max(csr.nnz, 1));
          M.validate();
          expectSame(reference(M), want, 0, `${name} ${dtype} ${fmt}`);
          expectSame(reference(M.toCSR()), want, 0, `${name} ${dtype} ${fmt} → csr`);
        }
      }
    });
  }
});
