/**
 * rt.spgemm(A, A)'s host form (fresh arrays) on poisson3D(64), 2 threads, Linux: per product the wall
 * time, each thread's CPU (/proc/self/task/* /schedstat) and minor page faults (…/stat), as the bench's
 * loop runs it (host form, handles, into out, alternated), medians; or the RSS after 10, 20, 30 and 40
 * discarded host-form products. Compare builds by giving each one's root (docs/amg.md, "tenth session"):
 *   node --expose-gc bench/spgemm-host-probe.mjs <root with dist/> [loop|rss] [products]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root = '.', mode = 'loop', count = '6'] = process.argv.slice(2);
const { createRuntime, poisson3D } = await import(pathToFileURL(resolve(root, 'dist/index.js')).href);
const rt = await createRuntime({ workers: 2 });
const A = poisson3D(64);
const tasks = (field) => new Map(readdirSync('/proc/self/task').map((t) => [t, field(t)]));
const cpu = () => tasks((t) => Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
const faults = () => tasks((t) => Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ')[7]));
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const me = String(process.pid);
const out = rt.spgemm(A, A);
if (mode === 'rss') {
  const rss = [];
  for (let k = 1; k <= 40; k++) {
    rt.spgemm(A, A);
    if (k % 10 === 0) rss.push(Math.round(process.memoryUsage().rss / 1e6));
  }
  console.log(JSON.stringify({ root, rssMB: rss }));
} else {
  const hA = rt.upload(A);
  const rows = [];
  for (let k = 0; k < 3 * Number(count); k++) {
    const [c0, f0, t0] = [cpu(), faults(), performance.now()];
    if (k % 3 === 1) rt.spgemm(hA, hA).dispose();
    else if (k % 3 === 2) rt.spgemm(A, A, { out });
    else rt.spgemm(A, A);
    if (k % 3 !== 0) continue;
    const wall = performance.now() - t0;
    const [c1, f1] = [cpu(), faults()];
    let [worker, workerFaults] = [0, 0];
    for (const [t, ms] of c1) if (t !== me) worker = Math.max(worker, ms - (c0.get(t) ?? 0));
    for (const [t, n] of f1) if (t !== me) workerFaults = Math.max(workerFaults, n - (f0.get(t) ?? 0));
    rows.push({ wall, caller: c1.get(me) - c0.get(me), worker, callerFaults: f1.get(me) - f0.get(me), workerFaults });
  }
  hA.dispose();
  const m = (k) => +median(rows.map((r) => r[k])).toFixed(1);
  console.log(JSON.stringify({ root, products: rows.length, wallMs: m('wall'), callerCpuMs: m('caller'), workerCpuMs: m('worker'), callerFaults: m('callerFaults'), busiestWorkerFaults: m('workerFaults') }));
}
rt.dispose();
