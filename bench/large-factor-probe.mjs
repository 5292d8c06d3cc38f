// rt.solve's 'auto' above DIRECT_MAX_N (twenty-third session): where its Krylov candidate is CG + IC(0) it now
// weighs a factorization; where its Krylov candidates end without an answer it factorizes once. For each case:
// 'auto', the factorization forced and the Krylov candidate forced, each on a fresh handle (its plan and set-up
// made in the call), b = 1, to 1e-8, medians of 3 rounds after an untimed one; for the build whose folder is given (its dist/):
//   node bench/large-factor-probe.mjs "$PWD"
const { createRuntime, elasticity2D, diffusion2D, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
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
  const times = variants.map(() => []);
  const last = [];
  // one untimed round, then 3 rounds alternating the variants (the first of a size grows the memory)
  for (let k = 0; k < 4; k++) {
    for (const [v, [, o]] of variants.entries()) {
      const h = rt.upload(A);
      const s = performance.now();
      last[v] = await rt.solve(h, b, { ...o, reuse: false });
      if (k > 0) times[v].push(performance.now() - s);
      h.dispose();
    }
  }
  const line = variants.map(([label], v) => {
    const r = last[v];
    const what = r.method === 'direct' ? `direct (${r.factor.kind}, ${r.factor.ordering})` : `${r.method} + ${r.preconditioner}, ${r.iterations} it`;
    return `${label}: ${med(times[v]).toFixed(0)} ms, ${what}, ${r.converged ? `true ${r.relativeResidual.toExponential(1)}` : `${r.reason} at ${r.relativeResidual.toExponential(1)}`}${r.methodFallback ? ' (after the Krylov candidates)' : ''}`;
  });
  console.log(`${name}, ${A.rows} rows, ${A.nnz} entries\n  ${line.join('\n  ')}`);
}
rt.dispose();
