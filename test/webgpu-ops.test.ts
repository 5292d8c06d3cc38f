/**
 * The WebGPU path beyond SpMV: double-single arithmetic bit for bit, BLAS-1 (axpy, aypx, scal, copy),
 * dot / nrm2 and the fused CG step against compensated f64 sums, dense gemm / add / transpose against
 * an f64 reference, the storage-buffer limit error, the unavailable path's reason, device loss and
 * restore, batching and timestamps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isComplex, type DType } from '../src/dtype.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { poisson2D } from '../src/generators/index.js';
import { WebGpuBackend, WebGpuDeviceLostError, WebGpuLimitError } from '../src/webgpu/index.js';
import { DS_BOUND } from './browser/checks.js';
import { referenceDot } from './browser/test-data.js';
import { compareRef, DTYPES, fsum, isDS, randomData, webgpuBackend } from './webgpu-helpers.js';

let gpu: WebGpuBackend;
beforeAll(async () => {
  gpu = await webgpuBackend();
});
afterAll(() => gpu?.dispose());

const U = 2 ** -24;

function assertClose(got: ArrayLike<number>, want: (i: number) => number, mag: (i: number) => number, tol: number, what: string): number {
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    const err = Math.abs(got[i] - want(i));
    if (!(err <= tol * mag(i))) throw new Error(`${what}[${i}]: ${got[i]} vs ${want(i)} (|err| ${err} > ${tol}·${mag(i)})`);
    if (mag(i) > 0) worst = Math.max(worst, err / mag(i));
  }
  return worst;
}

describe('WebGPU capabilities and double-single arithmetic', () => {
  it('reports an adapter with its limits', () => {
    const caps = gpu.capabilities();
    console.log(`WebGPU adapter: ${JSON.stringify(caps)}`);
    expect(caps.webgpu).toBe(true);
    expect(caps.reason).toBeNull();
    expect(caps.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 << 20);
  });

  it('two_prod is exact and double-single products and sums carry >= 44 bits', async () => {
    const n = 4099;
    const a = Math.fround(0.7071067811865476);
    const xs = Float64Array.from(randomData('f32', n, 41));
    const x = gpu.vector('f64', xs);
    const y = gpu.vector('f64', n);
    gpu.axpy(a, x, y);
    const got = await gpu.read(y);
    for (let i = 0; i < n; i++) if (got[i] !== a * xs[i]) throw new Error(`two_prod not exact at ${i}: ${got[i]} vs ${a * xs[i]}`);
    const xd = randomData('f64', n, 42);
    const x2 = gpu.vector('f64', xd);
    const y2 = gpu.vector('f64', n);
    gpu.axpy(1 / 3, x2, y2);
    const p = await gpu.read(y2);
    let rel = 0;
    for (let i = 0; i < n; i++) if (xd[i] !== 0) rel = Math.max(rel, Math.abs(p[i] - xd[i] / 3) / Math.abs(xd[i] / 3));
    const ones = gpu.vector('f64', new Float64Array(n).fill(1));
    const tiny = Float64Array.from(xd, (v) => v * 2 ** -30);
    const t = gpu.vector('f64', tiny);
    gpu.axpy(1, t, ones);
    const s = await gpu.read(ones);
    let relSum = 0;
    for (let i = 0; i < n; i++) relSum = Math.max(relSum, Math.abs(s[i] - (1 + tiny[i])));
    for (const h of [x, y, x2, y2, ones, t]) h.dispose();
    console.log(`double-single: products ${(-Math.log2(rel)).toFixed(1)} bits, sums ${(-Math.log2(relSum || 2 ** -60)).toFixed(1)} bits`);
    expect(-Math.log2(rel)).toBeGreaterThanOrEqual(44);
    expect(-Math.log2(relSum || 2 ** -60)).toBeGreaterThanOrEqual(44);
  });
});

describe('WebGPU BLAS-1 and reductions', () => {
  for (const dt of DTYPES) {
    it(`axpy, aypx, scal, copy, scal(0) on NaN, ${dt}`, async () => {
      const n = 5003;
      const c = isComplex(dt) ? 2 : 1;
      const xs = randomData(dt, n, 21), ys = randomData(dt, n, 22);
      const x = gpu.vector(dt, xs), y = gpu.vector(dt, ys);
      const alpha: [number, number] = isComplex(dt) ? [0.25, -1.5] : [isDS(dt) ? 0.1 : 0.25, 0];
      const mul = (a: [number, number], v: ArrayLike<number>, k: number): number => {
        const i = Math.floor(k / c);
        if (c === 1) return a[0] * v[i];
        return k % 2 === 0 ? a[0] * v[2 * i] - a[1] * v[2 * i + 1] : a[0] * v[2 * i + 1] + a[1] * v[2 * i];
      };
      const amag = Math.hypot(alpha[0], alpha[1]);
      const abs = (v: ArrayLike<number>, k: number) => (c === 1 ? Math.abs(v[k]) : Math.hypot(v[2 * Math.floor(k / 2)], v[2 * Math.floor(k / 2) + 1]));
      const tol = isDS(dt) ? DS_BOUND : 4 * U;
      const a = isComplex(dt) ? alpha : alpha[0];
      gpu.axpy(a, x, y);
      const y1 = await gpu.read(y);
      assertClose(y1, (k) => mul(alpha, xs, k) + ys[k], (k) => amag * abs(xs, k) + abs(ys, k), tol, 'axpy');
      gpu.aypx(a, x, y);
      const y2 = await gpu.read(y);
      assertClose(y2, (k) => mul(alpha, y1, k) + xs[k], (k) => amag * abs(y1, k) + abs(xs, k), tol, 'aypx');
      gpu.scal(a, y);
      assertClose(await gpu.read(y), (k) => mul(alpha, y2, k), (k) => amag * abs(y2, k), tol, 'scal');
      gpu.copy(x, y);
      const cp = await gpu.read(y);
      for (let k = 0; k < n * c; k++) if (!(cp[k] === xs[k] || (isDS(dt) && Math.abs(cp[k] - xs[k]) <= 2 ** -48 * Math.abs(xs[k])))) throw new Error(`copy[${k}]`);
      gpu.axpy(a, y, y); // x aliasing y: y = (1 + α)·y
      assertClose(await gpu.read(y), (k) => mul(alpha, cp, k) + cp[k], (k) => (amag + 1) * abs(cp, k), tol, 'axpy aliased');
      const nan = gpu.vector(dt, new Float64Array(n * c).fill(NaN));
      gpu.scal(0, nan);
      expect((await gpu.read(nan)).every((v) => v === 0)).toBe(true);
      x.dispose(); y.dispose(); nan.dispose();
    });

    it(`dot (and dotc), nrm2 of 100,003 elements, empty vectors, ${dt}`, async () => {
      const n = 100003;
      const cplx = isComplex(dt);
      const xs = randomData(dt, n, 61), ys = randomData(dt, n, 62);
      const x = gpu.vector(dt, xs), y = gpu.vector(dt, ys);
      for (const conj of cplx ? [false, true] : [false]) {
        const got = await gpu.dot(x, y, { conj });
        const { want, mag } = referenceDot(xs, ys, n, cplx, conj);
        expect(typeof got !== 'number').toBe(cplx);
        const g: [number, number] = typeof got === 'number' ? [got, 0] : got;
        const err = Math.max(Math.abs(g[0] - want[0]), Math.abs(g[1] - want[1]));
        console.log(`dot${conj ? 'c' : ''} ${dt}: |err|/Σ|x||y| ${(err / mag).toExponential(2)}`);
        expect(err).toBeLessThanOrEqual(DS_BOUND * mag);
      }
      const nr = await gpu.nrm2(x);
      const wantNr = Math.sqrt(fsum(Array.from(xs, (v) => v * v)));
      expect(Math.abs(nr - wantNr) / wantNr).toBeLessThanOrEqual(DS_BOUND);
      const e = gpu.vector(dt, 0);
      const z = await gpu.dot(e, e);
      expect(typeof z === 'number' ? z : z[0] + Math.abs(z[1])).toBe(0);
      expect(await gpu.nrm2(e)).toBe(0);
      x.dispose(); y.dispose(); e.dispose();
    });

    it(`fused CG step (x += α·p, r −= α·q, ‖r‖²), ${dt}`, async () => {
      const n = 20011;
      const c = isComplex(dt) ? 2 : 1;
      const [ps, qs, xs, rs] = [31, 32, 33, 34].map((s) => randomData(dt, n, s));
      const [p, q, x, r] = [ps, qs, xs, rs].map((d) => gpu.vector(dt, d));
      const alpha = isDS(dt) ? 0.3 : 0.375;
      const rr = await gpu.cgUpdate(alpha, p, q, x, r);
      const tol = isDS(dt) ? DS_BOUND : 4 * U;
      const gx = await gpu.read(x), gr = await gpu.read(r);
      assertClose(gx, (k) => xs[k] + alpha * ps[k], (k) => Math.abs(xs[k]) + alpha * Math.abs(ps[k]), tol, 'x');
      assertClose(gr, (k) => rs[k] - alpha * qs[k], (k) => Math.abs(rs[k]) + alpha * Math.abs(qs[k]), tol, 'r');
      const want = fsum(Array.from(gr, (v) => v * v));
      expect(Math.abs(rr - want) / want).toBeLessThanOrEqual(DS_BOUND);
      expect(gr.length).toBe(n * c);
      for (const v of [p, q, x, r]) v.dispose();
    });
  }
});

/** C = α·A·B + β·C0 in f64, with the scale |α|·Σ|a||b| + |β|·|c0| per component. */
function refGemm(A: DenseMatrix, B: DenseMatrix, C0: DenseMatrix | null, alpha: number, beta: number): { y: Float64Array; scale: Float64Array } {
  const c = isComplex(A.dtype) ? 2 : 1;
  const { rows: m, cols: k } = A;
  const n = B.cols;
  const y = new Float64Array(m * n * c);
  const scale = new Float64Array(m * n * c);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let re = 0, im = 0, mag = 0;
      for (let t = 0; t < k; t++) {
        if (c === 1) {
          re += A.values[i * k + t] * B.values[t * n + j];
          mag += Math.abs(A.values[i * k + t] * B.values[t * n + j]);
        } else {
          const [ar, ai, br, bi] = [A.values[2 * (i * k + t)], A.values[2 * (i * k + t) + 1], B.values[2 * (t * n + j)], B.values[2 * (t * n + j) + 1]];
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
          mag += Math.hypot(ar, ai) * Math.hypot(br, bi);
        }
      }
      for (let p = 0; p < c; p++) {
        const o = (i * n + j) * c + p;
        const c0 = C0 ? C0.values[o] : 0;
        y[o] = alpha * (p === 0 ? re : im) + beta * c0;
        scale[o] = Math.abs(alpha) * mag + Math.abs(beta) * (C0 ? Math.abs(c0) : 0);
      }
    }
  }
  return { y, scale };
}

