// per call: process CPU of the whole rt.upload + rt.solve and of its WebAssembly kernels (each kernel call
// timed by process.cpuUsage); GAP ms asleep before each call (the cold state), medians
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
let on = false, kcpu = 0; const per = new Map();
const inst = WebAssembly.instantiate;
WebAssembly.instantiate = async function (m, imp) {
  const r = await inst.call(this, m, imp);
  const i = r.instance ?? r;
  const ex = {};
  for (const [k, f] of Object.entries(i.exports)) ex[k] = typeof f !== 'function' ? f : function (...a) { if (!on) return f(...a); const c0 = process.cpuUsage(); try { return f(...a); } finally { const c = process.cpuUsage(c0); const d = c.user + c.system; kcpu += d; (per.get(k) ?? per.set(k, []).get(k)).push(d); } };
  const wrapped = { exports: ex };
  return r.instance ? { module: r.module, instance: wrapped } : wrapped;
};
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${process.env.CASE || 'west0479'}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const N = +(process.env.N || 500);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const tot = [], ker = [], sys = [];
for (let k = -300; k < N; k++) {
  if (process.env.GAP && k >= 0) await new Promise((r) => setTimeout(r, +process.env.GAP));
  on = k >= 0; kcpu = 0;
  const c0 = process.cpuUsage();
  const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
  const c = process.cpuUsage(c0);
  if (on) { tot.push(c.user + c.system); ker.push(kcpu); sys.push(c.system); }
}
console.log(`GAP ${process.env.GAP || 0}: call ${med(tot)} µs CPU (system ${med(sys)}), kernels ${med(ker)}, rest ${med(tot.map((t, i) => t - ker[i]))};`, [...per].map(([k, v]) => `${k} ${med(v)}`).join(', '));
rt.dispose();
