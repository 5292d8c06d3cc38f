/**
 * End to end through the public API: every format × dtype × op × build on the shared matrices and on
 * generated edge cases, against the independent f64 reference of test/reference.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { MatrixHandle } from '../src/runtime/handles.js';
import { convert, FORMATS, COOMatrix, CSRMatrix, type FormatName, type SparseMatrix } from '../src/formats/index.js';
import { allocValues, isComplex, type DType, type Scalar } from '../src/dtype.js';
import { Prng } from '../src/generators/prng.js';
import { checkAgainst, referenceSpmv, type Op, csrTriplets } from './reference.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

let simd: Runtime;
let plain: Runtime;
beforeAll(async () => {
  simd = await createRuntime();
  plain = await createRuntime({ simd: false });
  expect(simd.capabilities().wasm).toBe('simd');
  expect(plain.capabilities().wasm).toBe('plain');
});
afterAll(() => {
  simd.dispose();
  plain.dispose();
});


function randomValues(dtype: DType, n: number, seed: number) {
  const v = allocValues(dtype, n);
  const rng = new Prng(seed);
  for (let i = 0; i < v.length; i++) v[i] = rng.next() * 2 - 1;
  return v;
}

/** Converts for the test, with padding limits raised while the padded copy stays small (≤ 4M slots). */
function convertForTest(A: CSRMatrix, format: FormatName): SparseMatrix | null {
  if (format === 'dense' && A.rows * A.cols > 4e6) return null;
  try {
    return convert(A, format, { maxFill: 1e9, maxSlots: 4e6 });
  } catch (e) {
    if ((e as { code?: string }).code === 'E_PADDING') return null;
    throw e;
  }
}

const SCALARS: Array<{ alpha: Scalar; beta: Scalar; complexOnly?: boolean }> = [
  { alpha: 1, beta: 0 },
  { alpha: -2.5, beta: 0.75 },
  { alpha: [0.5, -1.25], beta: [-0.75, 0.5], complexOnly: true },
];

/** Runs every format, op and scalar pair of one matrix in one dtype on both builds. */
async function checkAll(base: CSRMatrix, dtype: DType, label: string): Promise<number> {
  const A = base.astype(dtype);
  const ref = csrTriplets(A);
  const precision = dtype === 'f32' || dtype === 'c64' ? 'single' : 'double';
  const handles: Array<[string, Runtime, MatrixHandle]> = [];
  for (const format of FORMATS) {
    const M = convertForTest(A, format);
    if (M) for (const rt of [simd, plain]) handles.push([format, rt, rt.upload(M, { format: 'keep' })]);
  }
  let checked = 0;
  for (const op of ['N', 'T', 'H'] as Op[]) {
    const [inLen, outLen] = op === 'N' ? [A.cols, A.rows] : [A.rows, A.cols];
    const x = randomValues(dtype, inLen, 11);
    for (const [si, s] of SCALARS.entries()) {
      if (s.complexOnly && !isComplex(dtype)) continue;
      const y0 = randomValues(dtype, outLen, 13 + si);
      const r = referenceSpmv(ref, x, y0, s.alpha as number | [number, number], s.beta as number | [number, number], op);
      for (const [format, rt, h] of handles) {
        const y = await rt.spmv(h, x, { y: y0.slice(), alpha: s.alpha, beta: s.beta, op });
        const bad = checkAgainst(y, r, precision, isComplex(dtype));
        if (bad) throw new Error(`${label} ${format} ${dtype} op=${op} ${rt.capabilities().wasm} α=${JSON.stringify(s.alpha)}: ${bad}`);
        checked++;
      }
    }
  }
  for (const [, , h] of handles) h.dispose();
  return checked;
}

describe('SpMV on the shared SuiteSparse matrices', () => {
  for (const name of sharedMatrixNames()) {
    it(name, async () => {
      const base = loadShared(name);
      const dtypes: DType[] = isComplex(base.dtype) ? ['c64', 'c128'] : ['f32', 'f64', 'c64', 'c128'];
      let checked = 0;
      for (const dtype of dtypes) checked += await checkAll(base, dtype, name);
      // every format must have run on these small matrices except where padding is refused
      expect(checked).toBeGreaterThan(dtypes.length * 5 * 2 * 3);
    });
  }
});

function coo(rows: number, cols: number, entries: Array<[number, number, number]>): CSRMatrix {
  const r = new Int32Array(entries.map((e) => e[0]));
  const c = new Int32Array(entries.map((e) => e[1]));
  const v = new Float64Array(entries.map((e) => e[2]));
  return new COOMatrix(rows, cols, 'f64', r, c, v).toCSR();
}

function randomCsr(rows: number, cols: number, lengths: (i: number) => number, seed: number): CSRMatrix {
  const rng = new Prng(seed);
  const entries: Array<[number, number, number]> = [];
  for (let i = 0; i < rows; i++) {
    for (let k = lengths(i); k > 0; k--) entries.push([i, rng.int(cols), rng.next() * 2 - 1]);
  }
  return coo(rows, cols, entries);
}

describe('SpMV on generated edge cases', () => {
  const cases: Array<[string, () => CSRMatrix]> = [
    ['0×0', () => coo(0, 0, [])],
    ['0×5', () => coo(0, 5, [])],
    ['5×0', () => coo(5, 0, [])],
    ['1×1', () => coo(1, 1, [[0, 0, 3.5]])],
    ['all rows empty', () => coo(6, 4, [])],
    ['some rows empty', () => randomCsr(40, 40, (i) => (i % 3 === 0 ? 0 : (i % 7) + 1), 3)],
    ['rectangular 3×70', () => randomCsr(3, 70, () => 20, 4)],
    ['rectangular 70×3', () => randomCsr(70, 3, (i) => i % 4, 5)],
    ['a row with 10,001 entries', () => randomCsr(50, 12000, (i) => (i === 17 ? 10001 : i % 5), 6)],
    ['duplicates, unsorted input', () => coo(3, 3, [[2, 1, 1], [0, 2, 2], [2, 1, 4], [0, 0, -1], [1, 1, 5], [0, 2, 0.5]])],
  ];
  for (const [label, make] of cases) {
    it(label, async () => {
      const base = make();
      for (const dtype of ['f32', 'f64', 'c64', 'c128'] as DType[]) await checkAll(base, dtype, label);
    });
  }

  it('sums duplicates exactly as the definition says', async () => {
    const A = coo(2, 2, [[0, 1, 1.5], [0, 1, 2.5], [1, 0, 1]]);
    const h = simd.upload(A, { format: 'keep' });
    expect(Array.from(await simd.spmv(h, new Float64Array([10, 100])))).toEqual([400, 10]);
  });

  it('beta = 0 ignores NaN already in y; alpha = 0 gives beta·y', async () => {
    const A = randomCsr(9, 9, () => 3, 8);
    for (const format of FORMATS) {
      const M = convertForTest(A, format)!;
      const h = simd.upload(M, { format: 'keep' });
      const x = randomValues('f64', 9, 1);
      const y = await simd.spmv(h, x, { y: new Float64Array(9).fill(NaN), beta: 0 });
      expect(y.every(Number.isFinite), format).toBe(true);
      const y2 = await simd.spmv(h, x, { y: new Float64Array(9).fill(2), alpha: 0, beta: 3 });
      expect(Array.from(y2), format).toEqual(new Array(9).fill(6));
      h.dispose();
    }
  });
});
