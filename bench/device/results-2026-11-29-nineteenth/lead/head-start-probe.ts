import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';
const rt = await createRuntime();
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
for (let k = 0; k < 6; k++) for (const [name, M] of [['f64', A], ['f32', Af]] as const) {
  const marks: string[] = [];
  let t = performance.now(), f = process.resourceUsage().minorPageFault;
  const mark = (s: string) => { const t2 = performance.now(), f2 = process.resourceUsage().minorPageFault; marks.push(`${s} ${(t2 - t).toFixed(1)}ms/${f2 - f}pf`); t = t2; f = f2; };
  const h = rt.upload(M);
  mark('upload');
  await rt.solve(h, b, { tol: 1e-10, onIteration: (i: number) => { if (i === 1 || i === 5 || i === 60 || i === 76 || i === 79 || i === 100 || i === 183 || i === 182) mark(`it${i}`); } });
  mark('end');
  h.dispose();
  console.log(name, marks.join('  '));
}
rt.dispose();
