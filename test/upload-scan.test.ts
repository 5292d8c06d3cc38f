/**
 * rt.upload's one pass over an 'auto' CSR copy (src/formats/diagonal-scan.ts validateCanonicalScanning):
 * validateCanonical's answer and errors, the format features' scan and looseAbsNorms' findings in one
 * walk — each held against its own computation: validateCanonical itself, and the scan and the norms
 * recomputed here in plain JavaScript; through rt.upload, the loose norms, features and DIA copy of the
 * uploaded matrix against those of a caller's copy that no pass has seen.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix, markPrivateCanonical, validateCanonical } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { knownScan, SCAN_MIN_ENTRIES, validateCanonicalScanning } from '../src/formats/diagonal-scan.js';
import { matrixFeatures } from '../src/runtime/features.js';
import { looseAbsNorms } from '../src/solvers/solve.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

function withValues(A: CSRMatrix, f: (v: Float64Array) => void): CSRMatrix {
  const v = Float64Array.from(A.values);
  f(v);
  return new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr.slice(), A.colIdx.slice(), v);
}

function cases(): [string, CSRMatrix][] {
  const out: [string, CSRMatrix][] = sharedMatrixNames().map((n) => [n, loadShared(n)]);
  const P = poisson2D(30);
  out.push(['poisson2D(30)', P], ['poisson3D(10) f32', poisson3D(10, { dtype: 'f32' })]);
  out.push(['uniform', randomMatrix({ rows: 2000, meanRowLength: 7, seed: 5 })]);
  out.push(['powerlaw f32', randomMatrix({ rows: 3000, meanRowLength: 6, distribution: 'powerlaw', seed: 6, dtype: 'f32' })]);
  out.push(['rectangular', randomMatrix({ rows: 40, cols: 90, meanRowLength: 3, seed: 10 })]);
  out.push(['complex', randomMatrix({ rows: 300, meanRowLength: 5, seed: 8 }).astype('c128')]);
  out.push(['empty', new CSRMatrix(3, 3, 'f64', new Int32Array(4), new Int32Array(0), new Float64Array(0))]);
  out.push(['0×0', new CSRMatrix(0, 0, 'f64', new Int32Array(1), new Int32Array(0), new Float64Array(0))]);
  out.push(['a NaN', withValues(P, (v) => (v[100] = NaN))]);
  out.push(['a NaN first', withValues(P, (v) => (v[0] = NaN))]);
  out.push(['±Infinity, -0', withValues(P, (v) => ((v[7] = Infinity), (v[8] = -Infinity), (v[9] = -0)))]);
  // not canonical: a row's columns out of order, and a duplicate (the upload sorts them into another CSR)
  out.push(['unsorted', new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 2, 3, 5), Int32Array.of(1, 0, 1, 2, 0), Float64Array.of(1, 2, 3, 4, 5))]);
  out.push(['duplicate', new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 2, 3), Int32Array.of(1, 1, 0), Float64Array.of(1, 2, 3))]);
  // wide with few entries: more diagonal marks than index bytes, validated without the scan
  out.push(['wide', new CSRMatrix(2, 100_000, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(99_999, 5), Float64Array.of(1, -2))]);
  return out;
}

/** The scan and the norms' findings, written here: distinct j − i, row lengths, |aᵢⱼ| in each row's order. */
function reference(A: CSRMatrix) {
  const diagonals = new Set<number>();
  let maxRow = 0;
  let sumSq = 0;
  let maxAbs = 0;
  let maxRowSum = 0;
  let nan = false;
  for (let i = 0; i < A.rows; i++) {
    const len = A.rowPtr[i + 1] - A.rowPtr[i];
    maxRow = Math.max(maxRow, len);
    sumSq += len * len;
    let sum = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      diagonals.add(A.colIdx[k] - i);
      const a = Math.abs(A.values[k]);
      if (Number.isNaN(a)) nan = true;
      else maxAbs = Math.max(maxAbs, a);
      sum += a;
    }
    if (sum > maxRowSum) maxRowSum = sum;
  }
  return { diagonals: diagonals.size, maxRow, sumSq, maxAbs, maxRowSum, nan };
}

