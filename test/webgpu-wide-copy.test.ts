/**
 * An f32 matrix's double-single copy (the refinement's residual product, WebGpuBackend.wideOf) made
 * from its own f32 values (upload option `widen`), without astype('f64')'s host copy. DIA: the same
 * buffers as the copy uploaded from astype('f64') — kernel, compact and byte flags, offsets and values
 * byte for byte. CSR: the same arrays and kernel, but the row kernel where that copy runs SELL-C-σ
 * (whose per-row sums it makes in the same order). Either way the same products, bit for bit, which an
 * f64 product written here bounds; a device loss re-uploads it the same way. Values: small integers (a
 * stencil's bytes), fractions, −0, f32 subnormals, f32's largest, ±Inf, NaN (astype's DIA copy holds it
 * as f64: not compact), 128 (just past a byte); square and not; CSR rows short, long and empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRMatrix, DIAMatrix } from '../src/formats/index.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { Prng } from '../src/generators/prng.js';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import type { WebGpuMatrix } from '../src/webgpu/resident.js';
import { encodeInto } from '../src/webgpu/encoding.js';
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

/** y = A·x in plain f64 over the DIA's slots or the CSR's entries (the matrix's own definition), with Σ|aᵢⱼ·xⱼ| for the bound. */
function reference(D: DIAMatrix | CSRMatrix, x: Float64Array): { y: Float64Array; mag: Float64Array } {
  const y = new Float64Array(D.rows);
  const mag = new Float64Array(D.rows);
  if (D.format === 'csr') {
    for (let i = 0; i < D.rows; i++) {
      for (let k = D.rowPtr[i]; k < D.rowPtr[i + 1]; k++) {
        const p = D.values[k] * x[D.colIdx[k]];
        y[i] += p;
        mag[i] += Math.abs(p);
      }
    }
    return { y, mag };
  }
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

describe('f32 values encoded as double-single (their bits copied)', () => {
  it('are the split written out, hi = fround(v), lo = fround(v − hi), for random bit patterns and the specials', () => {
    const g = new Prng(21);
    const v = new Float32Array(20000);
    const bits = new Uint32Array(v.buffer);
    for (let k = 0; k < bits.length; k++) bits[k] = (g.next() * 2 ** 32) >>> 0;
    v.set([0, -0, Infinity, -Infinity, NaN, 2 ** -149, -(2 ** -126), 3.4028234663852886e38, 1, -1.5]);
    const out = new Float32Array(2 * v.length).fill(7);
    encodeInto('f64', v, out);
    for (let k = 0; k < v.length; k++) {
      const hi = Math.fround(v[k]);
      const lo = Number.isFinite(hi) ? Math.fround(v[k] - hi) : 0;
      expect(Object.is(out[2 * k], hi) || (Number.isNaN(hi) && Number.isNaN(out[2 * k])), `value ${k}: ${v[k]}`).toBe(true);
      expect(Object.is(out[2 * k + 1], lo), `value ${k}'s lo word`).toBe(true);
    }
    // c128's components alike; an offset view's
    const c = new Float32Array(9).subarray(1, 7);
    c.set([1.5, -0, NaN, Infinity, 2 ** -140, -3]);
    const oc = new Float32Array(16).subarray(2, 14).fill(5);
    encodeInto('c128', c, oc);
    expect(Array.from(oc)).toEqual([1.5, 0, -0, 0, NaN, 0, Infinity, 0, 2 ** -140, 0, -3, 0]);
    expect(Object.is(oc[2], -0)).toBe(true);
  });
});

describe("an f32 matrix's double-single copy from its own values (widen)", () => {
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
  // CSR: a stencil (the f64 copy runs SELL), uniform rows of 12 (SELL or vector), power-law rows
  // (adaptive), rectangular with empty rows; values as the DIA cases'
  const csr = (A: CSRMatrix, value: (k: number) => number) => new CSRMatrix(A.rows, A.cols, 'f32', A.rowPtr, A.colIdx, Float32Array.from(A.values, (_, k) => value(k)));
  const csrCases: [string, CSRMatrix][] = [
    ['CSR poisson3D(7)', poisson3D(7).astype('f32') as CSRMatrix],
    ['CSR uniform rows of 12, fractions', csr(randomMatrix({ rows: 2000, meanRowLength: 12, seed: 3 }), () => Math.fround(g.next() - 0.5))],
    ['CSR power-law rows', csr(randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4 }), (k) => (k % 11) - 5)],
    ['CSR rectangular, specials', csr(randomMatrix({ rows: 300, cols: 700, meanRowLength: 10, seed: 5 }), (k) => (k % 97 === 3 ? specials[(k >> 5) % specials.length] : Math.fround(g.next() * 3 - 1)))],
    ['CSR with empty rows', csr(CSRMatrix.fromTriplets(50, 50, 'f32', Int32Array.of(0, 0, 7, 49, 49), Int32Array.of(0, 9, 7, 0, 49), Float32Array.of(1, -2, 3, -0, 5)), (k) => [1, -2, 3, -0, 5][k])],
  ];
  for (const [what, D] of [...cases, ...csrCases] as [string, DIAMatrix | CSRMatrix][]) {
    it(what, async () => {
      const W = be.upload(D, { widen: true });
      const R = be.upload(D.astype('f64'));
      const parts = [W.data.main, R.data.main] as const;
      expect(W.dtype).toBe('f64');
      expect([W.rows, W.cols, W.nnz]).toEqual([R.rows, R.cols, R.nnz]);
      if (parts[0].kind === 'dia' && parts[1].kind === 'dia') {
        expect(W.kernel).toBe(R.kernel);
        expect([parts[0].compact, parts[0].int8]).toEqual([parts[1].compact, parts[1].int8]);
        expect(await bytesOf(parts[0].values)).toEqual(await bytesOf(parts[1].values));
        expect(await bytesOf(parts[0].offsets)).toEqual(await bytesOf(parts[1].offsets));
      } else if (parts[1].kind === 'sell') expect(W.kernel).toBe('csr_row');
      else {
        expect(W.kernel).toBe(R.kernel);
        if (parts[0].kind === 'dia' || parts[1].kind === 'dia' || parts[0].kind === 'hyb' || parts[1].kind === 'hyb' || parts[0].kind === 'ell' || parts[1].kind === 'ell') throw new Error('format changed');
        expect(await bytesOf(parts[0].values)).toEqual(await bytesOf(parts[1].values));
      }
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
      const D = dia(125, 125, [-7, 0, 7], (i, d) => (d === 1 ? 4 : -1) * (1 + (i % 2) / 4));
      const C = poisson3D(5).astype('f32') as CSRMatrix;
      const Ws = [b.upload(D, { widen: true }), b.upload(C, { widen: true })];
      const x = b.vector('f64', Float64Array.from({ length: 125 }, (_, i) => 1 + i / 7), { shadow: true });
      const y = b.vector('f64', 125);
      const before: Float64Array[] = [];
      for (const W of Ws) {
        b.spmv(W, x, y);
        before.push(Float64Array.from((await b.read(y)) as Float64Array));
      }
      const restored = new Promise<void>((res) => b.onContextRestored(res));
      b.loseDevice();
      await restored;
      const part = Ws[0].data.main;
      expect(part.kind === 'dia' && part.compact && !part.int8).toBe(true);
      expect(Ws.map((W) => [W.dtype, W.kernel])).toEqual([['f64', 'dia'], ['f64', 'csr_row']]);
      for (const [k, W] of Ws.entries()) {
        b.spmv(W, x, y);
        expect((await b.read(y)) as Float64Array).toEqual(before[k]);
      }
    } finally {
      b.dispose();
    }
  });

  it('is refused for what it does not fit', () => {
    const one = dia(20, 20, [0], () => 2);
    expect(() => be.upload(one, { widen: true })).toThrow(/internal: widen/);
    expect(() => be.upload(DIAMatrix.fromCSR(poisson3D(3)), { widen: true })).toThrow(/internal: widen/);
    expect(() => be.upload(poisson3D(3), { widen: true })).toThrow(/internal: widen/);
  });
});
