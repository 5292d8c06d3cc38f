import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket, Runtime } = await import(dist + '/dist/index.js');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => a.length ? [...a].sort((p, q) => p - q)[a.length >> 1] : NaN;
const acc = {};
let cur = null;
const wrap = (obj, name, label, async_) => {
  const f = obj[name];
  obj[name] = async_ ? async function (...a) { const t = performance.now(); try { return await f.apply(this, a); } finally { if (cur) cur[label] = (cur[label] || 0) + performance.now() - t; } }
    : function (...a) { const t = performance.now(); try { return f.apply(this, a); } finally { if (cur) cur[label] = (cur[label] || 0) + performance.now() - t; } };
};
const A0 = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/west0479.mtx`)).matrix.toCSR();
const F0 = await rt.factor(A0); const FP = Object.getPrototypeOf(F0); F0.dispose();
wrap(Runtime.prototype, 'directPlan', 'plan', false);
wrap(FP, 'numeric', 'numeric', true);
wrap(FP, 'solve', 'fsolve', true);
wrap(Runtime.prototype, 'upload', 'upload', false);
const d = Object.getOwnPropertyDescriptor(FP, 'info');
Object.defineProperty(FP, 'info', { get() { const t = performance.now(); try { return d.get.call(this); } finally { if (cur) cur.info = (cur.info || 0) + performance.now() - t; } } });
for (const name of (process.env.CASES || 'west0479,olm1000').split(',')) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);
  const e = rt.explain('solve', rt.upload(A));
  const variants = [{}, { method: 'direct' }, { method: e.fallbacks[0].method, preconditioner: 'auto' }];
  const rec = {};
  let prev = -1;
  const N = +(process.env.N || 150);
  for (let k = -20; k < N; k++) {
    for (let j = 0; j < 3; j++) {
      const v = ((j + k) % 3 + 3) % 3;
      cur = {};
      const t0 = performance.now();
      const h = rt.upload(A);
      await rt.solve(h, b, { ...variants[v], tol: 1e-8 });
      h.dispose();
      cur.total = performance.now() - t0;
      if (k >= 0 && v < 2) { const key = `${v ? 'direct' : 'auto'}<-${['auto','direct','krylov'][prev]}`; (rec[key] ??= []).push(cur); }
      prev = v;
    }
  }
  for (const [k, rs] of Object.entries(rec)) {
    const keys = ['total', 'upload', 'plan', 'numeric', 'fsolve', 'info'];
    const m = Object.fromEntries(keys.map((x) => [x, med(rs.map((r) => r[x] || 0))]));
    m.other = med(rs.map((r) => r.total - keys.slice(1).reduce((s, x) => s + (r[x] || 0), 0)));
    console.log(name, k.padEnd(16), Object.entries(m).map(([x, v]) => `${x} ${(1e3 * v).toFixed(0)}`).join(' '), 'µs');
  }
}
rt.dispose();
