// Which shader chunks a page loads (test/browser-lazy-shaders.test.ts bundles this page with esbuild's
// code splitting and logs every request): a runtime with backend 'auto' over all three paths does CPU
// work, capabilities and explain, then one product on WebGPU, then one on WebGL2, and asks the
// server for /mark/<stage> after each stage so the Node side can tell which requests each stage made.
import { createRuntime, poisson2D } from '../../src/index.js';

async function mark(stage: string): Promise<void> {
  await fetch(`/mark/${stage}`);
}

async function run(): Promise<Record<string, unknown>> {
  const rt = await createRuntime({ backend: 'auto' });
  const caps = rt.capabilities();
  const A = poisson2D(30).astype('f32');
  const h = rt.upload(A);
  const x = new Float32Array(A.cols).fill(1);
  const e = rt.explain('spmv', h);
  const cpu = await rt.spmv(h, x);                 // 'auto': the CPU (the GPUs here are software renderers)
  const v = rt.vector(x);
  await rt.axpy(2, v, v);
  const solved = await rt.cg(h, cpu);
  await mark('cpu-done');
  const onWebgpu = await rt.spmv(h, x, { path: 'webgpu' });
  await mark('webgpu-done');
  const onWebgl2 = await rt.spmv(h, x, { path: 'webgl2' });
  await mark('webgl2-done');
  rt.dispose();
  const same = (a: ArrayLike<number>) => Array.from(a).every((t, i) => Math.abs(t - cpu[i]) <= 1e-5 * (1 + Math.abs(cpu[i])));
  return {
    paths: { webgpu: caps.paths.webgpu.available, webgl2: caps.paths.webgl2.available, reasons: [caps.paths.webgpu.reason, caps.paths.webgl2.reason] },
    explained: e.path,
    cgPath: solved.path,
    gpuMatchesCpu: same(onWebgpu) && same(onWebgl2),
  };
}

run().then(
  (r) => ((globalThis as { __lazyResult?: unknown }).__lazyResult = r),
  (e: Error) => ((globalThis as { __lazyResult?: unknown }).__lazyResult = { error: `${e?.message}\n${e?.stack}` }),
);
