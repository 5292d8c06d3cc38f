/**
 * Why GMRES orthogonalises with CGS2 (src/solvers/krylov/gmres.ts): m = 30 Arnoldi steps in plain f64
 * JavaScript with classical Gram–Schmidt once (CGS), twice (CGS2) and modified Gram–Schmidt (MGS), on
 * the square shared matrices (right-hand side b = 1), printing the loss of orthogonality ‖I − VᵀV‖_max
 * of the Krylov basis. Householder keeps it at working precision too but needs each reflector applied
 * to every new vector in sequence (2·j dependent passes); CGS2's 2 passes have independent dot products.
 *   npx esbuild bench/gmres-orthogonality-probe.ts --bundle --platform=node --format=esm --outfile=build/ortho-probe.js
 *   node build/ortho-probe.js
 */
import { jsCsrSpmv } from '../src/host-spmv.js';
import { poisson2D } from '../src/generators/poisson.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { loadShared, sharedMatrixNames } from '../test/matrices.js';

const dot = (a: Float64Array, b: Float64Array): number => a.reduce((s, v, i) => s + v * b[i], 0);

function arnoldi(A: CSRMatrix, m: number, variant: 'cgs' | 'cgs2' | 'mgs'): number {
  const n = A.rows;
  const V = [new Float64Array(n).fill(1 / Math.sqrt(n))];
  for (let k = 0; k < Math.min(m, n - 1); k++) {
    const w = new Float64Array(n);
    jsCsrSpmv(A, V[k], w);
    const passes = variant === 'cgs2' ? 2 : 1;
    for (let p = 0; p < passes; p++) {
      if (variant === 'mgs') {
        for (const v of V) {
          const h = dot(v, w);
          for (let i = 0; i < n; i++) w[i] -= h * v[i];
        }
      } else {
        const h = V.map((v) => dot(v, w));
        V.forEach((v, j) => {
          for (let i = 0; i < n; i++) w[i] -= h[j] * v[i];
        });
      }
    }
    const nw = Math.sqrt(dot(w, w));
    if (!(nw > 0)) break;
    V.push(w.map((x) => x / nw));
  }
  let loss = 0;
  for (let i = 0; i < V.length; i++) for (let j = 0; j < V.length; j++) loss = Math.max(loss, Math.abs(dot(V[i], V[j]) - (i === j ? 1 : 0)));
  return loss;
}

const cases: [string, CSRMatrix][] = [['poisson2D(64)', poisson2D(64)]];
for (const name of sharedMatrixNames()) {
  const A = loadShared(name);
  if (A.rows === A.cols && A.rows > 40 && A.dtype !== 'c64' && A.dtype !== 'c128') cases.push([name, A.astype('f64')]);
}
console.log('matrix            CGS        CGS2       MGS     (max |I − VᵀV|, m = 30)');
for (const [name, A] of cases) {
  console.log(`${name.padEnd(16)} ${(['cgs', 'cgs2', 'mgs'] as const).map((v) => arnoldi(A, 30, v).toExponential(1).padStart(9)).join('  ')}`);
}
