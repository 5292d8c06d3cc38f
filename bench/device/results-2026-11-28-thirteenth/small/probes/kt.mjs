import { readFileSync } from 'node:fs';
const { createRuntime, parseMatrixMarket } = await import('/work/wt/small/dist/index.js');
const rt = await createRuntime();
for (const name of ['west0479', 'olm1000']) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);
  const ts = [];
  let r;
  for (let k = 0; k < 8; k++) { const t0 = performance.now(); const h = rt.upload(A); r = await rt.solve(h, b, { method: 'gmres', preconditioner: 'auto', tol: 1e-8 }); h.dispose(); ts.push(performance.now() - t0); }
  console.log(name, ts.map((t) => t.toFixed(1)).join(' '), r.reason, r.iterations, r.preconditionerDetail?.slice(0, 60));
}
rt.dispose();
