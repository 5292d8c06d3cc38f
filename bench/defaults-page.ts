/**
 * The in-page half of `npm run bench -- --only defaults`, on a cross-origin-isolated page's main
 * thread: `?cold=defaults|1` measures a fresh page's first CG on poisson2D(200) (then a second one),
 * otherwise the sweep of bench/defaults-cells.ts over `?sizes=…`. Results go to window.__defaults.
 */
import { createRuntime, poisson2D } from '../src/index.js';
import { sweepDefaults, DEFAULT_SIZES } from './defaults-cells.js';

const w = window as unknown as { __defaults?: unknown; __log: string[] };
w.__log = [];

async function cold(which: string): Promise<unknown> {
  const t0 = performance.now();
  const rt = await createRuntime(which === '1' ? { backend: 'cpu', workers: 1 } : { backend: 'cpu' });
  const createMs = performance.now() - t0;
  const A = rt.upload(poisson2D(200));
  const b = new Float64Array(A.rows).fill(1);
  let t = performance.now();
  const r = await rt.cg(A, b);
  const firstMs = performance.now() - t;
  t = performance.now();
  await rt.cg(A, b);
  const secondMs = performance.now() - t;
  const threads = rt.capabilities().threads;
  // what the pool policy measured (µs per 1,000 cost units, inline and pooled), for the curious
  const dispatch = rt.cpuBackend.dispatchStats;
  rt.dispose();
  return { createMs, firstMs, secondMs, iterations: r.iterations, threads, dispatch };
}

async function run(): Promise<unknown> {
  const q = new URLSearchParams(location.search);
  if (!crossOriginIsolated) throw new Error('the page is not cross-origin isolated');
  const c = q.get('cold');
  if (c) return cold(c);
  const sizes = q.get('sizes')?.split(',').map(Number) ?? DEFAULT_SIZES;
  return sweepDefaults((s) => w.__log.push(s), sizes);
}

run().then(
  (r) => (w.__defaults = r),
  (e) => (w.__defaults = { error: String((e as Error)?.stack ?? e) }),
);
