// BiCGSTAB and GMRES(30) + Jacobi to 1e-8 on a 3-D convection–diffusion system (poisson3D(N) plus an upwind x term), the defaults against
// every operation pooled, medians of 5 after one call: `npm run build && node bench/convection-probe.mjs` (N=64 default; SciPy: bench/convection_scipy.py)
import { createRuntime, poisson3D, CSRMatrix } from '../dist/index.js';
// convection–diffusion: poisson3D(64) with an upwind convection term along x (nonsymmetric)
const P = poisson3D(Number(process.env.N ?? 64));
const n = P.rows, m = Math.round(Math.cbrt(n));
const vals = Float64Array.from(P.values);
for (let i = 0; i < n; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) {
  const j = P.colIdx[k];
  if (j === i) vals[k] += 0.5; else if (j === i - 1) vals[k] -= 0.5;
}
const A = new CSRMatrix(n, n, 'f64', P.rowPtr, P.colIdx, vals);
const b = new Float64Array(n).fill(1);
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const inl of ['auto', 0]) {
  const rt = await createRuntime(inl === 'auto' ? {} : { inlineThreshold: inl });
  const h = rt.upload(A);
  for (const method of ['bicgstab', 'gmres']) {
    const t = []; let r;
    for (let k = 0; k < 6; k++) { const s = performance.now(); r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: 1e-8 }); t.push(performance.now() - s); }
    console.log(inl, method, 'median ms', med(t.slice(1)).toFixed(1), 'it', r.iterations, r.reason);
  }
  rt.dispose();
}
