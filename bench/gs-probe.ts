// GMRES's Gram–Schmidt pass: the fused kernel (gramSchmidt) against a dot and an axpy per vector
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson3D } from '../src/generators/poisson.js';
import { sequence, type SolverStep } from '../src/solvers/ops.js';
const B = await CpuBackend.create({ threads: +(process.env.T ?? 2), inlineThreshold: 0 });
const A = poisson3D(64);
const o = cpuSolverOps(B, B.upload(DIAMatrix.fromCSR(A)), 'none', true, A);
const nv = +(process.env.NV ?? 16);
const V = Array.from({ length: nv }, (_, i) => { const v = o.vector(); v.view().fill(1 / (i + 1)); return v; });
const w = o.vector(); w.view().fill(0.3);
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const c = V.map((): [number, number] => [1e-9, 0]);
for (let rep = 0; rep < 3; rep++) {
  const t = { fusedDots: [] as number[], fusedUpd: [] as number[], dots: [] as number[], upd: [] as number[] };
  for (let k = 0; k < 30; k++) {
    let s = performance.now(); await o.gramSchmidt!(V, w, null, 'dots'); t.fusedDots.push(performance.now() - s);
    s = performance.now(); await o.gramSchmidt!(V, w, c, 'dots'); t.fusedUpd.push(performance.now() - s);
    s = performance.now(); await sequence(o, V.map((v): SolverStep<any> => ['dot', v, w])); t.dots.push(performance.now() - s);
    s = performance.now(); await sequence(o, [...V.map((v, i): SolverStep<any> => ['axpy', [-c[i][0], 0], v, w]), ...V.map((v): SolverStep<any> => ['dot', v, w])]); t.upd.push(performance.now() - s);
  }
  console.log(`nv ${nv}: fused dots ${med(t.fusedDots).toFixed(2)} ms, fused update+dots ${med(t.fusedUpd).toFixed(2)}; one by one: dots ${med(t.dots).toFixed(2)}, axpys+dots ${med(t.upd).toFixed(2)}`);
}
B.dispose();
