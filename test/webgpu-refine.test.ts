/**
 * Issue 20's fixed costs of a WebGPU solve, in Node on Dawn + SwiftShader: f64 data split into
 * double-single on the GPU and joined back into f64 there (bit for bit the host's split and join,
 * wgsl/ds_convert.wgsl, over the whole f64 range and on arbitrary pairs of words), the pool of solver
 * work vectors (repeated solves reuse buffers, give a fresh runtime's answers, keep no stale data
 * between lengths, and are freed), and iterative refinement kept on the GPU (src/webgpu/refine.ts):
 * f32 storage reaching 1e-10 by the true residual of an independent f64 product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix, ELLMatrix, SELLMatrix } from '../src/formats/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import type { WebGpuBackend } from '../src/webgpu/backend.js';
import { WebGpuLimitError } from '../src/webgpu/errors.js';
import type { WebGpuVector } from '../src/webgpu/resident.js';
import { joinDS } from '../src/double-single.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { matvec, relDiff, trueResidual } from './solve-reference.js';

pointDawnAtSwiftShader();

/** The host's double-single split, written out: hi = fround(v), lo = fround(v − hi) (±Inf, NaN: (v, 0)). */
function hostSplit(v: Float64Array): Float32Array {
  const out = new Float32Array(2 * v.length);
  for (let i = 0; i < v.length; i++) {
    const hi = Math.fround(v[i]);
    out[2 * i] = hi;
    out[2 * i + 1] = Number.isFinite(hi) ? Math.fround(v[i] - hi) : 0;
  }
  return out;
}

function rhs(n: number, seed: number): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() - 0.3);
}

let rt: Runtime;
let be: WebGpuBackend;
/** a second runtime, whose first solve of each matrix is the reference for repeated solves in rt */
let other: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
  other = await createRuntime({ backend: 'webgpu', workers: 1 });
  const p = rt.pathById('webgpu') as WebGpuPath;
  await p.prepare();
  be = p.backend;
});
afterAll(() => {
  rt?.dispose();
  other?.dispose();
});

/** The raw f32 words of a vector's buffer. */
async function words(v: { buffer: GPUBuffer; bytes: number }): Promise<Uint32Array> {
  const engine = (be as unknown as { engine: { read(b: GPUBuffer, n: number): Promise<ArrayBuffer> } }).engine;
  return new Uint32Array(await engine.read(v.buffer, v.bytes));
}

