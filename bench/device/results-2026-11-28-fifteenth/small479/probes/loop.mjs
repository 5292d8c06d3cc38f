// rt.upload + rt.solve of one matrix in a loop; median process CPU and wall per call
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const name = process.env.CASE || 'west0479';
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const cpu = [], wall = [];
const N = +(process.env.N || 3000);
for (let k = -300; k < N; k++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  const h = rt.upload(A); const r = await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
  const c = process.cpuUsage(c0);
  if (k >= 0) { cpu.push(c.user + c.system); wall.push(1e3 * (performance.now() - t0)); }
  if (k === 0) console.log(r.method, r.factor?.kind, r.factor?.ordering, r.relativeResidual);
}
console.log(name, 'cpu µs', med(cpu), 'wall µs', med(wall).toFixed(0));
rt.dispose();