const copyOf = (A: CSRMatrix) => new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice());

describe('validateCanonicalScanning', () => {
  it("answers validateCanonical's question, and keeps the scan and the norms' findings of a canonical private copy, equal to the reference", () => {
    let kept = 0;
    for (const [name, A] of cases()) {
      const mine = copyOf(A);
      const { canonical, keep } = validateCanonicalScanning(mine, 0);
      expect(canonical, name).toBe(validateCanonical(copyOf(A)));
      // nothing kept for a caller's CSR, nor before the copy is marked private
      expect(knownScan(mine), name).toBeUndefined();
      markPrivateCanonical(mine);
      keep();
      const scan = knownScan(mine);
      const wide = A.rows + A.cols - 1 > A.rowPtr.byteLength + A.colIdx.byteLength;
      if (!canonical || wide) {
        expect(scan, name).toBeUndefined();
        continue;
      }
      kept++;
      const r = reference(A);
      expect({ diagonals: scan!.diagonals, maxRow: scan!.maxRow, sumSq: scan!.sumSq }, name).toEqual({ diagonals: r.diagonals, maxRow: r.maxRow, sumSq: r.sumSq });
      if (A.dtype === 'c128' || A.dtype === 'c64') expect(scan!.abs, name).toBeUndefined();
      else {
        // NaN: the largest of the others, as looseAbsNorms' own pass leaves it (its result then NaN)
        expect(scan!.abs, name).toEqual({ maxAbs: r.maxAbs, maxRowSum: r.maxRowSum, nan: r.nan });
        // the loose norms from the kept findings, bit for bit those of looseAbsNorms' own pass over a caller's copy
        expect(looseAbsNorms(mine), name).toEqual(looseAbsNorms(copyOf(A)));
      }
      // the features from the kept scan, key for key a fresh scan's
      expect({ ...matrixFeatures(mine, true) }, name).toEqual(matrixFeatures(copyOf(A)));
    }
    expect(kept).toBeGreaterThanOrEqual(15);
  });

  it('scans from SCAN_MIN_ENTRIES entries by default: a smaller matrix is validated alone, nothing kept', () => {
    for (const [name, A, kept] of [['494_bus', loadShared('494_bus'), false], ['poisson3D(41)', poisson3D(41), true]] as const) {
      expect(A.nnz >= SCAN_MIN_ENTRIES, name).toBe(kept);
      const mine = copyOf(A);
      const { canonical, keep } = validateCanonicalScanning(mine);
      expect(canonical, name).toBe(true);
      markPrivateCanonical(mine);
      keep();
      expect(knownScan(mine) !== undefined, name).toBe(kept);
    }
  });

  it('throws validateCanonical\'s error, the same message, for every broken CSR (values checked after the columns)', () => {
    const P = poisson2D(6);
    const n = P.nnz;
    const broken: [string, () => CSRMatrix][] = [
      ['rowPtr[0] ≠ 0', () => new CSRMatrix(2, 2, 'f64', Int32Array.of(1, 1, 2), Int32Array.of(0, 1), Float64Array.of(1, 2))],
      ['rowPtr decreasing', () => new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 2, 1, 3), Int32Array.of(0, 1, 2), Float64Array.of(1, 2, 3))],
      ['rowPtr end ≠ nnz', () => new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 1), Int32Array.of(0, 1), Float64Array.of(1, 2))],
      ['a column ≥ cols', () => new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr.slice(), Int32Array.from(P.colIdx, (j, k) => (k === 50 ? P.cols : j)), P.values.slice())],
      ['a column < 0', () => new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr.slice(), Int32Array.from(P.colIdx, (j, k) => (k === 3 ? -1 : j)), P.values.slice())],
      ['values too short', () => new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr.slice(), P.colIdx.slice(), P.values.slice(0, n - 1))],
      ['values too long', () => new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr.slice(), P.colIdx.slice(), new Float64Array(n + 1))],
      ['values of the other dtype', () => new CSRMatrix(P.rows, P.cols, 'f32', P.rowPtr.slice(), P.colIdx.slice(), P.values.slice() as unknown as Float32Array)],
      ['a column ≥ cols and values too short', () => new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr.slice(), Int32Array.from(P.colIdx, (j, k) => (k === n - 1 ? 1e6 : j)), P.values.slice(0, 3))],
      ['complex values too short', () => new CSRMatrix(P.rows, P.cols, 'c128', P.rowPtr.slice(), P.colIdx.slice(), new Float64Array(2 * n - 2))],
    ];
    for (const [name, make] of broken) {
      let want: unknown;
      try {
        validateCanonical(make());
      } catch (e) {
        want = e;
      }
      expect(want, name).toBeInstanceOf(Error);
      expect(() => validateCanonicalScanning(make(), 0), name).toThrow((want as Error).message);
      let got: unknown;
      try {
        validateCanonicalScanning(make(), 0);
      } catch (e) {
        got = e;
      }
      expect((got as Error).constructor, name).toBe((want as Error).constructor);
    }
  });
});

