// split-probe.mjs of the eleventh session (bench/device/results-2026-11-28-eleventh/p3d) with each wrapped
// step's minor page faults (fl) and the call's (faults) beside its wall ms.
// usage: node --expose-gc split-faults-probe.mjs <worktree root> [calls=6]
const root = process.argv[2];
const calls = Number(process.argv[3] ?? 6);
const { createRuntime, poisson3D } = await import(root + '/dist/index.js');
const { DIAMatrix } = await import(root + '/dist/formats/dia.js');
const { CpuBackend } = await import(root + '/dist/cpu/backend.js');
const { CpuPath } = await import(root + '/dist/cpu/path.js');
const { Runtime } = await import(root + '/dist/runtime/runtime.js');
const acc = {}; const flt = {};
const wrap = (obj, name, label = name) => {
  const f = obj[name];
  if (typeof f !== 'function') return console.log('no', label);
  obj[name] = function (...a) { const f0 = process.resourceUsage().minorPageFault; const t0 = performance.now(); try { return f.apply(this, a); } finally { acc[label] = (acc[label] ?? 0) + performance.now() - t0; flt[label] = (flt[label] ?? 0) + process.resourceUsage().minorPageFault - f0; } };
};
wrap(DIAMatrix, 'fromCSR');
wrap(CpuBackend.prototype, 'upload', 'backend.upload');
wrap(CpuPath.prototype, 'solverOps');
// the structure's first read (the analysis' structureIn), timed apart
const sso = Runtime.prototype.solveStructureOf;
Runtime.prototype.solveStructureOf = function (h) {
  const a = sso.call(this, h);
  if (!a.timed) { a.timed = true; const f = a.structureIn; let done = false; a.structureIn = (s) => { if (done) return f(s); const t0 = performance.now(); try { return f(s); } finally { done = true; acc.structure = (acc.structure ?? 0) + performance.now() - t0; } }; Object.defineProperty(a, 'structure', { get: () => a.structureIn() }); }
  return a;
};
for (const m of ['featuresOf', 'pathSolveInfo', 'wantsDirect', 'solveMatrixOn', 'upload']) wrap(Runtime.prototype, m, 'rt.' + m);
const rt = await createRuntime();
const chunk = rt.cpuBackend?.startChunk;
void chunk;
const A = poisson3D(64);
const b = new Float64Array(A.rows).fill(1);
for (let i = 0; i < calls; i++) {
  for (const k in acc) delete acc[k]; for (const k in flt) delete flt[k]; const F0 = process.resourceUsage().minorPageFault;
  let first = 0;
  const t0 = performance.now();
  const h = rt.upload(A);
  const t1 = performance.now();
  const r = await rt.solve(h, b, { tol: 1e-8, onIteration: () => { first ||= performance.now(); } });
  const t2 = performance.now();
  console.log(JSON.stringify({ up: +(t1 - t0).toFixed(1), setup: +(first - t1).toFixed(1), total: +(t2 - t0).toFixed(1), it: r.iterations, faults: process.resourceUsage().minorPageFault - F0, fl: flt, ...Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, +v.toFixed(1)])) }));
  h.dispose();
}
rt.dispose();
process.exit(0);
