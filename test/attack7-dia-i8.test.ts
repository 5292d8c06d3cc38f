/**
 * Seventh adversarial pass, the WebGPU path's one-byte DIA values (wgsl/dia_i8.wgsl, Dawn +
 * SwiftShader): an f64 DIA whose values are all integers in [-128, 127] keeps them as bytes, which
 * store −0 as +0. That cannot change a product: every SpMV kernel (CPU and GPU, every format) starts
 * a row's sum at +0, and +0 + (±0) is +0, so a zero entry's sign never reaches y (IEEE's sum of −0s
 * alone would be −0; y = α·(A·x) follows the kernels' +0 start, so α = −1 gives −0). Pinned: random
 * byte-valued DIA matrices (n not a multiple of 4, non-square, −0, the byte's ends, explicit zeros)
 * give the bits, zeros' signs included, of the GPU's CSR kernel over the same entries.
 * Found on the way: an f64 (double-single) −0 read back as +0 (the split of −0 is (−0, +0), and the
 * read-back joined hi + lo), so −1·(A·x) of a zero row was +0 on the GPU and −0 on the CPU path and in
 * f32; the join now keeps hi's sign for two zeros (src/double-single.ts joinDS, wgsl/ds_convert.wgsl).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CSRMatrix, DIAMatrix } from '../src/formats/index.js';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { GPU_SPLIT_FROM } from '../src/webgpu/encoding.js';
import { webgpuBackend } from './webgpu-helpers.js';

let gpu: WebGpuBackend;
let cpu: Runtime;
beforeAll(async () => {
  gpu = await webgpuBackend();
  cpu = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => {
  gpu?.dispose();
  cpu?.dispose();
});

/** The CSR of a DIA's in-range slots, every stored value kept (zeros and −0 included). */
function csrOfSlots(A: DIAMatrix): CSRMatrix {
  const rowPtr = [0];
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let d = 0; d < A.offsets.length; d++) {
      const j = i + A.offsets[d];
      if (j < 0 || j >= A.cols) continue;
      col.push(j);
      val.push(A.data[d * A.pitch + i]);
    }
    rowPtr.push(col.length);
  }
  return new CSRMatrix(A.rows, A.cols, 'f64', Int32Array.from(rowPtr), Int32Array.from(col), Float64Array.from(val));
}

async function gpuProduct(M: Parameters<WebGpuBackend['upload']>[0], opts: Parameters<WebGpuBackend['upload']>[1], x: Float64Array, y0: Float64Array, alpha: number, beta: number) {
  const m = gpu.upload(M, opts);
  const xv = gpu.vector('f64', x);
  const yv = gpu.vector('f64', y0);
  try {
    gpu.spmv(m, xv, yv, { alpha, beta });
    return { y: Float64Array.from(await gpu.read(yv)), part: m.data.main };
  } finally {
    for (const v of [m, xv, yv]) v.dispose();
  }
}

const up4 = (n: number) => Math.ceil(n / 4) * 4;
const sameBits = (a: number, b: number) => Object.is(a, b);

