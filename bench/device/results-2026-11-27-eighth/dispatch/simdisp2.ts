import { DispatchPolicy as P } from 'SRC/src/cpu/dispatch.js';
import { Prng } from 'SRC/src/generators/prng.js';
// loaded machine: inline 0.45 ms; pool typical tp with stalls prob q of [lo,hi]; 5000 calls
for (const [tp, q, lo, hi] of [[2, 0.2, 5, 20], [0.4, 0.05, 2, 10], [0.3, 0.01, 50, 150], [0.2, 0.02, 2, 6], [0.6, 0, 0, 0]]) {
  const tot: number[] = []; const pc: number[] = [];
  for (let seed = 1; seed <= 20; seed++) {
    const p = new P(); const r = new Prng(seed); let t = 0, np = 0;
    for (let k = 0; k < 5000; k++) { const d = p.choose('x', 262144); const ms = d.pooled ? (r.next() < q ? lo + (hi - lo) * r.next() : tp) : 0.45; if (d.pooled) np++; t += ms; d.done(ms); }
    tot.push(t); pc.push(np);
  }
  const m = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  const mean = tp + q * (lo + hi) / 2;
  console.log(`pool ${tp} (+${q}×${lo}-${hi}, mean ${mean.toFixed(2)}) vs inline 0.45: time median ${(m(tot)/5000/Math.min(0.45, mean)).toFixed(3)}× best, pooled calls median ${m(pc)}`);
}