describe('f64 data split on the GPU', () => {
  it('is the host split bit for bit: ties, carries into the exponent, signs, 0, ±Inf, NaN, the range ends', async () => {
    const g = new Prng(3);
    const n = 6000;
    const v = new Float64Array(n);
    const bits = new Uint32Array(v.buffer);
    for (let i = 0; i < n; i++) {
      const e = 1023 + Math.floor(g.next() * 187) - 60; // 2^-60 … below 2^127
      bits[2 * i + 1] = (g.next() < 0.5 ? 0x80000000 : 0) | (e << 20) | Math.floor(g.next() * 0x100000);
      bits[2 * i] = Math.floor(g.next() * 0x100000000);
      // every fourth: the 29 bits below hi exactly half an ulp (a tie), either parity of hi
      if (i % 4 === 1) bits[2 * i] = (bits[2 * i] & 0xe0000000) | 0x10000000;
      // every fourth: all ones below the top bit, so hi rounds up into the next binade
      if (i % 4 === 2) {
        bits[2 * i + 1] |= 0xfffff;
        bits[2 * i] = 0xffffffff;
      }
    }
    v.set([0, -0, Infinity, -Infinity, NaN, 2 ** -60, -(2 ** -60), 1.7e38, -(2 ** 127 - 2 ** 80), 1, -1, 1 / 3, Math.PI], 0);
    const d0 = be.stats.dispatches;
    const x = be.vector('f64', v);
    expect(be.stats.dispatches, 'split on the GPU').toBe(d0 + 1);
    expect(Array.from(await words(x))).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
    // writeVector into an existing (pooled) vector takes the same route
    const y = be.scratchVector('f64', n);
    be.writeVector(y, v);
    expect(Array.from(await words(y))).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
    // c128: every component alike
    const z = be.vector('c128', v);
    expect(Array.from(await words(z))).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
    for (const w of [x, y, z]) w.dispose();
  });

  it('over the whole f64 range: f32 subnormals and underflow, f64 subnormals, signed zeros, ties at 2^-149', async () => {
    const g = new Prng(5);
    const n = 6000;
    const v = new Float64Array(n);
    const bits = new Uint32Array(v.buffer);
    for (let i = 0; i < n; i++) {
      // exponents 2^-200 … 2^-100 (hi or lo subnormal, or both zero), and f64 subnormals
      const e = i % 10 === 0 ? 0 : 1023 - 100 - Math.floor(g.next() * 101);
      bits[2 * i + 1] = (g.next() < 0.5 ? 0x80000000 : 0) | (e << 20) | Math.floor(g.next() * 0x100000);
      bits[2 * i] = Math.floor(g.next() * 0x100000000);
      // every seventh: a tie at a subnormal rounding point (the bits below it exactly half)
      if (i % 7 === 3) bits[2 * i] = 0;
    }
    v.set([2 ** -149, 2 ** -150, -(2 ** -150), 3 * 2 ** -151, 2 ** -150 + 2 ** -200, 2 ** -126, 2 ** -126 - 2 ** -160, -0, 5e-324, -5e-324, 1e-30, 2 ** 127 - 2 ** 90], 0);
    const x = be.vector('f64', v);
    expect(Array.from(await words(x))).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
    x.dispose();
  });

  it("f32 max's binade goes through the host, and what f32 cannot hold is refused (on refinement's unchecked upload: after its norm)", async () => {
    const v = new Float64Array(5000).fill(1.5);
    v[9] = 3.4028234663852886e38; // f32 max: its binade stays on the host
    v[10] = -0;
    const d0 = be.stats.dispatches;
    const x = be.vector('f64', v);
    expect(be.stats.dispatches, 'split on the host').toBe(d0);
    expect(Array.from(await words(x))).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
    x.dispose();
    v[11] = 1e39;
    expect(() => be.vector('f64', v)).toThrow(WebGpuLimitError);
    // the unchecked upload makes it ±Inf (and f32 max's binade is split on the GPU too, bit for bit)
    const y = be.scratchVector('f64', 5000);
    be.writeVector(y, v, { deferRangeCheck: true });
    const w = await words(y);
    const want = new Uint32Array(hostSplit(v.map((t) => (t === 1e39 ? Infinity : t))).buffer);
    expect(Array.from(w)).toEqual(Array.from(want));
    be.recycle(y);
    // a solve scales such a b into range first (solveWithTrueResidual: ‖b‖ outside 2^±16), so f32's
    // range does not limit it; an x0 beyond it is no start (the far-start rule, as on the CPU path: the
    // solve runs from 0), and the vectors of the refused upload are given back
    const A = poisson2D(71); // 5041 rows: b long enough for the GPU split
    const b = rhs(A.rows, 3);
    b[100] = -1e39;
    const h = rt.upload(A);
    await rt.spmv(h, rhs(A.rows, 4)); // A on the path
    be.freeScratch();
    const held = be.bytesInUse;
    const big = await rt.cg(h, b, { tol: 1e-8 });
    expect(big.reason).toBe('converged');
    expect(trueResidual(A, big.x, b)).toBeLessThanOrEqual(1e-8);
    b[100] = 1;
    const x0 = new Float64Array(A.rows);
    x0[7] = 1e39;
    const far = await rt.cg(h, b, { tol: 1e-8, x0 });
    const zero = await rt.cg(h, b, { tol: 1e-8 });
    expect(far.reason).toBe('converged');
    expect(trueResidual(A, far.x, b)).toBeLessThanOrEqual(1e-8);
    expect([far.iterations, Array.from(far.x)]).toEqual([zero.iterations, Array.from(zero.x)]);
    // nothing held but the pool's vectors
    be.freeScratch();
    expect(be.bytesInUse).toBe(held);
    h.dispose();
  });
});

