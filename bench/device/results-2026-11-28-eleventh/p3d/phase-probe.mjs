// rt.upload + rt.solve of poisson3D(64) (b = 1, tol 1e-8, the bench's call), CALLS a process: per call
// wall ms of upload, solve set-up (call → first iteration's onIteration), iterations (first → last),
// tail (last iteration → result: true residual), total, and process CPU ms (every thread).
// usage: node --expose-gc phase-probe.mjs <worktree root> [calls=4]
const root = process.argv[2];
const calls = Number(process.argv[3] ?? 4);
const { createRuntime, poisson3D } = await import(root + '/dist/index.js');
const rt = await createRuntime();
const A = poisson3D(64);
const b = new Float64Array(A.rows).fill(1);
const out = [];
for (let i = 0; i < calls; i++) {
  let first = 0, last = 0;
  const c0 = process.cpuUsage(); const t0 = performance.now();
  const h = rt.upload(A);
  const t1 = performance.now();
  const r = await rt.solve(h, b, { tol: 1e-8, onIteration: () => { last = performance.now(); if (!first) first = last; } });
  const t2 = performance.now(); const c = process.cpuUsage(c0);
  out.push({ up: +(t1 - t0).toFixed(1), setup: +(first - t1).toFixed(1), iters: +(last - first).toFixed(1), tail: +(t2 - last).toFixed(1), total: +(t2 - t0).toFixed(1), cpu: Math.round((c.user + c.system) / 1000), it: r.iterations, what: `${r.method}+${r.preconditioner}` });
  h.dispose();
  globalThis.gc?.();
}
console.log(JSON.stringify({ build: root.split('/').pop(), calls: out }));
rt.dispose();
process.exit(0);
