// per-phase wall time on the calling thread: wraps the backend's runChunksSync / kernel / copyOut / pool.runSync
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const [root = '.', count = '10', workers = '2', form = 'host'] = process.argv.slice(2);
const { createRuntime, poisson3D, randomMatrix } = await import(pathToFileURL(resolve(root, 'dist/index.js')).href);
const rt = await createRuntime({ workers: Number(workers) });
const PL = process.env.PL ? randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }).astype('f64') : null;
const A = PL ?? poisson3D(64);
const B = PL ? PL.transpose() : A;
const be = rt.cpu.backend;
const acc = new Map();
const now = process.env.CPU === 'thread' ? () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6 : process.env.CPU ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; } : () => performance.now();
const wrap = (obj, name, label) => { const f = obj[name]; obj[name] = function (...a) { const t = now(); try { return f.apply(this, a); } finally { const k = label(a); acc.set(k, (acc.get(k) ?? 0) + now() - t); } }; };
wrap(be, 'runChunksSync', (a) => 'chunks:' + a[0]);
wrap(be, 'copyOut', () => 'copyOut');
const { CpuSparseSession } = await import(pathToFileURL(resolve(root, 'dist/cpu/spgemm.js')).href);
for (const m of ['upload', 'isCanonical', 'spgemm']) wrap(CpuSparseSession.prototype, m, () => 'session.' + m);
wrap(rt, 'spgemm', () => 'rt.spgemm');
if (be.workerPool) wrap(be.workerPool, 'runSync', (a) => 'pool:' + a[0].kernel);
const hA = rt.upload(A);
const hB = B === A ? hA : rt.upload(B);
let out = rt.spgemm(A, B);
const walls = [];
for (let k = 0; k < 3 + Number(count); k++) {
  if (k === 3) acc.clear();
  const t = performance.now();
  if (form === 'host') rt.spgemm(A, B); else if (form === 'handle') rt.spgemm(hA, hB).dispose(); else rt.spgemm(A, B, { out });
  if (k >= 3) walls.push(performance.now() - t);
}
const n = Number(count);
walls.sort((x, y) => x - y);
console.log(form, 'workers', workers, 'wall median', walls[walls.length >> 1].toFixed(1), 'min', walls[0].toFixed(1));
for (const [k, v] of acc) console.log('  ', k.padEnd(40), (v / n).toFixed(2));
rt.dispose();
