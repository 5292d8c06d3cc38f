import { readdirSync, readFileSync } from 'node:fs';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const snap = () => {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const ns = +readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0];
      m.set(t, ns / 1e6);
    } catch {}
  }
  return m;
};
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < 6; k++) for (const [name, M] of [['f64', A], ['f32', Af]] as const) {
  let s0: Map<string, number> | null = null, s1: Map<string, number> | null = null, t0 = 0, t1 = 0;
  const h = rt.upload(M);
  await rt.solve(h, b, { tol: 1e-10, onIteration: (i: number) => { if (i === 1) { s0 = snap(); t0 = performance.now(); } if (i === 60) { s1 = snap(); t1 = performance.now(); } } });
  h.dispose();
  const d = [...s1!].map(([k, v]) => [k, v - (s0!.get(k) ?? 0)] as const).filter(([, v]) => v > 0.05);
  console.log(name, `at ${t0.toFixed(0)}+${(performance.timeOrigin % 1e5).toFixed(0)} it 1-60 ${(t1 - t0).toFixed(1)} ms:`, d.map(([k, v]) => `${k}=${v.toFixed(1)}`).join(' '));
}
rt.dispose();
