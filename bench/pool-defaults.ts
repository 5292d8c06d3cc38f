/**
 * Issue 22 item 5: do the default threads (workers 'auto') ever lose to `workers: 1`? CG with a fixed
 * 100 iterations (tol 0) on poisson2D(k), each configuration in a fresh Node process so that the first
 * call is a process's first pooled operation: createRuntime's time, the first solve, and the median of
 * 5 warm solves are reported apart. Run: `node build/pool-defaults.js [k…]` after
 * `npx esbuild bench/pool-defaults.ts --bundle --platform=node --format=esm --outfile=build/pool-defaults.js`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { median } from '../src/metrics.js';

interface Cell { create: number; first: number; warm: number; threads: number }

async function one(k: number, workers: 'auto' | 1): Promise<Cell> {
  const t0 = performance.now();
  const extra = process.env.POOL_OPTS ? JSON.parse(process.env.POOL_OPTS) : {};
  const rt = await createRuntime(workers === 1 ? { workers: 1 } : extra);
  const create = performance.now() - t0;
  const A = rt.upload(poisson2D(k));
  const b = new Float64Array(k * k).fill(1);
  const opts = { tol: 0, maxIter: 100 };
  let t = performance.now();
  await rt.cg(A, b, opts);
  const first = performance.now() - t;
  const warm: number[] = [];
  for (let r = 0; r < 5; r++) {
    t = performance.now();
    await rt.cg(A, b, opts);
    warm.push(performance.now() - t);
  }
  const threads = rt.capabilities().threads ?? 0;
  rt.dispose();
  return { create, first, warm: median(warm), threads };
}

const [mode, kArg, wArg] = process.argv.slice(2);
if (mode === '--one') {
  process.stdout.write(JSON.stringify(await one(Number(kArg), wArg === '1' ? 1 : 'auto')));
} else {
  const ks = process.argv.slice(2).map(Number);
  const self = fileURLToPath(import.meta.url);
  const f = (x: number) => x.toFixed(1).padStart(8);
  console.log('rows      | create ms (auto, 1) | first CG ms (auto, 1) | warm CG ms (auto, 1) | warm ratio 1/auto');
  for (const k of ks.length ? ks : [32, 100, 200, 500]) {
    const run = (w: string): Cell => JSON.parse(execFileSync(process.execPath, [self, '--one', String(k), w], { encoding: 'utf8' }));
    const a = run('auto');
    const s = run('1');
    console.log(`${String(k * k).padEnd(9)} | ${f(a.create)} ${f(s.create)} | ${f(a.first)} ${f(s.first)} | ${f(a.warm)} ${f(s.warm)} | ${(s.warm / a.warm).toFixed(2)} (threads ${a.threads})`);
  }
}
