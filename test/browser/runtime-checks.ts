// In-page checks of the public Runtime in Chromium: the CPU path with workers in a cross-origin
// isolated page, the GPU path through the runtime, the runtime's choice and explain, CG on the GPU,
// and the fall-back to the CPU path when the WebGL context is lost. Names are shared with the Node side.
import { createRuntime, CSRMatrix, DenseMatrix, GpuContextLostError, poisson2D, poisson3D, randomMatrix, SELLMatrix, type PathChoice, type Runtime } from '../../src/index.js';
import { isComplex, type DType } from '../../src/dtype.js';
import { checkAgainst, referenceSpmv, csrTriplets } from '../reference.js';
import { drawingCanvas } from './test-data.js';

export const RUNTIME_CHECKS = [
  'runtime: workers in the page',
  'runtime: backend gpu, every dtype',
  'runtime: resident vectors move between paths',
  'runtime: auto chooses by estimate and explains',
  'runtime: SELL runs the sell shader on WebGL2 and explain says so',
  'runtime: cg and bicgstab on the GPU',
  'runtime: context loss falls back to the CPU path',
  'runtime: dense operations on both paths',
] as const;

/** The checks of test/browser/webgpu-page.ts (the runtime's WebGPU path in Chromium). */
export const WEBGPU_RUNTIME_CHECKS = [
  'webgpu runtime: backend webgpu, every dtype',
  'webgpu runtime: data moves between WebGPU, WebGL2 and the CPU',
  'webgpu runtime: cg and bicgstab on WebGPU',
  'webgpu runtime: auto estimates three paths',
  'webgpu runtime: device loss falls back and recovers',
] as const;

/** The checks of test/browser/webgpu-page.ts that run in every engine, whatever it offers. */
export const ENGINE_CHECKS = ['paths in this engine', 'webgpu runtime: unavailable says why'] as const;

/** What an engine offers each path, as the runtime's capabilities() say (the suite's availability table). */
export interface EnginePaths {
  paths: Record<'cpu' | 'webgpu' | 'webgl2', { available: boolean; reason?: string; device?: string }>;
  notes: string[];
  threads: number;
  wasm: string;
  crossOriginIsolated: boolean | null;
}

type Check = (name: (typeof RUNTIME_CHECKS)[number], fn: () => Promise<string> | string) => Promise<void>;

function ok(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}


export function data(dt: 'f32' | 'c64', n: number): Float32Array;
export function data(dt: 'f64' | 'c128', n: number): Float64Array;
export function data(dt: DType, n: number): Float32Array | Float64Array;
export function data(dt: DType, n: number): Float32Array | Float64Array {
  const m = n * (isComplex(dt) ? 2 : 1);
  const a = dt === 'f32' || dt === 'c64' ? new Float32Array(m) : new Float64Array(m);
  for (let i = 0; i < m; i++) a[i] = Math.sin(0.37 * i + 1);
  return a;
}

/** y = A·x on `rt` checked against the f64 reference: single-precision bound, or 1e-12 of the scale. */
export async function spmvChecked(rt: Runtime, A: CSRMatrix, path?: PathChoice): Promise<number> {
  const h = rt.upload(A);
  const x = data(A.dtype, A.cols);
  const y = await rt.spmv(h, x, { path });
  const ref = referenceSpmv(csrTriplets(A), x, null, 1, 0);
  const single = A.dtype === 'f32' || A.dtype === 'c64';
  if (single) {
    const bad = checkAgainst(y, ref, 'single', isComplex(A.dtype));
    ok(!bad, `${A.dtype}: ${bad}`);
  }
  let worst = 0;
  for (let k = 0; k < y.length; k++) worst = Math.max(worst, Math.abs(y[k] - ref.y[k]) / (ref.scale[k] || 1));
  ok(single || worst <= 1e-12, `${A.dtype}: error ${worst} of the scale`);
  h.dispose();
  return worst;
}

/** spmvChecked on three matrices in every dtype (worst error/scale of each, listed); each must be explained on `path`. */
export async function everyDtype(rt: Runtime, path: 'webgl2' | 'webgpu', why: string): Promise<string> {
  const details: string[] = [];
  for (const [name, A0] of [
    ['poisson3D_10', poisson3D(10)],
    ['powerlaw', randomMatrix({ rows: 1500, meanRowLength: 6, distribution: 'powerlaw', seed: 3 })],
    ['rect', randomMatrix({ rows: 300, cols: 77, meanRowLength: 5, seed: 4 })],
  ] as const) {
    for (const dt of ['f32', 'f64', 'c64', 'c128'] as DType[]) details.push(`${name} ${dt} ${(await spmvChecked(rt, A0.astype(dt))).toExponential(1)}`);
    ok(rt.explain('spmv', rt.upload(A0)).path === path, why);
  }
  return details.join(', ');
}