describe('f64 matrix values split on the GPU', () => {
  it('CSR, SELL, ELL and DIA values (f64, c128) are the host split bit for bit, with one split dispatch each; a value f32 cannot hold is still refused', async () => {
    // values over many binades, within f32's range, ≥ 4096 components
    const g = new Prng(11);
    const A = poisson2D(40); // 1600 rows, 7840 entries
    const scaled = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v) => v * 2 ** Math.floor(g.next() * 200 - 100) * (1 + g.next())));
    const raw = (M: { data: { main: { values?: GPUBuffer } } }, bytes: number) => words({ buffer: M.data.main.values!, bytes });
    for (const [name, host, values] of [
      ['csr', scaled, scaled.values],
      ['sell', SELLMatrix.fromCSR(scaled, { sliceHeight: 32 }), null],
      ['ell', ELLMatrix.fromCSR(scaled), null],
      ['dia', DIAMatrix.fromCSR(scaled), null],
      ['c128 csr', scaled.astype('c128'), null],
    ] as const) {
      const v = (values ?? (host as { values?: Float64Array; data?: Float64Array }).values ?? (host as { data: Float64Array }).data) as Float64Array;
      const d0 = be.stats.dispatches;
      const M = be.upload(host, name.endsWith('csr') ? { kernel: 'row' } : {});
      expect(be.stats.dispatches - d0, name).toBe(1);
      expect(Array.from(await raw(M as never, v.length * 8)), name).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
      M.dispose();
    }
    // fewProducts (a multigrid level's operator): CSR as it is, no SELL-C-σ conversion; the same product
    const sell = be.upload(scaled, {});
    const few = be.upload(scaled, { fewProducts: true });
    expect([sell.data.main.kind, few.data.main.kind]).toEqual(['sell', 'csr_row']);
    const xs = rhs(A.rows, 12);
    const want = matvec(scaled, xs);
    for (const M of [sell, few]) {
      const x = be.vector('f64', xs);
      const y = be.vector('f64', A.rows);
      be.spmv(M, x, y);
      expect(relDiff(Float64Array.from(await be.read(y)), want)).toBeLessThanOrEqual(1e-13);
      x.dispose();
      y.dispose();
      M.dispose();
    }
    const big = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v, k) => (k === 77 ? 1e39 : v)));
    expect(() => be.upload(big, { kernel: 'row' })).toThrow(WebGpuLimitError);
  });
});

describe('one pass writes an upload into the mapped range', () => {
  /** Runs fn with every buffer the engine creates recorded: [buffer, destroyed]. */
  function watchBuffers<T>(fn: () => T): { out: T | Error; made: { destroyed: boolean }[] } {
    const device = (be as unknown as { engine: { device: GPUDevice } }).engine.device;
    const create = device.createBuffer;
    const made: { destroyed: boolean }[] = [];
    device.createBuffer = (d: GPUBufferDescriptor) => {
      const b = create.call(device, d);
      const m = { destroyed: false };
      made.push(m);
      const destroy = b.destroy;
      b.destroy = () => {
        m.destroyed = true;
        destroy.call(b);
      };
      return b;
    };
    try {
      return { out: fn(), made };
    } catch (e) {
      return { out: e as Error, made };
    } finally {
      device.createBuffer = create;
    }
  }

  it("f32 max's binade at the first or last entry turns the fused copy into the host split (same bits); 1e39 there is refused and its buffer destroyed", async () => {
    const g = new Prng(5);
    const base = Float64Array.from({ length: 6000 }, () => (g.next() - 0.5) * 2 ** Math.floor(g.next() * 200 - 100));
    const A = poisson2D(40); // 7840 entries
    const vals = Float64Array.from(A.values, (v) => v * (1 + g.next()));
    for (const at of [0, -1]) {
      for (const [bad, refused] of [[3.4028234663852886e38, false], [-(2 ** 127), false], [1e39, true], [-Infinity, false]] as const) {
        const label = `${bad} at ${at}`;
        // a vector (f64, and c128: the same components) and a CSR matrix's values
        for (const dt of ['f64', 'c128'] as const) {
          const v = base.slice();
          v[at < 0 ? v.length - 1 : 0] = bad;
          const d0 = be.stats.dispatches;
          const { out, made } = watchBuffers(() => be.vector(dt, v));
          if (refused) {
            expect(out, label).toBeInstanceOf(WebGpuLimitError);
            expect((out as Error).message, label).toMatch(/outside the f32 range/);
            expect(made.map((m) => m.destroyed), label).toEqual([true]);
            continue;
          }
          const x = out as WebGpuVector;
          // ±Inf alone leaves the split to the GPU; 2^127 and beyond make the host split
          expect(be.stats.dispatches - d0, label).toBe(bad === -Infinity ? 1 : 0);
          expect(Array.from(await words(x)), `${label} ${dt}`).toEqual(Array.from(new Uint32Array(hostSplit(v).buffer)));
          x.dispose();
        }
        const m = vals.slice();
        m[at < 0 ? m.length - 1 : 0] = bad;
        const csr = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, m);
        const { out, made } = watchBuffers(() => be.upload(csr, { kernel: 'row' }));
        if (refused) {
          expect(out, label).toBeInstanceOf(WebGpuLimitError);
          expect(made.length > 0 && made.every((b) => b.destroyed), label).toBe(true);
          continue;
        }
        const M = out as ReturnType<typeof be.upload>;
        const got = await words({ buffer: (M.data.main as { values: GPUBuffer }).values, bytes: m.length * 8 });
        expect(Array.from(got), label).toEqual(Array.from(new Uint32Array(hostSplit(m).buffer)));
        M.dispose();
      }
    }
  });

  it('f32 and c64 data from a plain array or a Float64Array: the rounding Float32Array.from gives', async () => {
    const g = new Prng(6);
    const v = Array.from({ length: 5000 }, () => (g.next() - 0.5) * 1e3 + 1e-9);
    v[3] = 1e39; // f32 and c64 round it to Inf, as they always did
    for (const dt of ['f32', 'c64'] as const) {
      for (const data of [v, Float64Array.from(v)]) {
        const x = be.vector(dt, data);
        expect(Array.from(await words(x)), dt).toEqual(Array.from(new Uint32Array(Float32Array.from(v).buffer)));
        x.dispose();
      }
    }
  });
});

