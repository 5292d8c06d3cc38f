// f32ref16 (fourteenth): the f32 CG step over poisson3D(64) on the pool, A's slots (cg_dia_f32) against
// the flagged view (cg_dia_f32u), alternated call by call; medians of REPS per way (ms), THREADS threads.
// Needs cg-dia-f32u.patch (this folder) applied: wideView's `single` view and the cg_dia_f32u kernel (tried, not kept).
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { cpuSolverOps } from '../../../../src/cpu/solver-ops.js';
import { wideView } from '../../../../src/cpu/refine.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const threads = +(process.env.THREADS ?? 2);
const reps = +(process.env.REPS ?? 400);
const B = await CpuBackend.create({ threads, inlineThreshold: 0 });
const A = poisson3D(+(process.env.GRID ?? 64)).astype('f32');
const M = B.upload(DIAMatrix.fromCSR(A));
const view = await wideView(B, M);
const slots = cpuSolverOps(B, M, 'none');
const flagged = cpuSolverOps(B, view.single!, 'none');
const v = () => { const h = slots.vector(); h.view().fill(0.5); return h; };
const [z, po, pn, q] = [v(), v(), v(), v()];
const t: Record<string, number[]> = { slots: [], flagged: [] };
const c0 = process.cpuUsage();
for (let i = 0; i < reps; i++) for (const [k, ops] of [['slots', slots], ['flagged', flagged]] as const) {
  const s = performance.now();
  await ops.cgDirectionProduct!(0.3, z, po, pn, q);
  t[k].push(performance.now() - s);
}
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const cpu = process.cpuUsage(c0);
console.log(`threads ${threads}, ${reps} calls a way: cg_dia_f32 ${med(t.slots).toFixed(3)} ms, cg_dia_f32u ${med(t.flagged).toFixed(3)} ms (p25 ${t.slots.slice().sort((x, y) => x - y)[reps >> 2].toFixed(3)} / ${t.flagged.slice().sort((x, y) => x - y)[reps >> 2].toFixed(3)}); process CPU ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ms`);
view.dispose(); M.dispose(); B.dispose();
