// rt.amg on poisson3D(n): wall and process CPU of each setup; per setup, the wall of each
// CpuSparseSession method (their kernels and the JavaScript around them) and of the rest of the setup
// (fitCandidates, the scale loop, the coarse solver); AMG-PCG iterations
import { performance } from 'node:perf_hooks';
import { createRuntime, poisson3D } from 'TREE/src/index.ts';
import { CpuSparseSession } from 'TREE/src/cpu/spgemm.ts';
const [n, reps, workers, label] = [+process.argv[2], +process.argv[3], +process.argv[4], process.argv[5]];
const rt = await createRuntime({ workers });
// NOTOUCH=1: fresh memory is not faulted in on the pool (src/cpu/memory.ts onFresh), for an A/B in one build
if (process.env.NOTOUCH === '1') (rt.cpuBackend.heap as any).onFresh = null;
let acc = new Map<string, number>();
let depth = 0;
const P = CpuSparseSession.prototype as any;
for (const m of ['upload', 'diagonal', 'aggregate', 'lanczosBounds', 'gaussSeidelOnZero', 'smoothedProlongator', 'smoothedTentative', 'transpose', 'galerkin', 'multiply']) {
  const f = P[m];
  P[m] = function (...a: unknown[]) {
    const t = performance.now();
    depth++;
    try {
      return f.apply(this, a);
    } finally {
      depth--;
      const k = depth > 0 ? `(${m})` : m;
      acc.set(k, (acc.get(k) ?? 0) + performance.now() - t);
    }
  };
}
const A = rt.upload(poisson3D(n));
// STRUCTURE=1: A's symmetry and diagonal analysed (once per handle) before the first setup is timed
if (process.env.STRUCTURE === '1') void (rt as any).solveStructureOf(A).structure;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rows: string[] = [];
let M: any;
for (let r = 0; r < reps; r++) {
  M?.dispose();
  acc = new Map();
  const [w0, c0] = [performance.now(), cpu()];
  M = rt.amg(A);
  const [w1, c1] = [performance.now(), cpu()];
  const top = [...acc].filter(([k]) => !k.startsWith('('));
  const s = top.reduce((x, [, v]) => x + v, 0);
  rows.push(`setup ${r + 1}: ${(w1 - w0).toFixed(0)}/${(c1 - c0).toFixed(0)} ms; ${[...acc].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}, rest ${(w1 - w0 - s).toFixed(0)}`);
}
const res = await rt.cg(A, new Float64Array(A.rows).fill(1), { preconditioner: M, tol: 1e-8 });
console.log(`${label} n=${n} workers=${workers} | levels ${M.amg.levels.map((l: any) => l.rows).join('/')} oc ${M.amg.operatorComplexity.toFixed(3)} | AMG-PCG ${res.iterations} it\n  ${rows.join('\n  ')}`);
rt.dispose();
