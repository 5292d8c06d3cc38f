import { DispatchPolicy } from '../../../../src/cpu/dispatch.js';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const watch = process.env.KERNEL ?? 'cg dia';
const trace: string[] = [];
const orig = DispatchPolicy.prototype.choose;
const origP = DispatchPolicy.prototype.pooled;
const wrap = (o: any, tag: string) => function (this: any, kernel: string, cost: number) {
  const d = o.call(this, kernel, cost);
  if (!kernel.startsWith(watch)) return d;
  const self = this;
  return { pooled: d.pooled, done: (ms: number) => { d.done(ms); const st = self.snapshot()[`${kernel}:${Math.round(2 * Math.log2(cost))}`]; trace.push(`${tag}${kernel.includes('f32') ? 'T' : kernel.includes('jacobi') ? 'J' : 'H'}${d.pooled ? 'P' : 'i'}${ms.toFixed(2)}(${(st.inline * cost / 1e6).toFixed(2)}/${(st.pool * cost / 1e6).toFixed(2)})`); } };
};
DispatchPolicy.prototype.choose = wrap(orig, '') as any;
DispatchPolicy.prototype.pooled = wrap(origP, 'r') as any;
const rt = await createRuntime(process.env.SPIN ? { spinUs: +process.env.SPIN } : {});
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < +(process.env.N ?? 4); k++) for (const M of [A, Af]) {
  const h = rt.upload(M);
  await rt.solve(h, b, { tol: 1e-10 });
  h.dispose();
  trace.push('\n|');
}
console.log(trace.join(' '));
rt.dispose();
