import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const names = (process.env.CASES || 'west0479,olm1000').split(',');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const name of names) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows); for (let i = 0; i < A.rows; i++) b[i] = 1;
  const variants = [{}, { method: 'direct' }];
  const wall = [[], []], cpu = [[], []];
  let last = [];
  const N = +(process.env.N || 2000);
  for (let k = -300; k < N; k++) {
    for (let j = 0; j < 2; j++) {
      const v = (j + k) & 1;
      const c0 = process.cpuUsage(); const t0 = performance.now();
      const h = rt.upload(A);
      const r = await rt.solve(h, b, { ...variants[v], tol: 1e-8 });
      h.dispose();
      const t1 = performance.now(); const c1 = process.cpuUsage(c0);
      if (k >= 0) { wall[v].push(t1 - t0); cpu[v].push((c1.user + c1.system) / 1e3); }
      last[v] = r;
    }
  }
  console.log(`${name}: auto wall ${med(wall[0]).toFixed(3)} cpu ${med(cpu[0]).toFixed(3)} | direct wall ${med(wall[1]).toFixed(3)} cpu ${med(cpu[1]).toFixed(3)} | ${last[0].method} ${last[0].factor?.kind} ${last[0].relativeResidual.toExponential(2)} / ${last[1].method} ${last[1].factor?.kind}`);
}
rt.dispose();