describe("rt.upload's 'auto' copy", () => {
  it('keeps the findings, solves as an upload in the named format does, converts to DIA bit for bit; the same upload errors as a CSR upload', async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      for (const [name, A] of [['poisson3D(24)', poisson3D(24)], ['poisson3D(24) f32', poisson3D(24, { dtype: 'f32' })], ['494_bus', loadShared('494_bus')]] as const) {
        const h = rt.upload(A);
        const csr = h.canonicalCsr as CSRMatrix;
        // scanned at upload from SCAN_MIN_ENTRIES entries (494_bus: fewer)
        expect(knownScan(csr)?.abs !== undefined, name).toBe(A.nnz >= SCAN_MIN_ENTRIES);
        expect(looseAbsNorms(csr), name).toEqual(looseAbsNorms(copyOf(A)));
        expect({ ...matrixFeatures(csr, true) }, name).toEqual(matrixFeatures(copyOf(A)));
        // the same solve as an upload in that format named, whose copy no upload pass scanned
        const b = Float64Array.from({ length: A.rows }, (_, i) => 1 + (i % 7));
        const named = rt.upload(A, { format: h.format });
        const [x, y] = [await rt.solve(h, b, { tol: 1e-10 }), await rt.solve(named, b, { tol: 1e-10 })];
        named.dispose();
        expect(x.converged, name).toBe(true);
        expect({ it: x.iterations, method: x.method, res: x.relativeResidual }, name).toEqual({ it: y.iterations, method: y.method, res: y.relativeResidual });
        expect(Buffer.from(x.x.buffer).equals(Buffer.from(y.x.buffer)), name).toBe(true);
        if (h.format === 'dia') {
          const want = DIAMatrix.fromCSR(copyOf(A));
          const got = h.host as DIAMatrix;
          expect(Array.from(got.offsets), name).toEqual(Array.from(want.offsets));
          expect(Array.from(got.data), name).toEqual(Array.from(want.data));
        }
        h.dispose();
      }
      const bad = new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 1, 2, 3), Int32Array.of(0, 5, 2), Float64Array.of(1, 2, 3));
      expect(() => rt.upload(bad)).toThrow(/CSR colIdx\[1\] = 5 is out of range \[0, 3\)/);
      let viaCsr: unknown;
      try {
        rt.upload(bad, { format: 'csr' });
      } catch (e) {
        viaCsr = e;
      }
      expect(() => rt.upload(bad)).toThrow((viaCsr as Error).message);
    } finally {
      rt.dispose();
    }
  });
});
