// f32ref16 (fourteenth): upload + solve of poisson3D(64) to 1e-10, DT=f32|f64, N calls; for --cpu-prof
import { createRuntime, poisson3D } from '../../../../src/index.js';
const P = poisson3D(64);
const A = process.env.DT === 'f64' ? P : P.astype('f32');
const b = new Float64Array(P.rows).fill(1);
const rt = await createRuntime();
const n = +(process.env.N ?? 8);
const ts: number[] = [];
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  let first = 0;
  const h = rt.upload(A);
  const r = await rt.solve(h, b, { tol: 1e-10, onIteration: (it) => { if (it === 1) first = performance.now(); } });
  h.dispose();
  ts.push(performance.now() - t0);
  console.log(`${process.env.DT} call ${i}: ${(performance.now() - t0).toFixed(1)} ms, to first it ${(first - t0).toFixed(1)}, ${r.iterations} it ${r.relativeResidual.toExponential(2)}`);
}
rt.dispose();
