import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const names = (process.env.CASES || 'west0479,olm1000').split(',');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => a.length ? [...a].sort((p, q) => p - q)[a.length >> 1] : NaN;
for (const name of names) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows); for (let i = 0; i < A.rows; i++) b[i] = 1;
  const e = rt.explain('solve', rt.upload(A));
  const variants = [{}, { method: 'direct' }, { method: e.fallbacks[0].method, preconditioner: 'auto' }];
  const rec = {}; // key `${v}<-${prev}`
  let prev = -1;
  const N = +(process.env.N || 150);
  for (let k = -20; k < N; k++) {
    for (let j = 0; j < 3; j++) {
      const v = ((j + k) % 3 + 3) % 3;
      const c0 = process.cpuUsage(); const t0 = performance.now();
      const h = rt.upload(A);
      await rt.solve(h, b, { ...variants[v], tol: 1e-8 });
      const t1 = performance.now(); const c1 = process.cpuUsage(c0);
      h.dispose();
      if (k >= 0 && v < 2) { const key = `${v ? 'direct' : 'auto'}<-${['auto','direct','krylov'][prev]}`; (rec[key] ??= { w: [], c: [] }); rec[key].w.push(t1 - t0); rec[key].c.push((c1.user + c1.system) / 1e3); }
      prev = v;
    }
  }
  console.log(name, Object.entries(rec).map(([k, r]) => `${k}: n ${r.w.length} wall ${med(r.w).toFixed(3)} cpu ${med(r.c).toFixed(3)}`).join(' | '));
}
rt.dispose();
