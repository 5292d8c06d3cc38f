import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const [root = '.', count = '20', mode = 'host'] = process.argv.slice(2);
const { createRuntime, poisson3D } = await import(pathToFileURL(resolve(root, 'dist/index.js')).href);
const rt = await createRuntime({ workers: 2 });
const A = poisson3D(64);
let out = rt.spgemm(A, A);
const hA = rt.upload(A);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
const rows = [];
for (let k = 0; k < 3 * Number(count); k++) {
  const c0 = cpu(), t0 = performance.now();
  if (mode === "host") rt.spgemm(A, A); else if (k % 3 === 1) rt.spgemm(hA, hA).dispose();
  else if (k % 3 === 2) rt.spgemm(A, A, { out });
  else rt.spgemm(A, A);
  if (k % 3 === 0) rows.push([performance.now() - t0, cpu() - c0]);
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(JSON.stringify({ root, wall: +med(rows.map((r) => r[0])).toFixed(1), cpu: +med(rows.map((r) => r[1])).toFixed(1), min: +Math.min(...rows.map((r) => r[0])).toFixed(1) }));
rt.dispose();
