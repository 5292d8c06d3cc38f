// CG on SPD Poisson systems with each preconditioner 'auto' weighs (twenty-first session): rt.solve to 1e-8, b = 1,
// median of 3 calls a preconditioner (its set-up in each call), for the build whose folder is given (its dist/):
//   node bench/spd-precond-probe.mjs "$PWD"
const { createRuntime, poisson2D, poisson3D } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
// each call sets up afresh, as before the twenty-second session (its builds keep the set-up with A; older ones refuse the option)
const fresh = await rt.solve(rt.upload(poisson2D(2)), new Float64Array(4).fill(1), { reuse: false }).then(() => ({ reuse: false }), () => ({}));
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const [name, A] of [['poisson3D(64)', poisson3D(64)], ['poisson2D(512)', poisson2D(512)], ['poisson3D(100)', poisson3D(100)]]) {
  const h = rt.upload(A);
  const b = new Float64Array(A.rows).fill(1);
  const line = [];
  for (const preconditioner of ['auto', 'jacobi', 'ic0', 'amg']) {
    const t = []; let r;
    for (let k = 0; k < 3; k++) { const s = performance.now(); r = await rt.solve(h, b, { method: 'cg', preconditioner, tol: 1e-8, ...fresh }); t.push(performance.now() - s); }
    line.push(`${preconditioner}→${r.preconditioner} ${med(t).toFixed(0)} ms/${r.iterations}`);
  }
  console.log(name, line.join(' | '));
  h.dispose();
}
rt.dispose();
