// Runs in a module Worker of the browser suite: the GPU path with no canvas given, so GpuBackend makes
// its own OffscreenCanvas there. Answers the page's message with a CheckResult-like { ok, detail } (and
// `unavailable`, the backend's reason, when it has no WebGL2 there).
import { GpuBackend } from '../../src/gpu/index.js';
import { poisson2D } from '../../src/generators/index.js';

self.onmessage = async () => {
  try {
    const gpu = GpuBackend.create();
    if (!gpu.available) {
      postMessage({ ok: false, unavailable: gpu.reason, detail: `unavailable in a worker: ${gpu.reason}` });
      return;
    }
    await gpu.loadShaders();
    const A = poisson2D(20, { dtype: 'f32' });
    const M = gpu.upload(A);
    const x = gpu.vector('f32', new Float32Array(A.cols).fill(1));
    const y = gpu.vector('f32', A.rows);
    gpu.spmv(M, x, y);
    const got = await gpu.read(y);
    for (let i = 0; i < A.rows; i++) {
      let s = 0;
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += A.values[k];
      if (got[i] !== s) throw new Error(`row ${i}: ${got[i]}, expected ${s}`);
    }
    M.dispose(); x.dispose(); y.dispose(); gpu.dispose();
    postMessage({ ok: true, detail: `OffscreenCanvas in a worker: poisson2D(20)·1 exact on ${gpu.capabilities().renderer}` });
  } catch (e) {
    postMessage({ ok: false, detail: `${(e as Error)?.message}\n${(e as Error)?.stack ?? ''}` });
  }
};
