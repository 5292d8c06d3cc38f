/**
 * The format features whose scans run on first read (matrixFeatures(A, true), the runtime's private
 * canonical CSR): the same values as computed at once, the same format choices, and a DIA or ELL choice
 * reads none of them; and the same features (and DIA offsets) when rt.solve's structure check made
 * the scan (src/formats/diagonal-scan.ts).
 */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { chooseFormat, matrixFeatures, withFeatures, type MatrixFeatures } from '../src/runtime/features.js';
import { CSRMatrix, markPrivateCanonical } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { knownScan } from '../src/formats/diagonal-scan.js';
import { solveStructure } from '../src/solvers/structure.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

const LAZY = ['sellSigma', 'sellSlots', 'cacheTiles', 'csrLayout', 'hybWidth', 'hybEllShare', 'valuesF32'] as const;

function cases(): [string, CSRMatrix][] {
  const out: [string, CSRMatrix][] = sharedMatrixNames().map((n) => [n, loadShared(n)]);
  out.push(['poisson2D(40)', poisson2D(40)], ['poisson3D(12) f32', poisson3D(12, { dtype: 'f32' })]);
  out.push(['uniform', randomMatrix({ rows: 3000, meanRowLength: 7, seed: 5 })]);
  out.push(['powerlaw', randomMatrix({ rows: 4000, meanRowLength: 6, distribution: 'powerlaw', seed: 6 })]);
  // x beyond 1 MiB with scattered columns: the cache-tiles branch reads cacheTiles
  out.push(['powerlaw 200k', randomMatrix({ rows: 200_000, meanRowLength: 4, distribution: 'powerlaw', seed: 7 })]);
  out.push(['complex', randomMatrix({ rows: 500, meanRowLength: 5, seed: 8 }).astype('c128')]);
  out.push(['empty', new CSRMatrix(3, 3, 'f64', new Int32Array(4), new Int32Array(0), new Float64Array(0))]);
  return out;
}

/** A copy of f whose lazy features count their reads. */
function counting(f: MatrixFeatures): { f: MatrixFeatures; reads: string[] } {
  const reads: string[] = [];
  const copy = withFeatures(f);
  for (const key of LAZY) {
    const value = f[key];
    Object.defineProperty(copy, key, { enumerable: true, get: () => (reads.push(key), value) });
  }
  return { f: copy, reads };
}

describe('format features computed on first read', () => {
  it('equal those computed at once, key for key and in the same order, and choose the same formats', () => {
    for (const [name, A] of cases()) {
      const eager = matrixFeatures(A);
      const lazy = matrixFeatures(A, true);
      // the order explain prints them in
      expect(Object.keys(lazy), name).toEqual(Object.keys(eager));
      for (const key of LAZY) expect(Object.getOwnPropertyDescriptor(eager, key)?.get, `${name} ${key} eager is a value`).toBeUndefined();
      expect({ ...lazy }, name).toEqual(eager);
      for (const path of ['cpu', 'gpu'] as const) expect(chooseFormat(matrixFeatures(A, true), path), `${name} ${path}`).toEqual(chooseFormat(eager, path));
    }
  });

  it('a DIA or ELL choice reads none of them; the irregular and general branches read what they print', () => {
    const dia = counting(matrixFeatures(poisson3D(10), true));
    expect(chooseFormat(dia.f, 'cpu').format).toBe('dia');
    expect(dia.reads).toEqual([]);
    const power = counting(matrixFeatures(randomMatrix({ rows: 4000, meanRowLength: 6, distribution: 'powerlaw', seed: 6 }), true));
    expect(chooseFormat(power.f, 'cpu').format).toBe('sell');
    expect(power.reads.sort()).toEqual(['sellSigma', 'sellSlots']);
  });

  it('withFeatures replaces values without reading the others, and the runtime reports the values computed at once', async () => {
    const A = randomMatrix({ rows: 2000, meanRowLength: 5, seed: 9 });
    const f = matrixFeatures(A, true);
    const g = withFeatures(f, { cacheTiles: false });
    expect(Object.getOwnPropertyDescriptor(g, 'csrLayout')?.get).toBeTypeOf('function');
    expect({ ...g }).toEqual({ ...matrixFeatures(A), cacheTiles: false });
    // a caller's matrix may change after explain: its features are computed at once
    const rt0 = await createRuntime({ workers: 1, backend: 'cpu' });
    try {
      const user = rt0.explain('spmv', A).features;
      for (const key of LAZY) expect(Object.getOwnPropertyDescriptor(user, key)?.get, `caller's matrix: ${key}`).toBeUndefined();
      // an upload's private CSR: a stencil's DIA choice left them unread
      const h = rt0.upload(poisson3D(8));
      expect(rt0.explain('spmv', h).format).toBe('dia');
      expect(Object.getOwnPropertyDescriptor(rt0.explain('spmv', h).features, 'csrLayout')?.get).toBeTypeOf('function');
    } finally {
      rt0.dispose();
    }
    for (const cacheTiles of ['auto', false] as const) {
      const rt = await createRuntime({ workers: 1, backend: 'cpu', cacheTiles });
      try {
        for (const [name, M] of cases().slice(0, 4)) {
          const h = rt.upload(M);
          const want = matrixFeatures(M.toCSR());
          expect({ ...rt.explain('spmv', h).features }, `${name} ${cacheTiles}`).toEqual(cacheTiles === false ? { ...want, cacheTiles: false } : want);
          h.dispose();
        }
      } finally {
        rt.dispose();
      }
    }
  });
});

