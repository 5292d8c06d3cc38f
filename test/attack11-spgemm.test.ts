/**
 * rt.spgemm's newest code (the eleventh attack pass): the fresh-array two-pass product (src/cpu/
 * spgemm-fresh.ts: a shared row-block counter, a worker faulting the values in, the copy-out) against
 * a plain-f64 reference product written here, on random shapes around its 64 blocks of rows, with
 * empty rows and operands that are not canonical (unsorted, duplicate columns). It held: no defect.
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
});
