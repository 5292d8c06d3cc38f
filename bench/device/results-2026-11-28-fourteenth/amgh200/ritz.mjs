// Ritz values of S·A·S (S = D^-1/2) after each Lanczos step, the JavaScript steps of src/solvers/precond/chebyshev.ts, on every level of
// rt.amg's hierarchy of poisson3D(64) (the 2-core machine, dist/ built): node bench/device/results-2026-11-28-fourteenth/amgh200/ritz.mjs
import { createRuntime } from '../../../../dist/runtime/runtime.js';
import { poisson3D, poisson2D } from '../../../../dist/generators/poisson.js';
import { tridiagonalEigen, lanczosStart } from '../../../../dist/solvers/precond/chebyshev.js';
const rt = await createRuntime({ backend: 'cpu', workers: 2 });
const which = process.argv[2] ?? '3d64';
const A = which === '3d64' ? poisson3D(64) : poisson2D(1024);
const h = rt.upload(A);
const { amgSetup } = await import('../../../../dist/solvers/amg/index.js');
const an = rt.solveStructureOf(h);
const H = amgSetup(an.csr, an.structureIn(), rt.sparseKernels).hierarchy;
console.log(H.levels.map((l) => `${l.A.rows}/${l.A.nnz} rho ${l.rho.toFixed(5)}`).join(' '));
// JS Lanczos on each level's A (the hierarchy's levels through internals)
function ritz(A, steps) {
  const n = A.rows, s = new Float64Array(n);
  for (let i = 0; i < n; i++) { for (let k = A.rowPtr[i]; k < A.rowPtr[i+1]; k++) if (A.colIdx[k] === i) s[i] = A.values[k]; s[i] = 1/Math.sqrt(s[i]); }
  let v = new Float64Array(n), vp = new Float64Array(n), w = new Float64Array(n);
  const nv = Math.sqrt(lanczosStart(v)); for (let i = 0; i < n; i++) v[i] /= nv;
  const al = [], be = [], out = []; let b = 0;
  for (let j = 0; j < steps; j++) {
    for (let i = 0; i < n; i++) { let sum = 0; for (let k = A.rowPtr[i]; k < A.rowPtr[i+1]; k++) sum += A.values[k] * v[A.colIdx[k]] * s[A.colIdx[k]]; w[i] = sum * s[i] - b * vp[i]; }
    let a = 0; for (let i = 0; i < n; i++) a += v[i]*w[i];
    for (let i = 0; i < n; i++) w[i] -= a*v[i];
    al.push(a); b = 0; for (let i = 0; i < n; i++) b += w[i]*w[i]; b = Math.sqrt(b);
    out.push(tridiagonalEigen(al, be, 'max'));
    be.push(b); const t = vp; vp = v; v = w; w = t; for (let i = 0; i < n; i++) v[i] /= b;
  }
  return out;
}
for (const [l, L] of H.levels.entries()) if (L.A.rows > 500) console.log('level', l, ritz(L.A, 20).map((x, k) => `${k+1}:${x.toFixed(5)}`).join(' '));
rt.dispose();
