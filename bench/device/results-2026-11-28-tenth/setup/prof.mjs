import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map(), incl = new Map();
const dt = p.timeDeltas; let i = 0;
for (const s of p.samples) {
  const d = dt[i++] / 1000;
  const n = byId.get(s); const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
  self.set(key(n), (self.get(key(n)) ?? 0) + d);
  const seen = new Set();
  for (let id = s; id != null; id = parent.get(id)) { const k = key(byId.get(id)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + d); } }
}
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${v.toFixed(1).padStart(8)} ${k}`).join('\n');
console.log('SELF\n' + top(self, +(process.argv[3] ?? 40)));
console.log('INCL\n' + top(incl, +(process.argv[4] ?? 60)));
