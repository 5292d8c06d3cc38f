/**
 * rt.spgemm's replay of a row's structure (the shift flags and replay records of assembly/spgemm.ts) in
 * bits (the twelfth attack pass). The kernels say a replayed row sums its products in the full path's
 * order from −0, so its bits are the full path's: checked here against a plain-f64 reference that sums
 * each product in that order (A's entries in row order, each reached row of B in order; a column's first
 * product stored, the next ones added), Object.is per value — −0, subnormals, overflow to ±Inf and NaN
 * from Inf − Inf included. Operands: A ≠ B, rectangular, rows that are the previous row shifted, almost
 * shifted (one column off, shifted by two, one value's sign), repeated unshifted, cycling through a few
 * structures (the records), with shares split over 1–3 threads, host form and handles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { mulberry32 } from './random.js';

let rts: Runtime[];
beforeAll(async () => {
  rts = await Promise.all([1, 2, 3].map((workers) => createRuntime({ backend: 'cpu', workers })));
});
afterAll(() => rts?.forEach((rt) => rt.dispose()));

/** Row i of A·B as the kernels order its sums: column → value, the first product stored, the next added. */
function orderedProduct(A: CSRMatrix, B: CSRMatrix): Map<number, number>[] {
  const out: Map<number, number>[] = [];
  for (let i = 0; i < A.rows; i++) {
    const row = new Map<number, number>();
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      for (let l = B.rowPtr[j]; l < B.rowPtr[j + 1]; l++) {
        const c = B.colIdx[l];
        const p = A.values[k] * B.values[l];
        row.set(c, row.has(c) ? row.get(c)! + p : p);
      }
    }
    out.push(row);
  }
  return out;
}

function expectBits(C: CSRMatrix, A: CSRMatrix, B: CSRMatrix, label: string): void {
  expect([C.rows, C.cols], label).toEqual([A.rows, B.cols]);
  const ref = orderedProduct(A, B);
  for (let i = 0; i < C.rows; i++) {
    const want = [...ref[i].keys()].sort((a, b) => a - b);
    const got = Array.from(C.colIdx.subarray(C.rowPtr[i], C.rowPtr[i + 1]));
    expect(got, `${label}: row ${i}'s columns`).toEqual(want);
    for (let t = 0; t < want.length; t++) {
      const v = C.values[C.rowPtr[i] + t];
      const w = ref[i].get(want[t])!;
      if (!Object.is(v, w)) expect(`${v}`, `${label}: (${i}, ${want[t]}) bits`).toBe(`${w}`);
      expect(Object.is(v, w), `${label}: (${i}, ${want[t]}) ${v} against ${w}`).toBe(true);
    }
  }
}

const SPECIAL = [-0, 0, 5e-324, -2.5e-320, 1e308, -1e308, 3e-200, 1e200];

/**
 * An m×k CSR whose rows follow a few structures: the previous row shifted by one (most), a repeat of a
 * structure met some rows before shifted to this row (the records), the previous row almost shifted —
 * one column moved, shifted by two, unshifted — or a fresh pattern near the diagonal; values random with
 * some of SPECIAL (pSpecial).
 */
function structuredCsr(m: number, k: number, width: number, rnd: () => number, pSpecial: number): CSRMatrix {
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  const structures: number[][] = [];
  let prev: number[] = [];
  for (let i = 0; i < m; i++) {
    const r = rnd();
    let offs: number[];
    const prevOffs = prev.map((c) => c - (i - 1));
    if (i === 0 || r < 0.1) {
      const set = new Set<number>();
      for (let t = 0; t < width; t++) set.add(Math.floor((rnd() - 0.5) * 2 * width));
      offs = [...set].sort((a, b) => a - b);
      structures.push(offs);
    } else if (r < 0.55) offs = prevOffs;
    else if (r < 0.75 && structures.length > 0) offs = structures[Math.floor(rnd() * structures.length)];
    else if (r < 0.82 && prevOffs.length > 0) {
      const t = Math.floor(rnd() * prevOffs.length);
      offs = [...new Set(prevOffs.map((o, s) => (s === t ? o + (rnd() < 0.5 ? 1 : -1) : o)))].sort((a, b) => a - b);
    } else if (r < 0.9) offs = prevOffs.map((o) => o + 1);
    else offs = prevOffs.map((o) => o - 1);
    // columns relative to i scaled to k's width, kept in range (a row at the edge loses entries)
    const centre = Math.floor((i * k) / Math.max(1, m));
    const cols = [...new Set(offs.map((o) => centre + o).filter((c) => c >= 0 && c < k))].sort((a, b) => a - b);
    for (const c of cols) {
      colIdx.push(c);
      values.push(rnd() < pSpecial ? SPECIAL[Math.floor(rnd() * SPECIAL.length)] : rnd() - 0.5);
    }
    rowPtr.push(colIdx.length);
    prev = cols;
  }
  return new CSRMatrix(m, k, 'f64', Int32Array.from(rowPtr), Int32Array.from(colIdx), Float64Array.from(values));
}

describe('attack12: rt.spgemm replays rows bit for bit', () => {
  it('property: A ≠ B, rectangular, shifted / almost shifted / repeated rows, special values, 1–3 threads, host form and handles: the ordered reference, Object.is', { timeout: 300000 }, () => {
    const shape = fc.record({
      m: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 200, max: 3000 })),
      k: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 200, max: 3000 })),
      n: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 200, max: 3000 })),
      width: fc.integer({ min: 1, max: 9 }),
      seed: fc.integer(),
      pSpecial: fc.constantFrom(0, 0.02, 0.2),
      square: fc.boolean(),
      threads: fc.constantFrom(1, 2, 3),
      handles: fc.boolean(),
    });
    let rows = 0;
    fc.assert(
      fc.property(shape, ({ m, k, n, width, seed, pSpecial, square, threads, handles }) => {
        const rnd = mulberry32(seed);
        const A = structuredCsr(m, square ? m : k, width, rnd, pSpecial);
        const B = square && rnd() < 0.5 ? A : structuredCsr(A.cols, square ? A.cols : n, width, rnd, pSpecial);
        const rt = rts[threads - 1];
        const label = `${A.rows}×${A.cols}·${B.rows}×${B.cols} (A ${A.nnz}, B ${B.nnz}), ${threads} threads, ${handles ? 'handles' : 'host'}`;
        if (!handles) expectBits(rt.spgemm(A, B), A, B, label);
        else {
          const ha = rt.upload(A, { format: 'csr' });
          const hb = B === A ? ha : rt.upload(B, { format: 'csr' });
          const C = rt.spgemm(ha, hb);
          try {
            expectBits(C.toCSR(), A, B, label);
          } finally {
            C.dispose();
            ha.dispose();
            if (hb !== ha) hb.dispose();
          }
        }
        rows += A.rows;
      }),
      { numRuns: Number(process.env.RUNS ?? 150), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
    expect(rows).toBeGreaterThan(10000);
  });
});
