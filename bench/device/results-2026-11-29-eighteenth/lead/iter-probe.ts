// per-call walls of the f32 tail's and the f64 solve's CG calls over poisson3D(64)
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { cpuSolverOps } from '../../../../src/cpu/solver-ops.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const threads = +(process.env.THREADS ?? 2);
const reps = +(process.env.REPS ?? 300);
const B = await CpuBackend.create({ threads, inlineThreshold: 0 });
const A = poisson3D(+(process.env.GRID ?? 64));
const M32 = B.upload(DIAMatrix.fromCSR(A.astype('f32')));
const M64 = B.upload(DIAMatrix.fromCSR(A));
const o32 = cpuSolverOps(B, M32, 'none');
const o64 = cpuSolverOps(B, M64, 'jacobi', true, A);
console.log('f64 params', JSON.stringify(M64.params));
const v = (o: any) => { const h = o.vector(); h.view().fill(0.5); return h; };
const [z, po, pn, q, x] = [v(o32), v(o32), v(o32), v(o32), v(o32)];
const [r6, p6, q6, x6, z6] = [v(o64), v(o64), v(o64), v(o64), v(o64)];
const t: Record<string, number[]> = { dia32: [], upd32: [], prod64: [], upd64: [] };
const time = async (k: string, f: () => Promise<unknown>) => { const s = performance.now(); await f(); t[k].push(performance.now() - s); };
for (let i = 0; i < reps; i++) {
  await time('dia32', () => o32.cgDirectionProduct!(0.3, z, po, pn, q));
  await time('upd32', () => o32.cgUpdate!(1e-9, pn, q, x, z));
  await time('prod64', () => o64.cgDeferredX!.product(0.3, z6, p6, q6, x6, 1e-9, r6));
  await time('upd64', () => o64.cgDeferredX!.update(1e-9, q6, r6, z6));
}
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
console.log(`threads ${threads}: ` + Object.entries(t).map(([k, a]) => `${k} ${med(a).toFixed(3)}`).join('  '));
B.dispose();