/** The host's join of double-single words (src/double-single.ts's joinDS) as IEEE f64 values. */
function hostJoin(w: Uint32Array): Float64Array {
  const f = new Float32Array(w.buffer, w.byteOffset, w.length);
  return Float64Array.from({ length: w.length / 2 }, (_, i) => joinDS(f[2 * i], f[2 * i + 1]));
}

/** An f64 vector holding the given double-single words as they are. */
function rawVector(w: Uint32Array): WebGpuVector {
  const v = be.scratchVector('f64', w.length / 2);
  (be as unknown as { engine: { write(b: GPUBuffer, d: ArrayBufferView): void } }).engine.write(v.buffer, w);
  return v;
}

/** f64 arrays equal bit for bit (any NaN equal to any NaN). */
function expectBits(got: Float64Array, want: Float64Array): void {
  expect(got.length).toBe(want.length);
  const g = new Uint32Array(got.buffer, got.byteOffset, 2 * got.length);
  const h = new Uint32Array(want.buffer, want.byteOffset, 2 * want.length);
  const bad: string[] = [];
  for (let i = 0; i < got.length && bad.length < 5; i++) {
    const same = Number.isNaN(want[i]) ? Number.isNaN(got[i]) : g[2 * i] === h[2 * i] && g[2 * i + 1] === h[2 * i + 1];
    if (!same) bad.push(`${i}: ${got[i]} for ${want[i]}`);
  }
  expect(bad).toEqual([]);
}