/**
 * CG (plain, Jacobi, f32) and BiCGSTAB of a 2-D Poisson system with `path`, which must run on
 * `expected`: converged, CG within 5 % (or 2) of the CPU path's iterations; used by both pages.
 */
export async function solverChecks(path: 'gpu' | 'webgpu', expected: 'webgl2' | 'webgpu'): Promise<string> {
  const rt = await createRuntime({ backend: 'auto' });
  try {
    const A = poisson2D(24);
    const b = data('f64', A.rows);
    const h = rt.upload(A);
    const cpu = await rt.cg(h, b, { tol: 1e-8, path: 'cpu' });
    const gpu = await rt.cg(h, b, { tol: 1e-8, path });
    ok(gpu.converged && gpu.path === expected && gpu.relativeResidual <= 1e-8, `${path} cg: ${gpu.reason} ${gpu.relativeResidual} on ${gpu.path}`);
    ok(Math.abs(gpu.iterations - cpu.iterations) <= Math.max(2, 0.05 * cpu.iterations), `iterations ${gpu.iterations} vs ${cpu.iterations}`);
    const jac = await rt.cg(h, b, { tol: 1e-8, path, preconditioner: 'jacobi' });
    ok(jac.converged, `jacobi: ${jac.reason}`);
    const f32 = await rt.cg(rt.upload(A.astype('f32')), Float32Array.from(b), { tol: 1e-5, path });
    ok(f32.converged, `f32 cg: ${f32.reason} ${f32.relativeResidual}`);
    const bi = await rt.bicgstab(h, b, { tol: 1e-8, path });
    ok(bi.converged, `bicgstab: ${bi.reason}`);
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(gpu.x[i] - cpu.x[i]));
    // A·1e±30: the path's dot products have f32's exponent ('nan', 'breakdown' or 'stagnated' before);
    // its solves run A scaled by a power of two (docs/special-values.md): x·c is the CPU's answer of A
    const scaled: string[] = [];
    for (const c of [1e-30, 1e30]) {
      const hc = rt.upload(new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v) => v * c)));
      for (const [name, r] of [['cg', await rt.cg(hc, b, { tol: 1e-8, path })], ['bicgstab', await rt.bicgstab(hc, b, { tol: 1e-8, path })]] as const) {
        ok(r.converged && r.path === expected && r.relativeResidual <= 1e-8, `A·${c} ${name}: ${r.reason} ${r.relativeResidual} on ${r.path}`);
        let off = 0;
        let big = 0;
        for (let i = 0; i < b.length; i++) {
          off = Math.max(off, Math.abs(r.x[i] * c - cpu.x[i]));
          big = Math.max(big, Math.abs(cpu.x[i]));
        }
        ok(off <= 1e-5 * big, `A·${c} ${name}: |x·c − x_cpu| ${off} of ${big}`);
        scaled.push(`${name} ${r.iterations}`);
      }
      hc.dispose();
    }
    return `CG f64 (double-single) ${gpu.iterations} iterations vs ${cpu.iterations} on the CPU, |x_gpu − x_cpu| ≤ ${worst.toExponential(1)}; f32 ${f32.iterations} to 1e-5; BiCGSTAB ${bi.iterations}; A·1e-30, A·1e30: ${scaled.join(', ')}`;
  } finally {
    rt.dispose();
  }
}

