// The f32 Chebyshev steps against double-single ones on the WebGPU path (Dawn + SwiftShader here): poisson2D(k)
// with exact f32 values (bytes: the f32 steps where tol allows) and the same scaled by (1 + 2^-40) (double-single
// steps), rt.solve cg + chebyshev to `tol`, iterations and the true residual in f64. After `npm run build`:
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node f32-steps-tol-probe.mjs 96 1e-10
import { createRuntime, poisson2D, CSRMatrix } from '../../../../dist/index.js';
const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
const k = +(process.argv[2] ?? 96), tol = +(process.argv[3] ?? 1e-12);
const P = poisson2D(k);
const S = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((v) => v * (1 + 2 ** -40)));
const b = Float64Array.from({ length: P.rows }, (_, i) => Math.sin(i * 0.37) + 0.2);
for (const [what, A] of [['f32 steps (exact f32 values)', P], ['double-single steps (values x (1+2^-40))', S]]) {
  const h = rt.upload(A, { format: 'dia' });
  const r = await rt.solve(h, b, { path: 'webgpu', tol, method: 'cg', preconditioner: 'chebyshev' });
  // true residual in f64
  let rr = 0, bb = 0;
  for (let i = 0; i < A.rows; i++) { let s = 0; for (let j = A.rowPtr[i]; j < A.rowPtr[i + 1]; j++) s += A.values[j] * r.x[A.colIdx[j]]; rr += (b[i] - s) ** 2; bb += b[i] ** 2; }
  const { x, history, ...rest } = r; console.log(JSON.stringify(rest).slice(0, 600));
  console.log(`${what}: ${r.reason} ${r.iterations} it, true ${Math.sqrt(rr / bb).toExponential(2)} | ${r.preconditionerDetail?.slice(0, 40)}…${r.preconditionerDetail?.slice(-40)}`);
  h.dispose();
}
rt.dispose();