describe('double-single read back joined on the GPU', () => {
  it('is the host join bit for bit on any pair of f32 words: unnormalized, subnormal, signed zeros, far apart, ±Inf, NaN', async () => {
    const g = new Prng(11);
    const n = 8000;
    const w = new Uint32Array(2 * n);
    const word = (): number => {
      const t = g.next();
      const sign = g.next() < 0.5 ? 0x80000000 : 0;
      const frac = Math.floor(g.next() * 0x800000);
      // mostly normal exponents, some subnormal, some zero, a few ±Inf / NaN
      const e = t < 0.7 ? 1 + Math.floor(g.next() * 254) : t < 0.85 ? 0 : t < 0.95 ? 0 : 255;
      return (sign | (e << 23) | (t >= 0.85 && t < 0.95 ? 0 : frac)) >>> 0;
    };
    for (let i = 0; i < n; i++) {
      w[2 * i] = word();
      w[2 * i + 1] = word();
      const f = new Float32Array(w.buffer, 8 * i, 2);
      // every third: lo near hi's last bits (a normalized pair, or one bit off it), to exercise ties and carries
      if (i % 3 === 0 && Number.isFinite(f[0]) && f[0] !== 0) f[1] = Math.fround(f[0] * 2 ** -(24 + Math.floor(g.next() * 6)) * (g.next() < 0.5 ? -1 : 1));
      // every fifth: lo 2^-29 … 2^-40 of hi (beyond 53 bits of the sum: rounding with a sticky bit)
      if (i % 5 === 0 && Number.isFinite(f[0])) f[1] = Math.fround(f[0] * (1 + g.next()) * 2 ** -(29 + Math.floor(g.next() * 12)));
      // every seventh: an exact tie of the f64 rounding (lo = half an f64 ulp of hi, signs mixed)
      if (i % 7 === 0 && Number.isFinite(f[0]) && f[0] !== 0) f[1] = Math.fround(f[0] * 2 ** -53 * (g.next() < 0.5 ? -1 : 1));
    }
    const pairs = [[0, 0], [-0, -0], [-0, 0], [0, -0], [1, -1], [-1, 1], [Infinity, -Infinity], [-Infinity, NaN], [1, Infinity], [1, NaN], [2 ** -149, -(2 ** -149)], [2 ** -149, 2 ** -149], [3.4028234663852886e38, 3.4028234663852886e38], [1, 2 ** -149], [-1, 2 ** -149], [1 + 2 ** -23, -(2 ** -53)], [1, 2 ** -53], [1, -(2 ** -54)]];
    new Float32Array(w.buffer).set(pairs.flat(), 0);
    const v = rawVector(w);
    const d0 = be.stats.dispatches;
    const got = (await be.read(v)) as Float64Array;
    expect(be.stats.dispatches - d0, 'joined on the GPU').toBe(1);
    expect(got).toBeInstanceOf(Float64Array);
    expectBits(got, hostJoin(w));
    // c128: every component alike
    const c = be.vector('c128', n / 2);
    (be as unknown as { engine: { write(b: GPUBuffer, d: ArrayBufferView): void } }).engine.write(c.buffer, w);
    expectBits((await be.read(c)) as Float64Array, hostJoin(w));
    be.recycle(v);
    c.dispose();
  });

  it('round trip: f64 data split and joined on the GPU is the host round trip, Inf and NaN and signed zeros included', async () => {
    const g = new Prng(12);
    const v = Float64Array.from({ length: 5000 }, (_, i) => (g.next() - 0.5) * 2 ** (Math.floor(g.next() * 300) - 170) * (i % 2 ? 1 : -1));
    v.set([0, -0, Infinity, -Infinity, NaN, 1e-320, -1e-320, 2 ** -150, 1 / 3, -Math.PI, 3e38], 0);
    const x = be.vector('f64', v);
    const got = (await be.read(x)) as Float64Array;
    expectBits(got, Float64Array.from(v, (t) => joinDS(Math.fround(t), Number.isFinite(Math.fround(t)) ? Math.fround(t - Math.fround(t)) : 0)));
    x.dispose();
  });
});

