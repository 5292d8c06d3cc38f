/**
 * The runtime with the WebGPU path in Node (Dawn + SwiftShader, see test/webgpu-helpers.ts): backend
 * 'webgpu' for SpMV (every dtype, op N/T/H), BLAS-1, solvers and dense operations against the f64
 * reference; 'auto' moving resident vectors and dense handles between paths; device loss through the
 * runtime (pending calls reject with WebGpuDeviceLostError, 'auto' falls back, matrices come back with
 * a new device). No adapter is a failure, as in the WebGPU suites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { GpuUnavailableError } from '../src/errors.js';
import { WebGpuDeviceLostError } from '../src/webgpu/errors.js';
import { acquireDevice, loadDawn } from '../src/webgpu/device.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { DTYPES, compareRef, generated, inDType, pointDawnAtSwiftShader, randomData, scalars, fsum } from './webgpu-helpers.js';
import type { DType } from '../src/dtype.js';

pointDawnAtSwiftShader();

// under 'auto' Node's WebGPU path is opt-in: Dawn is handed in (backend 'webgpu' loads it itself)
async function webgpuRuntime(options: Parameters<typeof createRuntime>[0] = {}): Promise<Runtime> {
  const dawn = await loadDawn();
  const rt = await createRuntime({ backend: 'auto', ...(typeof dawn === 'string' ? {} : { webgpu: { gpu: dawn } }), ...options });
  const p = rt.capabilities().paths.webgpu;
  if (!p.available) {
    rt.dispose();
    throw new Error(`NO WEBGPU ADAPTER: the runtime's WebGPU tests need one (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}): ${p.reason}`);
  }
  return rt;
}

const webgpuOf = (rt: Runtime) => rt.pathById('webgpu') as WebGpuPath;

describe("backend 'webgpu'", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await webgpuRuntime({ backend: 'webgpu' });
  });
  afterAll(() => rt?.dispose());

  it('reports the path, forces it, and explains it', () => {
    const c = rt.capabilities();
    expect(c.backend).toBe('webgpu');
    expect(c.gpu).toMatchObject({ available: true, path: 'webgpu' });
    expect(c.paths.webgl2.reason).toMatch(/backend: webgpu was asked for/);
    const e = rt.explain('spmv', generated('poisson3D-10'));
    expect(e.path).toBe('webgpu');
    expect(Object.keys(e.estimates)).toEqual(['webgpu']);
  });

  for (const name of ['poisson3D-10', 'random-powerlaw-3000', 'rect-300x700', 'tiny-1x1'] as const) {
    it(`spmv ${name}: every dtype, op N/T/H, against the f64 reference`, async () => {
      for (const dt of DTYPES) {
        const A = inDType(generated(name), dt);
        const h = rt.upload(A);
        const { alpha, beta } = scalars(dt);
        for (const op of ['N', 'T', 'H'] as const) {
          const [inLen, outLen] = op === 'N' ? [A.cols, A.rows] : [A.rows, A.cols];
          const x = randomData(dt, inLen, 1);
          const y0 = randomData(dt, outLen, 2);
          const y = await rt.spmv(h, x, { y: y0.slice(), alpha, beta, op });
          compareRef(A, x, y0, alpha, beta, y, op);
        }
        h.dispose();
      }
    });
  }

  it('BLAS-1 on resident vectors stays on the device; dot and nrm2 in double-single', async () => {
    for (const dt of DTYPES) {
      const n = 5003;
      const xs = randomData(dt, n, 3);
      const ys = randomData(dt, n, 4);
      const x = rt.vector(xs, dt);
      const y = rt.vector(ys, dt);
      await rt.axpy(dt === 'c64' || dt === 'c128' ? [0.5, -0.25] : 0.5, x, y);
      expect(y.current.has('webgpu') && !y.current.has('cpu')).toBe(true);
      const got = await y.read();
      const c = dt === 'c64' || dt === 'c128' ? 2 : 1;
      const tol = dt === 'f32' || dt === 'c64' ? 4e-7 : 1e-14;
      for (let i = 0; i < n; i++) {
        const [ar, ai] = c === 2 ? [0.5, -0.25] : [0.5, 0];
        const want = c === 2 ? [ys[2 * i] + ar * xs[2 * i] - ai * xs[2 * i + 1], ys[2 * i + 1] + ar * xs[2 * i + 1] + ai * xs[2 * i]] : [ys[i] + 0.5 * xs[i]];
        for (let q = 0; q < c; q++) expect(Math.abs(got[c * i + q] - want[q])).toBeLessThanOrEqual(tol * (1 + Math.abs(want[q])));
      }
      const nrm = await rt.nrm2(x);
      const ref = Math.sqrt(fsum(Array.from(xs, (v) => v * v)));
      expect(Math.abs(nrm - ref)).toBeLessThanOrEqual(1e-12 * ref);
      x.dispose();
      y.dispose();
    }
  });

  it('cg (with and without Jacobi) and bicgstab run on the device to their tolerance', async () => {
    const A = generated('poisson2D-30');
    const h = rt.upload(A);
    const b = randomData('f64', A.rows, 5);
    const r = await rt.cg(h, b, { tol: 1e-8 });
    expect(r).toMatchObject({ converged: true, path: 'webgpu' });
    const Ax = await createRuntime().then(async (cpu) => {
      const y = await cpu.spmv(cpu.upload(A), r.x);
      cpu.dispose();
      return y;
    });
    const res = Math.sqrt(fsum(Array.from(Ax, (v, i) => (v - b[i]) ** 2))) / Math.sqrt(fsum(Array.from(b, (v) => v * v)));
    expect(res).toBeLessThanOrEqual(1e-7);
    expect((await rt.cg(h, b, { tol: 1e-8, preconditioner: 'jacobi' })).converged).toBe(true);
    expect((await rt.bicgstab(h, b, { tol: 1e-8 })).converged).toBe(true);
    const f32 = await rt.cg(rt.upload(A.astype('f32')), Float32Array.from(b), { tol: 1e-5 });
    expect(f32.converged).toBe(true);
  });

  it('dense gemm, add, transpose on plain matrices and handles', async () => {
    for (const dt of ['f32', 'f64', 'c64', 'c128'] as DType[]) {
      const c = dt === 'c64' || dt === 'c128' ? 2 : 1;
      const A = new DenseMatrix(37, 53, dt, randomData(dt, 37 * 53, 6));
      const B = new DenseMatrix(53, 29, dt, randomData(dt, 53 * 29, 7));
      const G = await rt.gemm(A, B);
      // reference: f64 products
      let worst = 0;
      for (let i = 0; i < 37; i++)
        for (let j = 0; j < 29; j++) {
          let re = 0, im = 0, mag = 0;
          for (let p = 0; p < 53; p++) {
            const [ar, ai] = c === 2 ? [A.values[2 * (i * 53 + p)], A.values[2 * (i * 53 + p) + 1]] : [A.values[i * 53 + p], 0];
            const [br, bi] = c === 2 ? [B.values[2 * (p * 29 + j)], B.values[2 * (p * 29 + j) + 1]] : [B.values[p * 29 + j], 0];
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
            mag += Math.hypot(ar, ai) * Math.hypot(br, bi);
          }
          worst = Math.max(worst, Math.abs(G.values[c * (i * 29 + j)] - re) / mag);
          if (c === 2) worst = Math.max(worst, Math.abs(G.values[c * (i * 29 + j) + 1] - im) / mag);
        }
      expect(worst).toBeLessThanOrEqual(dt === 'f32' || dt === 'c64' ? 4 * 57 * 2 ** -24 : 1e-12);
      const hA = rt.dense(A);
      const T = await rt.transpose(await rt.transpose(hA));
      expect(T.current.has('webgpu') && !T.current.has('cpu')).toBe(true);
      const back = (await T.read()).values;
      const tol = dt === 'f32' || dt === 'c64' ? 0 : 1e-14;
      for (let k = 0; k < back.length; k++) expect(Math.abs(back[k] - A.values[k])).toBeLessThanOrEqual(tol * (1 + Math.abs(A.values[k])));
      const S = await rt.add(hA, hA, { alpha: 1, beta: -1 });
      expect((await S.read()).values.every((v) => v === 0)).toBe(true);
    }
  });
});

describe("'auto' with a WebGPU path", () => {
  it('calibrates every usable path, chooses by estimate, and moves resident data between paths', async () => {
    const rt = await webgpuRuntime();
    try {
      const cal = await rt.calibrate();
      expect(cal.webgpu!.bandwidthGBs).toBeGreaterThan(0);
      expect(cal.webgpu!.device).toMatch(/\S/);
      const A = generated('poisson3D-10');
      const e = rt.explain('spmv', A);
      const fastest = Object.values(e.estimates).reduce((a, b) => (b.ms < a.ms ? b : a));
      expect(e.path).toBe(fastest.path);
      expect(e.estimates.webgpu && e.estimates.cpu).toBeTruthy();
      // a vector written on the device, used by an operation on the CPU path, and back
      const h = rt.upload(A);
      const x = rt.vector(randomData('f64', A.cols, 8));
      const y = rt.vector(A.rows);
      await rt.spmv(h, x, { y, path: 'webgpu' });
      await rt.axpy(-1, x, y); // runs where y is current: the device
      expect([...y.current]).toEqual(['webgpu']);
      const onGpu = await y.read();
      await rt.spmv(h, x, { y, path: 'cpu' });
      await rt.axpy(-1, x, y);
      expect([...y.current]).toEqual(['cpu']);
      const onCpu = await y.read();
      let worst = 0;
      for (let i = 0; i < onGpu.length; i++) worst = Math.max(worst, Math.abs(onGpu[i] - onCpu[i]));
      expect(worst).toBeLessThanOrEqual(1e-12);
      // 'gpu' means the best GPU path: WebGPU
      expect((await rt.cg(h, randomData('f64', A.rows, 9), { path: 'gpu', tol: 1e-6 })).path).toBe('webgpu');
    } finally {
      rt.dispose();
    }
  });
});

describe('device loss through the runtime', () => {
  it('a given device that is lost: the pending call rejects, auto falls back, forcing rejects, device-only contents are gone', async () => {
    const got = await acquireDevice({});
    if ('reason' in got) throw new Error(`NO WEBGPU ADAPTER: ${got.reason}`);
    const rt = await webgpuRuntime({ webgpu: { device: got.device } });
    try {
      const A = generated('poisson2D-30').astype('f32');
      const h = rt.upload(A);
      const x = randomData('f32', A.cols, 10);
      const expected = await rt.spmv(h, x, { path: 'cpu' });
      const xv = rt.vector(x);
      const yv = rt.vector(A.rows, 'f32');
      await rt.spmv(h, xv, { y: yv, path: 'webgpu' }); // yv current on the device only
      const lost = new Promise<void>((r) => webgpuOf(rt).onLost(r));
      const pending = rt.spmv(h, x, { path: 'webgpu' });
      webgpuOf(rt).backend.loseDevice();
      await expect(pending).rejects.toThrow(WebGpuDeviceLostError);
      await lost;
      expect(rt.capabilities().paths.webgpu).toMatchObject({ available: true, lost: true });
      expect(rt.capabilities().notes.join(' ')).toMatch(/WebGPU path's device is lost/);
      const y = await rt.spmv(h, x); // auto: the CPU path
      for (let i = 0; i < y.length; i++) expect(Math.abs(y[i] - expected[i])).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(expected[i])));
      expect(rt.explain('spmv', h).reasons.join('\n')).toMatch(/WebGPU path unavailable/);
      await expect(rt.spmv(h, x, { path: 'webgpu' })).rejects.toThrow(WebGpuDeviceLostError);
      await expect(yv.read()).rejects.toThrow(WebGpuDeviceLostError);
      expect(Array.from(await xv.read())).toEqual(Array.from(x)); // current on the CPU too: intact
      yv.write(new Float32Array(A.rows)); // written again: usable
      await rt.axpy(1, xv, yv);
      expect(Array.from(await yv.read())).toEqual(Array.from(x));
    } finally {
      rt.dispose();
    }
  });

  it('a device the backend requested: a new one comes, the matrix is uploaded again and the path resumes', async () => {
    const rt = await webgpuRuntime();
    try {
      const A = generated('random-powerlaw-3000').astype('f32');
      const h = rt.upload(A);
      const x = randomData('f32', A.cols, 11);
      const before = await rt.spmv(h, x, { path: 'webgpu' });
      const restored = new Promise<void>((r) => webgpuOf(rt).onRestored(r));
      webgpuOf(rt).backend.loseDevice();
      await restored;
      expect(rt.capabilities().paths.webgpu.lost).toBe(false);
      const after = await rt.spmv(h, x, { path: 'webgpu' });
      expect(Array.from(after)).toEqual(Array.from(before));
      compareRef(A, x, null, 1, 0, after);
    } finally {
      rt.dispose();
    }
  });

  it('forcing webgpu where there is no adapter is a GpuUnavailableError with the reason', async () => {
    const none = { requestAdapter: async () => null } as unknown as GPU;
    await expect(createRuntime({ backend: 'webgpu', webgpu: { gpu: none } })).rejects.toThrow(GpuUnavailableError);
    await expect(createRuntime({ backend: 'webgpu', webgpu: { gpu: none } })).rejects.toThrow(/WebGPU path is unavailable: requestAdapter\(\) returned null/);
    const rt = await createRuntime({ webgpu: { gpu: none } });
    expect(rt.capabilities().paths.webgpu).toMatchObject({ available: false });
    rt.dispose();
  });
});
