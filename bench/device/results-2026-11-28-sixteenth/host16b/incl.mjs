// Inclusive time per function (name:line) of V8 .cpuprofile files, averaged per file: node incl.mjs a.json,b.json [N]
import { readFileSync } from 'node:fs';
const files = process.argv[2].split(',');
const N = Number(process.argv[3] ?? 50);
const incl = new Map();
let total = 0;
for (const f of files) {
  const p = JSON.parse(readFileSync(f, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1e3;
    total += dt;
    const seen = new Set();
    for (let id = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const cf = byId.get(id).callFrame;
      const k = `${cf.functionName || '(anon)'}:${cf.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
  }
}
console.log(`total ${(total / files.length).toFixed(1)} ms a profile`);
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${(v / files.length).toFixed(1).padStart(8)}  ${k}`);
