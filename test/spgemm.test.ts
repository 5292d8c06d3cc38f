import { describe, expect, it } from 'vitest';
import { createRuntime, CSRMatrix, ShapeError, MemoryLimitError, poisson2D, randomMatrix } from '../src/index.js';
import { spgemm } from '../src/solvers/amg/spgemm.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { csrTriplets } from './reference.js';
import { mulberry32 } from './random.js';

/**
 * The reference: row i of A·B as a dense row of B.cols entries, Σₖ A[i,k]·B[k,:] from the operands'
 * triplets, in f64 (complex as pairs), with the structural pattern (every column some product reaches).
 * Then the whole dense row is compared with ours, so a missing, extra or misplaced entry fails.
 */
function checkProduct(A: CSRMatrix, B: CSRMatrix, C: CSRMatrix, label: string): void {
  expect([C.rows, C.cols], label).toEqual([A.rows, B.cols]);
  expect(C.isCanonical(), `${label}: canonical`).toBe(true);
  const ta = csrTriplets(A);
  const tb = csrTriplets(B);
  const ca = ta.complex ? 2 : 1;
  const cb = tb.complex ? 2 : 1;
  const byRowB: number[][] = Array.from({ length: B.rows }, () => []);
  for (let e = 0; e < tb.rowIdx.length; e++) byRowB[tb.rowIdx[e]].push(e);
  const byRowA: number[][] = Array.from({ length: A.rows }, () => []);
  for (let e = 0; e < ta.rowIdx.length; e++) byRowA[ta.rowIdx[e]].push(e);
  const n = B.cols;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const mag = new Float64Array(n);
  const hit = new Uint8Array(n);
  const cc = C.dtype === 'c64' || C.dtype === 'c128' ? 2 : 1;
  const eps = C.dtype === 'f32' || C.dtype === 'c64' ? 1e-5 : 1e-13;
  for (let i = 0; i < A.rows; i++) {
    const touched: number[] = [];
    for (const ea of byRowA[i]) {
      const k = ta.colIdx[ea];
      const [ar, ai] = [ta.values[ca * ea], ca === 2 ? ta.values[2 * ea + 1] : 0];
      for (const eb of byRowB[k]) {
        const j = tb.colIdx[eb];
        const [br, bi] = [tb.values[cb * eb], cb === 2 ? tb.values[2 * eb + 1] : 0];
        if (!hit[j]) touched.push(j);
        re[j] += ar * br - ai * bi;
        im[j] += ar * bi + ai * br;
        mag[j] += Math.hypot(ar, ai) * Math.hypot(br, bi);
        hit[j] = 1;
      }
    }
    // every stored entry is one the reference reaches, once, with its value; as many as it reaches
    if (C.rowPtr[i + 1] - C.rowPtr[i] !== touched.length) throw new Error(`${label}: row ${i} has ${C.rowPtr[i + 1] - C.rowPtr[i]} entries, the reference reaches ${touched.length}`);
    for (let k = C.rowPtr[i]; k < C.rowPtr[i + 1]; k++) {
      const j = C.colIdx[k];
      if (hit[j] !== 1) throw new Error(`${label}: C[${i},${j}] stored ${hit[j] ? 'twice' : 'but no product reaches it'}`);
      hit[j] = 2;
      const [cr, ci] = [C.values[cc * k], cc === 2 ? C.values[2 * k + 1] : 0];
      if (!(Math.hypot(cr - re[j], ci - im[j]) <= eps * mag[j])) throw new Error(`${label}: C[${i},${j}] = ${cr}+${ci}i, reference ${re[j]}+${im[j]}i`);
    }
    for (const j of touched) re[j] = im[j] = mag[j] = hit[j] = 0;
  }
}

describe('spgemm', () => {
  for (const name of sharedMatrixNames()) {
    it(`${name}: A·A when square, A·Aᵀ always`, () => {
      const A = loadShared(name);
      const T = A.transpose();
      if (A.rows === A.cols) checkProduct(A, A, spgemm(A, A), `${name} A·A`);
      checkProduct(A, T, spgemm(A, T), `${name} A·Aᵀ`);
    });
  }

  it('random shapes, densities and dtypes, including empty rows, mixed dtypes and non-canonical input', () => {
    const rnd = mulberry32(21);
    const dtypes = ['f64', 'f32', 'c128', 'c64'] as const;
    for (let t = 0; t < 40; t++) {
      const [m, k, n] = [1 + Math.floor(rnd() * 40), 1 + Math.floor(rnd() * 40), 1 + Math.floor(rnd() * 40)];
      const da = dtypes[t % 4];
      const db = dtypes[Math.floor(t / 4) % 4];
      const A = randomMatrix({ rows: m, cols: k, meanRowLength: rnd() * 6, dtype: da, seed: t + 1 });
      const B = randomMatrix({ rows: k, cols: n, meanRowLength: rnd() * 6, dtype: db, seed: 100 + t });
      const C = spgemm(A, B);
      const single = (da === 'f32' || da === 'c64') && (db === 'f32' || db === 'c64');
      const complex = da[0] === 'c' || db[0] === 'c';
      expect(C.dtype).toBe(complex ? (single ? 'c64' : 'c128') : single ? 'f32' : 'f64');
      checkProduct(A, B, C, `random ${t} ${m}×${k}·${k}×${n} ${da}·${db}`);
    }
    // duplicates and unsorted columns in A are summed first (toCSR)
    const A = new CSRMatrix(2, 3, 'f64', new Int32Array([0, 3, 3]), new Int32Array([2, 0, 2]), new Float64Array([1, 2, 3]));
    const B = randomMatrix({ rows: 3, cols: 5, meanRowLength: 3, seed: 7 });
    checkProduct(A, B, spgemm(A, B), 'duplicates in A');
  });

  it('shape mismatch → ShapeError; a product over the budget → MemoryLimitError before the numeric pass', async () => {
    const A = poisson2D(3);
    const B = randomMatrix({ rows: 4, cols: 9, meanRowLength: 4, seed: 1 });
    expect(() => spgemm(A, B)).toThrow(ShapeError);
    expect(() => spgemm(A, B)).toThrow(/9×9 and B is 4×9/);
    // dense 3000×1 times 1×3000: a 9·10⁶-entry product (≈100 MB) against a 64 MiB budget
    const col = new CSRMatrix(3000, 1, 'f64', Int32Array.from({ length: 3001 }, (_, i) => i), new Int32Array(3000), new Float64Array(3000).fill(1));
    expect(() => spgemm(col, col.transpose(), 64)).toThrow(MemoryLimitError);
    const rt = await createRuntime({ workers: 1 });
    const h = rt.upload(A);
    checkProduct(A, A, rt.spgemm(h, A), 'handle·matrix');
    expect(() => rt.spgemm(A, B)).toThrow(ShapeError);
    rt.dispose();
  });
});