function randomDense(dt: DType, rows: number, cols: number, seed: number): DenseMatrix {
  return new DenseMatrix(rows, cols, dt, randomData(dt, rows * cols, seed));
}

describe('WebGPU dense', () => {
  for (const dt of DTYPES) {
    it(`gemm (tiled, edges not multiples of the tile, β ≠ 0, C aliasing A), add, transpose, ${dt}`, async () => {
      const shapes: [number, number, number][] = [[70, 45, 131], [1, 1, 1], [64, 64, 64], [3, 200, 5]];
      let worst = 0;
      for (const [m, k, n] of shapes) {
        const A = randomDense(dt, m, k, m + k), B = randomDense(dt, k, n, k + n), C0 = randomDense(dt, m, n, m + n + 1);
        const gA = gpu.uploadDense(A), gB = gpu.uploadDense(B), gC = gpu.uploadDense(C0);
        gpu.gemm(gA, gB, gC, { alpha: 1.5, beta: -0.5 });
        const got = (await gpu.readDense(gC)).values;
        const ref = refGemm(A, B, C0, 1.5, -0.5);
        const c = isComplex(dt) ? 2 : 1;
        for (let o = 0; o < got.length; o++) {
          const bound = isDS(dt) ? DS_BOUND * ref.scale[o] : 4 * (k + 4) * U * ref.scale[o];
          const err = Math.abs(got[o] - ref.y[o]);
          if (!(err <= bound)) throw new Error(`gemm ${m}×${k}×${n} [${Math.floor(o / c)}]: ${got[o]} vs ${ref.y[o]} (|err| ${err} > ${bound})`);
          if (bound > 0) worst = Math.max(worst, err / (isDS(dt) ? ref.scale[o] : bound));
        }
        for (const h of [gA, gB, gC]) h.dispose();
      }
      // C aliasing A: A ← A·S for a square S
      const S = randomDense(dt, 40, 40, 7), A = randomDense(dt, 33, 40, 8);
      const gS = gpu.uploadDense(S), gA = gpu.uploadDense(A);
      gpu.gemm(gA, gS, gA);
      const alias = (await gpu.readDense(gA)).values;
      const ra = refGemm(A, S, null, 1, 0);
      for (let o = 0; o < alias.length; o++) expect(Math.abs(alias[o] - ra.y[o])).toBeLessThanOrEqual((isDS(dt) ? DS_BOUND : 4 * 44 * U) * ra.scale[o]);
      // add and transpose (and conjugate transpose)
      const B = randomDense(dt, 33, 40, 9);
      const gB = gpu.uploadDense(B), gC = gpu.denseMatrix(dt, 33, 40), gT = gpu.denseMatrix(dt, 40, 33);
      gpu.add(gA, gB, gC, { alpha: 0.5, beta: 2 });
      const sum = (await gpu.readDense(gC)).values;
      const aval = alias;
      const bv = (await gpu.readDense(gB)).values;
      for (let o = 0; o < sum.length; o++) expect(Math.abs(sum[o] - (0.5 * aval[o] + 2 * bv[o]))).toBeLessThanOrEqual((isDS(dt) ? DS_BOUND : 4 * U) * (0.5 * Math.abs(aval[o]) + 2 * Math.abs(bv[o])));
      const c = isComplex(dt) ? 2 : 1;
      for (const conj of c === 2 ? [false, true] : [false]) {
        gpu.transpose(gB, gT, { conj });
        const t = (await gpu.readDense(gT)).values;
        for (let i = 0; i < 33; i++) for (let j = 0; j < 40; j++) for (let p = 0; p < c; p++) {
          const want = (conj && p === 1 ? -1 : 1) * bv[(i * 40 + j) * c + p];
          expect(t[(j * 33 + i) * c + p]).toBe(want);
        }
      }
      for (const h of [gS, gA, gB, gC, gT]) h.dispose();
      console.log(`gemm ${dt}: worst ${isDS(dt) ? '|err|/scale' : '|err|/bound'} ${worst.toExponential(2)}`);
    });
  }
});

