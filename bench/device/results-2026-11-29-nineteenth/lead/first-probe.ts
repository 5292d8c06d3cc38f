import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const rt = await createRuntime();
const A = poisson3D(64);
const M = process.env.DT === 'f32' ? A.astype('f32') : A;
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < +(process.env.CALLS ?? 3); k++) {
  let t0 = performance.now(), t2 = 0, t3 = 0;
  const h = rt.upload(M);
  const t1 = performance.now();
  const r = await rt.solve(h, b, { tol: 1e-10, onIteration: (i: number) => { if (i === 1) t2 = performance.now(); t3 = performance.now(); } });
  const t4 = performance.now();
  h.dispose();
  console.log(`call ${k}: upload ${(t1 - t0).toFixed(1)} pre-it1 ${(t2 - t1).toFixed(1)} iterations ${(t3 - t2).toFixed(1)} after ${(t4 - t3).toFixed(1)} total ${(t4 - t0).toFixed(1)} it ${r.iterations}`);
}
rt.dispose();
