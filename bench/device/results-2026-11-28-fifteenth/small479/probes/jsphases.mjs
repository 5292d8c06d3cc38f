// per call, process CPU of each phase of rt.upload + rt.solve (west0479), its WebAssembly kernels' CPU
// taken out (so: the JavaScript of each phase); GAP ms asleep before each call (the cold state); medians
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
let on = false;
const now = () => { const c = process.cpuUsage(); return c.user + c.system; };
let rec = null; const stack = [];
const enter = (label) => { if (!on) return; stack.push([label, now(), 0]); };
const leave = () => { if (!on) return; const [label, t0, k] = stack.pop(); const d = now() - t0; rec[label] = (rec[label] || 0) + d - k; rec['K:' + label] = (rec['K:' + label] || 0) + k; if (stack.length) stack[stack.length - 1][2] += d; };
const inst = WebAssembly.instantiate;
WebAssembly.instantiate = async function (m, imp) {
  const r = await inst.call(this, m, imp);
  const i = r.instance ?? r;
  const ex = {};
  for (const [k, f] of Object.entries(i.exports)) ex[k] = typeof f !== 'function' ? f : function (...a) { if (!on) return f(...a); const t0 = now(); try { return f(...a); } finally { const d = now() - t0; rec.kernels = (rec.kernels || 0) + d; if (stack.length) stack[stack.length - 1][2] += d; } };
  const wrapped = { exports: ex };
  return r.instance ? { module: r.module, instance: wrapped } : wrapped;
};
const { createRuntime, parseMatrixMarket, Runtime } = await import(dist + '/dist/index.js');
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${process.env.CASE || 'west0479'}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const wrap = (obj, name, label, async_) => {
  const f = obj[name];
  obj[name] = async_ ? async function (...a) { enter(label); try { return await f.apply(this, a); } finally { leave(); } }
    : function (...a) { enter(label); try { return f.apply(this, a); } finally { leave(); } };
};
{ const F0 = await rt.factor(A); const FP = Object.getPrototypeOf(F0); F0.dispose();
  wrap(FP, 'numeric', 'numeric', true); wrap(FP, 'solve', 'Fsolve', true); wrap(FP, 'dispose', 'Fdispose', false);
  const d = Object.getOwnPropertyDescriptor(FP, 'info');
  Object.defineProperty(FP, 'info', { get() { enter('info'); try { return d.get.call(this); } finally { leave(); } } }); }
wrap(Runtime.prototype, 'upload', 'upload', false);
{ const { cpuSymbolicKernels } = await import(dist + '/dist/cpu/symbolic.js'); const sk = cpuSymbolicKernels(rt.cpu.backend); wrap(sk, 'columns', 'columns', false); wrap(sk, 'btf', 'btf', false); }
{ const { directKernels } = await import(dist + '/dist/runtime/direct.js'); const dk = directKernels(rt.cpu.backend); wrap(dk.lu, 'sparse', 'luSparse', false); wrap(dk.lu, 'hold', 'luHold', false); wrap(dk, 'residual', 'holdRes', false); }
wrap(Runtime.prototype, 'directPlan', 'plan', false);
const N = +(process.env.N || 500);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const all = [];
for (let k = -300; k < N; k++) {
  if (process.env.GAP && k >= 0) await new Promise((r) => setTimeout(r, +process.env.GAP));
  on = k >= 0; rec = {};
  if (process.env.PRE) { const t = performance.now() + +process.env.PRE / 1000; let z = 0; while (performance.now() < t) z++; globalThis.__z = z; }
  if (process.env.PREMEM) { const a = new Float64Array(+process.env.PREMEM); for (let i = 0; i < a.length; i++) a[i] = i; globalThis.__z = a[7]; }
  const t0 = now();
  const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
  if (on) { rec.total = now() - t0; all.push(rec); }
}
const keys = [...new Set(all.flatMap((r) => Object.keys(r)))];
const m = Object.fromEntries(keys.map((x) => [x, med(all.map((r) => r[x] || 0))]));
const named = ['upload', 'plan', 'numeric', 'Fsolve', 'info', 'Fdispose', 'columns', 'btf'];
m.restJS = med(all.map((r) => r.total - (r.kernels || 0) - named.reduce((s, x) => s + (r[x] || 0), 0)));
console.log(`GAP ${process.env.GAP || 0}:`, Object.entries(m).map(([x, v]) => `${x} ${v}`).join(', '));
rt.dispose();
