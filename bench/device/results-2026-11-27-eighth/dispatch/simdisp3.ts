import { DispatchPolicy as P } from 'SRC/src/cpu/dispatch.js';
import { Prng } from 'SRC/src/generators/prng.js';
// f64 update on 16 cores: pooled 0.06, inline 0.45; bursts: prob q a burst of len calls each in [lo,hi] ms
for (const [q, len, lo, hi] of [[0.01, 3, 0.3, 1.5], [0.02, 2, 0.3, 1], [0.005, 5, 0.5, 3], [0.05, 1, 0.25, 0.8], [0.01, 1, 0.3, 3], [0.02, 1, 1, 5]]) {
  const inl: number[] = []; const tot: number[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const p = new P(); const r = new Prng(seed); let ni = 0, t = 0, burst = 0;
    for (let k = 0; k < 910; k++) { const d = p.choose('x', 262144); let ms = 0.45; if (d.pooled) { if (burst === 0 && r.next() < q) burst = len; ms = burst > 0 ? lo + (hi - lo) * r.next() : 0.06; if (burst > 0) burst--; } else ni++; t += ms; d.done(ms); }
    inl.push(ni); tot.push(t);
  }
  const m = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  console.log(`q ${q} burst ${len} of ${lo}-${hi}: inline median ${m(inl)} mean ${(inl.reduce((a,b)=>a+b)/inl.length).toFixed(0)}, time mean ${(tot.reduce((a,b)=>a+b)/tot.length).toFixed(1)} ms`);
}
