// The CPU path's triangular solves on the 2-core pool (twenty-first session), for the build whose folder is
// given (its dist/): ILU(0)'s L and U solve on upwind convection–diffusion (3-D 262 144 rows, 2-D 262 144 rows,
// c = 0.5), the pair's median of 30 with the backend's inline threshold out of reach (one pass in natural order)
// and at its default (the split plan where it pays), with the two solvers' set-up (median of 5) and the x's sum
// printed (the same bits), then BiCGSTAB + ILU(0)
// to 1e-8, median of 5 solves on a preconditioner built once. Alternate builds by process:
//   for i in 1 2 3; do for d in /work/wt/base "$PWD"; do node bench/trisolve-probe.mjs $d; done; done
const D = process.argv[2] + '/dist/';
const { CpuBackend } = await import(D + 'cpu/backend.js');
const { cpuSolverOps } = await import(D + 'cpu/solver-ops.js');
const { levelSchedule } = await import(D + 'solvers/precond/levels.js');
const { ilu0 } = await import(D + 'solvers/precond/ilu0.js');
const { createRuntime, poisson2D, poisson3D, CSRMatrix } = await import(D + 'index.js');
function upwind(P, c) {
  const vals = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) vals[k] += P.colIdx[k] === i ? c : P.colIdx[k] === i - 1 ? -c : 0;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, vals);
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const cases = [['3-D N=64', () => upwind(poisson3D(64), 0.5)], ['2-D N=512', () => upwind(poisson2D(512), 0.5)]];
const B = await CpuBackend.create({ threads: 2 });
for (const [name, make] of cases) {
  const A = make();
  const F = ilu0(A);
  const ops = cpuSolverOps(B, B.upload(A), 'none');
  const line = [];
  for (const th of [1e12, 32768]) {
    B.setInlineThreshold(th);
    const lv = [levelSchedule(F.L, true), levelSchedule(F.U, false)];
    // the solvers' set-up (L and U), median of 5
    const made = [];
    for (let r = 0; r < 5; r++) {
      const s = performance.now();
      const pair = [ops.triangular(F.L, { lower: true, unitDiagonal: true, levels: lv[0] }), ops.triangular(F.U, { lower: false, unitDiagonal: false, levels: lv[1] })];
      made.push(performance.now() - s);
      if (r < 4) for (const S of pair) S.dispose();
      else var [L, U] = pair;
    }
    const b = ops.vector(), x = ops.vector(), y = ops.vector();
    b.view().fill(1);
    const t = [];
    for (let r = 0; r < 30; r++) { const s = performance.now(); await L.solve(b, x); await U.solve(x, y); t.push(performance.now() - s); }
    line.push(`${U.method}: set-up ${med(made).toFixed(1)} ms, L+U ${med(t).toFixed(2)} ms, sum ${y.view().reduce((a, v) => a + v, 0).toPrecision(15)}`);
    L.dispose(); U.dispose();
  }
  console.log(`${name} ${line.join(' | ')}`);
  ops.dispose();
}
B.dispose();
const rt = await createRuntime();
for (const [name, make] of cases) {
  const A = make();
  const h = rt.upload(A);
  const b = new Float64Array(A.rows).fill(1);
  const P = rt.preconditioner(h, { kind: 'ilu0' });
  const t = [];
  let r;
  for (let k = 0; k < 5; k++) { const s = performance.now(); r = await rt.solve(h, b, { method: 'bicgstab', preconditioner: P, tol: 1e-8 }); t.push(performance.now() - s); }
  console.log(`${name} BiCGSTAB + ILU(0): ${med(t).toFixed(1)} ms, ${r.iterations} it, ${(med(t) / r.iterations).toFixed(2)} ms/it, ${r.reason}`);
  P.dispose(); h.dispose();
}
rt.dispose();
