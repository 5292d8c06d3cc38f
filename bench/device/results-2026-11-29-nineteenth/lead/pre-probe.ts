import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
import { median } from '../../../../src/metrics.js';
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
const dt = process.env.DT === 'f32' ? Af : A;
const ts: number[][] = [];
for (let k = 0; k < +(process.env.N ?? 20); k++) {
  const t0 = performance.now();
  const h = rt.upload(dt);
  const t1 = performance.now();
  let t2 = 0;
  const r = await rt.solve(h, b, { tol: 1e-10, maxIter: 3, onIteration: (i: number) => { if (i === 1) t2 = performance.now(); } });
  const t3 = performance.now();
  h.dispose();
  ts.push([t1 - t0, t2 - t1, t3 - t2]);
}
console.log('upload', median(ts.map((t) => t[0])).toFixed(1), 'pre-it1', median(ts.map((t) => t[1])).toFixed(1), 'rest', median(ts.map((t) => t[2])).toFixed(1));
rt.dispose();
