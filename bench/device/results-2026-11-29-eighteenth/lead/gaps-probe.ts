// f32 + refinement on poisson3D(64) to 1e-10: the wall between iterations, the larger gaps listed
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < 6; k++) for (const [name, M] of [['f64', A], ['f32', Af]] as const) {
  const stamps: number[] = [];
  const h = rt.upload(M);
  const t0 = performance.now();
  await rt.solve(h, b, { tol: 1e-10, onIteration: () => void stamps.push(performance.now()) });
  const t = performance.now() - t0;
  h.dispose();
  if (k < 3) continue;
  const d = stamps.slice(1).map((s, i) => s - stamps[i]);
  const big = d.map((x, i) => [i + 2, x] as const).filter(([, x]) => x > 0.9);
  const sorted = d.slice().sort((x, y) => x - y);
  const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1] ?? NaN;
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const head = d.slice(0, 76), tail = d.slice(77);
  console.log(`   head steps p50 ${med(head).toFixed(3)} sum ${sum(head).toFixed(1)}; switch ${d[76]?.toFixed(2)}; tail p50 ${med(tail).toFixed(3)} sum ${sum(tail).toFixed(1)}`);
  console.log(`${name} ${t.toFixed(0)} ms: to it1 ${(stamps[0] - t0).toFixed(1)}, iterations ${(stamps[stamps.length - 1] - stamps[0]).toFixed(1)}, after ${(t0 + t - stamps[stamps.length - 1]).toFixed(1)}; step p50 ${sorted[d.length >> 1].toFixed(3)}; gaps > 0.9 ms: ${big.map(([i, x]) => `${i}:${x.toFixed(1)}`).join(' ')}`);
}
rt.dispose();
