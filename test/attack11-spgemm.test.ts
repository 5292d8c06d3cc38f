/**
 * rt.spgemm's newest code (the eleventh attack pass): the fresh-array two-pass product (src/cpu/
 * spgemm-fresh.ts: a shared row-block counter, a worker faulting the values in, the copy-out) against
 * a plain-f64 reference product written here, on random shapes around its 64 blocks of rows, with
 * empty rows and operands that are not canonical (unsorted, duplicate columns); and the kernels' replay
 * of the previous row's structure (bf51f92: rows that repeat the previous row shifted, broken at random)
 * in the host form, as handles and into out. Both held: no defect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { testHooks } from '../src/cpu/spgemm-fresh.js';
import { mulberry32 } from './random.js';

/** Σₖ A[i,k]·B[k,:] per row from the operands' entries (duplicates summed), as a map column → value per row; real only. */
function referenceProduct(A: CSRMatrix, B: CSRMatrix): Map<number, number>[] {
  const rowsB: Map<number, number>[] = Array.from({ length: B.rows }, () => new Map());
  for (let i = 0; i < B.rows; i++) for (let k = B.rowPtr[i]; k < B.rowPtr[i + 1]; k++) rowsB[i].set(B.colIdx[k], (rowsB[i].get(B.colIdx[k]) ?? 0) + B.values[k]);
  const out: Map<number, number>[] = [];
  for (let i = 0; i < A.rows; i++) {
    const row = new Map<number, number>();
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const a = A.values[k];
      for (const [j, b] of rowsB[A.colIdx[k]]) row.set(j, (row.get(j) ?? 0) + a * b);
    }
    out.push(row);
  }
  return out;
}

/** C against the reference: shape, canonical, every reference column present (structural), values within a relative 1e-12 of the row's scale. */
function expectProduct(C: CSRMatrix, A: CSRMatrix, B: CSRMatrix, label: string): void {
  expect([C.rows, C.cols], label).toEqual([A.rows, B.cols]);
  const ref = referenceProduct(A, B);
  for (let i = 0; i < C.rows; i++) {
    const want = ref[i];
    const got = new Map<number, number>();
    for (let k = C.rowPtr[i]; k < C.rowPtr[i + 1]; k++) {
      if (k > C.rowPtr[i]) expect(C.colIdx[k] > C.colIdx[k - 1], `${label}: row ${i} columns ascending`).toBe(true);
      got.set(C.colIdx[k], C.values[k]);
    }
    expect([...got.keys()].sort((a, b) => a - b), `${label}: row ${i}'s columns`).toEqual([...want.keys()].sort((a, b) => a - b));
    let scale = 0;
    for (const v of want.values()) scale = Math.max(scale, Math.abs(v));
    for (const [j, v] of want) expect(Math.abs(got.get(j)! - v), `${label}: (${i}, ${j})`).toBeLessThanOrEqual(1e-12 * (scale || 1) + 1e-300);
  }
}

/**
 * An m×k CSR whose rows mostly repeat the previous row's pattern shifted one column right (a stencil's
 * rows: the kernels' replay of the previous row's structure), broken at random (`breakP`) by a fresh
 * pattern near the diagonal, a dropped entry, an extra one or an empty row; values random.
 */
function shiftyCsr(m: number, k: number, width: number, breakP: number, rnd: () => number): CSRMatrix {
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  let prev: number[] = [];
  for (let i = 0; i < m; i++) {
    let cols: number[];
    const shifted = prev.map((c) => c + 1);
    if (i > 0 && rnd() >= breakP && shifted.every((c) => c < k)) cols = shifted;
    else {
      const centre = Math.floor((i * k) / Math.max(1, m));
      const set = new Set<number>();
      const r = rnd();
      if (r < 0.1) cols = [];
      else if (r < 0.3 && prev.length > 1) cols = shifted.filter((c, t) => c < k && t !== Math.floor(rnd() * prev.length));
      else {
        for (let t = 0; t < width; t++) {
          const c = centre + Math.floor((rnd() - 0.5) * 2 * width);
          if (c >= 0 && c < k) set.add(c);
        }
        cols = [...set].sort((a, b) => a - b);
      }
    }
    for (const c of cols) {
      colIdx.push(c);
      values.push(rnd() - 0.5);
    }
    rowPtr.push(colIdx.length);
    prev = cols;
  }
  return new CSRMatrix(m, k, 'f64', Int32Array.from(rowPtr), Int32Array.from(colIdx), Float64Array.from(values));
}

let rt1: Runtime;
let rt2: Runtime;
let rt3: Runtime;
beforeAll(async () => {
  [rt1, rt2, rt3] = await Promise.all([1, 2, 3].map((workers) => createRuntime({ workers })));
});
afterAll(() => [rt1, rt2, rt3].forEach((rt) => rt?.dispose()));

