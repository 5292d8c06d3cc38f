// rt.amg on poisson3D(n): wall and process CPU of each setup, the kernels' wall (last setup), AMG-PCG iterations
import { performance } from 'node:perf_hooks';
import { createRuntime, poisson3D } from 'TREE/src/index.ts';
const [n, reps, workers, label] = [+process.argv[2], +process.argv[3], +process.argv[4], process.argv[5]];
const rt = await createRuntime({ workers });
const B = (rt as any).cpu.backend;
let acc = new Map<string, number>();
const f = B.runChunksSync.bind(B);
B.runChunksSync = (k: string, ...a: unknown[]) => {
  const t = performance.now();
  try {
    return f(k, ...a);
  } finally {
    acc.set(k, (acc.get(k) ?? 0) + performance.now() - t);
  }
};
const A = rt.upload(poisson3D(n));
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
  rows.push(`${(w1 - w0).toFixed(0)}/${(c1 - c0).toFixed(0)}`);
}
const k = [...acc].sort((a, b) => b[1] - a[1]);
const ks = k.reduce((s, [, v]) => s + v, 0);
const res = await rt.cg(A, new Float64Array(A.rows).fill(1), { preconditioner: M, tol: 1e-8 });
console.log(`${label} n=${n} workers=${workers} setups wall/cpu ms: ${rows.join(' ')} | levels ${M.amg.levels.map((l: any) => l.rows).join('/')} oc ${M.amg.operatorComplexity.toFixed(3)} | AMG-PCG ${res.iterations} it | last setup kernels ${ks.toFixed(0)} ms: ${k.slice(0, 8).map(([a, v]) => `${a} ${v.toFixed(0)}`).join(', ')}`);
rt.dispose();
