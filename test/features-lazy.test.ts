/**
 * The format features whose scans run on first read (matrixFeatures(A, true), the runtime's private
 * canonical CSR): the same values as computed at once, the same format choices, and a DIA or ELL choice
 * reads none of them.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { chooseFormat, matrixFeatures, withFeatures, type MatrixFeatures } from '../src/runtime/features.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

const LAZY = ['sellSigma', 'sellSlots', 'cacheTiles', 'csrLayout'] as const;

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
