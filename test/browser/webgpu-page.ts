// The runtime with the WebGPU path in headless Chromium (WebGPU on SwiftShader, launched with
// WEBGPU_ARGS): backend 'webgpu' for every dtype, data moving between WebGPU, WebGL2 and the CPU,
// CG on WebGPU, 'auto' over three paths, and device loss. Results go to window.__simdglResults.
// Bundled by test/browser-webgpu.test.ts.
import { createRuntime, DenseMatrix, GpuUnavailableError, poisson2D, poisson3D, type Runtime } from '../../src/index.js';
import { WebGpuDeviceLostError } from '../../src/webgpu/errors.js';
import type { WebGpuPath } from '../../src/webgpu/path.js';
import type { CheckResult } from './checks.js';
import { record } from './test-data.js';
import { data, ENGINE_CHECKS, everyDtype, solverChecks, spmvChecked, WEBGPU_RUNTIME_CHECKS, type EnginePaths } from './runtime-checks.js';

const results: CheckResult[] = [];
// the checks so far, for the Node side to name the last one when the page runs out of time
(globalThis as { __simdglProgress?: CheckResult[] }).__simdglProgress = results;

function check(name: (typeof WEBGPU_RUNTIME_CHECKS)[number] | (typeof ENGINE_CHECKS)[number], fn: () => Promise<string>): Promise<void> {
  return record(results, name, fn);
}

