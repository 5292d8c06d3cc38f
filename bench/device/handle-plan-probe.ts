/**
 * Where a handle's first rt.solve with 'chebyshev' on the WebGPU path spends the time a repeated one
 * does not (issue 20's preconditioned cell, "first solve of the handle, plan included"): poisson3D(n),
 * f64, for each of `rounds` fresh handles a Jacobi solve (upload and structure, untimed), then the first
 * Chebyshev solve and `again` more, timed; prints each with its window in a --cpu-prof profile (µs of
 * that clock) for bench/device's profile tools. Bundle as solve-build.sh bundles solve-cg.ts, run
 * `node --cpu-prof handle-plan-probe.mjs [n] [rounds] [again]`.
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';

const n = Number(process.argv[2] ?? 128);
const rounds = Number(process.argv[3] ?? 3);
const again = Number(process.argv[4] ?? 3);
const rt = await createRuntime({ backend: 'webgpu' });
const A = poisson3D(n);
const b = new Float64Array(A.rows).fill(1);
const us = () => process.hrtime.bigint() / 1000n;
for (let round = 1; round <= rounds; round++) {
  const h = rt.upload(A);
  await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'jacobi' });
  const s0 = us();
  const t0 = performance.now();
  const r = await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
  const first = performance.now() - t0;
  const s1 = us();
  const times: number[] = [];
  let s2 = 0n;
  for (let i = 0; i < again; i++) {
    const t = performance.now();
    if (i === again - 1) s2 = us();
    await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
    times.push(performance.now() - t);
  }
  console.log(`PLAN\tround ${round}\tfirst ${first.toFixed(1)} ms (${r.iterations} it)\tagain ${times.map((t) => t.toFixed(1)).join(' ')} ms\tfirst window ${s0}-${s1} µs\tlast again from ${s2} µs`);
  h.dispose();
}
rt.dispose();
