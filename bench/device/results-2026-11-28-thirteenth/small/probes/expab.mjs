import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const name of (process.env.CASES || 'olm1000').split(',')) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);
  const res = [[], []]; const T = new Float64Array(process.env.THRASH ? +process.env.THRASH : 0); let sink = 0; let rr = [];
  for (let k = -200; k < +(process.env.N || 1500); k++) {
    for (let j = 0; j < 2; j++) {
      const v = (j + k) & 1; globalThis[process.env.FLAG || "__EXP"] = v === 1;
      for (let i = 0; i < T.length; i += 8) sink += (T[i] += 1);
      const c0 = process.cpuUsage();
      const h = rt.upload(A); const r = await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
      const c = process.cpuUsage(c0);
      if (k >= 0) res[v].push((c.user + c.system)); rr[v] = r.relativeResidual;
    }
  }
  console.log(name, 'base', med(res[0]), 'exp', med(res[1]), 'µs cpu', 'ratio', (med(res[1]) / med(res[0])).toFixed(3), rr);
}
rt.dispose();