/** An m×k CSR of `perRow` random entries a row (a row of `empty` rows none), columns in random order with duplicates where `messy` */
function randomCsr(m: number, k: number, perRow: number, rnd: () => number, messy: boolean, emptyEvery = 0): CSRMatrix {
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < m; i++) {
    if (!(emptyEvery > 0 && i % emptyEvery === 0)) {
      const cols = new Set<number>();
      const len = Math.min(k, Math.max(0, Math.round(perRow * (0.5 + rnd()))));
      while (cols.size < len) cols.add(Math.floor(rnd() * k));
      const list = [...cols];
      if (messy && list.length > 0) for (let d = 0; d < 3; d++) list.push(list[Math.floor(rnd() * list.length)]);
      if (!messy) list.sort((a, b) => a - b);
      for (const j of list) {
        colIdx.push(j);
        values.push(rnd() - 0.5);
      }
    }
    rowPtr.push(colIdx.length);
  }
  return new CSRMatrix(m, k, 'f64', Int32Array.from(rowPtr), Int32Array.from(colIdx), Float64Array.from(values));
}

describe('attack11: rt.spgemm', () => {
  it('property: products on 1–3 threads, fresh-array product forced or not, any first-job split — row counts around the 64 blocks, empty rows, unsorted and duplicate columns — equal the reference', { timeout: 180000 }, () => {
    const shape = fc.record({
      m: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 60, max: 70 }), fc.integer({ min: 120, max: 135 }), fc.integer({ min: 500, max: 700 })),
      k: fc.integer({ min: 1, max: 400 }),
      n: fc.integer({ min: 1, max: 300 }),
      seed: fc.integer(),
      messy: fc.boolean(),
      emptyEvery: fc.constantFrom(0, 2, 7),
      always: fc.boolean(),
      firstJobBlocks: fc.constantFrom(-1, 0, 1, 63, 64),
      threads: fc.constantFrom(1, 2, 3),
    });
    fc.assert(
      fc.property(shape, ({ m, k, n, seed, messy, emptyEvery, always, firstJobBlocks, threads }) => {
        const rnd = mulberry32(seed);
        // at least 16 384 entries in A where the rows allow (the pool's floor), else small
        const perRow = Math.min(k, Math.ceil(17000 / m));
        const A = randomCsr(m, k, perRow, rnd, messy, emptyEvery);
        const B = randomCsr(k, n, 1 + Math.floor(rnd() * 6), rnd, messy, emptyEvery ? emptyEvery + 1 : 0);
        const rt = [rt1, rt2, rt3][threads - 1];
        testHooks.always = always;
        testHooks.firstJobBlocks = firstJobBlocks;
        try {
          expectProduct(rt.spgemm(A, B), A, B, `${m}×${k}·${k}×${n} (A ${A.nnz} entries), ${threads} threads, always ${always}, first job ${firstJobBlocks}`);
        } finally {
          testHooks.always = false;
          testHooks.firstJobBlocks = -1;
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 60), seed: Number(process.env.SEED ?? 11), endOnFailure: true },
    );
  });
  it('property: operands whose rows repeat the previous row shifted (the replayed structures), broken at random — host form, handles and into out, on 1–3 threads — equal the reference', { timeout: 180000 }, () => {
    const shape = fc.record({
      m: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2000, max: 6000 })),
      k: fc.integer({ min: 1, max: 3000 }),
      n: fc.integer({ min: 1, max: 3000 }),
      width: fc.integer({ min: 1, max: 12 }),
      breakA: fc.constantFrom(0, 0.01, 0.2),
      breakB: fc.constantFrom(0, 0.01, 0.2),
      square: fc.boolean(),
      seed: fc.integer(),
      always: fc.boolean(),
      form: fc.constantFrom('host', 'handles', 'out'),
      threads: fc.constantFrom(1, 2, 3),
    });
    fc.assert(
      fc.property(shape, ({ m, k, n, width, breakA, breakB, square, seed, always, form, threads }) => {
        const rnd = mulberry32(seed);
        const A = shiftyCsr(m, square ? m : k, width, breakA, rnd);
        const B = square && rnd() < 0.5 ? A : shiftyCsr(A.cols, n, width, breakB, rnd);
        const rt = [rt1, rt2, rt3][threads - 1];
        const label = `${A.rows}×${A.cols}·${B.rows}×${B.cols} (${A.nnz}, ${B.nnz} entries, B ${B === A ? 'is A' : 'own'}), ${form}, ${threads} threads, always ${always}`;
        testHooks.always = always;
        try {
          if (form === 'host') expectProduct(rt.spgemm(A, B), A, B, label);
          else if (form === 'handles') {
            const [ha, hb] = [rt.upload(A), B === A ? null : rt.upload(B)];
            const C = rt.spgemm(ha, hb ?? ha);
            try {
              expectProduct(C.toCSR(), A, B, label);
            } finally {
              C.dispose();
              ha.dispose();
              hb?.dispose();
            }
          } else {
            const first = rt.spgemm(A, B);
            const out = new CSRMatrix(first.rows, first.cols, first.dtype, new Int32Array(first.rows + 1), new Int32Array(first.nnz), new Float64Array(first.nnz).fill(NaN));
            expectProduct(rt.spgemm(A, B, { out }), A, B, label);
          }
        } finally {
          testHooks.always = false;
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 30), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
  });
});
