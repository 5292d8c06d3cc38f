/**
 * The WebGPU path loads its WGSL sources with its first operation, not when a runtime probes it (issue
 * 22, item 3; test/browser-lazy-shaders.test.ts shows the same for both GPU paths' chunks in a page).
 * In Node with Dawn handed in: createRuntime('auto'), capabilities, explain and work that runs on the
 * CPU leave them unloaded; the first product on the WebGPU path loads them and is right.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRuntime, poisson2D, type Runtime } from '../src/index.js';
import { loadDawn } from '../src/webgpu/device.js';
import { wgslLoaded } from '../src/webgpu/shader-source.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

let rt: Runtime;
beforeAll(async () => {
  pointDawnAtSwiftShader();
  const gpu = await loadDawn();
  if (typeof gpu === 'string') throw new Error(`NO WEBGPU: ${gpu}`);
  rt = await createRuntime({ webgpu: { gpu } });
});
afterAll(() => rt?.dispose());

it('CPU work on a runtime with the WebGPU path loads no WGSL; its first WebGPU product does', async () => {
  expect(rt.capabilities().paths.webgpu.available).toBe(true);
  expect(wgslLoaded()).toBe(false);
  const A = poisson2D(20);
  const h = rt.upload(A);
  const x = new Float64Array(A.cols).map((_, i) => (i % 7) - 3);
  expect(rt.explain('spmv', h).path).toBe('cpu');          // SwiftShader: a software renderer
  const y = await rt.spmv(h, x);
  const v = rt.vector(x);
  await rt.axpy(1, v, v);
  expect((await rt.cg(h, y)).path).toBe('cpu');
  expect(wgslLoaded(), 'WGSL loaded by CPU work').toBe(false);
  const g = await rt.spmv(h, x, { path: 'webgpu' });
  expect(wgslLoaded()).toBe(true);
  // y by the CPU, g in double-single on the GPU: the same up to double-single's rounding
  let worst = 0;
  for (let i = 0; i < y.length; i++) worst = Math.max(worst, Math.abs(g[i] - y[i]));
  expect(worst).toBeLessThan(1e-10);
});
