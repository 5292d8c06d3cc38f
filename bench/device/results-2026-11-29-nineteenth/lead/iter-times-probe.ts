import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
import { median } from '../../../../src/metrics.js';
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
const reps = Number(process.argv[2] ?? 7);
const out: Record<string, number[][]> = { f64: [], f32: [] };
for (let k = -1; k < reps; k++) {
  for (const [name, M] of [['f64', A], ['f32', Af]] as const) {
    const ts: number[] = [];
    const h = rt.upload(M);
    const r = await rt.solve(h, b, { tol: 1e-10, onIteration: (i: number) => { ts[i] = performance.now(); } });
    h.dispose();
    if (k >= 0) out[name].push(ts.slice(1).map((t, i) => t - ts[i]).slice(1));
  }
}
for (const name of ['f64', 'f32']) {
  const runs = out[name];
  const n = runs[0].length;
  const per = Array.from({ length: n }, (_, i) => median(runs.map((r) => r[i] ?? NaN)));
  const seg = (a: number, z: number) => per.slice(a, z).reduce((s, x) => s + x, 0);
  console.log(name, 'n', n, 'sum', seg(0, n).toFixed(1), 'head(0..75)', seg(0, 75).toFixed(1), 'tail(76..)', seg(76, n).toFixed(1), 'spikes', per.map((x, i) => [i + 2, x] as const).filter(([, x]) => x > 0.9).map(([i, x]) => `${i}:${x.toFixed(2)}`).join(' '));
  console.log('  medians by 10s', Array.from({ length: Math.ceil(n / 10) }, (_, j) => median(per.slice(j * 10, j * 10 + 10)).toFixed(3)).join(' '));
}

for (const [k, v] of Object.entries((rt as any).cpuBackend?.dispatchStats ?? {}) as any)
  if (/^cg|^refine|step/.test(k)) console.log(`   ${k} inline ${((v.inline * A.rows) / 1e6).toFixed(3)} pool ${((v.pool * A.rows) / 1e6).toFixed(3)} samples ${v.samples}`);
rt.dispose();
