/**
 * How late rt.factor honours an abort fired during its symbolic phase (goal: ≲ 20 ms; docs/direct.md):
 * poisson3D(k) (default 64: 262 144 unknowns, nested dissection), aborted by a timer at each of `count`
 * moments spread over the symbolic phase (its length measured first by rt.estimateFactorCost); the
 * lateness is the rejection's time less the moment asked for, i.e. how long the event loop was not
 * given a turn. Prints the median, 90th percentile and largest lateness and the symbolic phase's
 * process CPU time. After `npm run build` (DIST: another build's dist/, for an A/B):
 *   node bench/factor-abort-probe.mjs [k] [count]
 */
import { pathToFileURL } from 'node:url';

const index = process.env.DIST ? pathToFileURL(`${process.env.DIST}/index.js`).href : new URL('../dist/index.js', import.meta.url).href;
const { createRuntime, poisson3D } = await import(index);

const k = +(process.argv[2] ?? 64);
const count = +(process.argv[3] ?? 12);
const rt = await createRuntime({ backend: 'cpu' });
const A = poisson3D(k);
// the direct solvers' chunk loaded, and the symbolic phase's length (the JIT warm)
await rt.factor(poisson3D(4)).then((F) => F.dispose());
rt.estimateFactorCost(A, 'cholesky');
let symbolicMs = Infinity;
let cpuMs = Infinity;
for (let r = 0; r < 2; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  rt.estimateFactorCost(A, 'cholesky');
  symbolicMs = Math.min(symbolicMs, performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpuMs = Math.min(cpuMs, (c.user + c.system) / 1000);
}
const late = [];
for (let i = 0; i < count; i++) {
  // within the shorter of two symbolic phases' first 70 % (an abort after it would be the numeric phase's)
  const at = Math.round(((i + 0.5) / count) * 0.7 * symbolicMs);
  const stop = new AbortController();
  const s = performance.now();
  setTimeout(() => stop.abort(), at);
  const e = await rt.factor(A, { signal: stop.signal }).then((F) => (F.dispose(), null), (err) => err);
  if (e?.name !== 'AbortError') throw new Error(`not aborted: ${e}`);
  late.push(performance.now() - s - at);
}
late.sort((p, q) => p - q);
const f = (x) => x.toFixed(1);
console.log(`poisson3D(${k}): symbolic phase ${f(symbolicMs)} ms (the shorter of two; cpu ${f(cpuMs)} ms); abort lateness over ${count} moments: median ${f(late[count >> 1])} ms, p90 ${f(late[Math.floor(0.9 * (count - 1))])} ms, max ${f(late[count - 1])} ms`);
rt.dispose();
