// Scratch (lead, seventh session): rt.solve on small matrices against the pool's size, and rt.factor + F.solve.
import { readFileSync } from 'node:fs';
import { createRuntime } from '../work/main/src/runtime/runtime.js';
import { parseMatrixMarket } from '../work/main/src/io/index.js';
const MDIR = process.env.MDIR ?? 'data/matrices';
function med(xs: number[]) { const s = xs.slice().sort((a, b) => a - b); return s[s.length >> 1]; }
async function timeit(f: () => Promise<unknown>, batch: number, R = 9) {
  for (let i = 0; i < batch; i++) await f();
  const ms: number[] = [];
  for (let r = 0; r < R; r++) { const t0 = performance.now(); for (let i = 0; i < batch; i++) await f(); ms.push((performance.now() - t0) / batch); }
  return med(ms) * 1e3;
}
for (const w of (process.env.WORKERS ?? 'auto,1,2,4,8').split(',')) {
  const rt = await createRuntime({ workers: w === 'auto' ? 'auto' : Number(w) } as any);
  const out: string[] = [`workers=${w} threads=${rt.capabilities().threads}`];
  for (const name of (process.env.CASES ?? 'west0479,t1,young1c').split(',')) {
    const A = parseMatrixMarket(readFileSync(`${MDIR}/${name}.mtx`)).matrix.toCSR();
    const c = A.dtype === 'c128' ? 2 : 1;
    const b = new Float64Array(A.rows * c); for (let i = 0; i < A.rows; i++) b[c * i] = 1;
    const batch = Math.max(5, Math.round(20000 / (A.nnz + 10)));
    const solve = async () => { const h = rt.upload(A); try { await rt.solve(h, b, { tol: 1e-8 }); } finally { h.dispose(); } };
    const fs = async () => { const h = rt.upload(A); try { const F = await rt.factor(h); await F.solve(b); F.dispose(); } finally { h.dispose(); } };
    const c0 = process.cpuUsage();
    const a1 = await timeit(solve, batch); const f1 = await timeit(fs, batch); const a2 = await timeit(solve, batch); const f2 = await timeit(fs, batch);
    const cu = process.cpuUsage(c0);
    out.push(`${name}: rt.solve ${a1.toFixed(0)}/${a2.toFixed(0)} µs, upload+factor+F.solve ${f1.toFixed(0)}/${f2.toFixed(0)} µs (cpu ${((cu.user + cu.system) / 1e3).toFixed(0)} ms)`);
  }
  console.log(out.join('\n  '));
  rt.dispose();
}
