// median wall and CPU of rt.upload + rt.solve ('auto'), in the bench's rotation with forced direct and the Krylov candidate
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const out = [];
for (const name of (process.env.CASES || 'west0479,olm1000').split(',')) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);
  const h0 = rt.upload(A); const e = rt.explain('solve', h0); h0.dispose();
  const variants = process.env.WARM ? [{}] : [{}, { method: 'direct' }, { method: e.fallbacks[0].method, preconditioner: 'auto' }];
  const w = [], c = [];
  for (let k = -30; k < +(process.env.N || 90); k++) {
    for (let j = 0; j < variants.length; j++) {
      const v = (j + k + 300) % variants.length;
      const c0 = process.cpuUsage(); const t0 = performance.now();
      const h = rt.upload(A); await rt.solve(h, b, { ...variants[v], tol: 1e-8 }); h.dispose();
      const t = performance.now() - t0; const cu = process.cpuUsage(c0);
      if (k >= 0 && v === 0) { w.push(t); c.push((cu.user + cu.system) / 1e3); }
    }
  }
  out.push(`${name} wall ${med(w).toFixed(3)} cpu ${med(c).toFixed(3)}`);
}
console.log(out.join(' | '));
rt.dispose();
