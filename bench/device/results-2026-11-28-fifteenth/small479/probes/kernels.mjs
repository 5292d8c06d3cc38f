// per-call CPU split: each WebAssembly kernel's time (main thread) and the JavaScript rest, rt.upload + rt.solve in a loop
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const acc = new Map();
let on = false;
const inst = WebAssembly.instantiate;
WebAssembly.instantiate = async function (m, imp) {
  const r = await inst.call(this, m, imp);
  const i = r.instance ?? r;
  const ex = {};
  for (const [k, f] of Object.entries(i.exports)) ex[k] = typeof f !== 'function' ? f : function (...a) { if (!on) return f(...a); const t = performance.now(); try { return f(...a); } finally { const d = performance.now() - t; acc.set(k, (acc.get(k) || 0) + d); } };
  const wrapped = { exports: ex };
  return r.instance ? { module: r.module, instance: wrapped } : wrapped;
};
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const name = process.env.CASE || 'west0479';
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const N = +(process.env.N || 2000);
const cpu = [];
let total = 0;
for (let k = -300; k < N; k++) {
  on = k >= 0;
  if (process.env.GAP) await new Promise((r) => setTimeout(r, +process.env.GAP));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
  const c = process.cpuUsage(c0);
  if (on) { total += performance.now() - t0; cpu.push(c.user + c.system); }
}
let ks = 0;
for (const [k, v] of [...acc].sort((a, b) => b[1] - a[1])) { ks += v; console.log(k.padEnd(20), (1e3 * v / N).toFixed(1), 'µs'); }
cpu.sort((a, b) => a - b);
console.log('median cpu', cpu[cpu.length >> 1], 'µs;', 'kernels', (1e3 * ks / N).toFixed(1), 'total', (1e3 * total / N).toFixed(1), 'µs/call');
rt.dispose();
