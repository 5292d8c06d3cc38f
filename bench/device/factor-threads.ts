/**
 * The host factorization's time against the pool's size (twenty-third session: elasticity2D(200)'s Cholesky
 * took 435 ms on the H200 machine's 16 threads, 295 on the 2-core VM's 2): rt.solve with method 'direct' on
 * a fresh handle, the factor's phases (ordering, symbolic, numeric) and the whole call, median of RUNS after
 * one, for each pool size.
 *
 *   node factor-threads.mjs [--runs 3] > factor-threads.tsv
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { elasticity2D } from '../../src/generators/elasticity.js';
import { poisson2D } from '../../src/generators/poisson.js';

const args = process.argv.slice(2);
const runs = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : '3');
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const workers of [1, 2, 4, 8, 16]) {
  const rt = await createRuntime({ backend: 'cpu', workers });
  for (const [name, A] of [['elasticity2D(200)', elasticity2D(200)], ['poisson2D(512)', poisson2D(512)]] as const) {
    const b = new Float64Array(A.rows).fill(1);
    const t: number[][] = [[], [], [], []];
    for (let k = 0; k <= runs; k++) {
      const h = rt.upload(A);
      const s = performance.now();
      const r = await rt.solve(h, b, { method: 'direct', reuse: false });
      const all = performance.now() - s;
      h.dispose();
      if (k === 0) continue;
      const f = r.factor!.times;
      [all, f.ordering, f.symbolic, f.numeric].forEach((v, i) => t[i].push(v));
    }
    console.log(`${workers}\t${name}\tcall ${med(t[0]).toFixed(1)} ms\tordering ${med(t[1]).toFixed(1)}\tsymbolic ${med(t[2]).toFixed(1)}\tnumeric ${med(t[3]).toFixed(1)}`);
  }
  rt.dispose();
}