describe('solver work vectors from a pool', () => {
  it('repeated solves create no buffers, give what the first solve in another runtime gives, and keep nothing between lengths', async () => {
    const A1 = poisson2D(8);
    const A2 = poisson2D(6);
    const b1 = rhs(A1.rows, 1);
    const b2 = rhs(A2.rows, 2);
    const h1 = rt.upload(A1);
    const h2 = rt.upload(A2);
    const first = await rt.cg(h1, b1, { tol: 1e-7 });
    const bytes = be.bytesInUse;
    // no GPU buffer at all is made: vectors, the CG state and its partial sums, staging all kept
    const device = (be as unknown as { engine: { device: GPUDevice } }).engine.device;
    const create = device.createBuffer;
    let made = 0;
    device.createBuffer = (d: GPUBufferDescriptor) => (made++, create.call(device, d));
    const again = await rt.cg(h1, b1, { tol: 1e-7 });
    device.createBuffer = create;
    expect(made).toBe(0);
    expect(be.bytesInUse).toBe(bytes);
    expect(Array.from(again.x)).toEqual(Array.from(first.x));
    // another length, another right-hand side, then the first again: each as another runtime's first solve computes it
    const second = await rt.cg(h2, b2, { tol: 1e-7 });
    const third = await rt.cg(h1, b1, { tol: 1e-7 });
    // the first solve of each in another runtime
    const f1 = await other.cg(other.upload(A1), b1, { tol: 1e-7 });
    const f2 = await other.cg(other.upload(A2), b2, { tol: 1e-7 });
    expect(Array.from(third.x)).toEqual(Array.from(f1.x));
    expect(Array.from(second.x)).toEqual(Array.from(f2.x));
    expect([third.iterations, second.iterations]).toEqual([f1.iterations, f2.iterations]);
    expect(trueResidual(A2, second.x, b2)).toBeLessThanOrEqual(1e-7);
    // the pool holds what the solves gave back; freeScratch frees it
    const held = be.bytesInUse;
    be.freeScratch();
    expect(be.bytesInUse).toBeLessThan(held);
    const after = be.bytesInUse;
    h1.dispose();
    h2.dispose();
    expect(be.bytesInUse).toBeLessThan(after);
  });

  it("Jacobi's D⁻¹ is uploaded once per matrix and freed with it; its solves match another runtime's first", async () => {
    // a diagonal that is not constant (a constant one runs as none: no D⁻¹)
    const P = poisson2D(7);
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, Float64Array.from(P.values));
    for (let k = A.rowPtr[3]; k < A.rowPtr[4]; k++) if (A.colIdx[k] === 3) A.values[k] = 5;
    const b = rhs(A.rows, 8);
    const h = rt.upload(A);
    const first = await rt.cg(h, b, { tol: 1e-7, preconditioner: 'jacobi' });
    const bytes = be.bytesInUse;
    const uploaded = be.stats.uploadBytes;
    const again = await rt.cg(h, b, { tol: 1e-7, preconditioner: 'jacobi' });
    expect(be.bytesInUse).toBe(bytes);
    // b (n double-single values) and the CG state (a few hundred bytes) went up again, not D⁻¹ (n more)
    expect(be.stats.uploadBytes - uploaded).toBeLessThan(A.rows * 8 + 1024);
    expect(Array.from(again.x)).toEqual(Array.from(first.x));
    const f = await other.cg(other.upload(A), b, { tol: 1e-7, preconditioner: 'jacobi' });
    expect(Array.from(again.x)).toEqual(Array.from(f.x));
    expect(trueResidual(A, again.x, b)).toBeLessThanOrEqual(1e-7);
    be.freeScratch();
    const held = be.bytesInUse;
    h.dispose();
    // the matrix, and its D⁻¹ with it
    const matrixBytes = held - be.bytesInUse;
    const D = rt.upload(A); // the same size again, to compare: its copy on the path without D⁻¹
    await rt.spmv(D, b);
    const withoutD = be.bytesInUse - (held - matrixBytes);
    expect(matrixBytes).toBeGreaterThan(withoutD);
    D.dispose();
  });

  it("the runtime's kept copies of b: concurrent and back-to-back solves each solve their own b, which stays as the caller gave it", async () => {
    const A = poisson2D(6);
    const h = rt.upload(A);
    const bs = [1, 2].map((k) => rhs(A.rows, 20 + k));
    const given = bs.map((b) => Float64Array.from(b));
    const hOther = other.upload(A);
    const want = [];
    for (const b of bs) want.push(await other.cg(hOther, b, { tol: 1e-9 }));
    const got = await Promise.all(bs.map((b) => rt.cg(h, b, { tol: 1e-9 })));
    for (let k = 0; k < bs.length; k++) expect(Array.from(got[k].x)).toEqual(Array.from(want[k].x));
    const seq = [];
    for (const b of [...bs].reverse()) seq.push(await rt.cg(h, b, { tol: 1e-9 }));
    seq.reverse();
    for (let k = 0; k < bs.length; k++) expect(Array.from(seq[k].x)).toEqual(Array.from(want[k].x));
    expect(bs).toEqual(given);
    h.dispose();
    hOther.dispose();
  });

  it('read-backs through kept staging buffers return each vector its own values, also concurrently', async () => {
    const a = be.vector('f32', Float32Array.from({ length: 3000 }, (_, i) => i));
    const b = be.vector('f32', Float32Array.from({ length: 3000 }, (_, i) => -i));
    for (let k = 0; k < 3; k++) {
      const [ra, rb] = await Promise.all([be.read(a), be.read(b)]);
      expect([ra[2999], rb[2999], ra[5], rb[5]]).toEqual([2999 * 2 ** k, -2999, 5 * 2 ** k, -5]);
      be.scal(2, a);
      expect((await be.read(a))[7]).toBe(7 * 2 ** (k + 1));
    }
    a.dispose();
    b.dispose();
  });

  it('large writes go through a kept mapped buffer: each write its own values, in call order with the work around it', async () => {
    const engine = (be as unknown as { engine: { uploads: GPUBuffer[] } }).engine;
    const n = 300_000; // 1.2 MB: over the size where writes are mapped
    const v = be.scratchVector('f32', n);
    const u = be.scratchVector('f32', n);
    for (let k = 0; k < 3; k++) {
      const data = Float32Array.from({ length: n }, (_, i) => i * (k + 1));
      be.writeVector(v, data);
      be.copy(v, u); // recorded after the write: sees it
      be.writeVector(v, data.map((t) => -t)); // and a second write right behind the first
      const [rv, ru] = await Promise.all([be.read(v), be.read(u)]);
      expect([rv[n - 1], ru[n - 1], rv[3], ru[3]]).toEqual([-(n - 1) * (k + 1), (n - 1) * (k + 1), -3 * (k + 1), 3 * (k + 1)]);
      expect(Array.from(ru).every((t, i) => t === i * (k + 1))).toBe(true);
    }
    // mapped again after their copies, kept for the next writes (no new buffer each time)
    expect(engine.uploads.length).toBeGreaterThan(0);
    be.recycle(v);
    be.recycle(u);
  });

  it('a pooled vector comes back zeroed, and a disposed backend frees the pool', async () => {
    const b2 = await createRuntime({ backend: 'webgpu', workers: 1 });
    const p = b2.pathById('webgpu') as WebGpuPath;
    await p.prepare();
    const B = p.backend;
    const v = B.scratchVector('f32', 5000);
    B.writeVector(v, new Float32Array(5000).fill(7));
    B.recycle(v);
    const w = B.scratchVector('f32', 5000);
    expect(w).toBe(v);
    expect(Array.from(await B.read(w)).every((t) => t === 0)).toBe(true);
    B.recycle(w);
    expect(B.bytesInUse).toBeGreaterThan(0);
    b2.dispose();
    expect(B.bytesInUse).toBe(0);
  });
});

