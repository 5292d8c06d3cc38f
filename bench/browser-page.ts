/**
 * The in-page half of the browser benchmark: SpMV on the GPU path (WebGL2) and on the CPU path
 * (WebAssembly SIMD × the page's cores) in the same Chromium, on poisson3D_64 and the shared matrices,
 * f32 and f64 (double-single on the GPU). Kernel time: resident data, R products then one read-back,
 * minus a read-back alone (reading back is what makes the GPU finish); total time: upload + one product
 * + read-back. Results go to window.__bench.
 */
import { createRuntime, parseMatrixMarket, poisson3D, type CSRMatrix, type Runtime } from '../src/index.js';
import { effectiveGBs, median, spmvGflops } from '../src/metrics.js';
import { componentBytes, type DType } from '../src/dtype.js';

interface Row {
  matrix: string;
  dtype: DType;
  path: 'cpu' | 'gpu';
  rows: number;
  nnz: number;
  format: string;
  kernelMs: number;
  totalMs: number;
  gflops: number;
  gbs: number;
}

async function measure(rt: Runtime, path: 'cpu' | 'gpu', name: string, A: CSRMatrix): Promise<Row> {
  const x = new (A.dtype === 'f32' ? Float32Array : Float64Array)(A.cols).fill(1);
  // total: a fresh upload, one product, the read-back
  const t0 = performance.now();
  const h0 = rt.upload(A, { format: 'auto' });
  await rt.spmv(h0, x, { path });
  const totalMs = performance.now() - t0;
  h0.dispose();
  const h = rt.upload(A, { format: 'auto' });
  const xv = rt.vector(x);
  const yv = rt.vector(A.rows, A.dtype);
  await rt.spmv(h, xv, { y: yv, path });
  await yv.read();
  const reps = path === 'gpu' ? 5 : 20;
  const samples: number[] = [];
  for (let k = 0; k < 3; k++) {
    let t = performance.now();
    await yv.read();
    const readMs = performance.now() - t;
    t = performance.now();
    for (let r = 0; r < reps; r++) await rt.spmv(h, xv, { y: yv, path });
    await yv.read();
    samples.push(Math.max(1e-4, (performance.now() - t - readMs) / reps));
  }
  const kernelMs = median(samples);
  const e = rt.explain('spmv', h);
  const bytes = h.storageBytes + (A.rows + A.cols) * componentBytes(A.dtype);
  for (const v of [h, xv, yv]) v.dispose();
  return {
    matrix: name, dtype: A.dtype, path, rows: A.rows, nnz: A.nnz, format: path === 'gpu' ? ((e.estimates.webgpu ?? e.estimates.webgl2)?.format ?? '?') : h.format,
    kernelMs, totalMs, gflops: spmvGflops(A.nnz, false, kernelMs / 1e3), gbs: effectiveGBs(bytes, kernelMs / 1e3),
  };
}

async function run(): Promise<void> {
  const cpu = await createRuntime({ backend: 'cpu', workers: 'auto' });
  const gpu = await createRuntime({ backend: 'gpu' });
  const names = new URLSearchParams(location.search).get('matrices')?.split(',').filter(Boolean) ?? [];
  const matrices: Array<[string, () => Promise<CSRMatrix>]> = [['poisson3D_64', async () => poisson3D(64)]];
  for (const n of names) matrices.push([n, async () => parseMatrixMarket(await (await fetch(`/matrices/${n}.mtx`)).text()).matrix.toCSR()]);
  const rows: Row[] = [];
  for (const [name, load] of matrices) {
    const base = await load();
    if (base.dtype === 'c64' || base.dtype === 'c128') continue;
    for (const dt of ['f32', 'f64'] as DType[]) {
      const A = base.astype(dt);
      rows.push(await measure(cpu, 'cpu', name, A));
      rows.push(await measure(gpu, 'gpu', name, A));
    }
  }
  const caps = gpu.capabilities();
  (window as unknown as { __bench: unknown }).__bench = { rows, renderer: caps.gpu.renderer, threads: cpu.capabilities().threads };
  cpu.dispose();
  gpu.dispose();
}

run().catch((e) => {
  (window as unknown as { __bench: unknown }).__bench = { error: String((e as Error)?.stack ?? e) };
});
