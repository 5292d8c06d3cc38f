// 'auto' against its forced candidates on diagonally dominant nonsymmetric systems (upwind convection–diffusion
// in 2-D / 3-D, random dominant matrices), rt.solve to 1e-8, median of 3 calls a line, for the build whose folder
// is given (its dist/):  CASES=3:64:0.5,2:256:0.5,2:512:2 RANDOM=1 node bench/nonsymmetric-probe.mjs "$PWD"
// A case d:N:c is poisson{d}D(N) plus c times an upwind x derivative (diagonal +c, left neighbour −c).
const { createRuntime, poisson2D, poisson3D, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
function convection(P, c) {
  const vals = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) {
    if (P.colIdx[k] === i) vals[k] += c; else if (P.colIdx[k] === i - 1) vals[k] -= c;
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, vals);
}
// n rows, `per` off-diagonals each in [−0.6, 1.4) (within ±local/2 of the diagonal where local > 0), diagonal margin·Σ|off|
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
function randomDominant(n, per, margin, local) {
  const rowPtr = [0], cols = [], vals = [];
  for (let i = 0; i < n; i++) {
    const set = new Set();
    while (set.size < per) {
      const j = local ? Math.min(n - 1, Math.max(0, i + Math.floor((rnd() - 0.5) * local))) : Math.floor(rnd() * n);
      if (j !== i) set.add(j);
    }
    const off = new Map([...set].map((j) => [j, (rnd() - 0.3) * 2]));
    const sum = [...off.values()].reduce((s, v) => s + Math.abs(v), 0);
    for (const j of [...set, i].sort((a, b) => a - b)) { cols.push(j); vals.push(j === i ? margin * sum : off.get(j)); }
    rowPtr.push(cols.length);
  }
  return new CSRMatrix(n, n, 'f64', Int32Array.from(rowPtr), Int32Array.from(cols), Float64Array.from(vals));
}
const cases = (process.env.CASES ?? '3:32:0.5,3:64:0.5,3:64:2,3:64:8,2:256:0.5,2:512:2,2:512:20').split(',').map((spec) => {
  const [d, N, c] = spec.split(':').map(Number);
  return [`${d}-D N=${N} c=${c}`, () => convection(d === 3 ? poisson3D(N) : poisson2D(N), c)];
});
if (process.env.RANDOM) for (const [n, per, margin, local] of [[100000, 8, 1, 0], [100000, 8, 1.05, 0], [200000, 10, 1, 2000], [200000, 6, 1.01, 100]])
  cases.push([`random n=${n} per=${per} margin=${margin} local=${local}`, () => randomDominant(n, per, margin, local)]);
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const rt = await createRuntime();
// each call sets up afresh, as before the twenty-second session (its builds keep the set-up with A; older ones refuse the option)
const fresh = await rt.solve(rt.upload(poisson2D(2)), new Float64Array(4).fill(1), { reuse: false }).then(() => ({ reuse: false }), () => ({}));
for (const [name, make] of cases) {
  const A = make();
  const h = rt.upload(A);
  const b = new Float64Array(A.rows).fill(1);
  const line = [];
  for (const [method, preconditioner] of [['auto', 'auto'], ['gmres', 'ilu0'], ['bicgstab', 'ilu0'], ['gmres', 'jacobi'], ['bicgstab', 'jacobi']]) {
    const t = [];
    let r;
    for (let k = 0; k < 3; k++) { const s = performance.now(); r = await rt.solve(h, b, { method, preconditioner, tol: 1e-8, ...fresh }); t.push(performance.now() - s); }
    line.push(`${method === 'auto' ? 'auto → ' : ''}${r.method}+${r.preconditioner} ${med(t).toFixed(0)} ms/${r.iterations}${r.reason === 'converged' ? '' : ' ' + r.reason}`);
  }
  console.log(`${name} (${A.rows} rows): ${line.join(' | ')}`);
  h.dispose();
}
rt.dispose();
