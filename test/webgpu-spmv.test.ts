/**
 * The WebGPU SpMV kernels (csr_row, csr_vector, csr_adaptive, ell, dia, hyb) × f32, c64, f64, c128 on
 * the generated edge cases and all shared matrices, against the f64 reference: y = α·A·x (β = 0, y
 * holding NaN), then y = α₂·A·x + β·y0; op T/H through the transposed CSR; x aliasing y.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isComplex, type DType } from '../src/dtype.js';
import { DIAMatrix, type CSRMatrix } from '../src/formats/index.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { readFileSync } from 'node:fs';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import { GENERATED, SHARED_COMPLEX } from './browser/checks.js';
import { MATRIX_DIR, sharedMatrixNames } from './matrices.js';
import { compareRef, DTYPES, forKernel, generated, inDType, randomData, scalars, WEBGPU_KERNELS, webgpuBackend, type WebGpuKernel } from './webgpu-helpers.js';

let gpu: WebGpuBackend;
beforeAll(async () => {
  gpu = await webgpuBackend();
});
afterAll(() => gpu?.dispose());

const worst = new Map<string, number>();

async function spmvBoth(A: CSRMatrix, k: WebGpuKernel, seed: number): Promise<string> {
  const conv = forKernel(A, k);
  if (typeof conv === 'string') return conv;
  const dt = A.dtype;
  const M = gpu.upload(conv.host, conv.opts);
  expect(M.kernel).toBe(k);
  const xs = randomData(dt, A.cols, seed);
  const y0 = randomData(dt, A.rows, seed + 1);
  const x = gpu.vector(dt, xs);
  const y = gpu.vector(dt, new Float64Array(A.rows * (isComplex(dt) ? 2 : 1)).fill(NaN));
  const yb = gpu.vector(dt, y0);
  const { alpha, alpha2, beta } = scalars(dt);
  try {
    gpu.spmv(M, x, y, { alpha });
    const w1 = compareRef(A, xs, null, alpha, 0, await gpu.read(y));
    gpu.spmv(M, x, yb, { alpha: alpha2, beta });
    const w2 = compareRef(A, xs, y0, alpha2, beta, await gpu.read(yb));
    const key = `${k} ${dt}`;
    worst.set(key, Math.max(worst.get(key) ?? 0, w1, w2));
    return `${k}: ${Math.max(w1, w2).toExponential(2)}`;
  } finally {
    for (const h of [M, x, y, yb]) h.dispose();
  }
}

function loadBase(name: string): CSRMatrix {
  const cplx = (SHARED_COMPLEX as readonly string[]).includes(name);
  return parseMatrixMarket(readFileSync(`${MATRIX_DIR}${name}.mtx`), { dtype: cplx ? 'c128' : 'f64' }).matrix.toCSR() as CSRMatrix;
}

let seed = 100;
describe('WebGPU SpMV, generated matrices', () => {
  for (const g of GENERATED) {
    for (const dt of DTYPES) {
      it(`${g} ${dt}`, async () => {
        const A = inDType(generated(g), dt);
        const out: string[] = [];
        for (const k of WEBGPU_KERNELS) out.push(await spmvBoth(A, k, seed++));
        expect(gpu.deviceErrors).toEqual([]);
      });
    }
  }
});

describe('WebGPU SpMV, shared matrices', () => {
  for (const name of sharedMatrixNames()) {
    const cplx = (SHARED_COMPLEX as readonly string[]).includes(name);
    for (const dt of (cplx ? ['c64', 'c128'] : DTYPES) as DType[]) {
      it(`${name} ${dt}`, async () => {
        const A = inDType(loadBase(name), dt);
        for (const k of WEBGPU_KERNELS) await spmvBoth(A, k, seed++);
        expect(gpu.deviceErrors).toEqual([]);
      });
    }
  }
});

describe('WebGPU SpMV, op T/H and aliasing', () => {
  for (const dt of DTYPES) {
    it(`op T and H, every kernel's upload, ${dt}`, async () => {
      const A = inDType(generated('rect-300x700'), dt);
      for (const k of WEBGPU_KERNELS) {
        const conv = forKernel(A, k);
        if (typeof conv === 'string') continue;
        const M = gpu.upload(conv.host, { ...conv.opts, transpose: true });
        expect(M.hasTranspose).toBe(true);
        const xs = randomData(dt, A.rows, 81);
        const y0 = randomData(dt, A.cols, 82);
        const x = gpu.vector(dt, xs);
        const { alpha, beta } = scalars(dt);
        for (const op of ['T', 'H'] as const) {
          const y = gpu.vector(dt, y0);
          gpu.spmv(M, x, y, { alpha, beta, op });
          compareRef(A, xs, y0, alpha, beta, await gpu.read(y), op);
          y.dispose();
        }
        expect(() => gpu.spmv(M, x, x, { op: 'N' })).toThrow(/length/);
        M.dispose();
        x.dispose();
      }
    });

    it(`x aliasing y (y = α·A·y + β·y), every kernel, ${dt}`, async () => {
      const A = inDType(generated('poisson2D-30'), dt);
      for (const k of WEBGPU_KERNELS) {
        const conv = forKernel(A, k) as Exclude<ReturnType<typeof forKernel>, string>;
        const M = gpu.upload(conv.host, conv.opts);
        const xs = randomData(dt, A.cols, 91);
        const x = gpu.vector(dt, xs);
        const { alpha, beta } = scalars(dt);
        gpu.spmv(M, x, x, { alpha, beta });
        compareRef(A, xs, xs, alpha, beta, await gpu.read(x));
        M.dispose();
        x.dispose();
      }
      expect(gpu.deviceErrors).toEqual([]);
    });
  }
});

describe('WebGPU SpMV, kernel choice', () => {
  it("'auto' picks csr_adaptive for power-law and long rows, sell for even rows in double-single, csr_row for short even rows, csr_vector for long even rows", () => {
    const cases: [CSRMatrix, string][] = [
      [generated('random-powerlaw-3000').astype('f32'), 'csr_adaptive'],
      [generated('long-rows-600').astype('f32'), 'csr_adaptive'],
      [generated('poisson2D-30').astype('f32'), 'csr_row'],
      [generated('random-uniform-2000').astype('f32'), 'csr_vector'],
      [generated('poisson2D-30').astype('f64'), 'sell'],
      [generated('random-powerlaw-3000').astype('f64'), 'csr_adaptive'],
    ];
    for (const [A, want] of cases) {
      const M = gpu.upload(A);
      expect(M.kernel).toBe(want);
      M.dispose();
    }
  });
});

afterAll(() => {
  console.log('WebGPU SpMV worst |err|/bound (f32, c64) or |err|/scale (f64, c128) per kernel and dtype:\n' + [...worst].map(([k, w]) => `  ${k}: ${w.toExponential(2)}`).join('\n'));
});

describe('WebGPU SpMV, csr_vector paths and SELL built from CSR', () => {
  it('csr_vector with 8 and 32 threads per row, with and without subgroups; kernel "sell" on a CSR', async () => {
    const plain = await webgpuBackend({ disableFeatures: true });
    try {
      for (const be of [gpu, plain]) {
        for (const g of ['random-powerlaw-3000', 'sparse-empty-rows'] as const) {
          for (const dt of ['f32', 'f64'] as const) {
            const A = inDType(generated(g), dt);
            const xs = randomData(dt, A.cols, 7);
            const x = be.vector(dt, xs);
            const y = be.vector(dt, A.rows);
            for (const opts of [{ kernel: 'vector', threadsPerRow: 4 }, { kernel: 'vector', threadsPerRow: 8 }, { kernel: 'vector', threadsPerRow: 32 }, { kernel: 'sell' }] as const) {
              const M = be.upload(A, opts);
              expect(M.kernel).toBe(opts.kernel === 'sell' ? 'sell' : 'csr_vector');
              be.spmv(M, x, y, { alpha: 1.5 });
              compareRef(A, xs, null, 1.5, 0, await be.read(y));
              M.dispose();
            }
            x.dispose();
            y.dispose();
          }
        }
        expect(be.deviceErrors).toEqual([]);
      }
    } finally {
      plain.dispose();
    }
  });
});

describe('WebGPU SpMV, DIA with compact f64 values', () => {
  it('f64 values all exactly f32 go up as f32 (half the bytes), all integers in [-128, 127] as one byte each, and give the reference product; others, and one diagonal, as double-single', async () => {
    const P = DIAMatrix.fromCSR(generated('poisson2D-30'));
    const nz = P.data.findIndex((v) => v !== 0);
    const variant = (edit: (d: Float64Array) => void) => {
      const data = Float64Array.from(P.data);
      edit(data);
      return new DIAMatrix(P.rows, P.cols, 'f64', P.offsets, P.pitch, data);
    };
    // the byte's range ends (and the sign bit of each byte of a word: four neighbouring slots), a half, an integer past a byte, a value not exactly f32
    const ends = variant((d) => d.set([-128, 127, -1, 1, -128, 127, 0, -77], nz));
    const half = variant((d) => (d[nz] = 0.5));
    const wide = variant((d) => (d[nz] = 128));
    const low = variant((d) => (d[nz] = -129));
    const notF32 = variant((d) => (d[nz] = 0.1));
    const diagonal = new DIAMatrix(P.rows, P.cols, 'f64', Int32Array.of(0), P.pitch, new Float64Array(P.pitch).fill(0.25));
    const xs = randomData('f64', P.cols, 11);
    const y0 = randomData('f64', P.rows, 12);
    const cases = [[P, 'i8'], [ends, 'i8'], [half, 'f32'], [wide, 'f32'], [low, 'f32'], [notF32, 'e'], [diagonal, 'e']] as const;
    for (const [A, storage] of cases) {
      const M = gpu.upload(A);
      const part = M.data.main;
      if (part.kind !== 'dia') throw new Error(part.kind);
      expect([part.compact, part.int8]).toEqual([storage !== 'e', storage === 'i8']);
      // the value buffer: 1 byte a slot (to 16) as i8, 4 compact, 8 (double-single) otherwise
      expect(part.values.size).toBe(storage === 'i8' ? Math.ceil(A.data.length / 16) * 16 : (storage === 'f32' ? 4 : 8) * A.data.length);
      const x = gpu.vector('f64', xs);
      const y = gpu.vector('f64', y0);
      gpu.spmv(M, x, y, { alpha: 1.5, beta: -0.5 });
      compareRef(A.toCSR(), xs, y0, 1.5, -0.5, await gpu.read(y));
      for (const v of [M, x, y]) v.dispose();
    }
    expect(gpu.deviceErrors).toEqual([]);
  });

  // f32 and byte values are summed by Dot2 (wgsl/dia_f32_row.wgsl: error terms in f32, a bound that grows
  // as the square of the diagonals): 41 diagonals of random values, and rows whose sum cancels to
  // 2^-40 of their terms (a Laplacian's row sums, which are 0, against x = 1 + 2^-40·i)
  it('a wide band of f32 or byte values and rows that cancel: the reference product within the double-single bound', async () => {
    const n = 3000;
    const offsets = Int32Array.from({ length: 41 }, (_, d) => (d - 20) * (d % 3 === 0 ? 1 : 7)).sort();
    const band = (value: (i: number, d: number) => number) => {
      const data = new Float64Array(offsets.length * n);
      offsets.forEach((o, d) => {
        for (let i = 0; i < n; i++) if (i + o >= 0 && i + o < n) data[d * n + i] = value(i, d);
      });
      return new DIAMatrix(n, n, 'f64', offsets, n, data);
    };
    const r = randomData('f32', offsets.length * n, 31);
    const f32s = band((i, d) => r[d * n + i] * 2 ** ((i + d) % 9));
    const bytes = band((i, d) => Math.round(r[d * n + i] * 127.5 - 0.5));
    // every row sums to 0: the diagonal is minus the sum of the others
    const laplacian = band((i, d) => (offsets[d] === 0 ? 0 : -1 - ((i + d) % 3)));
    for (let i = 0; i < n; i++) {
      let s = 0;
      offsets.forEach((o, d) => (s += o === 0 ? 0 : laplacian.data[d * n + i]));
      laplacian.data[offsets.indexOf(0) * n + i] = -s;
    }
    const xs = randomData('f64', n, 32);
    const near = Float64Array.from({ length: n }, (_, i) => 1 + i * 2 ** -40);
    const cases = [[f32s, xs, 'f32'], [bytes, xs, 'i8'], [laplacian, near, 'i8']] as const;
    const worstSeen: string[] = [];
    for (const [A, xv, storage] of cases) {
      const M = gpu.upload(A);
      const part = M.data.main;
      if (part.kind !== 'dia') throw new Error(part.kind);
      expect([part.compact, part.int8]).toEqual([true, storage === 'i8']);
      const x = gpu.vector('f64', xv);
      const y = gpu.vector('f64', n);
      gpu.spmv(M, x, y);
      worstSeen.push(`${storage}: ${compareRef(A.toCSR(), xv, null, 1, 0, await gpu.read(y)).toExponential(2)}`);
      for (const v of [M, x, y]) v.dispose();
    }
    console.log(`Dot2 rows, worst |err|/scale: ${worstSeen.join(', ')}`);
    expect(gpu.deviceErrors).toEqual([]);
  });
});