describe('WebGPU DIA i8: −0 stored as +0 changes no bit of y', () => {
  it('property: random byte-valued DIA (−0, ±127, −128, zeros) against the GPU CSR kernel of the same entries, bit for bit', async () => {
    const byte = fc.oneof(fc.constantFrom(-0, 0, 127, -128, -127, 1, -1), fc.integer({ min: -128, max: 127 }));
    const xval = fc.oneof(fc.constantFrom(-0, 0, 1, -1, 0.5), fc.double({ min: -1e3, max: 1e3, noNaN: true }));
    const arb = fc
      .record({ rows: fc.integer({ min: 1, max: 23 }), extra: fc.integer({ min: -3, max: 3 }), offs: fc.uniqueArray(fc.integer({ min: -6, max: 6 }), { minLength: 2, maxLength: 5 }), seed: fc.integer() })
      .chain(({ rows, extra, offs, seed }) => {
        const cols = Math.max(1, rows + extra);
        const offsets = offs.sort((a, b) => a - b);
        return fc.record({
          rows: fc.constant(rows),
          cols: fc.constant(cols),
          offsets: fc.constant(offsets),
          data: fc.array(byte, { minLength: offsets.length * up4(rows), maxLength: offsets.length * up4(rows) }),
          x: fc.array(xval, { minLength: cols, maxLength: cols }),
          y0: fc.array(xval, { minLength: rows, maxLength: rows }),
          alpha: fc.constantFrom(1, -1, 2.5),
          beta: fc.constantFrom(0, -1, 1),
          seed: fc.constant(seed),
        });
      });
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        // offsets that reach the matrix (the format refuses others)
        const offsets = c.offsets.filter((o) => o > -c.rows && o < c.cols);
        const keep = c.offsets.flatMap((o, d) => (offsets.includes(o) ? [d] : []));
        // one diagonal keeps full values (the solvers' D⁻¹)
        if (keep.length < 2) return;
        const pitch = up4(c.rows);
        // slots outside the matrix hold 0 (the format's rule)
        const data = Float64Array.from({ length: keep.length * pitch }, (_, k) => {
          const [d, i] = [Math.floor(k / pitch), k % pitch];
          const j = i + offsets[d];
          return i < c.rows && j >= 0 && j < c.cols ? c.data[keep[d] * pitch + i] : 0;
        });
        const A = new DIAMatrix(c.rows, c.cols, 'f64', Int32Array.from(offsets), pitch, data);
        const x = Float64Array.from(c.x);
        const y0 = Float64Array.from(c.y0);
        const dia = await gpuProduct(A, {}, x, y0, c.alpha, c.beta);
        if (dia.part.kind !== 'dia' || !dia.part.int8) throw new Error('expected the i8 DIA kernel');
        const csr = await gpuProduct(csrOfSlots(A), { kernel: 'row' }, x, y0, c.alpha, c.beta);
        for (let i = 0; i < c.rows; i++) {
          if (!sameBits(dia.y[i], csr.y[i])) throw new Error(`row ${i}: i8 DIA ${Object.is(dia.y[i], -0) ? '-0' : dia.y[i]}, CSR ${Object.is(csr.y[i], -0) ? '-0' : csr.y[i]}`);
        }
      }),
      { numRuns: 60, seed: 7 },
    );
    expect(gpu.deviceErrors).toEqual([]);
  });

  it('rows of −0 entries alone: +0 (α = 1) and −0 (α = −1) on the i8 kernel, the f32-valued one and the CPU path alike (fails with hi + lo as the f64 read-back)', async () => {
    const n = 6;
    const pitch = 8;
    // diagonals −1, 0, 1 all −0 but for row 5's diagonal (2); one variant with a half keeps f32 values
    const data = new Float64Array(3 * pitch).fill(-0);
    data[pitch + 5] = 2;
    const half = Float64Array.from(data);
    half[pitch + 5] = 2.5;
    const x = Float64Array.of(1, -1, 3, -0, 0, 1);
    for (const [vals, storage] of [[data, 'i8'], [half, 'f32']] as const) {
      const A = new DIAMatrix(n, n, 'f64', Int32Array.of(-1, 0, 1), pitch, vals);
      for (const alpha of [1, -1]) {
        const r = await gpuProduct(A, {}, x, new Float64Array(n).fill(NaN), alpha, 0);
        if (r.part.kind !== 'dia') throw new Error(r.part.kind);
        expect(r.part.int8).toBe(storage === 'i8');
        const h = cpu.upload(A, { format: 'dia' });
        const yc = await cpu.spmv(h, x, { alpha });
        h.dispose();
        for (let i = 0; i < 5; i++) {
          expect(Object.is(r.y[i], alpha > 0 ? 0 : -0), `${storage} α ${alpha} row ${i}`).toBe(true);
          expect(Object.is(yc[i], r.y[i]), `CPU α ${alpha} row ${i}`).toBe(true);
        }
        expect(r.y[5]).toBe(alpha * vals[pitch + 5]);
      }
    }
  });

  it('an f64 vector of ±0 reads back with its signs, joined on the host (short) and on the GPU (long)', async () => {
    for (const n of [5, GPU_SPLIT_FROM + 3]) {
      const v = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? -0 : i % 3 === 1 ? 0 : -(2 ** -149)));
      const g = gpu.vector('f64', v);
      const back = await gpu.read(g);
      g.dispose();
      for (let i = 0; i < n; i++) if (!Object.is(back[i], v[i])) throw new Error(`n ${n}: element ${i} ${v[i]} came back ${back[i]}`);
    }
  });
});
