// Medians per build of bench-path-probe lines (ab.sh logs): the bench's window (calls 2-4, one untimed
// call first) and calls 5-, and the process CPU, faults and collections of calls 2-4.
import { readFileSync } from 'node:fs';
const by = {};
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  const i = line.indexOf('{'); if (i < 0) continue;
  const j = JSON.parse(line.slice(i));
  const b = (by[j.build] ??= { w: [], late: [], loads: [] });
  b.w.push(...j.calls.slice(1, 4)); b.late.push(...j.calls.slice(4)); b.loads.push(+line.split(' ')[2]);
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const [k, b] of Object.entries(by)) {
  const f = (cs, x) => med(cs.map((c) => c[x])).toFixed(1);
  console.log(`${k}: processes ${b.loads.length}, load ${Math.min(...b.loads)}-${Math.max(...b.loads)}`);
  console.log(`  calls 2-4 (n=${b.w.length}): total ${f(b.w, 'total')} ms, upload ${f(b.w, 'up')}, set-up ${f(b.w, 'setup')}, iterations ${f(b.w, 'iters')}, tail ${f(b.w, 'tail')}, CPU ${f(b.w, 'cpu')} ms, faults ${f(b.w, 'faults')}, collections ${f(b.w, 'gcN')} (${f(b.w, 'gcMs')} ms)`);
  if (b.late.length) console.log(`  calls 5- (n=${b.late.length}): total ${f(b.late, 'total')} ms, upload ${f(b.late, 'up')}, set-up ${f(b.late, 'setup')}, iterations ${f(b.late, 'iters')}, CPU ${f(b.late, 'cpu')} ms, faults ${f(b.late, 'faults')}, collections ${f(b.late, 'gcN')}`);
}