function ok(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

const webgpuOf = (rt: Runtime) => rt.pathById('webgpu') as WebGpuPath;

let paths: EnginePaths | undefined;

async function run(): Promise<void> {
  // what this engine offers each path (the suite's engine × path table), and a clear reason for each gap
  await check('paths in this engine', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const caps = rt.capabilities();
      paths = { paths: caps.paths, notes: caps.notes, threads: caps.threads, wasm: caps.wasm, crossOriginIsolated: caps.crossOriginIsolated ?? null };
      for (const [id, p] of Object.entries(caps.paths)) ok(p.available || (p.reason && p.reason.length > 10), `${id}: unavailable without a reason: ${JSON.stringify(p)}`);
      ok(caps.paths.cpu.available, 'the CPU path is always there');
      return JSON.stringify(paths);
    } finally {
      rt.dispose();
    }
  });
  await check('webgpu runtime: unavailable says why', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    const p = rt.capabilities().paths.webgpu;
    rt.dispose();
    if (p.available) return `WebGPU is available here (${p.device})`;
    // forcing the path must reject with the same reason the capabilities give
    const forced = await createRuntime({ backend: 'webgpu' }).then(
      (r) => (r.dispose(), 'resolved'),
      (e: Error) => (e instanceof GpuUnavailableError ? e.message : `wrong error ${String(e)}`),
    );
    ok(forced.includes(p.reason!), `backend 'webgpu' gave "${forced}", capabilities say "${p.reason}"`);
    return `no WebGPU here: ${p.reason}; backend 'webgpu' rejects with GpuUnavailableError saying so`;
  });
  if (!paths?.paths.webgpu.available) return; // the Node side reports each WebGPU check as not run, with the reason

  await check('webgpu runtime: backend webgpu, every dtype', async () => {
    const rt = await createRuntime({ backend: 'webgpu' });
    try {
      const caps = rt.capabilities();
      ok(caps.paths.webgpu.available && caps.gpu.path === 'webgpu', JSON.stringify(caps.paths));
      const details = await everyDtype(rt, 'webgpu', 'backend webgpu must explain the WebGPU path');
      return `adapter ${caps.paths.webgpu.device}; worst error/scale: ${details}`;
    } finally {
      rt.dispose();
    }
  });

  await check('webgpu runtime: data moves between WebGPU, WebGL2 and the CPU', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const caps = rt.capabilities().paths;
      ok(caps.webgpu.available && caps.webgl2.available, `both GPU paths: ${JSON.stringify(caps)}`);
      const A = poisson2D(20).astype('f64');
      const h = rt.upload(A);
      const xs = data('f64', A.cols);
      const x = rt.vector(xs);
      const y = rt.vector(A.rows);
      await rt.spmv(h, x, { y, path: 'webgpu' }); // y = A·x, on WebGPU only
      ok([...y.current].join() === 'webgpu', `after webgpu: ${[...y.current]}`);
      await rt.spmv(h, x, { y, beta: 1, path: 'webgl2' }); // y read there: WebGPU → host → WebGL2
      ok([...y.current].join() === 'webgl2', `after webgl2: ${[...y.current]}`);
      const twice = await y.read();
      const once = await rt.spmv(h, xs, { path: 'cpu' });
      let worst = 0;
      for (let i = 0; i < once.length; i++) worst = Math.max(worst, Math.abs(twice[i] - 2 * once[i]));
      ok(worst <= 1e-12, `2·A·x through both GPU paths differs from the CPU by ${worst}`);
      const M = new DenseMatrix(37, 53, 'f32', data('f32', 37 * 53));
      const T = await rt.transpose(await rt.transpose(rt.dense(M), { path: 'webgpu' }), { path: 'webgl2' });
      const back = (await T.read()).values;
      ok(back.every((v, i) => v === M.values[i]), 'a dense handle transposed on WebGPU, then on WebGL2, is not the original');
      return `y through WebGPU then WebGL2: |2·A·x − CPU| ≤ ${worst.toExponential(1)}; dense handle WebGPU → WebGL2 → CPU exact`;
    } finally {
      rt.dispose();
    }
  });

  await check('webgpu runtime: cg and bicgstab on WebGPU', () => solverChecks('webgpu', 'webgpu'));

  await check('webgpu runtime: auto estimates three paths', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const cal = await rt.calibrate();
      ok(cal.webgpu && cal.webgl2 && cal.webgpu.bandwidthGBs > 0, JSON.stringify(cal));
      const out: string[] = [];
      for (const [name, A] of [['tiny 1×1', poisson2D(1)], ['poisson3D_24', poisson3D(24)]] as const) {
        const e = rt.explain('spmv', A);
        const all = Object.values(e.estimates);
        ok(all.length === 3, `three estimates: ${JSON.stringify(e.estimates)}`);
        const fastest = all.reduce((a, b) => (b.ms < a.ms ? b : a));
        ok(e.path === fastest.path, `${name}: chose ${e.path}, estimates ${JSON.stringify(e.estimates)}`);
        await spmvChecked(rt, A.astype('f32'));
        out.push(`${name}: ${e.path} (${all.map((x) => `${x.path} ${x.ms.toFixed(3)} ms`).join(', ')})`);
      }
      return `calibration: cpu ${cal.cpu.bandwidthGBs.toFixed(1)}, webgpu ${cal.webgpu.bandwidthGBs.toFixed(2)} GB/s + ${cal.webgpu.overheadMs.toFixed(2)} ms, webgl2 ${cal.webgl2.bandwidthGBs.toFixed(2)} GB/s + ${cal.webgl2.overheadMs.toFixed(2)} ms; ${out.join('; ')}`;
    } finally {
      rt.dispose();
    }
  });

  await check('webgpu runtime: device loss falls back and recovers', async () => {
    const rt = await createRuntime({ backend: 'auto' });
    try {
      const A = poisson2D(16).astype('f32');
      const h = rt.upload(A);
      const x = data('f32', A.cols);
      const expected = await rt.spmv(h, x, { path: 'cpu' });
      const close = (a: ArrayLike<number>) => Array.from(a).every((v, i) => Math.abs(v - expected[i]) <= 1e-5 * (1 + Math.abs(v)));
      ok(close(await rt.spmv(h, x, { path: 'webgpu' })), 'before the loss');
      const p = webgpuOf(rt);
      let fellBack = '';
      const lost = new Promise<void>((r) => p.onLost(r));
      const restored = new Promise<boolean>((r) => {
        p.onRestored(() => r(true));
        setTimeout(() => r(false), 20_000);
      });
      const pending = rt.spmv(h, x, { path: 'webgpu' });
      p.backend.loseDevice();
      const rejected = await pending.then(() => 'resolved', (e: Error) => (e instanceof WebGpuDeviceLostError ? e.name : `wrong error ${String(e)}`));
      ok(rejected === 'WebGpuDeviceLostError', `the pending call: ${rejected}`);
      await lost;
      if (!p.usable) fellBack = rt.explain('spmv', h).path; // while the new device is being requested
      ok(await restored, 'no new device within 20 s');
      ok(close(await rt.spmv(h, x, { path: 'webgpu' })), 'after the restore (matrix re-uploaded)');
      return `pending call rejected with ${rejected}; ${fellBack ? `auto chose ${fellBack} while lost; ` : ''}new device, the path runs again`;
    } finally {
      rt.dispose();
    }
  });
}

declare global {
  interface Window {
    __simdglResults?: { results: CheckResult[]; log: string[]; error?: string; paths?: EnginePaths };
  }
}

run().then(
  () => (window.__simdglResults = { results, log: [], paths }),
  (e: Error) => (window.__simdglResults = { results, log: [], paths, error: `${e?.message}\n${e?.stack}` }),
);
