// cg_dia_f32 over poisson3D(64) on one thread, called chunk by chunk over the pool's equal splits (1, 2, 16 chunks):
// what forming other chunks' direction columns on the fly costs in compute (2-core machine, 08:52 UTC, load 10).
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
import { balancedBounds } from '../../../../src/cpu/partition.js';
const B = await CpuBackend.create({ threads: 1 });
const A = poisson3D(64).astype('f32');
const M = B.upload(DIAMatrix.fromCSR(A));
const n = A.rows;
const v = () => { const x = B.vector('f32', n); (x.view() as Float32Array).fill(0.5); return x; };
const [z, po, pn, q] = [v(), v(), v(), v()];
const out = B.heap.alloc(16 * 64);
const k = B.kernel('cg_dia_f32');
const base = [M.ptr('offsets'), M.params.ndiag, M.ptr('data'), M.params.pitch, n, z.ptr, po.ptr, pn.ptr, q.ptr, 0.5, out.ptr];
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1];
for (const chunks of [1, 2, 16, 1, 2, 16]) {
  const b = balancedBounds(n, chunks, (i) => i);
  const t: number[] = [];
  for (let r = 0; r < 40; r++) { const t0 = performance.now(); for (let c = 0; c < chunks; c++) k(...base, b[c], b[c + 1]); t.push(performance.now() - t0); }
  console.log(`chunks ${chunks}: ${med(t).toFixed(3)} ms for all rows (one thread, chunk by chunk)`);
}
B.dispose();
