// the 'auto' dispatch's choices and times for one kernel through alternated f64 / f32 solves of poisson3D(64)
import { DispatchPolicy } from '../../../../src/cpu/dispatch.js';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const watch = process.env.KERNEL ?? 'cg_update_f64';
const trace: string[] = [];
const orig = DispatchPolicy.prototype.choose;
DispatchPolicy.prototype.choose = function (kernel: string, cost: number) {
  const d = orig.call(this, kernel, cost);
  if (!kernel.startsWith(watch)) return d;
  const self = this;
  return { pooled: d.pooled, done: (ms: number) => { d.done(ms); const st = self.snapshot()[`${kernel}:${Math.round(2 * Math.log2(cost))}`]; trace.push(`${d.pooled ? 'P' : 'i'}${ms.toFixed(2)}(${(st.inline * cost / 1e6).toFixed(2)}/${(st.pool * cost / 1e6).toFixed(2)})`); } };
};
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < 6; k++) for (const M of [A, Af]) {
  const h = rt.upload(M);
  await rt.solve(h, b, { tol: 1e-10 });
  h.dispose();
  trace.push('|');
}
console.log(trace.join(' '));
rt.dispose();
