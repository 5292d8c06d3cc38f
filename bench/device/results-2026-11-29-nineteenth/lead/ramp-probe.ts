// The f64 CG product step's wall, step by step, right after a gap in which the main thread spins (MODE=busy,
// the worker asleep) or both threads sleep (MODE=idle), poisson3D(64), 2 threads, medians of 15 gaps.
//   npx esbuild <this> --bundle --platform=node --format=esm --outfile=/tmp/ramp.js && MODE=idle GAPS=0,25,100 STEPS=40 node /tmp/ramp.js
// INL=1e9: every step inline instead of pooled.
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { cpuSolverOps } from '../../../../src/cpu/solver-ops.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const B = await CpuBackend.create({ threads: 2, inlineThreshold: +(process.env.INL ?? 0) });
const A = poisson3D(64);
const M64 = B.upload(DIAMatrix.fromCSR(A));
const o64 = cpuSolverOps(B, M64, 'jacobi', true, A);
const v = (o: any) => { const h = o.vector(); h.view().fill(0.5); return h; };
const [r6, p6, q6, x6, z6] = [v(o64), v(o64), v(o64), v(o64), v(o64)];
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const mode = process.env.MODE ?? 'busy';
const steps = +(process.env.STEPS ?? 10);
for (const gap of (process.env.GAPS ?? '0,2,5,10,25,50').split(',').map(Number)) {
  const rows: number[][] = [];
  for (let rep = 0; rep < 15; rep++) {
    if (mode === 'busy') { const e = performance.now() + gap; while (performance.now() < e); }
    else await new Promise((r) => setTimeout(r, gap));
    const t: number[] = [];
    for (let i = 0; i < steps; i++) { const s = performance.now(); await o64.cgDeferredX!.product(0.3, z6, p6, q6, x6, 1e-9, r6); t.push(performance.now() - s); }
    rows.push(t);
  }
  console.log(`${mode} gap ${gap} ms: steps 1..${steps} medians`, Array.from({ length: steps }, (_, i) => med(rows.map((r) => r[i])).toFixed(2)).join(' '));
}
B.dispose();