describe('WebGPU limits, errors, availability', () => {
  it('a buffer over maxStorageBufferBindingSize is refused with WebGpuLimitError naming the limit', async () => {
    const small = await webgpuBackend({ maxStorageBufferBindingSize: 4096 });
    try {
      expect(() => small.vector('f32', 1025)).toThrow(WebGpuLimitError);
      expect(() => small.vector('f32', 1025)).toThrow(/maxStorageBufferBindingSize of 4096 bytes/);
      expect(() => small.upload(poisson2D(40, { dtype: 'f32' }))).toThrow(/CSR .*maxStorageBufferBindingSize/);
      expect(() => small.denseMatrix('f64', 30, 30)).toThrow(WebGpuLimitError);
      const v = small.vector('f32', 1024); // exactly at the limit
      expect(v.length).toBe(1024);
      v.dispose();
      expect(small.bytesInUse).toBe(0);
    } finally {
      small.dispose();
    }
  });

  it("reports unavailable with a reason (never throws) when the 'webgpu' GPU gives no adapter", async () => {
    const noAdapter = { requestAdapter: async () => null } as unknown as GPU;
    const r = await WebGpuBackend.create({ gpu: noAdapter });
    expect(r.available).toBe(false);
    if (!r.available) {
      expect(r.reason).toMatch(/requestAdapter\(\) returned null/);
      expect(r.capabilities.webgpu).toBe(false);
    }
    const throwing = { requestAdapter: async () => { throw new Error('driver exploded'); } } as unknown as GPU;
    const t = await WebGpuBackend.create({ gpu: throwing });
    expect(!t.available && t.reason).toMatch(/driver exploded/);
  });

  it('typed errors for bad calls, dispose', async () => {
    const b = await webgpuBackend();
    const x = b.vector('f32', 3), y = b.vector('f64', 3), z = b.vector('f32', 4);
    expect(() => b.axpy(1, x, y)).toThrow(/dtypes must match/);
    expect(() => b.axpy(1, x, z)).toThrow(/length/);
    expect(() => b.axpy([1, 1], x, x)).toThrow(/imaginary/);
    expect(() => gpu.axpy(1, x, x)).toThrow(/another WebGpuBackend/);
    x.dispose();
    expect(() => b.scal(2, x)).toThrow(/after dispose/);
    b.dispose();
    expect(() => b.vector('f32', 1)).toThrow(/after dispose/);
    expect(y.disposed && z.disposed).toBe(true);
  });
});

