// which pool calls a solve of poisson3D(64) to a true 1e-10 makes, f64 and f32, and their walls
import { CpuBackend } from '../../../../src/cpu/backend.js';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const stats = new Map<string, { n: number; ms: number }>();
let on = false;
for (const m of ['runVector', 'runReduction', 'spmv', 'runRanges'] as const) {
  const orig = (CpuBackend.prototype as any)[m];
  (CpuBackend.prototype as any)[m] = async function (this: unknown, k: any, ...rest: unknown[]) {
    const s = performance.now();
    const r = await orig.call(this, k, ...rest);
    if (on) {
      const name = m === 'spmv' ? 'spmv' : String(k);
      const e = stats.get(name) ?? { n: 0, ms: 0 };
      e.n++; e.ms += performance.now() - s; stats.set(name, e);
    }
    return r;
  };
}
const rt = await createRuntime({ ...(process.env.INLINE ? { inlineThreshold: Number(process.env.INLINE) } : {}), ...(process.env.SPIN ? { spinUs: Number(process.env.SPIN) } : {}) });
const A = poisson3D(64);
const b = new Float64Array(A.rows).fill(1);
for (const [name, M] of [['f64', A], ['f32', A.astype('f32')], ['f64', A], ['f32', A.astype('f32')]] as const) {
  const h = rt.upload(M);
  stats.clear(); on = true;
  const t0 = performance.now();
  const r = await rt.solve(h, b, { tol: 1e-10 });
  const t = performance.now() - t0; on = false;
  h.dispose();
  let tot = 0;
  console.log(`${name}: ${t.toFixed(1)} ms, ${r.iterations} it, ${r.method}/${r.preconditioner}`);
  for (const [k, e] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) { tot += e.ms; console.log(`   ${k.padEnd(40)} ${String(e.n).padStart(5)} ${e.ms.toFixed(1).padStart(7)} ms  ${(e.ms / e.n).toFixed(3)}`); }
  console.log(`   calls total ${tot.toFixed(1)} ms`);
  const st = (rt as any).cpuBackend.dispatchStats;
  if (st) for (const [k, v] of Object.entries(st as Record<string, any>)) if (/^cg_/.test(k)) console.log(`   ${k} inline ${(v.inline * 262144 / 1e6).toFixed(3)} pool ${(v.pool * 262144 / 1e6).toFixed(3)} samples ${v.samples}`);
}
rt.dispose();
