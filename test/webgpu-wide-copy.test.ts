/**
 * An f32 DIA matrix's double-single copy (the refinement's residual product, WebGpuBackend.wideOf) made
 * from its own f32 values (upload option `widen`), without astype('f64')'s host copy: the same buffers
 * as the copy uploaded from astype('f64') — kernel, compact and byte flags, offsets and values byte for
 * byte — so the same products, which an f64 product written here bounds; a device loss re-uploads it
 * the same way. Values: small integers (a stencil's bytes), fractions, −0, f32 subnormals, f32's largest,
 * ±Inf, NaN (astype's copy holds it as f64: not compact), 128 (just past a byte); square and not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIAMatrix } from '../src/formats/index.js';
import { poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import type { WebGpuMatrix } from '../src/webgpu/resident.js';
import { webgpuBackend } from './webgpu-helpers.js';

let be: WebGpuBackend;
beforeAll(async () => {
  be = await webgpuBackend();
});
afterAll(() => be?.dispose());

/** The raw bytes of a GPU buffer. */
async function bytesOf(buf: GPUBuffer): Promise<Uint8Array> {
  const engine = (be as unknown as { engine: { read(b: GPUBuffer, n: number): Promise<ArrayBuffer> } }).engine;
  return new Uint8Array(await engine.read(buf, buf.size));
}

/** y = A·x in plain f64 over the DIA's slots (the matrix's own definition), with Σ|aᵢⱼ·xⱼ| for the bound. */
function reference(D: DIAMatrix, x: Float64Array): { y: Float64Array; mag: Float64Array } {
  const y = new Float64Array(D.rows);
  const mag = new Float64Array(D.rows);
  D.offsets.forEach((o, d) => {
    for (let i = Math.max(0, -o); i < Math.min(D.rows, D.cols - o); i++) {
      const p = D.data[d * D.pitch + i] * x[i + o];
      y[i] += p;
      mag[i] += Math.abs(p);
    }
  });
  return { y, mag };
}

/** An f32 DIA of `rows` × `cols` on the given offsets, slot values from `value` (0 outside the matrix). */
function dia(rows: number, cols: number, offsets: number[], value: (i: number, d: number) => number): DIAMatrix {
  const pitch = Math.ceil(rows / 4) * 4;
  const data = new Float32Array(offsets.length * pitch);
  offsets.forEach((o, d) => {
    for (let i = Math.max(0, -o); i < Math.min(rows, cols - o); i++) data[d * pitch + i] = value(i, d);
  });
  return new DIAMatrix(rows, cols, 'f32', Int32Array.from(offsets), pitch, data);
}

describe("an f32 DIA's double-single copy from its own values (widen)", () => {
  const g = new Prng(13);
  const specials = [-0, 2 ** -140, -(2 ** -149), 3.4028234663852886e38, Infinity, -Infinity, NaN, 128, -128, 127];
  const cases: [string, DIAMatrix][] = [
    ["poisson3D(7) (a stencil's bytes)", DIAMatrix.fromCSR(poisson3D(7).astype('f32'))],
    ['fractions', dia(301, 301, [-17, -1, 0, 1, 17], () => Math.fround(g.next() - 0.5))],
    ['small integers but one 128', dia(200, 200, [-3, 0, 2], (i, d) => (i === 77 && d === 2 ? 128 : ((i + d) % 9) - 4))],
    ['small integers and −0', dia(200, 200, [-3, 0, 2], (i, d) => (i % 5 === 0 ? -0 : ((i * 3 + d) % 7) - 3))],
    ...specials.map((s): [string, DIAMatrix] => [`integers and one ${Object.is(s, -0) ? '-0' : s}`, dia(96, 96, [-5, 0, 4], (i, d) => (i === 40 && d === 1 ? s : (i % 3) - 1))]),
    ['rectangular 120 × 77', dia(120, 77, [-60, -2, 0, 3, 40], () => Math.round(20 * (g.next() - 0.5)))],
  ];
  for (const [what, D] of cases) {
    it(what, async () => {
      const W = be.upload(D, { widen: true });
      const R = be.upload(D.astype('f64'));
      const parts = [W.data.main, R.data.main] as const;
      expect(W.dtype).toBe('f64');
      expect([W.kernel, W.rows, W.cols, W.nnz]).toEqual([R.kernel, R.rows, R.cols, R.nnz]);
      if (parts[0].kind !== 'dia' || parts[1].kind !== 'dia') throw new Error('not DIA');
      expect([parts[0].compact, parts[0].int8]).toEqual([parts[1].compact, parts[1].int8]);
      expect(await bytesOf(parts[0].values)).toEqual(await bytesOf(parts[1].values));
      expect(await bytesOf(parts[0].offsets)).toEqual(await bytesOf(parts[1].offsets));
      // the products: the same bits; against plain f64 to double-single's rounding where finite
      const xs = Float64Array.from({ length: D.cols }, () => g.next() * 4 - 2);
      const x = be.vector('f64', xs);
      const product = async (M: WebGpuMatrix) => {
        const y = be.vector('f64', D.rows);
        be.spmv(M, x, y, { alpha: 1 });
        const out = (await be.read(y)) as Float64Array;
        y.dispose();
        return out;
      };
      const yw = await product(W);
      const yr = await product(R);
      for (let i = 0; i < D.rows; i++) expect(Object.is(yw[i], yr[i]) || (Number.isNaN(yw[i]) && Number.isNaN(yr[i])), `row ${i}: ${yw[i]} against ${yr[i]}`).toBe(true);
      const { y, mag } = reference(D, xs);
      for (let i = 0; i < D.rows; i++) {
        if (!Number.isFinite(mag[i]) || mag[i] > 1e30) continue;
        expect(Math.abs(yw[i] - y[i]), `row ${i}`).toBeLessThanOrEqual(2 ** -40 * mag[i] + 1e-38);
      }
      x.dispose();
      W.dispose();
      R.dispose();
    });
  }

  it('a device loss re-uploads it from the f32 values, as it was', async () => {
    const b = await webgpuBackend();
    try {
      const D = dia(150, 150, [-7, 0, 7], (i, d) => (d === 1 ? 4 : -1) * (1 + (i % 2) / 4));
      const W = b.upload(D, { widen: true });
      const x = b.vector('f64', Float64Array.from({ length: 150 }, (_, i) => 1 + i / 7), { shadow: true });
      const y = b.vector('f64', 150);
      b.spmv(W, x, y);
      const before = Float64Array.from((await b.read(y)) as Float64Array);
      const restored = new Promise<void>((res) => b.onContextRestored(res));
      b.loseDevice();
      await restored;
      expect(W.dtype).toBe('f64');
      const part = W.data.main;
      expect(part.kind === 'dia' && part.compact && !part.int8).toBe(true);
      b.spmv(W, x, y);
      expect((await b.read(y)) as Float64Array).toEqual(before);
    } finally {
      b.dispose();
    }
  });

  it('is refused for what it does not fit', () => {
    const one = dia(20, 20, [0], () => 2);
    expect(() => be.upload(one, { widen: true })).toThrow(/internal: widen/);
    expect(() => be.upload(DIAMatrix.fromCSR(poisson3D(3)), { widen: true })).toThrow(/internal: widen/);
  });
});
