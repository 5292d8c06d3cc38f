// Bind groups made by a fresh handle's first Chebyshev-CG on the WebGPU path (after a Jacobi solve on it) and
// by the next one, poisson3D(k). After `npm run build`:
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node bind-groups-probe.mjs 24
import { createRuntime, poisson3D } from '../../../../dist/index.js';
const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
const be = rt.pathById('webgpu').backend;
const A = poisson3D(+(process.argv[2] ?? 16));
const b = new Float64Array(A.rows).fill(1);
for (let round = 0; round < 2; round++) {
  const h = rt.upload(A);
  await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'jacobi' });
  const before = be.stats.bindGroups, d0 = be.stats.dispatches;
  const r = await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
  const mid = be.stats.bindGroups;
  await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
  console.log(`round ${round}: first chebyshev solve made ${mid - before} bind groups over ${be.stats.dispatches - d0} dispatches (${r.iterations} it), the next ${be.stats.bindGroups - mid}; ${r.preconditionerDetail.slice(0, 30)}`);
  h.dispose();
}
rt.dispose();
