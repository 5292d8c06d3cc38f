// GMRES(30) + Jacobi or ILU(0), BiCGSTAB + Jacobi and MINRES to 1e-10 on an n-row convection–diffusion band (offsets ±1, ±40) through
// rt.solve with the defaults, medians of the later K calls, for the build whose folder is given (its dist/):
//   NS=500,2000,12000,65536 K=40 node bench/gmres-sizes-probe.mjs "$PWD"   (alternate with another checkout's folder)
const { createRuntime, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
const { readFileSync } = await import('node:fs');
function convection(n) {
  const rowPtr = [0], cols = [], vals = [];
  for (let i = 0; i < n; i++) { for (const [j, v] of [[i - 40, -1], [i - 1, -1.75], [i, 4.2], [i + 1, -0.25], [i + 40, -1]]) if (j >= 0 && j < n) { cols.push(j); vals.push(v); } rowPtr.push(cols.length); }
  return new CSRMatrix(n, n, 'f64', Int32Array.from(rowPtr), Int32Array.from(cols), Float64Array.from(vals));
}
const rt = await createRuntime();
// each call sets up afresh, as before the twenty-second session (its builds keep the set-up with A; older ones refuse the option)
const fresh = await rt.solve(rt.upload(new CSRMatrix(1, 1, 'f64', Int32Array.of(0, 1), Int32Array.of(0), Float64Array.of(2))), new Float64Array(1).fill(1), { reuse: false }).then(() => ({ reuse: false }), () => ({}));
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const n of (process.env.NS ?? "500,2000,10000").split(",").map(Number)) {
  const h = rt.upload(convection(n));
  const b = new Float64Array(n).fill(1);
  for (const [method, pre] of [['gmres', 'jacobi'], ['gmres', 'ilu0'], ['bicgstab', 'jacobi'], ['minres', 'none']]) {
    const t = []; let r;
    for (let k = 0; k < +(process.env.K ?? 40); k++) { const s = performance.now(); r = await rt.solve(h, b, { method, preconditioner: pre, tol: 1e-10, maxIter: 2000, ...fresh }); t.push(performance.now() - s); }
    process.stdout.write(`n ${n} ${method}+${pre} ${med(t.slice(Math.floor(t.length / 4))).toFixed(3)} ms (${r.iterations} it)  `);
  }
  console.log();
}
rt.dispose();
