import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const name = process.env.CASE || 'west0479';
const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const once = async (o) => { const h = rt.upload(A); const t0 = performance.now(); const c0 = process.cpuUsage(); const f0 = process.resourceUsage().minorPageFault; await rt.solve(h, b, { ...o, tol: 1e-8 }); const c = process.cpuUsage(c0); const f = process.resourceUsage().minorPageFault - f0; const t = performance.now() - t0; h.dispose(); return [t, (c.user + c.system) / 1e3, f]; };
const kry = { method: 'gmres', preconditioner: 'auto' };
const res = {};
for (let k = -10; k < 60; k++) {
  for (const [label, pre, gap] of [['after direct', {}, 0], ['after krylov', kry, 0], ['krylov+5ms', kry, 5], ['krylov+50ms', kry, 50], ['after sleep50', null, 50], ['krylov gc', kry, -1]]) {
    if (pre) await once(pre);
    if (gap > 0) await sleep(gap);
    if (gap < 0) globalThis.gc?.();
    const r = await once({});
    if (k >= 0) (res[label] ??= []).push(r);
  }
}
for (const [l, rs] of Object.entries(res)) console.log(l.padEnd(14), 'wall', med(rs.map((r) => r[0])).toFixed(3), 'cpu', med(rs.map((r) => r[1])).toFixed(3), 'faults', med(rs.map((r) => r[2])), 'mean', (rs.reduce((s, r) => s + r[2], 0) / rs.length).toFixed(1));
rt.dispose();