describe('iterative refinement on the GPU', () => {
  it("‖x‖ from the GPU bounds the host's f64 norm from above, within 2^-29 of it; also where x's squares are below f32's range (flushed there)", async () => {
    const A = poisson2D(9);
    const M = be.upload(A);
    for (const scale of [1, 1e6, 1e-25]) {
      const R = await be.refinement(M, rhs(A.rows, 3), undefined)!;
      const dv = be.vector('f64', rhs(A.rows, 5).map((t) => t * scale));
      try {
        // x ← 0 + d
        await R.correct(dv);
        const x = await R.read();
        let q = 0;
        for (const t of x) q += t * t;
        expect(q, `scale ${scale}`).toBeGreaterThan(0);
        const xn = await R.xnorm!();
        expect(xn, `scale ${scale}`).toBeGreaterThanOrEqual(Math.sqrt(q));
        if (scale >= 1) expect(xn, `scale ${scale}`).toBeLessThanOrEqual(Math.sqrt(q) * (1 + 2 ** -29));
      } finally {
        dv.dispose();
        R.dispose();
      }
    }
    M.dispose();
  });

  it('f32 CG where the host runs the iterations (checkEvery 1, or a preconditioner of its own) keeps one recurrence with reliable updates on the GPU refinement: a true 1e-10', async () => {
    const A = poisson3D(6);
    const A32 = A.astype('f32');
    const b = rhs(A.rows, 4);
    const h = rt.upload(A32);
    for (const o of [{ checkEvery: 1, preconditioner: 'jacobi' }, { preconditioner: 'chebyshev' }] as const) {
      const r = await rt.solve(h, b, { tol: 1e-10, method: 'cg', ...o });
      const t = trueResidual(A32, r.x, b);
      expect([r.path, r.converged, r.reason], JSON.stringify(o)).toEqual(['webgpu', true, 'converged']);
      expect(r.refinements).toBeGreaterThan(0);
      expect(t).toBeLessThanOrEqual(1e-10);
      expect(Math.abs(r.relativeResidual - t)).toBeLessThanOrEqual(1e-12);
    }
    h.dispose();
  });

  it('f32 storage reaches a true 1e-10 (f64 product) with r recomputed on the GPU; its double-single copy of A goes with A', async () => {
    const A = poisson3D(6);
    const A32 = A.astype('f32');
    const b = rhs(A.rows, 9);
    be.freeScratch();
    const before = be.bytesInUse;
    const h = rt.upload(A32);
    const reads = be.stats.readbacks;
    const r = await rt.cg(h, b, { tol: 1e-10 });
    expect([r.path, r.converged, r.reason]).toEqual(['webgpu', true, 'converged']);
    expect(r.refinements).toBeGreaterThan(0);
    expect(trueResidual(A32, r.x, b)).toBeLessThanOrEqual(1e-10);
    // what is reported is b − A·x of the returned x: the GPU's double-single one where its rounding
    // bound certifies it, else the host's f64 one; either way within a small part of tol of the f64 product's
    expect(Math.abs(r.relativeResidual - trueResidual(A32, r.x, b))).toBeLessThanOrEqual(1e-12);
    // x came back once: every other read-back is a scalar or a block of residuals (≤ one per 16 iterations + speculation)
    expect(be.stats.readbacks - reads).toBeLessThanOrEqual(Math.ceil(r.iterations / 16) + 4 * (r.refinements + 1) + 2);
    // an x0 is refined from, and the answer is the same quality
    const r0 = await rt.cg(h, b, { tol: 1e-10, x0: Float64Array.from(r.x, (t) => t * 0.9) });
    expect(r0.converged).toBe(true);
    expect(trueResidual(A32, r0.x, b)).toBeLessThanOrEqual(1e-10);
    h.dispose();
    be.freeScratch();
    expect(be.bytesInUse).toBe(before);
  });

  it('f64 (double-single) with Jacobi and c64 refined to 1e-10 against the f64 product; NaN in b is reported', async () => {
    const A = poisson2D(9);
    const b = rhs(A.rows, 4);
    const r = await rt.cg(rt.upload(A), b, { tol: 1e-10, preconditioner: 'jacobi' });
    expect(r.converged).toBe(true);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-10);
    // a complex Hermitian system in c64 storage (BiCGSTAB), f64 answer
    const C = poisson2D(6).astype('c64');
    const bc = rhs(2 * C.rows, 6);
    const rc = await rt.bicgstab(rt.upload(C), bc, { tol: 1e-10 });
    expect(rc.converged).toBe(true);
    expect(rc.refinements).toBeGreaterThan(0);
    let rr = 0;
    let bb = 0;
    const re = (k: number) => C.values[2 * k];
    for (let i = 0; i < C.rows; i++) {
      let sr = 0;
      let si = 0;
      for (let k = C.rowPtr[i]; k < C.rowPtr[i + 1]; k++) {
        sr += re(k) * rc.x[2 * C.colIdx[k]] - C.values[2 * k + 1] * rc.x[2 * C.colIdx[k] + 1];
        si += re(k) * rc.x[2 * C.colIdx[k] + 1] + C.values[2 * k + 1] * rc.x[2 * C.colIdx[k]];
      }
      rr += (bc[2 * i] - sr) ** 2 + (bc[2 * i + 1] - si) ** 2;
      bb += bc[2 * i] ** 2 + bc[2 * i + 1] ** 2;
    }
    expect(Math.sqrt(rr / bb)).toBeLessThanOrEqual(1e-10);
    const bn = Float64Array.from(b);
    bn[5] = NaN;
    expect((await rt.cg(rt.upload(A.astype('f32')), bn, { tol: 1e-10 })).reason).toBe('nan');
  });
});

