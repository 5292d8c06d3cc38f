// Saddle points under rt.solve's 'auto' (twenty-fourth session): the MAC Stokes matrices of stokes2D, whose
// pressures' diagonal is missing. For each size: 'auto' (now LU under the maximum transversal's ordering below
// 6000 unknowns, MINRES + the 'saddle' preconditioner from there; until this session Cholesky → LDLᵀ → LU under the
// symmetric ordering below 20 000, MINRES alone above), the factorization ('direct'), MINRES alone and MINRES + saddle forced (a build without that
// preconditioner skips it), and SciPy's spsolve on the same matrix in the same run (OPENBLAS_NUM_THREADS=1), each on a fresh
// handle, b = the uniform x-force of stokes2D's example, to 1e-8, medians of 3 rounds after an untimed one; for
// the build whose folder is given (its dist/; an older build has no stokes2D: the matrix comes from this one's):
//   OPENBLAS_NUM_THREADS=1 node bench/saddle-probe.mjs "$PWD" [the folder of the build to time]
// With SADDLE_WIND=wx,wy the Oseen matrices stokes2D(n, { wind }) (twenty-fifth session: nonsymmetric saddle points),
// whose variants are 'auto', 'direct' and BiCGSTAB + saddle (at most 3000 iterations); 'auto' of the older build
// is that session's "before" (GMRES + ILU(0) above 20 000 unknowns, then the factorization).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outcomeLine, solveRounds } from './solve-rounds.mjs';
const here = await import(process.argv[2] + '/dist/index.js');
const { createRuntime } = await import((process.argv[3] ?? process.argv[2]) + '/dist/index.js');
const rt = await createRuntime();
const wind = process.env.SADDLE_WIND?.split(',').map(Number);
for (const N of (process.env.SADDLE_SIZES ?? '40,80,150,200').split(',').map(Number)) {
  const A = wind ? here.stokes2D(N, { wind }) : here.stokes2D(N);
  const b = new Float64Array(A.rows).fill(1 / N ** 2, 0, (N - 1) * N);
  // (the factorization forced up to 100 000 unknowns: before this session's ordering, stokes2D(150)'s LU alone took 29 s)
  const variants = [['auto', {}], ...(A.rows <= 100000 ? [['direct', { method: 'direct' }]] : [])];
  if (!wind) variants.push(['minres', { method: 'minres', preconditioner: 'none' }]);
  if (process.argv[3] === undefined) variants.push(wind ? ['bicgstab + saddle', { method: 'bicgstab', preconditioner: 'saddle', maxIter: 3000 }] : ['minres + saddle', { method: 'minres', preconditioner: 'saddle' }]);
  const outcomes = await solveRounds(rt, A, b, variants);
  const line = outcomes.map((o) => outcomeLine(o, (f) => `, ${f.fillNnz} entries, ${f.offDiagonalPivots} pivots off the diagonal`));
  const file = join(tmpdir(), `simdgl-stokes2D-${N}${wind ? `-wind-${wind.join('-')}` : ''}.mtx`);
  writeFileSync(file, here.writeMatrixMarket(A, { symmetry: 'auto' }));
  const py = `
import scipy, scipy.io, scipy.sparse.linalg as sl, numpy as np, time
A = scipy.io.mmread('${file}').tocsc(); b = np.zeros(A.shape[0]); b[:${(N - 1) * N}] = 1 / ${N} ** 2
ts = []
for k in range(4):
    t = time.perf_counter(); x = sl.spsolve(A, b); ts.append((time.perf_counter() - t) * 1e3)
print(f"SciPy {scipy.__version__} spsolve: {sorted(ts[1:])[1]:.0f} ms, true {np.linalg.norm(b - A @ x) / np.linalg.norm(b):.1e}")`;
  const scipy = execFileSync('python3', ['-c', py], { encoding: 'utf8' }).trim();
  const best = Math.min(...outcomes.map((o) => o.ms).filter((t) => !Number.isNaN(t)));
  const sp = Number(/spsolve: (\d+) ms/.exec(scipy)[1]);
  console.log(`stokes2D(${N}${wind ? `, { wind: [${wind}] }` : ''}), ${A.rows} rows, ${A.nnz} entries\n  ${line.join('\n  ')}\n  ${scipy}\n  → spsolve / 'auto' ${(sp / outcomes[0].ms).toFixed(2)}× (better of ours / 'auto': ${(best / outcomes[0].ms).toFixed(2)})`);
}
rt.dispose();
