// medians per GC mode of the warm calls (2…) of gc-ab.log lines: total, up, setup, iters, cpu, gcN, gcMs
import { readFileSync } from 'node:fs';
const by = {};
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  const i = line.indexOf('{'); if (i < 0) continue;
  const j = JSON.parse(line.slice(i)); const k = `${j.build} gc=${j.gc}`;
  (by[k] ??= []).push(...j.calls.slice(1));
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const [k, cs] of Object.entries(by)) console.log(k, `n=${cs.length}`, ['total', 'up', 'setup', 'iters', 'cpu', 'gcN', 'gcMs'].map((f) => `${f} ${med(cs.map((c) => c[f])).toFixed(1)}`).join(', '));
