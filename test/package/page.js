// Consumer fixture: a browser page that imports the installed package by name, bundled from the
// consumer project by esbuild and by Vite (test/package.test.ts). Runs SpMV on the CPU path with a
// worker pool and on the GPU path (WebGL2), checks both against a plain JavaScript loop, factorizes
// (the direct solvers: a chunk the bundler split off, fetched on first use) and leaves
// { checks, error } in window.__pkgResults for the test to assert. The kernels come from their .wasm
// file where the bundler (or the test, following the README's esbuild recipe) put it next to the
// bundle, else from the copy embedded in the package; the worker script is always inside.
import { createRuntime, poisson2D, poisson3D, Factorization } from 'simdgl';

const checks = [];
function ok(cond, msg) {
  if (!cond) throw new Error(msg);
}
async function check(name, fn) {
  const t0 = performance.now();
  try {
    checks.push({ name, ok: true, detail: String(await fn()), ms: performance.now() - t0 });
  } catch (e) {
    checks.push({ name, ok: false, detail: `${e?.name}: ${e?.message}\n${e?.stack ?? ''}`, ms: performance.now() - t0 });
  }
}

/** max |y − A·x| / (1 + Σ|a·x|) per row, against a plain CSR loop in f64 */
function relError(A, x, y) {
  let worst = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    let scale = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      s += A.values[k] * x[A.colIdx[k]];
      scale += Math.abs(A.values[k] * x[A.colIdx[k]]);
    }
    ok(Number.isFinite(y[i]), `y[${i}] = ${y[i]} is not finite`);
    worst = Math.max(worst, Math.abs(y[i] - s) / (1 + scale));
  }
  return worst;
}

const TINY = [2, 1, 2, 1, 0, 1, 2, 1, 2];

async function run() {
  await check('cpu: workers', async () => {
    ok(crossOriginIsolated, 'the page is not cross-origin isolated');
    const rt = await createRuntime({ backend: 'cpu', workers: 2, inlineThreshold: 0 });
    try {
      const caps = rt.capabilities();
      // an engine without SharedArrayBuffer in an isolated page (WebKitGTK) runs one thread and says why
      if (typeof SharedArrayBuffer === 'function') ok(caps.sharedMemory && caps.workers && caps.threads === 2, `capabilities: ${JSON.stringify(caps)}`);
      else ok(!caps.sharedMemory && caps.threads === 1 && caps.notes.some((n) => /SharedArrayBuffer/.test(n)), `capabilities: ${JSON.stringify(caps)}`);
      // ?wasm=file: the kernels come from their .wasm file; ?wasm=embedded: from the embedded copy, said in a note
      const embedded = caps.notes.some((n) => /embedded in the library/.test(n));
      const expected = new URLSearchParams(location.search).get('wasm');
      ok(embedded === (expected === 'embedded'), `expected the kernels from ${expected === 'embedded' ? 'the embedded copy' : 'the .wasm file'}; notes: ${JSON.stringify(caps.notes)}`);
      const tiny = Array.from(await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1)));
      ok(JSON.stringify(tiny) === JSON.stringify(TINY), `poisson2D(3)·1 = ${tiny}`);
      const A = poisson3D(16);
      const x = Float64Array.from({ length: A.cols }, (_, i) => Math.sin(0.37 * i + 1));
      const y = await rt.spmv(rt.upload(A), x);
      const err = relError(A, x, y);
      ok(err <= 1e-14, `relative error ${err}`);
      return `threads ${caps.threads}, wasm ${caps.wasm}, ${A.rows} rows, error ${err.toExponential(2)}`;
    } finally {
      rt.dispose();
    }
  });

  await check('cpu: a factorization (the direct solvers, loaded on first use)', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const A = poisson2D(12);
      const x = Float64Array.from({ length: A.cols }, (_, i) => Math.cos(0.37 * i));
      // b = A·x by a plain CSR loop
      const b = new Float64Array(A.rows);
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) b[i] += A.values[k] * x[A.colIdx[k]];
      const F = await rt.factor(A);
      ok(F instanceof Factorization, 'rt.factor did not return a Factorization');
      const got = (await F.solve(b)).x;
      const err = got.reduce((m, v, i) => Math.max(m, Math.abs(v - x[i])), 0);
      ok(err <= 1e-12, `max |x − x*| = ${err}`);
      return `${F.info.kind}, ${A.rows} unknowns, error ${err.toExponential(2)}`;
    } finally {
      rt.dispose();
    }
  });

  await check('gpu: backend gpu', async () => {
    const rt = await createRuntime({ backend: 'gpu' });
    try {
      const caps = rt.capabilities();
      ok(caps.gpu.available, `no GPU path: ${caps.gpu.reason}`);
      const small = rt.upload(poisson2D(3));
      ok(rt.explain('spmv', small).path === caps.gpu.path, 'explain does not choose the GPU path');
      const tiny = Array.from(await rt.spmv(small, new Float64Array(9).fill(1)));
      ok(JSON.stringify(tiny) === JSON.stringify(TINY), `poisson2D(3)·1 = ${tiny}`);
      const A = poisson2D(40).astype('f32');
      const x = Float32Array.from({ length: A.cols }, (_, i) => Math.fround(Math.sin(0.37 * i + 1)));
      const y = await rt.spmv(rt.upload(A), x);
      const err = relError(A, x, y);
      ok(err <= 1e-5, `relative error ${err}`);
      return `renderer ${caps.gpu.renderer}, f32 ${A.rows} rows, error ${err.toExponential(2)}`;
    } finally {
      rt.dispose();
    }
  });
}

run().then(
  () => (window.__pkgResults = { checks }),
  (e) => (window.__pkgResults = { checks, error: String(e?.stack ?? e) }),
);
