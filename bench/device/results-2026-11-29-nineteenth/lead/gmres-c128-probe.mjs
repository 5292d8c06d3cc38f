// GMRES(30) + Jacobi to 1e-10 on the convection band times (1 + i/2) in c128 (N rows, default 131 072), rt.solve, median of 6:
//   node bench/device/results-2026-11-29-nineteenth/lead/gmres-c128-probe.mjs "$PWD"   (the checkout whose dist/ to load)
const { createRuntime, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
const n = +(process.env.N ?? 131072);
const rowPtr = [0], cols = [], vals = [];
for (let i = 0; i < n; i++) { for (const [j, v] of [[i - 40, -1], [i - 1, -1.75], [i, 4.2], [i + 1, -0.25], [i + 40, -1]]) if (j >= 0 && j < n) { cols.push(j); vals.push(v, 0.5 * v); } rowPtr.push(cols.length); }
const A = new CSRMatrix(n, n, 'c128', Int32Array.from(rowPtr), Int32Array.from(cols), Float64Array.from(vals));
const rt = await createRuntime();
const h = rt.upload(A);
const b = new Float64Array(2 * n).fill(1);
const t = []; let r;
for (let k = 0; k < 6; k++) { const s = performance.now(); r = await rt.solve(h, b, { method: 'gmres', preconditioner: 'jacobi', tol: 1e-10 }); t.push(performance.now() - s); }
t.sort((a, b) => a - b);
console.log(`c128 n ${n} gmres+jacobi median ${t[3].toFixed(1)} ms (${r.iterations} it, ${r.reason})`);
rt.dispose();
