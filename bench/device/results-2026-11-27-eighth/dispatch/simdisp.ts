import { DispatchPolicy as P } from 'SRC/src/cpu/dispatch.js';
import { Prng } from 'SRC/src/generators/prng.js';
// f64 update on 16 cores: pooled 0.06 ms, inline 0.45; stalls: prob q, size uniform in [lo, hi] ms
for (const [q, lo, hi] of [[0.005, 0.3, 3], [0.02, 0.3, 3], [0.02, 1, 5], [0.05, 0.2, 1], [0.002, 2, 4]]) {
  const inl: number[] = []; const tot: number[] = [];
  for (let seed = 1; seed <= 20; seed++) {
    const p = new P(); const r = new Prng(seed); let ni = 0, t = 0;
    for (let k = 0; k < 910; k++) { const d = p.choose('x', 262144); const ms = d.pooled ? (r.next() < q ? lo + (hi - lo) * r.next() : 0.06) : 0.45; if (!d.pooled) ni++; t += ms; d.done(ms); }
    inl.push(ni); tot.push(t);
  }
  const m = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  console.log(`q ${q} stall ${lo}-${hi}: inline calls median ${m(inl)} max ${Math.max(...inl)}, time median ${m(tot).toFixed(1)} mean ${(tot.reduce((a,b)=>a+b)/tot.length).toFixed(1)} ms`);
}
