/**
 * How long rt.amg's calling thread waits for the pool's slowest thread (issue 21, helper pooldyn): for
 * each synchronous pool job (WorkerPool.runSync) its wall time and the part the calling thread spent in
 * its own chunks, summed per kernel, over setups of poisson3D(n) in one process (the first, then warm
 * ones); wait = wall − own chunks. Measurement only: it wraps the pool's runSync. Runs any build's bundle
 * (jobs with one chunk per thread, or claimed ones). Bundled by esbuild as amg-build.sh bundles.
 *   node amg-pool-wait.mjs [--n 128] [--workers 16] [--setups 3]
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const n = arg('--n', 128);
const rt = await createRuntime({ workers: arg('--workers', 16) });
const B = rt.cpuBackend;
type Row = { calls: number; wall: number; own: number };
let acc = new Map<string, Row>();
const pool = B.workerPool as unknown as Record<string, unknown> & { runSync: (job: { kernel: number }, inline?: unknown) => boolean };
const names = pool.kernelNames as string[];
const runSync = pool.runSync;
pool.runSync = function (job: { kernel: number }, inline?: (...a: unknown[]) => void) {
  const f = (inline ?? pool.runInline) as (...a: unknown[]) => void;
  let own = 0;
  const t = performance.now();
  const ran = runSync.call(this, job, (...a: unknown[]) => {
    const s = performance.now();
    try {
      f(...a);
    } finally {
      own += performance.now() - s;
    }
  });
  const wall = performance.now() - t;
  if (ran) {
    const k = names[job.kernel] ?? `job ${job.kernel}`;
    const r = acc.get(k) ?? { calls: 0, wall: 0, own: 0 };
    r.calls++;
    r.wall += wall;
    r.own += own;
    acc.set(k, r);
  }
  return ran;
};
const h = rt.upload(poisson3D(n));
rt.explain('solve', h); // the structure made, as after the bench's plain CG
const setups = arg('--setups', 3);
for (let k = 0; k < setups; k++) {
  acc = new Map();
  const c = process.cpuUsage();
  const t = performance.now();
  const M = rt.amg(h);
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  M.dispose();
  const rows = [...acc.entries()].sort((x, y) => y[1].wall - x[1].wall);
  const tot = rows.reduce((s, [, r]) => ({ calls: s.calls + r.calls, wall: s.wall + r.wall, own: s.own + r.own }), { calls: 0, wall: 0, own: 0 });
  console.log(`# poisson3D(${n}), ${B.threads} threads, setup ${k + 1}: wall ${wall.toFixed(0)} ms, process CPU ${((u.user + u.system) / 1000).toFixed(0)} ms; pool jobs ${tot.calls}: wall ${tot.wall.toFixed(1)} ms, caller in its chunks ${tot.own.toFixed(1)}, caller waiting ${(tot.wall - tot.own).toFixed(1)} (${((100 * (tot.wall - tot.own)) / tot.wall).toFixed(1)} % of the jobs' wall, ${((100 * (tot.wall - tot.own)) / wall).toFixed(1)} % of the setup)`);
  console.log(`${'kernel'.padEnd(28)}${['calls', 'wall', 'own', 'wait', 'wait%'].map((s) => s.padStart(9)).join('')}`);
  for (const [nm, r] of rows) console.log(`${nm.padEnd(28)}${[r.calls, r.wall.toFixed(1), r.own.toFixed(1), (r.wall - r.own).toFixed(1), ((100 * (r.wall - r.own)) / r.wall).toFixed(1)].map((s) => String(s).padStart(9)).join('')}`);
}
rt.dispose();
