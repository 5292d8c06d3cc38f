/**
 * Probe (helper pooldyn): in a Krylov solve's pool calls (WorkerPool.run), how long the calling thread
 * computes its own chunks and how long it waits for the workers. Measurement only.
 *   node pool-wait-krylov.mjs (bundled by esbuild as amg-build.sh bundles) [--n 64] [--workers 2] [--reps 3]
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const rt = await createRuntime({ workers: arg('--workers', 2) });
const pool = rt.cpuBackend.workerPool as unknown as Record<string, unknown> & { run: (job: { kernel: number }) => Promise<void> };
const names = pool.kernelNames as string[];
const inline = pool.runInline as (...a: unknown[]) => void;
let own = 0;
(pool as Record<string, unknown>).runInline = (...a: unknown[]) => {
  const s = performance.now();
  try {
    inline(...a);
  } finally {
    own += performance.now() - s;
  }
};
const acc = new Map<string, { calls: number; wall: number; own: number }>();
const run = pool.run;
pool.run = async function (job: { kernel: number }) {
  const o0 = own;
  const t = performance.now();
  await run.call(this, job);
  const k = names[job.kernel] ?? String(job.kernel);
  const r = acc.get(k) ?? { calls: 0, wall: 0, own: 0 };
  r.calls++;
  r.wall += performance.now() - t;
  r.own += own - o0;
  acc.set(k, r);
};
const A = poisson3D(arg('--n', 64));
const h = rt.upload(A);
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < arg('--reps', 3); k++) {
  acc.clear();
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await rt.cg(h, b, { tol: 1e-8, preconditioner: 'jacobi' });
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  const rows = [...acc.entries()].sort((x, y) => y[1].wall - x[1].wall);
  const tot = rows.reduce((s, [, v]) => ({ wall: s.wall + v.wall, own: s.own + v.own, calls: s.calls + v.calls }), { wall: 0, own: 0, calls: 0 });
  console.log(`cg ${r.iterations} it: wall ${wall.toFixed(0)} ms, CPU ${((u.user + u.system) / 1000).toFixed(0)}; pool calls ${tot.calls} wall ${tot.wall.toFixed(0)} own ${tot.own.toFixed(0)} wait ${(tot.wall - tot.own).toFixed(0)} (${((100 * (tot.wall - tot.own)) / tot.wall).toFixed(0)} %)`);
  for (const [k, v] of rows.slice(0, 6)) console.log(`  ${k.padEnd(28)} ${v.calls} ${v.wall.toFixed(1)} own ${v.own.toFixed(1)} wait ${(v.wall - v.own).toFixed(1)}`);
}
rt.dispose();
