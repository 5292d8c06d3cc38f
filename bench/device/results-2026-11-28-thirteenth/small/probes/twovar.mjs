// ours: 'auto' in a rotation with forced direct only (no Krylov variant between), 33 timed after 1 s warm; SciPy: spsolve alone, 33 runs; alternated 3 blocks like the bench
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const out = [];
for (const name of (process.env.CASES || 'west0479,olm1000').split(',')) {
  const src = `/work/wt/small/data/matrices/${name}.mtx`;
  const A = parseMatrixMarket(readFileSync(src)).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);
  const variants = [{}, { method: 'direct' }];
  const once = async (o) => { const t0 = performance.now(); const h = rt.upload(A); await rt.solve(h, b, { ...o, tol: 1e-8 }); h.dispose(); return performance.now() - t0; };
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) { await once({}); await once({ method: 'direct' }); }
  const ours = [], py = [];
  for (let blk = 0; blk < 3; blk++) {
    for (let k = 0; k < 11; k++) for (let j = 0; j < 2; j++) { const v = (j + k) % 2; const t = await once(variants[v]); if (v === 0) ours.push(t); }
    const r = JSON.parse(execFileSync('python3', ['/work/wt/small/bench/peers/scipy_solve.py', src, '1e-8', '11', '3', '667', 'spsolve'], { env: { ...process.env, OPENBLAS_NUM_THREADS: '1' }, encoding: 'utf8' }));
    py.push(...r.methods.spsolve.runs);
  }
  out.push(`${name}: ours ${med(ours).toFixed(3)} spsolve ${med(py).toFixed(3)} → ${(med(py) / med(ours)).toFixed(2)}×`);
}
console.log(out.join(' | '));
rt.dispose();
