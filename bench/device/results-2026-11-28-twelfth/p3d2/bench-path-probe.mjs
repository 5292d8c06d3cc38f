// The solve bench's poisson3D(64) cell as bench/solve.ts times it (rt.upload + rt.solve(h, b, { tol }),
// h.dispose(), one untimed call then the timed ones, no gc() between), with per call: wall ms of upload,
// set-up (→ first onIteration), iterations, tail, total, process CPU ms, and V8's collections inside the
// call (PerformanceObserver 'gc': count, ms, kinds), minor page faults (the upload's, the call's; every thread). GC=1 calls gc() between calls as the eleventh
// session's phase-probe did.
// usage: node --expose-gc bench-path-probe.mjs <worktree root> [calls=4]
import { PerformanceObserver } from 'node:perf_hooks';
const root = process.argv[2];
const calls = Number(process.argv[3] ?? 4);
const { createRuntime, poisson3D } = await import(root + '/dist/index.js');
const gcs = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push({ t: e.startTime, ms: e.duration, kind: e.detail?.kind ?? e.kind }); }).observe({ entryTypes: ['gc'] });
const rt = await createRuntime();
const A = poisson3D(64);
const b = new Float64Array(A.rows); for (let i = 0; i < A.rows; i++) b[i] = 1;
const out = [];
for (let i = 0; i < calls; i++) {
  let first = 0, last = 0;
  const f0 = process.resourceUsage().minorPageFault; const c0 = process.cpuUsage(); const t0 = performance.now();
  const h = rt.upload(A);
  const t1 = performance.now(); const f1 = process.resourceUsage().minorPageFault;
  let r;
  try {
    r = await rt.solve(h, b, { tol: 1e-8, onIteration: () => { last = performance.now(); if (!first) first = last; } });
  } finally { h.dispose(); }
  const t2 = performance.now(); const c = process.cpuUsage(c0); const f2 = process.resourceUsage().minorPageFault;
  await new Promise((res) => setImmediate(res)); // let the observer deliver
  const mine = gcs.filter((g) => g.t >= t0 && g.t <= t2);
  out.push({ up: +(t1 - t0).toFixed(1), setup: +(first - t1).toFixed(1), iters: +(last - first).toFixed(1), tail: +(t2 - last).toFixed(1), total: +(t2 - t0).toFixed(1), cpu: Math.round((c.user + c.system) / 1000), it: r.iterations, faultsUp: f1 - f0, faults: f2 - f0, gcN: mine.length, gcMs: +mine.reduce((s, g) => s + g.ms, 0).toFixed(1), gcKinds: mine.map((g) => g.kind).join('') });
  if (process.env.GC === '1') globalThis.gc?.();
}
console.log(JSON.stringify({ build: root.split('/').pop(), gc: process.env.GC === '1', calls: out }));
rt.dispose();
process.exit(0);