describe("DIA conversion of a private CSR with the feature scan's offsets", () => {
  it('gives the offsets and data of a conversion that scans for them, bit for bit', () => {
    const sparseFar = CSRMatrix.fromTriplets(5000, 5000, 'f64', Int32Array.from([0, 10, 4999]), Int32Array.from([4000, 10, 0]), Float64Array.from([1, 2, 3]));
    const more: [string, CSRMatrix][] = [['far apart (no offset table)', sparseFar], ['rectangular', randomMatrix({ rows: 40, cols: 70, meanRowLength: 2, seed: 10 })]];
    let remembered = 0;
    for (const [name, A] of [...cases(), ...more]) {
      if (A.nnz === 0 || A.dtype !== 'f64') continue;
      const mine = markPrivateCanonical(new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice()));
      const f = matrixFeatures(mine, true);
      if (f.diagonals > 256) continue;
      remembered++;
      const want = DIAMatrix.fromCSR(A, { maxFill: 1e9 });
      const got = DIAMatrix.fromCSR(mine, { maxFill: 1e9 });
      expect(Array.from(got.offsets), name).toEqual(Array.from(want.offsets));
      expect(got.pitch, name).toBe(want.pitch);
      expect(Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength).equals(Buffer.from(want.data.buffer, want.data.byteOffset, want.data.byteLength)), name).toBe(true);
    }
    expect(remembered).toBeGreaterThanOrEqual(4);
  });
});

describe("rt.solve's structure check scans a private CSR for the format features too", () => {
  it('the features after solveStructure equal a fresh scan, key for key; the DIA conversion with its offsets is bit for bit; a caller\'s CSR keeps nothing', () => {
    let dia = 0;
    for (const [name, A] of cases()) {
      if (A.dtype === 'c128' || A.dtype === 'c64') continue;
      const mine = markPrivateCanonical(new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice()));
      expect(knownScan(mine), name).toBeUndefined();
      const s = solveStructure(mine);
      expect({ ...s, diameter: undefined }, name).toEqual({ ...solveStructure(A), diameter: undefined });
      const scan = knownScan(mine);
      const fresh = matrixFeatures(A);
      expect(scan, name).toEqual({ diagonals: fresh.diagonals, maxRow: fresh.maxRow, sumSq: Array.from({ length: A.rows }, (_, i) => (A.rowPtr[i + 1] - A.rowPtr[i]) ** 2).reduce((a, b) => a + b, 0) });
      expect({ ...matrixFeatures(mine, true) }, name).toEqual(fresh);
      expect(knownScan(A), name).toBeUndefined();
      if (A.nnz === 0 || fresh.diagonals > 256) continue;
      dia++;
      const want = DIAMatrix.fromCSR(A, { maxFill: 1e9 });
      const got = DIAMatrix.fromCSR(mine, { maxFill: 1e9 });
      expect(Array.from(got.offsets), name).toEqual(Array.from(want.offsets));
      expect(Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength).equals(Buffer.from(want.data.buffer, want.data.byteOffset, want.data.byteLength)), name).toBe(true);
    }
    expect(dia).toBeGreaterThanOrEqual(3);
  });
});
