/**
 * Probe (helper pool16): whether the solve's shared host passes cost more in a process that alternates
 * f64 and f32 matrices (as the bench's refinement comparison does) than in one that sees one dtype.
 * Single-threaded JavaScript only. MODE=alt|f64|f32, ROUNDS (default 15); prints per pass and dtype the
 * min and median ms over the rounds. Each round uses a fresh copy of poisson3D(64) (the passes' caches
 * are per matrix object).
 */
import { poisson3D } from '../../../../src/generators/poisson.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { looseAbsNorms } from '../../../../src/solvers/solve.js';
import { matrixFeatures } from '../../../../src/runtime/features.js';
import { validateCanonical, CSRMatrix } from '../../../../src/formats/csr.js';

const mode = process.env.MODE ?? 'alt';
const rounds = Number(process.env.ROUNDS ?? 15);
const P = poisson3D(64);
const base = { f64: P, f32: P.astype('f32') };
const order = mode === 'alt' ? (['f64', 'f32'] as const) : ([mode] as ('f64' | 'f32')[]);
const passes: Record<string, (A: CSRMatrix) => unknown> = {
  fromCSR: (A) => DIAMatrix.fromCSR(A),
  looseAbsNorms: (A) => looseAbsNorms(A),
  matrixFeatures: (A) => matrixFeatures(A),
  validateCanonical: (A) => validateCanonical(A),
};
const t: Record<string, number[]> = {};
for (let r = 0; r < rounds; r++) {
  for (const d of order) {
    const S = base[d];
    const A = new CSRMatrix(S.rows, S.cols, S.dtype, S.rowPtr.slice(), S.colIdx.slice(), S.values.slice());
    for (const [name, f] of Object.entries(passes)) {
      const t0 = performance.now();
      f(A);
      (t[`${name} ${d}`] ??= []).push(performance.now() - t0);
    }
  }
}
const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
for (const [k, v] of Object.entries(t)) console.log(`${mode} ${k.padEnd(24)} min ${Math.min(...v).toFixed(2)} median ${med(v).toFixed(2)} ms`);