describe('WebGPU device loss, batching, timing', () => {
  it('device loss: a pending read rejects with E_GPU_LOST, calls throw, a new device comes and matrices are re-uploaded', async () => {
    const b = await webgpuBackend();
    const A = poisson2D(20, { dtype: 'f32' });
    const M = b.upload(A);
    const xs = randomData('f32', A.cols, 5);
    const x = b.vector('f32', xs, { shadow: true });
    const y = b.vector('f32', A.rows);
    await b.read(x); // the shadow is current
    let lostCalls = 0;
    let threwWhileLost: unknown = null;
    const restored = new Promise<void>((resolve) => b.onContextRestored(resolve));
    b.onContextLost(() => {
      lostCalls++;
      try {
        b.spmv(M, x, y);
      } catch (e) {
        threwWhileLost = e;
      }
    });
    b.spmv(M, x, y);
    const pending = b.read(y);
    b.loseDevice();
    await expect(pending).rejects.toBeInstanceOf(WebGpuDeviceLostError);
    await restored;
    expect(threwWhileLost).toBeInstanceOf(WebGpuDeviceLostError);
    expect(lostCalls).toBe(1);
    expect(b.contextLost).toBe(false);
    expect(b.stats.deviceRestores).toBe(1);
    expect(x.contentsLost).toBe(false); // came back from the shadow
    expect(y.contentsLost).toBe(true);
    b.spmv(M, x, y, { alpha: 2 });
    compareRef(A, xs, null, 2, 0, await b.read(y));
    b.dispose();
  });

  it('batches dispatches into few submits and measures kernel time with timestamps', async () => {
    const A = poisson2D(64, { dtype: 'f32' });
    const M = gpu.upload(A);
    const x = gpu.vector('f32', randomData('f32', A.cols, 3)), y = gpu.vector('f32', A.rows);
    const s0 = gpu.stats.submits, d0 = gpu.stats.dispatches;
    for (let i = 0; i < 50; i++) gpu.spmv(M, x, y, { beta: 0.5 });
    await gpu.read(y);
    expect(gpu.stats.dispatches - d0).toBe(50);
    expect(gpu.stats.submits - s0).toBe(1);
    const ms = await gpu.kernelTime(() => { for (let i = 0; i < 20; i++) gpu.spmv(M, x, y); });
    if (gpu.capabilities().timestampQuery) {
      expect(ms).not.toBeNull();
      expect(ms!).toBeGreaterThan(0);
      console.log(`kernelTime: 20 SpMV of poisson2D(64) f32 (${M.kernel}) took ${ms!.toFixed(3)} ms on the GPU`);
    } else expect(ms).toBeNull();
    M.dispose(); x.dispose(); y.dispose();
    expect(gpu.deviceErrors).toEqual([]);
  });

  it('CG on the GPU through the solver-shaped operations converges (resident vectors, scalars read back)', async () => {
    const A = poisson2D(16, { dtype: 'f64' });
    const M = gpu.upload(A);
    const n = A.rows;
    const bs = randomData('f64', n, 9);
    const b = gpu.vector('f64', bs), x = gpu.vector('f64', n), r = gpu.vector('f64', bs), p = gpu.vector('f64', bs), q = gpu.vector('f64', n);
    let rr = (await gpu.dot(r, r)) as number;
    const bnorm = Math.sqrt(rr);
    let it = 0;
    for (; it < 500 && Math.sqrt(rr) > 1e-10 * bnorm; it++) {
      gpu.spmv(M, p, q);
      const pq = (await gpu.dot(p, q)) as number;
      const rrNew = await gpu.cgUpdate(rr / pq, p, q, x, r);
      gpu.aypx(rrNew / rr, r, p);
      rr = rrNew;
    }
    // the true residual ‖b − A·x‖ from the reference
    const xs = await gpu.read(x);
    const ax = compareRefResidual(A, xs, bs);
    expect(ax / bnorm).toBeLessThan(1e-9);
    for (const v of [M, b, x, r, p, q] as { dispose(): void }[]) v.dispose();
  });
});

function compareRefResidual(A: ReturnType<typeof poisson2D>, x: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < A.rows; i++) {
    let acc = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) acc += A.values[k] * x[A.colIdx[k]];
    s += (b[i] - acc) ** 2;
  }
  return Math.sqrt(s);
}
