import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const name = process.env.CASE || 'west0479';
const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const once = async (o) => { const c0 = process.cpuUsage(); const t0 = performance.now(); const h = rt.upload(A); await rt.solve(h, b, { ...o, tol: 1e-8 }); h.dispose(); const c = process.cpuUsage(c0); return [performance.now() - t0, (c.user + c.system) / 1e3]; };
const kry = { method: 'gmres', preconditioner: 'auto' };
const T = new Float64Array(8388608); let sink = 0;
const spin = (ms) => { const t = performance.now(); let s = 0; while (performance.now() - t < ms) s += Math.sin(s); sink += s; };
const res = {};
const before = {
  'direct': async () => { await once({}); },
  'krylov': async () => { await once(kry); },
  'sweep64MB': async () => { for (let i = 0; i < T.length; i += 8) sink += (T[i] += 1); },
  'spin30ms': async () => spin(30),
  'krylov+sweep': async () => { await once(kry); for (let i = 0; i < T.length; i += 8) sink += (T[i] += 1); },
};
for (let k = -10; k < +(process.env.N || 80); k++) {
  for (const [label, f] of Object.entries(before)) {
    await f();
    const r = await once({});
    if (k >= 0) (res[label] ??= []).push(r);
  }
}
console.log(name, `W=${process.env.WORKERS ?? 'default'}`, Object.entries(res).map(([l, rs]) => `${l}: ${med(rs.map((r) => r[0])).toFixed(3)}/${med(rs.map((r) => r[1])).toFixed(3)}`).join(' | '));
rt.dispose();
