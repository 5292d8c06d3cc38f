import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const [root, reps = '4'] = process.argv.slice(2);
const { createRuntime, poisson3D } = await import(pathToFileURL(resolve(root, 'dist/index.js')).href);
const rt = await createRuntime({ workers: 1 });
const be = rt.cpu.backend;
const acc = new Map();
const now = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
const f = be.runChunksSync.bind(be);
be.runChunksSync = (...a) => { const t = now(); try { return f(...a); } finally { if (String(a[0]).startsWith('spgemm')) acc.set(a[0], (acc.get(a[0]) ?? 0) + now() - t); } };
const h = rt.upload(poisson3D(64));
let tot = 0;
for (let k = 0; k < 1 + Number(reps); k++) {
  if (k === 1) acc.clear();
  const c0 = now();
  rt.amg(h).dispose();
  if (k) tot += now() - c0;
}
const n = Number(reps);
console.log(root.split('/').pop(), 'setup cpu', (tot / n).toFixed(1), [...acc].map(([k, v]) => `${k} ${(v / n).toFixed(1)}`).join(', '));
rt.dispose();
