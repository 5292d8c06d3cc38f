/**
 * WebGpuBackend.uploadMany (the contents of several matrices streamed through two kept staging
 * buffers, Engine.stream) against upload(): for every kernel and dtype the same kernel, bytes and
 * products bit for bit (complex parts interleaved across pieces), with staging buffers of 16 KB so each array crosses many pieces and round
 * trips; f64 values in f32's top binade are split on the GPU (upload() splits them on the host), bit
 * for bit; a value f32 cannot hold, found by the GPU's split, is refused with upload()'s error, nothing
 * left resident.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isComplex } from '../src/dtype.js';
import { CSRMatrix } from '../src/formats/index.js';
import { WebGpuLimitError } from '../src/webgpu/errors.js';
import { streamBytes } from '../src/webgpu/encoding.js';
import type { HostMatrix, WebGpuBackend, WebGpuMatrix, WebGpuUploadOptions } from '../src/webgpu/index.js';
import { DTYPES, forKernel, generated, inDType, randomData, WEBGPU_KERNELS, webgpuBackend } from './webgpu-helpers.js';

let gpu: WebGpuBackend;
beforeAll(async () => {
  gpu = await webgpuBackend({ stagingBytes: 16384 });
});
afterAll(() => gpu?.dispose());

/** y = A·x and, where uploaded with transpose, y = Aᵀ·x, read back */
async function products(M: WebGpuMatrix, seed: number, transpose: boolean): Promise<number[][]> {
  const dt = M.dtype;
  const out: number[][] = [];
  for (const op of transpose ? (['N', 'T'] as const) : (['N'] as const)) {
    const [n, m] = op === 'N' ? [M.cols, M.rows] : [M.rows, M.cols];
    const x = gpu.vector(dt, randomData(dt, n, seed));
    const y = gpu.vector(dt, m);
    gpu.spmv(M, x, y, { op });
    out.push(Array.from(await gpu.read(y)));
    x.dispose();
    y.dispose();
  }
  return out;
}

async function sameAsUpload(list: { matrix: HostMatrix; options?: WebGpuUploadOptions }[]): Promise<void> {
  const many = await gpu.uploadMany(list);
  try {
    for (let i = 0; i < list.length; i++) {
      const one = gpu.upload(list[i].matrix, list[i].options);
      try {
        const what = `${i}: ${list[i].matrix.format} ${list[i].matrix.dtype}`;
        expect([many[i].kernel, many[i].bytes], what).toEqual([one.kernel, one.bytes]);
        const t = list[i].options?.transpose === true;
        expect(await products(many[i], 40 + i, t), what).toEqual(await products(one, 40 + i, t));
      } finally {
        one.dispose();
      }
    }
  } finally {
    for (const m of many) m.dispose();
  }
}

