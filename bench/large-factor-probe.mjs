// rt.solve's 'auto' above DIRECT_MAX_N (twenty-third session): where its Krylov candidate is CG + IC(0) it now
// weighs a factorization; where its Krylov candidates end without an answer it factorizes once. For each case:
// 'auto', the factorization forced and the Krylov candidate forced, each on a fresh handle (its plan and set-up
// made in the call), b = 1, to 1e-8, medians of 3 rounds after an untimed one; for the build whose folder is given (its dist/):
//   node bench/large-factor-probe.mjs "$PWD"
import { outcomeLine, solveRounds } from './solve-rounds.mjs';
const { createRuntime, elasticity2D, diffusion2D, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
// A's off-diagonal entries skewed (the upper ones up, the lower ones down, by up to 30 %): nonsymmetric, same pattern
const skewed = (n) => {
  const A = elasticity2D(n);
  const v = A.values.slice();
  let seed = n;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < A.rows; i++) for (let q = A.rowPtr[i]; q < A.rowPtr[i + 1]; q++) if (A.colIdx[q] !== i) v[q] *= 1 + 0.3 * (A.colIdx[q] > i ? 1 : -1) * next();
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, v);
};
const cases = [
  ['elasticity2D(100)', () => elasticity2D(100), 'cg'],
  ['elasticity2D(150)', () => elasticity2D(150), 'cg'],
  ['elasticity2D(200)', () => elasticity2D(200), 'cg'],
  ['elasticity2D(300)', () => elasticity2D(300), 'cg'],
  ['diffusion2D(300, jumping)', () => diffusion2D({ n: 300, coefficients: 'jumping' }), 'cg'],
  ['skewed elasticity2D(200)', () => skewed(200), 'gmres'],
];
for (const [name, make, krylov] of cases) {
  const A = make();
  const b = new Float64Array(A.rows).fill(1);
  const variants = [['auto', {}], ['direct', { method: 'direct' }], [`${krylov} + auto`, { method: krylov, preconditioner: 'auto' }]];
  const line = (await solveRounds(rt, A, b, variants)).map((o) => outcomeLine(o));
  console.log(`${name}, ${A.rows} rows, ${A.nnz} entries\n  ${line.join('\n  ')}`);
}
rt.dispose();
