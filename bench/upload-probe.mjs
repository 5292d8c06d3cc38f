/**
 * What rt.upload costs for a large stencil matrix: poisson3D(128) (14.6 M entries) uploaded as CSR (the
 * grouped layout, see explain's features.csrLayout) against copying the same arrays into the heap as
 * vectors, medians of 5, f64 then f32. After `npm run build`:
 *   node bench/upload-probe.mjs
 */
import { createRuntime, poisson3D } from '../dist/index.js';

const rt = await createRuntime({ workers: 2, backend: 'cpu', maxMemoryMB: 4096 });
for (const dt of ['f64', 'f32']) {
  const A = poisson3D(128).astype(dt);
  const t = { up: [], copy: [] };
  for (let r = 0; r < 5; r++) {
    let t0 = performance.now();
    const h = rt.upload(A, { format: 'csr' });
    t.up.push(performance.now() - t0);
    t0 = performance.now();
    const v = [rt.vector(A.values), rt.vector(new Float32Array(A.colIdx.buffer)), rt.vector(new Float32Array(A.rowPtr.buffer))];
    t.copy.push(performance.now() - t0);
    h.dispose();
    for (const u of v) u.dispose();
  }
  const med = (a) => a.sort((p, q) => p - q)[2].toFixed(0);
  console.log(`${dt}: rt.upload as CSR (${rt.explain('spmv', A).features.csrLayout}) ${med(t.up)} ms; the same arrays copied in as vectors ${med(t.copy)} ms`);
}
rt.dispose();
