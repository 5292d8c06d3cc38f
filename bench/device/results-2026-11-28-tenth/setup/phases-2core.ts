// upload + solve of poisson3D(64), f64 and f32 alternated in one runtime (one untimed pair, then ROUNDS): medians of
// the wall of upload, upload → first iteration (toFirst), the rest, and the process CPU of the solve and up to its
// first iteration (cpuToFirst, every thread); the untimed first pair printed apart. Scratch (README.md).
import { createRuntime, poisson3D } from '../../../../src/index.js';
const rounds = +(process.env.ROUNDS ?? 5);
const P = poisson3D(64);
const P32 = P.astype('f32');
const b = new Float64Array(P.rows).fill(1);
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const rt = await createRuntime();
const res: Record<string, Record<string, number[]>> = { f64: {}, f32: {} };
let info = '';
const first0: Record<string, string> = {};
for (let k = 0; k <= rounds; k++) {
  for (const [dt, A] of [['f64', P], ['f32', P32]] as const) {
    (globalThis as any).gc?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const h = rt.upload(A);
    const t1 = performance.now();
    let first = 0; let c1 = c0; const c00 = process.cpuUsage();
    const r = await rt.solve(h, b, { tol: 1e-10, onIteration: () => { if (!first) { first = performance.now(); c1 = process.cpuUsage(c00); } } });
    const t2 = performance.now();
    const c = process.cpuUsage(c0);
    h.dispose();
    if (k === 0) { first0[dt] = `${dt} first call: toFirst ${(first - t1).toFixed(1)} cpuToFirst ${((c1.user + c1.system) / 1000).toFixed(1)} wall ${(t2 - t0).toFixed(1)}`; continue; }
    const m = { wall: t2 - t0, upload: t1 - t0, toFirst: first - t1, rest: t2 - first, cpu: (c.user + c.system) / 1000, cpuToFirst: (c1.user + c1.system) / 1000 };
    for (const [key, v] of Object.entries(m)) (res[dt][key] ??= []).push(v);
    info += `${dt}:${r.iterations}it,${r.relativeResidual.toExponential(3)} `;
  }
}
console.log(`${process.env.TAG ?? ''} medians of ${rounds}: ` + ['f64', 'f32'].map((dt) => `${dt} ` + Object.entries(res[dt]).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join(' ')).join(' | '));
console.log(`${process.env.TAG ?? ''} ${first0.f64} | ${first0.f32} | ${info.split(' ').slice(0, 2).join(' ')}`);
rt.dispose();
