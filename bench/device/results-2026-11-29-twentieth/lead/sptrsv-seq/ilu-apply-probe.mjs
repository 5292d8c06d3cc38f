const { createRuntime, poisson3D, poisson2D, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
function conv(P, c) { const v = Float64Array.from(P.values); for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) { if (P.colIdx[k] === i) v[k] += c; else if (P.colIdx[k] === i - 1) v[k] -= c; } return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v); }
const rt = await createRuntime();
for (const [name, A] of [['3D64', conv(poisson3D(64), 0.5)], ['2D512', conv(poisson2D(512), 2)]]) {
  const h = rt.upload(A); const b = new Float64Array(A.rows).fill(1);
  for (let rep = 0; rep < 3; rep++) {
    let s = performance.now();
    const M = rt.preconditioner(h, { kind: 'ilu0' });
    const setup = performance.now() - s;
    s = performance.now();
    const r1 = await rt.solve(h, b, { method: 'bicgstab', preconditioner: M, tol: 1e-8 });
    const t1 = performance.now() - s;
    s = performance.now();
    const r2 = await rt.solve(h, b, { method: 'bicgstab', preconditioner: M, tol: 1e-8, maxIter: 1 });
    const t2 = performance.now() - s;
    s = performance.now();
    const rj = await rt.solve(h, b, { method: 'bicgstab', preconditioner: 'jacobi', tol: 1e-8 });
    const tj = performance.now() - s;
    console.log(name, 'setup', setup.toFixed(1), 'solve', t1.toFixed(1), r1.iterations, 'it; per it', ((t1 - t2) / (r1.iterations - 1)).toFixed(2), 'ms | jacobi', tj.toFixed(1), rj.iterations, 'per it', (tj / rj.iterations).toFixed(2), '|', r1.preconditionerDetail);
    M.dispose();
  }
  h.dispose();
}
rt.dispose();
