// timeline of the main thread's samples in the last solve: per sample, the chain of frames below `runSolve`/'upload', collapsed
import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const depth = +(process.argv[3] ?? 4);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (id) => { const n = byId.get(id); return `${n.callFrame.functionName || 'anon'}:${n.callFrame.lineNumber + 1}`; };
let t = p.startTime; const rows = [];
p.samples.forEach((s, i) => { t += p.timeDeltas[i]; const chain = []; for (let id = s; id != null; id = parent.get(id)) chain.unshift(name(id)); rows.push([t / 1000, chain]); });
// find last 'upload:' top-level entries (runtime upload)
const isUp = (c) => c.some((f) => f.startsWith('uploadInBudget'));
let lastUp = -1; rows.forEach((r, i) => { if (isUp(r[1])) lastUp = i; });
// go back to the start of that upload run (and skip back to previous solve = f64 one)
let start = lastUp; while (start > 0 && isUp(rows[start - 1][1])) start--;
// previous upload (f64)
let prevUp = start - 1; while (prevUp > 0 && !isUp(rows[prevUp][1])) prevUp--; let s2 = prevUp; while (s2 > 0 && isUp(rows[s2 - 1][1])) s2--;
const from = process.argv[4] === 'f32' ? start : s2;
const t0 = rows[from][0]; let cur = null, curT = t0, out = [];
for (let i = from; i < rows.length && rows[i][0] - t0 < +(process.argv[5] ?? 120); i++) {
  const c = rows[i][1]; const k = c.findIndex((f) => new RegExp(process.env.ANCHOR ?? "^(runSolve|uploadInBudget|solve):").test(f));
  const key = (k >= 0 ? c.slice(k, k + depth) : c.slice(-2)).join(' > ');
  if (key !== cur) { if (cur) out.push(`${(curT - t0).toFixed(1).padStart(6)} +${(rows[i][0] - curT).toFixed(1).padStart(5)} ${cur}`); cur = key; curT = rows[i][0]; }
}
console.log(out.filter((l) => +l.split('+')[1].trim().split(' ')[0] >= +(process.argv[6] ?? 0.4)).join('\n'));
