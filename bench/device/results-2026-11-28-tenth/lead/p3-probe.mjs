const root = process.argv[2];
const { createRuntime, poisson3D } = await import(root + '/dist/index.js');
const rt = await createRuntime();
const A = poisson3D(64);
const b = new Float64Array(A.rows).fill(1);
const t = [];
for (let i = 0; i < 6; i++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  const h = rt.upload(A);
  const r = await rt.solve(h, b, { tol: 1e-8 });
  const t1 = performance.now(); const c = process.cpuUsage(c0);
  t.push([(t1 - t0).toFixed(1), ((c.user + c.system) / 1000).toFixed(0), r.iterations]);
  h.dispose();
  globalThis.gc?.();
}
console.log(root.split('/').pop(), JSON.stringify(t));
rt.dispose();
process.exit(0);