export async function runtimeChecks(check: Check): Promise<void> {
  await check('runtime: workers in the page', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 3, inlineThreshold: 0 });
    const solo = await createRuntime({ backend: 'cpu' });
    try {
      const caps = rt.capabilities();
      ok(caps.crossOriginIsolated === true, JSON.stringify(caps));
      // an engine without SharedArrayBuffer in an isolated page (WebKitGTK) runs one thread and says why
      const shared = typeof SharedArrayBuffer === 'function';
      if (shared) ok(caps.sharedMemory && caps.threads === 3 && caps.workers, JSON.stringify(caps));
      else ok(!caps.sharedMemory && caps.threads === 1 && caps.notes.some((n) => /no SharedArrayBuffer even though the page is cross-origin isolated/.test(n) && /one thread/.test(n)), JSON.stringify(caps));
      const A = poisson3D(12);
      const x = data('f64', A.cols);
      const y3 = await rt.spmv(rt.upload(A), x);
      const y1 = await solo.spmv(solo.upload(A), x);
      ok(y3.every((v, i) => Object.is(v, y1[i])), '3 threads differ from 1 thread');
      const v = rt.vector(x);
      const d = (await rt.dot(v, v)) as number;
      const want = x.reduce((s, t) => s + t * t, 0);
      ok(Math.abs(d - want) <= 1e-12 * want, `dot ${d} vs ${want}`);
      if (!shared) return `no SharedArrayBuffer in this engine: 1 thread, ${caps.wasm}, and the notes say why (${caps.notes.join('; ')}); SpMV and dot right`;
      return `3 threads in the page (Web Workers over one shared memory), ${caps.wasm}; SpMV bitwise equal to 1 thread`;
    } finally {
      rt.dispose();
      solo.dispose();
    }
  });

  await check('runtime: backend gpu, every dtype', async () => {
    const rt = await createRuntime({ backend: 'gpu' });
    try {
      const caps = rt.capabilities();
      ok(caps.gpu.available && caps.backend === 'gpu', JSON.stringify(caps.gpu));
      const details = await everyDtype(rt, 'webgl2', 'backend gpu must explain the WebGL2 path');
      return `renderer ${caps.gpu.renderer}; worst error/scale: ${details}`;
    } finally {
      rt.dispose();
    }
  });

  await check('runtime: resident vectors move between paths', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const A = poisson2D(20).astype('f64');
      const h = rt.upload(A);
      const x = rt.vector(data('f64', A.cols));
      const y = rt.vector(A.rows);
      await rt.spmv(h, x, { y, path: 'gpu' }); // y now current on the GPU only
      await rt.axpy(-1, x, y); // runs where y is: the GPU
      const onGpu = await y.read(); // read back
      await rt.spmv(h, x, { y, path: 'cpu' }); // overwritten on the CPU
      await rt.axpy(-1, x, y); // both copies: the CPU path
      const onCpu = await y.read();
      let worst = 0;
      for (let i = 0; i < onGpu.length; i++) worst = Math.max(worst, Math.abs(onGpu[i] - onCpu[i]));
      ok(worst <= 1e-12, `GPU and CPU results differ by ${worst}`);
      ok((await rt.nrm2(y)) > 0, 'nrm2');
      return `spmv + axpy on the GPU, then on the CPU: largest difference ${worst.toExponential(1)}`;
    } finally {
      rt.dispose();
    }
  });

  await check('runtime: auto chooses by estimate and explains', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const cal = await rt.calibrate();
      ok(cal.webgl2 && cal.webgl2.bandwidthGBs > 0 && cal.webgl2.overheadMs > 0 && cal.cpu.bandwidthGBs > 0, JSON.stringify(cal));
      const out: string[] = [];
      for (const [name, A] of [
        ['tiny 1×1', poisson2D(1)],
        ['poisson3D_24', poisson3D(24)],
      ] as const) {
        const e = rt.explain('spmv', A);
        ok(e.estimates.cpu && e.estimates.webgl2, `both estimates: ${JSON.stringify(e.estimates)}`);
        const faster = e.estimates.webgl2!.ms < e.estimates.cpu!.ms ? 'webgl2' : 'cpu';
        ok(e.path === faster && e.calibrated, `${name}: chose ${e.path}, estimates ${JSON.stringify(e.estimates)}`);
        await spmvChecked(rt, A.astype('f32'));
        out.push(`${name}: ${e.path} (${e.format}) cpu ${e.estimates.cpu!.ms.toFixed(3)} ms vs webgl2 ${e.estimates.webgl2!.ms.toFixed(3)} ms`);
      }
      ok(rt.explain('spmv', poisson2D(1)).path === 'cpu', 'a 1×1 product must stay on the CPU');
      return `calibration: cpu ${cal.cpu.bandwidthGBs.toFixed(1)} GB/s, webgl2 ${cal.webgl2!.bandwidthGBs.toFixed(2)} GB/s + ${cal.webgl2!.overheadMs.toFixed(2)} ms per draw (SwiftShader: a software rasteriser); ${out.join('; ')}`;
    } finally {
      rt.dispose();
    }
  });

  await check('runtime: cg and bicgstab on the GPU', () => solverChecks('gpu', 'webgl2'));

  await check('runtime: context loss falls back to the CPU path', async () => {
    const canvas = drawingCanvas();
    const rt = await createRuntime({ backend: 'auto', canvas });
    try {
      const gl = canvas.getContext('webgl2')!; // the runtime's own context: a canvas has one
      const lose = gl.getExtension('WEBGL_lose_context');
      ok(lose, 'WEBGL_lose_context');
      const A = poisson2D(16).astype('f32');
      const h = rt.upload(A);
      const x = data('f32', A.cols);
      const expected = await rt.spmv(h, x, { path: 'cpu' });
      // the matrix goes up to the GPU, with no read-back before the loss (Chromium refuses to restore a
      // context lost after a completed pixel-buffer read-back: see the GPU path's own loss checks)
      const xv = rt.vector(x);
      const yv = rt.vector(A.rows, 'f32');
      await rt.spmv(h, xv, { y: yv, path: 'gpu' });
      const lost = new Promise<void>((r) => canvas.addEventListener('webglcontextlost', () => r(), { once: true }));
      lose.loseContext();
      await lost;
      // continue in a later task: Chromium decides whether a restore is allowed only after the
      // webglcontextlost dispatch returns, and a promise continuation runs inside that dispatch
      await new Promise((r) => setTimeout(r, 0));
      ok(rt.capabilities().gpu.contextLost === true, 'capabilities report the loss');
      const close = (a: ArrayLike<number>) => Array.from(a).every((v, i) => Math.abs(v - expected[i]) <= 1e-5 * (1 + Math.abs(v)));
      ok(close(await rt.spmv(h, x)), 'auto after the loss: the CPU path gives the right result');
      let rejected = '';
      try {
        await rt.spmv(h, x, { path: 'gpu' });
      } catch (e) {
        rejected = e instanceof GpuContextLostError ? (e as Error).message : `wrong error ${String(e)}`;
      }
      ok(rejected && !rejected.startsWith('wrong'), `forcing the GPU must reject: ${rejected}`);
      let readLost = '';
      await yv.read().catch((e: Error) => (readLost = e.name));
      ok(readLost === 'GpuContextLostError', `reading a vector last written on the lost GPU: ${readLost || 'no error'}`);
      const restored = new Promise<boolean>((r) => {
        canvas.addEventListener('webglcontextrestored', () => r(true), { once: true });
        setTimeout(() => r(false), 10_000);
      });
      lose.restoreContext();
      ok(await restored, 'the context was not restored within 10 s');
      await new Promise((r) => setTimeout(r, 0));
      ok(rt.capabilities().gpu.contextLost === false, 'restored');
      ok(close(await rt.spmv(h, x, { path: 'gpu' })), 'the GPU path after the restore (matrix re-uploaded)');
      return `lost: auto ran on the CPU path, path gpu rejected (${rejected}), reading a GPU-only vector rejected; restored: the GPU path runs again with the matrix re-uploaded`;
    } finally {
      rt.dispose();
    }
  });

  await check('runtime: SELL runs the sell shader on WebGL2 and explain says so', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const power = randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4 });
      const out: string[] = [];
      // the runtime's conversion (default C and σ: sorted for the power law, unsorted for poisson) and a SELL of the caller's kept as it is
      for (const [name, A, upload] of [
        ['power law, format sell', power, (A: CSRMatrix) => rt.upload(A, { format: 'sell' })],
        ['poisson, format sell', poisson2D(30), (A: CSRMatrix) => rt.upload(A, { format: 'sell' })],
        ['power law, SELL-3-6 kept', power, (A: CSRMatrix) => rt.upload(SELLMatrix.fromCSR(A, { sliceHeight: 3, sortWindow: 6 }), { format: 'keep' })],
      ] as const) {
        for (const dt of ['f32', 'c128'] as DType[]) {
          const B = A.astype(dt === 'c128' ? 'f64' : dt).astype(dt);
          const h = upload(B);
          const e = rt.explain('spmv', h);
          const line = e.reasons.find((r) => r.startsWith('WebGL2: ')) ?? '';
          ok(e.estimates.webgl2?.format === 'sell' && /runs the sell shader \(SELL-\d+-\d+: /.test(line), `${name} ${dt}: ${JSON.stringify(e.reasons)}`);
          const x = data(dt, B.cols);
          const y = await rt.spmv(h, x, { path: 'webgl2' });
          const M = h.copies.get('webgl2:sell') as unknown as { kernel: string } | undefined;
          ok(M?.kernel === 'sell', `${name} ${dt}: the WebGL2 copy runs ${M?.kernel}`);
          const ref = referenceSpmv(csrTriplets(B), x, null, 1, 0);
          if (dt === 'f32') ok(!checkAgainst(y, ref, 'single', false), `${name} f32: ${checkAgainst(y, ref, 'single', false)}`);
          let worst = 0;
          for (let k = 0; k < y.length; k++) worst = Math.max(worst, Math.abs(y[k] - ref.y[k]) / (ref.scale[k] || 1));
          ok(dt === 'f32' || worst <= 1e-12, `${name} ${dt}: error ${worst} of the scale`);
          out.push(`${name} ${dt}: error/scale ${worst.toExponential(1)}`);
          if (dt === 'f32') out.push(line.replace(/; ≈.*$/, ''));
          h.dispose();
        }
      }
      return out.join('; ');
    } finally {
      rt.dispose();
    }
  });

  await check('runtime: dense operations on both paths', async () => {
    const rt = await createRuntime({ backend: 'auto', workers: 2 });
    try {
      const mk = (r: number, c: number, seed: number, dt: 'f32' | 'f64') => {
        const v = dt === 'f32' ? new Float32Array(r * c) : new Float64Array(r * c);
        for (let i = 0; i < v.length; i++) v[i] = Math.sin(seed + 0.7 * i);
        return new DenseMatrix(r, c, dt, v);
      };
      const out: string[] = [];
      for (const dt of ['f32', 'f64'] as const) {
        const A = mk(37, 53, 1, dt);
        const B = mk(53, 29, 2, dt);
        const cpu = await rt.gemm(A, B, { path: 'cpu', alpha: 2 });
        const gpu = await rt.gemm(A, B, { path: 'gpu', alpha: 2 });
        let worst = 0;
        for (let i = 0; i < cpu.values.length; i++) worst = Math.max(worst, Math.abs(cpu.values[i] - gpu.values[i]));
        ok(worst <= (dt === 'f32' ? 1e-4 : 1e-11), `${dt} gemm: CPU and GPU differ by ${worst}`);
        const T = await rt.transpose(A, { path: 'gpu' });
        // f64 on the GPU is double-single: a value comes back to ~48 bits, not bit for bit
        const tol = dt === 'f32' ? 0 : 1e-14;
        let tErr = 0;
        for (let i = 0; i < 37; i++) for (let j = 0; j < 53; j++) tErr = Math.max(tErr, Math.abs(T.values[j * 37 + i] - A.values[i * 53 + j]));
        ok(T.rows === 53 && T.cols === 37 && tErr <= tol, `${dt} transpose: error ${tErr}`);
        const S = await rt.add(A, A, { path: 'gpu', alpha: 1, beta: -1 });
        ok(S.values.every((v) => v === 0), `${dt} add`);
        // resident handles: made on the CPU, moved up by a forced op, results stay on the GPU until read
        const hA = rt.dense(A);
        const T1 = await rt.transpose(hA, { path: 'webgl2' });
        const T2 = await rt.transpose(T1); // runs where T1 is current: the GPU
        ok(T1.current.has('webgl2') && !T1.current.has('cpu') && T2.current.has('webgl2') && !T2.current.has('cpu'), `${dt}: results stay on the GPU`);
        const back = await T2.read();
        let hErr = 0;
        for (let i = 0; i < back.values.length; i++) hErr = Math.max(hErr, Math.abs(back.values[i] - A.values[i]));
        ok(hErr <= tol, `${dt} handle transpose twice: error ${hErr}`);
        const P = await rt.gemm(T2, B, { alpha: 2 }); // T2 is current on both now: the CPU path
        let pErr = 0;
        const pv = (await P.read()).values;
        for (let i = 0; i < pv.length; i++) pErr = Math.max(pErr, Math.abs(pv[i] - cpu.values[i]));
        ok(pErr <= (dt === 'f32' ? 1e-4 : 1e-11), `${dt} gemm of a handle: ${pErr}`);
        out.push(`${dt} gemm |cpu − gpu| ≤ ${worst.toExponential(1)}, handles moved CPU → GPU → CPU (error ${hErr.toExponential(1)})`);
      }
      return out.join('; ');
    } finally {
      rt.dispose();
    }
  });
}
