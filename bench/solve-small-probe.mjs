/**
 * The fixed cost of rt.upload + rt.solve on the small shared matrices: the first 30 calls one by one
 * and the warm median (upload, solve, total), against rt.factor + F.solve. After `npm run build`:
 *   node bench/solve-small-probe.mjs [matrix …]
 */
import { readFileSync } from 'node:fs';
import { createRuntime, parseMatrixMarket } from '../dist/index.js';

const names = process.argv.slice(2).length ? process.argv.slice(2) : ['494_bus', 't1', 'bcsstk01', 'olm1000', 'west0479', 'young1c', 'qc324'];
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const name of names) {
  const A = parseMatrixMarket(readFileSync(new URL(`../data/matrices/${name}.mtx`, import.meta.url))).matrix.toCSR();
  const b = new Float64Array(A.rows * (A.dtype === 'c128' ? 2 : 1));
  for (let i = 0; i < A.rows; i++) b[(A.dtype === 'c128' ? 2 : 1) * i] = 1;
  const up = [], so = [], tot = [];
  let r;
  for (let k = 0; k < 230; k++) {
    const t0 = performance.now();
    const h = rt.upload(A);
    const t1 = performance.now();
    r = await rt.solve(h, b, { tol: 1e-8 });
    const t2 = performance.now();
    h.dispose();
    up.push(t1 - t0); so.push(t2 - t1); tot.push(t2 - t0);
  }
  const fs = [];
  for (let k = 0; k < 100; k++) {
    const t0 = performance.now();
    const F = await rt.factor(A);
    await F.solve(b);
    F.dispose();
    fs.push(performance.now() - t0);
  }
  const first = tot.slice(0, 30).map((t) => t.toFixed(1)).join(' ');
  console.log(`${name} (${A.rows}, ${r.method}${r.factor ? ' ' + r.factor.kind : ''}): warm upload ${med(up.slice(30)).toFixed(3)} solve ${med(so.slice(30)).toFixed(3)} total ${med(tot.slice(30)).toFixed(3)} ms; factor+solve ${med(fs.slice(20)).toFixed(3)} ms; first 30: ${first}`);
}
rt.dispose();
