// medians per build of phase-probe.mjs lines (ab.sh logs): the first call of each process apart, warm calls (2..) pooled
import { readFileSync } from 'node:fs';
const rows = {};
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  const j = line.indexOf('{'); if (j < 0) continue;
  const load = line.slice(9, j).trim().split(' ')[0];
  const { build, calls } = JSON.parse(line.slice(j));
  (rows[build] ??= { loads: [], first: [], warm: [] }).loads.push(+load);
  rows[build].first.push(calls[0]); rows[build].warm.push(...calls.slice(1));
}
const med = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const [b, r] of Object.entries(rows)) for (const k of ['first', 'warm']) {
  const c = r[k]; const f = (p) => med(c.map((x) => x[p])).toFixed(1);
  console.log(`${b.padEnd(10)} ${k.padEnd(5)} n=${String(c.length).padEnd(3)} load ${Math.min(...r.loads)}-${Math.max(...r.loads)}  up ${f('up')}  setup ${f('setup')}  iters ${f('iters')}  tail ${f('tail')}  total ${f('total')}  cpu ${f('cpu')}  it ${f('it')}`);
}
