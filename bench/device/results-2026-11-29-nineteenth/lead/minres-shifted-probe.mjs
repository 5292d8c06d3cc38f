// MINRES to 1e-8 on poisson3D(64) − 0.3·I (indefinite) with the defaults and with every operation pooled, then the
// CPU dispatch's estimates: `npm run build && node bench/device/results-2026-11-29-nineteenth/lead/minres-shifted-probe.mjs`
import { createRuntime, poisson3D, CSRMatrix } from '../../../../dist/index.js';
const P = poisson3D(64);
const vals = Float64Array.from(P.values);
for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] === i) vals[k] -= 0.3;
const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, vals);
const b = new Float64Array(A.rows).fill(1);
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const inl of ['auto', 0]) {
  const rt = await createRuntime(inl === 'auto' ? {} : { inlineThreshold: inl });
  const h = rt.upload(A);
  const t = []; let r;
  for (let k = 0; k < 5; k++) { const s = performance.now(); r = await rt.solve(h, b, { method: 'minres', preconditioner: 'none', tol: 1e-8, maxIter: 3000 }); t.push(performance.now() - s); }
  console.log(inl, 'minres median ms', med(t.slice(1)).toFixed(1), 'it', r.iterations, r.reason);
  rt.dispose();
}
{
  const rt = await createRuntime();
  const h = rt.upload(A);
  for (let k = 0; k < 4; k++) await rt.solve(h, b, { method: 'minres', preconditioner: 'none', tol: 1e-8, maxIter: 3000 });
  for (const [k, v] of Object.entries(rt.cpuBackend.dispatchStats ?? {})) if (v.samples[0] + v.samples[1] > 5) console.log(k, (v.inline * A.rows / 1e6).toFixed(3), (v.pool * A.rows / 1e6).toFixed(3), v.samples);
  rt.dispose();
}
