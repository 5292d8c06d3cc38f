// a solve's pooled calls: the caller's own chunk (ms) and its wait for the workers after it, poisson3D(64) f64 / f32 to 1e-10
import { WorkerPool } from '../../../../src/cpu/pool.js';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const rec: [number, number][] = [];
const orig = (WorkerPool.prototype as any).waitDone;
(WorkerPool.prototype as any).waitDone = async function (this: unknown, ctl: Int32Array, ownMs: number) {
  const t = performance.now();
  await orig.call(this, ctl, ownMs);
  rec.push([ownMs, performance.now() - t]);
};
const rt = await createRuntime(process.env.INLINE ? { inlineThreshold: Number(process.env.INLINE) } : {});
const A = poisson3D(64);
const b = new Float64Array(A.rows).fill(1);
const q = (a: number[], p: number) => a.slice().sort((x, y) => x - y)[Math.floor(p * (a.length - 1))].toFixed(3);
for (let k = 0; k < 4; k++) for (const [name, M] of [['f64', A], ['f32', A.astype('f32')]] as const) {
  const h = rt.upload(M);
  rec.length = 0;
  const t0 = performance.now();
  const r = await rt.solve(h, b, { tol: 1e-10 });
  const t = performance.now() - t0;
  h.dispose();
  const big = rec.filter(([o]) => o > 0.1);
  const own = big.map((x) => x[0]), wait = big.map((x) => x[1]);
  console.log(`${name} ${t.toFixed(0)} ms, ${r.iterations} it; pooled calls ${rec.length} (own > 0.1 ms: ${big.length}): own p50 ${q(own, 0.5)} p90 ${q(own, 0.9)}; wait p10 ${q(wait, 0.1)} p50 ${q(wait, 0.5)} p90 ${q(wait, 0.9)} max ${q(wait, 1)}; waits > 0.2 ms: ${wait.filter((w) => w > 0.2).length}`);
}
rt.dispose();
