// pooled call walls after a gap of host work (busy wait), poisson3D(64) f32 cg_dia_f32 and f64 product
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { cpuSolverOps } from '../../../../src/cpu/solver-ops.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const reps = +(process.env.REPS ?? 200);
const B = await CpuBackend.create({ threads: 2, inlineThreshold: 0 });
const A = poisson3D(64);
const M32 = B.upload(DIAMatrix.fromCSR(A.astype('f32')));
const M64 = B.upload(DIAMatrix.fromCSR(A));
const o32 = cpuSolverOps(B, M32, 'none');
const o64 = cpuSolverOps(B, M64, 'jacobi', true, A);
const v = (o: any) => { const h = o.vector(); h.view().fill(0.5); return h; };
const [z, po, pn, q] = [v(o32), v(o32), v(o32), v(o32)];
const [r6, p6, q6, x6, z6] = [v(o64), v(o64), v(o64), v(o64), v(o64)];
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const gap of [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5]) {
  const t: Record<string, number[]> = { dia32: [], prod64: [] };
  for (let i = 0; i < reps; i++) {
    for (const [k, f] of [['dia32', () => o32.cgDirectionProduct!(0.3, z, po, pn, q)], ['prod64', () => o64.cgDeferredX!.product(0.3, z6, p6, q6, x6, 1e-9, r6)]] as const) {
      const e = performance.now() + gap; while (performance.now() < e);
      const s = performance.now(); await f(); t[k].push(performance.now() - s);
    }
  }
  console.log(`gap ${gap} ms: dia32 ${med(t.dia32).toFixed(3)}  prod64 ${med(t.prod64).toFixed(3)}`);
}
B.dispose();
