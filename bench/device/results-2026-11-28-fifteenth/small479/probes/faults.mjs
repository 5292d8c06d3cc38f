// minor page faults and CPU (user, system) per rt.upload + rt.solve call of west0479, warm and GAP ms after a sleep; medians
import { readFileSync } from 'node:fs';
const { createRuntime, parseMatrixMarket } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${process.env.CASE || 'west0479'}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
for (const gap of (process.env.GAPS || '0,20').split(',').map(Number)) {
  const f = [], u = [], s = [], t = [];
  for (let k = -300; k < (gap ? 200 : 1500); k++) {
    if (gap && k >= 0) await new Promise((r) => setTimeout(r, gap));
    const r0 = process.resourceUsage();
    const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
    const r1 = process.resourceUsage();
    if (k >= 0) { f.push(r1.minorPageFault - r0.minorPageFault); u.push(r1.userCPUTime - r0.userCPUTime); s.push(r1.systemCPUTime - r0.systemCPUTime); t.push(r1.userCPUTime - r0.userCPUTime + r1.systemCPUTime - r0.systemCPUTime); }
  }
  console.log(`gap ${gap}: CPU median ${med(t)} µs (user mean ${mean(u).toFixed(0)}, system mean ${mean(s).toFixed(0)}), minor faults mean ${mean(f).toFixed(1)} median ${med(f)}`);
}
rt.dispose();