describe('WebGPU uploadMany', () => {
  for (const dt of DTYPES) {
    it(`every kernel, ${dt}: the same kernel, bytes and products as upload(), in one batch`, async () => {
      const list: { matrix: HostMatrix; options?: WebGpuUploadOptions }[] = [];
      // 24 000 entries: f64 values long enough for the GPU's split, 12 pieces of 16 KB each
      const A = inDType(generated('random-uniform-2000'), dt);
      // complex: two layouts (SwiftShader compiles and runs c128 slowly)
      const kernels = isComplex(dt) ? (['csr_row', 'hyb'] as const) : WEBGPU_KERNELS;
      for (const k of kernels) {
        const c = forKernel(A, k);
        if (typeof c !== 'string') list.push({ matrix: c.host, options: c.opts });
      }
      list.push({ matrix: inDType(generated('rect-701x257'), dt), options: { transpose: true } });
      expect(list.length).toBeGreaterThanOrEqual(kernels.length); // DIA would pad this matrix past the test's limit
      await sameAsUpload(list);
    });
  }

  it('f64 values at or past 2^127 that f32 holds: split on the GPU, the same product as upload() (which splits them on the host)', async () => {
    const A = generated('random-uniform-2000');
    const big = A.values.slice();
    const f32max = 2 ** 128 - 2 ** 104;
    big[big.length - 3] = 2 ** 127 * 1.5;
    big[5] = -(2 ** 127);
    big[9000] = f32max;
    big[9001] = -(f32max + 2 ** 102); // rounds to -f32max: f32 holds it
    const B = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, big);
    await sameAsUpload([{ matrix: A }, { matrix: B }, { matrix: A, options: { kernel: 'vector' } }]);
  });

  for (const [what, v] of [['1e39', 1e39], ['f32 max + half its ulp (rounds to Inf)', 2 ** 128 - 2 ** 103]] as const) {
    it(`a value beyond f32 (${what}) is refused with upload()'s error; nothing stays resident and the next batch works`, async () => {
      const A = generated('random-uniform-2000');
      const bad = A.values.slice();
      bad[bad.length - 2] = -v;
      const B = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, bad);
      let message = '';
      try {
        gpu.upload(B).dispose();
      } catch (e) {
        expect(e).toBeInstanceOf(WebGpuLimitError);
        message = (e as Error).message;
      }
      expect(message).toContain(String(-v));
      const before = gpu.bytesInUse;
      await expect(gpu.uploadMany([{ matrix: A }, { matrix: B }])).rejects.toThrow(message);
      expect(gpu.bytesInUse).toBe(before);
      await sameAsUpload([{ matrix: A }, { matrix: inDType(A, 'c128') }]);
    });
  }

  for (const dt of DTYPES) {
    it(`a CSR given as the transpose of an earlier one (transposeOf), ${dt}: its values copied on the GPU, not sent — the same kernel, bytes and products as upload()`, async () => {
      // P with f64 values whose double-single lo word is an f32 subnormal (2^-100·(1 + 2^-30): lo = 2^-130), copied bit for bit
      const base = inDType(generated('rect-701x257'), dt);
      const vals = base.values.slice();
      if (dt === 'f64') for (let k = 0; k < vals.length; k += 7) vals[k] = (k % 2 ? -1 : 1) * 2 ** -100 * (1 + 2 ** -30);
      const P = new CSRMatrix(base.rows, base.cols, dt, base.rowPtr, base.colIdx, vals);
      const R = P.transpose();
      const kernels = isComplex(dt) ? (['row'] as const) : (['row', 'vector', 'adaptive'] as const);
      for (const kernel of kernels) {
        const list: { matrix: HostMatrix; options?: WebGpuUploadOptions }[] = [{ matrix: P, options: { kernel } }, { matrix: generated('random-uniform-2000') }, { matrix: R, options: { kernel, transposeOf: 0 } }];
        await sameAsUpload(list);
        // the batch sends exactly R's values fewer bytes than without the hint
        const sent = async (l: typeof list) => {
          const s0 = gpu.stats.uploadBytes;
          const made = await gpu.uploadMany(l);
          for (const m of made) m.dispose();
          return gpu.stats.uploadBytes - s0;
        };
        const plain = list.map((e) => ({ ...e, options: { ...e.options, transposeOf: undefined } }));
        expect((await sent(plain)) - (await sent(list)), kernel).toBe(streamBytes(dt, R.values.length));
      }
    });
  }

  it('transposeOf: R sent as usual where it cannot be the transpose (shape, dtype, a later entry); one that is not refused', async () => {
    const P = generated('rect-701x257');
    const R = P.transpose();
    // not the transpose by shape or dtype, or naming itself or a later entry: values sent, products as upload()'s
    // (P as SELL, 'auto' for f64 without fewProducts: no CSR arrays to copy from)
    const row = { kernel: 'row' } as const;
    await sameAsUpload([{ matrix: P, options: row }, { matrix: P, options: { transposeOf: 0 } }, { matrix: R.astype('f32'), options: { transposeOf: 0 } }, { matrix: R, options: { transposeOf: 3 } }, { matrix: R, options: { transposeOf: 4 } }, { matrix: P }, { matrix: R, options: { transposeOf: 5 } }]);
    // R's shape and entry count but another pattern (one entry moved to a column P's row lacks): refused, nothing left resident
    const cols = R.colIdx.slice();
    const row0 = R.rowPtr[1] - R.rowPtr[0];
    expect(row0).toBeGreaterThan(0);
    const used = new Set(Array.from(cols.subarray(0, row0)));
    let free = 0;
    while (used.has(free)) free++;
    cols[row0 - 1] = free;
    const sorted = Array.from(cols.subarray(0, row0)).sort((a, b) => a - b);
    cols.set(sorted, 0);
    const vals = R.values.slice();
    const wrong = new CSRMatrix(R.rows, R.cols, 'f64', R.rowPtr, cols, vals);
    const before = gpu.bytesInUse;
    await expect(gpu.uploadMany([{ matrix: P, options: row }, { matrix: wrong, options: { transposeOf: 0 } }])).rejects.toThrow('is not its transpose');
    expect(gpu.bytesInUse).toBe(before);
  });

  it("the products' pipelines are made in the background while the contents stream", async () => {
    const be = await webgpuBackend({ stagingBytes: 16384 });
    try {
      const { engine, device } = be as unknown as { engine: { compiling: Set<string> }; device: GPUDevice };
      const made = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((c) => (c[0] as GPUComputePipelineDescriptor).label);
      const inBackground = vi.spyOn(device, 'createComputePipelineAsync');
      const now = vi.spyOn(device, 'createComputePipeline');
      const A = generated('random-uniform-2000').astype('f32');
      const [M] = await be.uploadMany([{ matrix: A, options: { kernel: 'row' } }]);
      expect(made(inBackground)).toEqual(['csr_row/f32//main']);
      for (let t = 0; engine.compiling.size > 0 && t < 2000; t++) await new Promise((r) => setTimeout(r, 5));
      const x = be.vector('f32', randomData('f32', A.cols, 3));
      const y = be.vector('f32', A.rows);
      be.spmv(M, x, y);
      const one = be.upload(A, { kernel: 'row' });
      const y1 = be.vector('f32', A.rows);
      be.spmv(one, x, y1);
      expect(Array.from(await be.read(y))).toEqual(Array.from(await be.read(y1)));
      expect(made(now)).not.toContain('csr_row/f32//main');
    } finally {
      be.dispose();
    }
  });
});
