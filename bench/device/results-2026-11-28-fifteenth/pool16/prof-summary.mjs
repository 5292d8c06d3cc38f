// Summarizes a V8 .cpuprofile: self time per function (name, file:line), the top N, and the total
// sampled; wasm-function[i] named from the module's export section where a .wasm is given
// (node prof-summary.mjs file.cpuprofile[,file2,…: summed] [N] [kernels.wasm]).
import { readFileSync } from 'node:fs';
const files = process.argv[2].split(',');
const N = Number(process.argv[3] ?? 40);
const names = new Map();
if (process.argv[4]) {
  const b = readFileSync(process.argv[4]);
  let o = 8;
  const leb = () => {
    let r = 0, s = 0, x;
    do { x = b[o++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80);
    return r >>> 0;
  };
  while (o < b.length) {
    const id = b[o++];
    const size = leb();
    const end = o + size;
    if (id === 7) {
      for (let k = leb(); k > 0; k--) {
        const len = leb();
        const name = b.subarray(o, o + len).toString();
        o += len;
        const kind = b[o++];
        const idx = leb();
        if (kind === 0 && !names.has(idx)) names.set(idx, name);
      }
    }
    o = end;
  }
}
const self = new Map();
for (const f of files) {
const p = JSON.parse(readFileSync(f, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const dt = p.timeDeltas;
for (let i = 0; i < p.samples.length; i++) {
  const n = byId.get(p.samples[i]);
  const cf = n.callFrame;
  const w = /^wasm-function\[(\d+)\]$/.exec(cf.functionName);
  const key = w ? `wasm ${names.get(Number(w[1])) ?? cf.functionName}` : `${cf.functionName || '(anon)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
}
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`total sampled ${total.toFixed(1)} ms in ${files.length} profile(s)`);
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${v.toFixed(1).padStart(9)} ms  ${k}`);
