import { it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { exactRelativeResidual } from './exact-residual.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
pointDawnAtSwiftShader();
it('one', { timeout: 200000 }, async () => {
  const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
  const a = 0.99 * 2 ** -50;
  const A = new CSRMatrix(3, 3, 'f32', Int32Array.of(0, 1, 3, 4), Int32Array.of(0, 0, 1, 2), Float32Array.of(2 ** -20, a, 1, 2 ** 100));
  const A64 = new CSRMatrix(3, 3, 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values));
  const b = Float64Array.of(1, 0, 1e-10);
  for (const path of ['webgpu', 'cpu'] as const) for (const method of ['bicgstab', 'gmres', 'cg'] as const) for (const tol of [1e-9, 1e-10]) {
    const h = rt.upload(A);
    try {
      const r = await rt.solve(h, b, { path, method, tol });
      console.log(path, method, tol, r.method, r.preconditioner, r.reason, r.iterations, 'rel', r.relativeResidual, 'exact', exactRelativeResidual(A64, r.x, b), 'exp', r.matrixExponent, 'x', Array.from(r.x).map((v) => v.toExponential(3)).join(' '));
    } catch (e) { console.log(path, method, String(e).slice(0, 150)); }
    h.dispose();
  }
  rt.dispose();
});