describe('Jacobi of a constant diagonal on the WebGPU path', () => {
  it('runs as none (the same iterates, to rounding) and says so; a diagonal that varies keeps D⁻¹', async () => {
    const A = poisson2D(12);
    const b = rhs(A.rows, 21);
    const h = rt.upload(A);
    const j = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-10 });
    const n = await rt.solve(h, b, { method: 'cg', preconditioner: 'none', tol: 1e-10 });
    expect([j.path, j.converged, j.preconditioner]).toEqual(['webgpu', true, 'jacobi']);
    expect(j.preconditionerDetail).toMatch(/constant.*none runs/);
    // explain says so too, and for a diagonal that varies (below) it does not
    expect(rt.explain('solve', h, { method: 'cg', preconditioner: 'jacobi' }).reasons).toContain(j.preconditionerDetail);
    expect(j.iterations).toBe(n.iterations);
    expect(trueResidual(A, j.x, b)).toBeLessThanOrEqual(1e-10);
    h.dispose();
    // f32 storage keeps D⁻¹ (its unpreconditioned answer needed a host product to be certified)
    const h32 = rt.upload(A.astype('f32'));
    const j32 = await rt.solve(h32, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-10 });
    expect([j32.converged, j32.preconditionerDetail]).toEqual([true, 'jacobi (inverse of the diagonal)']);
    h32.dispose();
    // one diagonal entry changed: D⁻¹ is applied, as before
    const V = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values));
    for (let k = V.rowPtr[7]; k < V.rowPtr[8]; k++) if (V.colIdx[k] === 7) V.values[k] = 5;
    const hv = rt.upload(V);
    const v = await rt.solve(hv, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-10 });
    expect([v.converged, v.preconditionerDetail]).toEqual([true, 'jacobi (inverse of the diagonal)']);
    expect(rt.explain('solve', hv, { method: 'cg', preconditioner: 'jacobi' }).reasons).not.toContain(j.preconditionerDetail);
    expect(trueResidual(V, v.x, b)).toBeLessThanOrEqual(1e-10);
    hv.dispose();
  });
});
