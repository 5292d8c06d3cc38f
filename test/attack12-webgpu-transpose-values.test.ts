/**
 * R = Pᵀ's values copied from P's on the GPU (80fedf2, wgsl/csr_transpose_values.wgsl; uploadMany's
 * transposeOf) as a property (the twelfth attack pass): random P of 1–300 × 1–300 with empty rows and
 * columns, a row or column alone, no entries at all, values with −0, subnormals (f64 lo words below f32's
 * least normal), ±1e30, f32 and f64, every real kernel the batch takes — the products of R uploaded in a
 * batch after P equal those of R uploaded alone (the values sent), for a random x and for unit vectors
 * (R·eⱼ: P's row j, value by value, P's own values where they are normal). Dawn + SwiftShader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CSRMatrix } from '../src/formats/index.js';
import type { HostMatrix, WebGpuBackend, WebGpuMatrix, WebGpuUploadOptions } from '../src/webgpu/index.js';
import { randomData, webgpuBackend } from './webgpu-helpers.js';
import { streamBytes } from '../src/webgpu/encoding.js';
import { mulberry32 } from './random.js';

let gpu: WebGpuBackend;
beforeAll(async () => {
  gpu = await webgpuBackend({ stagingBytes: 16384 });
});
afterAll(() => gpu?.dispose());

async function product(M: WebGpuMatrix, x: number[], op: 'N' | 'T' = 'N'): Promise<number[]> {
  const xv = gpu.vector(M.dtype, x);
  const y = gpu.vector(M.dtype, op === 'N' ? M.rows : M.cols);
  gpu.spmv(M, xv, y, { op });
  const out = Array.from(await gpu.read(y));
  xv.dispose();
  y.dispose();
  return out;
}

const SPECIAL = [-0, 2 ** -100 * (1 + 2 ** -30), -(2 ** -140), 1e30, -1e30, 3.5, 2 ** -126];

function randomP(m: number, k: number, density: number, rnd: () => number, dt: 'f32' | 'f64'): CSRMatrix {
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  const emptyCol = Math.floor(rnd() * k);
  for (let i = 0; i < m; i++) {
    if (rnd() < 0.15) {
      rowPtr.push(colIdx.length);
      continue;
    }
    for (let j = 0; j < k; j++) {
      if (j === emptyCol || rnd() >= density) continue;
      colIdx.push(j);
      const v = rnd() < 0.2 ? SPECIAL[Math.floor(rnd() * SPECIAL.length)] : rnd() - 0.5;
      values.push(dt === 'f32' ? Math.fround(v) : v);
    }
    rowPtr.push(colIdx.length);
  }
  return new CSRMatrix(m, k, dt, Int32Array.from(rowPtr), Int32Array.from(colIdx), dt === 'f32' ? Float32Array.from(values) : Float64Array.from(values));
}

describe('attack12: R = Pᵀ values copied on the GPU', () => {
  it('property: random P (empty rows and columns, special values), f32 and f64, row / vector / adaptive kernels: R from the batch multiplies as R uploaded alone', { timeout: 300000 }, async () => {
    const shape = fc.record({
      m: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 300 })),
      k: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 300 })),
      density: fc.constantFrom(0, 0.01, 0.05, 0.3),
      seed: fc.integer(),
      dt: fc.constantFrom('f32' as const, 'f64' as const),
      kernel: fc.constantFrom('row' as const, 'vector' as const, 'adaptive' as const),
    });
    let copied = 0;
    await fc.assert(
      fc.asyncProperty(shape, async ({ m, k, density, seed, dt, kernel }) => {
        const rnd = mulberry32(seed);
        const P = randomP(m, k, density, rnd, dt);
        const R = P.transpose();
        const list: { matrix: HostMatrix; options?: WebGpuUploadOptions }[] = [{ matrix: P, options: { kernel } }, { matrix: R, options: { kernel, transposeOf: 0 } }];
        const sent0 = gpu.stats.uploadBytes;
        const [gp, gr] = await gpu.uploadMany(list);
        const sent = gpu.stats.uploadBytes - sent0;
        const alone = gpu.upload(R, { kernel });
        try {
          const label = `${m}×${k} ${dt} ${kernel}, ${P.nnz} entries`;
          const x = randomData(dt, R.cols, seed & 0xffff) as unknown as number[];
          expect(await product(gr, Array.from(x)), label).toEqual(await product(alone, Array.from(x)));
          // R·eⱼ: R's column j, P's row j, value by value (what the GPU's arithmetic keeps of each: f32
          // flushes subnormals) against R uploaded alone, and against P's row where the values are normal
          for (const j of [0, Math.floor(m / 2), m - 1]) {
            const e = new Array(R.cols).fill(0);
            e[j] = 1;
            const col = await product(gr, e);
            expect(col, `${label}: P's row ${j}`).toEqual(await product(alone, e));
            for (let q = P.rowPtr[j]; q < P.rowPtr[j + 1]; q++) {
              const v = P.values[q];
              // (double-single holds about 48 of f64's 53 bits, its lo word flushed below 2^-126)
              if (Math.abs(v) >= 2 ** -120 || v === 0) expect(Math.abs(col[P.colIdx[q]] - v), `${label}: P[${j}, ${P.colIdx[q]}]`).toBeLessThanOrEqual(dt === 'f32' ? 0 : 2 ** -44 * Math.abs(v) + 2 ** -126);
            }
          }
          // the values were copied, not sent: the same batch without the hint sends R's values more
          const s1 = gpu.stats.uploadBytes;
          for (const made of await gpu.uploadMany(list.map((e) => ({ ...e, options: { ...e.options, transposeOf: undefined } })))) made.dispose();
          if (gpu.stats.uploadBytes - s1 - sent === streamBytes(dt, R.values.length) && R.nnz > 0) copied++;
        } finally {
          alone.dispose();
          gp.dispose();
          gr.dispose();
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 60), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
    expect(copied).toBeGreaterThan(10);
  });
});
