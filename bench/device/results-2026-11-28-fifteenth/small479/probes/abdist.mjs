// two builds in one process (argv[2] = A, argv[3] = B): rt.upload + rt.solve of CASE alternated call by call
// (ABBA), median process CPU per call each; GAP ms asleep before each call (the cold state)
import { readFileSync } from 'node:fs';
const builds = [process.argv[2], process.argv[3]];
const mods = await Promise.all(builds.map((d) => import(d + '/dist/index.js')));
const rts = await Promise.all(mods.map((m) => m.createRuntime()));
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const gap = +(process.env.GAP || 0);
const N = +(process.env.N || (gap ? 200 : 1500));
for (const name of (process.env.CASES || 'west0479').split(',')) {
  const As = mods.map((m) => m.parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${name}.mtx`)).matrix.toCSR());
  const b = new Float64Array(As[0].rows * (As[0].dtype === 'c128' ? 2 : 1));
  for (let i = 0; i < As[0].rows; i++) b[(As[0].dtype === 'c128' ? 2 : 1) * i] = 1;
  const cpu = [[], []]; const rr = [];
  for (let k = -200; k < N; k++) {
    for (const j of (k & 1) ? [1, 0] : [0, 1]) {
      if (gap && k >= 0) await new Promise((r) => setTimeout(r, gap));
      const c0 = process.cpuUsage();
      const h = rts[j].upload(As[j]); const r = await rts[j].solve(h, b, { tol: 1e-8 }); h.dispose();
      const c = process.cpuUsage(c0);
      if (k >= 0) cpu[j].push(c.user + c.system);
      rr[j] = `${r.method} ${r.relativeResidual.toExponential(2)}`;
    }
  }
  console.log(`${name} GAP ${gap}: A ${med(cpu[0])} µs, B ${med(cpu[1])} µs CPU, B/A ${(med(cpu[1]) / med(cpu[0])).toFixed(3)} (${N} each; ${rr.join(' | ')})`);
}
rts.forEach((rt) => rt.dispose());
