// The in-page half of the browser suite: runs every check of checks.ts against the real WebGL2 of
// the browser and leaves the results in window.__simdglResults. Bundled by test/browser.test.ts.
import { GpuBackend, GpuLimitError, type GpuUnavailable } from '../../src/gpu/index.js';
import { poisson2D, poisson3D, randomMatrix, Prng } from '../../src/generators/index.js';
import { CSRMatrix, ELLMatrix, convert } from '../../src/formats/index.js';
import { parseMatrixMarket } from '../../src/io/index.js';
import { DisposedError, ShapeError, UnsupportedError } from '../../src/errors.js';
import { BASIC_CHECKS, GENERATED, SHARED, type CheckResult } from './checks.js';

const U = 2 ** -24;
const results: CheckResult[] = [];
const log: string[] = [];

async function check(name: string, fn: () => Promise<string> | string): Promise<void> {
  const t0 = performance.now();
  try {
    results.push({ name, ok: true, detail: await fn(), ms: performance.now() - t0 });
  } catch (e) {
    const err = e as Error;
    results.push({ name, ok: false, detail: `${err?.name}: ${err?.message}\n${err?.stack ?? ''}`, ms: performance.now() - t0 });
  }
}

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

function randomVector(n: number, seed: number): Float32Array {
  const p = new Prng(seed);
  return Float32Array.from({ length: n }, () => Math.fround(2 * p.next() - 1));
}

/**
 * Compares y (GPU, f32) with y = alpha·A·x + beta·y0 computed in f64 from the same f32 data, within
 * |err| ≤ 4·(rowLength + 4)·2^-24·(|alpha|·Σ|a||x| + |beta|·|y0|), componentwise.
 */
function compare(A: CSRMatrix, x: Float32Array, y0: Float32Array | null, alpha: number, beta: number, y: Float32Array): string {
  assert(y.length === A.rows, `y has length ${y.length}, expected ${A.rows}`);
  let worst = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    let m = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const p = A.values[k] * x[A.colIdx[k]];
      s += p;
      m += Math.abs(p);
    }
    const b = beta !== 0 && y0 ? beta * y0[i] : 0;
    const ref = alpha * s + b;
    const len = A.rowPtr[i + 1] - A.rowPtr[i];
    const bound = 4 * (len + 4) * U * (Math.abs(alpha) * m + Math.abs(b));
    const err = Math.abs(y[i] - ref);
    if (!(err <= bound)) throw new Error(`row ${i}: got ${y[i]}, expected ${ref} (|err| ${err} > bound ${bound})`);
    if (bound > 0) worst = Math.max(worst, err / bound);
  }
  return `worst |err|/bound ${worst.toFixed(3)}`;
}

/** Runs y = 1.5·A·x, then y = -0.75·A·x + 0.5·y (beta path), both compared. */
async function spmvBoth(gpu: GpuBackend, A: CSRMatrix, format: 'csr' | 'ell', seed: number): Promise<string> {
  const M = format === 'csr' ? gpu.upload(A) : gpu.upload(ELLMatrix.fromCSR(A, { maxSlots: 5e7 }));
  const xs = randomVector(A.cols, seed);
  const y0 = randomVector(A.rows, seed + 1);
  const x = gpu.vector('f32', xs);
  const y = gpu.vector('f32', A.rows);
  const yb = gpu.vector('f32', y0);
  try {
    gpu.spmv(M, x, y, { alpha: 1.5 });
    const r1 = compare(A, xs, null, 1.5, 0, await gpu.read(y));
    gpu.spmv(M, x, yb, { alpha: -0.75, beta: 0.5 });
    const r2 = compare(A, xs, y0, -0.75, 0.5, await gpu.read(yb));
    return `${A.rows}×${A.cols}, nnz ${A.nnz}: ${r1}; with beta: ${r2}`;
  } finally {
    for (const h of [M, x, y, yb]) h.dispose();
  }
}

function generated(name: (typeof GENERATED)[number]): CSRMatrix {
  switch (name) {
    case 'poisson2D-30': return poisson2D(30, { dtype: 'f32' });
    case 'poisson3D-10': return poisson3D(10, { dtype: 'f32' });
    case 'random-uniform-2000': return randomMatrix({ rows: 2000, meanRowLength: 12, seed: 3, dtype: 'f32' });
    case 'random-powerlaw-3000': return randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4, dtype: 'f32' });
    case 'rect-300x700': return randomMatrix({ rows: 300, cols: 700, meanRowLength: 10, seed: 5, dtype: 'f32' });
    case 'rect-701x257': return randomMatrix({ rows: 701, cols: 257, meanRowLength: 5, seed: 6, dtype: 'f32' });
    case 'sparse-empty-rows': return randomMatrix({ rows: 1001, meanRowLength: 0.5, seed: 7, dtype: 'f32' });
    case 'tiny-1x1': return new CSRMatrix(1, 1, 'f32', new Int32Array([0, 1]), new Int32Array([0]), new Float32Array([3]));
    case 'tiny-5x3': return randomMatrix({ rows: 5, cols: 3, meanRowLength: 2, seed: 8, dtype: 'f32' });
  }
}

async function run(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const made = GpuBackend.create({ canvas: new OffscreenCanvas(1, 1) });
  await check('capabilities', () => {
    const caps = made.available ? made.capabilities() : (made as GpuUnavailable).capabilities;
    log.push(`capabilities: ${JSON.stringify(caps)}`);
    assert(made.available, `GPU path unavailable: ${(made as GpuUnavailable).reason}`);
    assert(caps.webgl2 && caps.colorBufferFloat && caps.floatReadback && caps.reason === null, JSON.stringify(caps));
    assert(caps.maxTextureSize >= 2048 && caps.maxArrayLayers >= 256, `limits ${caps.maxTextureSize} / ${caps.maxArrayLayers}`);
    return `${caps.renderer} (${caps.vendor}); maxTextureSize ${caps.maxTextureSize}, layers ${caps.maxArrayLayers}, floatBlend ${caps.floatBlend}, asyncReadback ${caps.asyncReadback}`;
  });
  await check('unavailable has a reason', () => {
    const c2d = document.createElement('canvas');
    c2d.getContext('2d');
    const a = GpuBackend.create({ canvas: c2d });
    assert(!a.available && /getContext\('webgl2'\)/.test(a.reason), `2d canvas: ${JSON.stringify(a)}`);
    const b = GpuBackend.create({ context: {} as WebGL2RenderingContext });
    assert(!b.available && /not a WebGL2RenderingContext/.test(b.reason), `fake context: ${JSON.stringify(b)}`);
    return `${a.available ? '' : a.reason} | ${b.available ? '' : b.reason}`;
  });
  if (!made.available) {
    for (const name of BASIC_CHECKS) if (!results.some((r) => r.name === name)) results.push({ name, ok: false, detail: 'GPU unavailable', ms: 0 });
    return;
  }
  const gpu = made;

  let seed = 100;
  for (const g of GENERATED) {
    const A = generated(g);
    await check(`csr ${g}`, () => spmvBoth(gpu, A, 'csr', seed++));
    await check(`ell ${g}`, () => spmvBoth(gpu, A, 'ell', seed++));
  }

  if (params.get('matrices') === '1') {
    for (const name of SHARED) {
      let A: CSRMatrix | null = null;
      let err: unknown = null;
      try {
        const bytes = new Uint8Array(await (await fetch(`/matrices/${name}.mtx`)).arrayBuffer());
        A = parseMatrixMarket(bytes, { dtype: 'f32' }).matrix.toCSR() as CSRMatrix;
      } catch (e) {
        err = e;
      }
      for (const format of ['csr', 'ell'] as const) {
        await check(`${format} mm:${name}`, () => {
          if (!A) throw err;
          return spmvBoth(gpu, A, format, seed++);
        });
      }
    }
  }

  // ---- tiling: 64×64 tiles force several layers --------------------------------------------------
  const small = GpuBackend.create({ canvas: new OffscreenCanvas(1, 1), maxTextureSize: 64 });
  assert(small.available, 'second backend');
  const P = poisson2D(150, { dtype: 'f32' }); // 22,500 rows: vectors 5,625 texels (2 layers), values 111,900 (28 layers)
  for (const format of ['csr', 'ell'] as const) {
    await check(`tiling: ${format} over several layers`, async () => {
      const M = small.upload(format === 'csr' ? P : ELLMatrix.fromCSR(P));
      const d = M.data;
      const layers = d.format === 'csr' ? [d.rowPtr.layout.layers, d.colIdx.layout.layers, d.values.layout.layers] : [d.colIdx.layout.layers, d.values.layout.layers];
      const xs = randomVector(P.cols, 9);
      const x = small.vector('f32', xs);
      const y = small.vector('f32', P.rows);
      assert(x.layout.layers > 1 && Math.min(...layers) > 1, `expected several layers, got x ${x.layout.layers}, matrix ${layers}`);
      small.spmv(M, x, y, { alpha: 2 });
      const r = compare(P, xs, null, 2, 0, await small.read(y));
      M.dispose(); x.dispose(); y.dispose();
      return `64×64 tiles: x over ${x.layout.layers} layers, matrix arrays over ${layers.join('/')} layers; ${r}`;
    });
  }
  await check('tiling: limit error', () => {
    const tiny = GpuBackend.create({ canvas: new OffscreenCanvas(1, 1), maxTextureSize: 4, maxLayers: 2 });
    assert(tiny.available, 'third backend');
    const ok = tiny.vector('f32', 128); // 32 texels = 2 layers of 4×4: fits exactly
    let thrown: unknown = null;
    try {
      tiny.vector('f32', 129);
    } catch (e) {
      thrown = e;
    }
    assert(thrown instanceof GpuLimitError && (thrown as GpuLimitError).code === 'E_GPU_LIMIT', `expected GpuLimitError, got ${String(thrown)}`);
    ok.dispose();
    tiny.dispose();
    return (thrown as Error).message;
  });
  small.dispose();

  await check('resident data is not re-uploaded', async () => {
    const A = randomMatrix({ rows: 1000, meanRowLength: 10, seed: 7, dtype: 'f32' });
    const M = gpu.upload(A);
    const x = gpu.vector('f32', new Float32Array(1000).fill(1));
    const y = gpu.vector('f32', 1000);
    const before = { ...gpu.stats };
    for (let k = 0; k < 10; k++) gpu.spmv(M, x, y, { alpha: 0.5, beta: 1 });
    const ten = await gpu.read(y);
    const after = gpu.stats;
    assert(after.uploads === before.uploads && after.uploadBytes === before.uploadBytes, `uploads ${before.uploads} → ${after.uploads}`);
    const once = y; // reuse: y ← A·x
    gpu.spmv(M, x, once);
    const one = await gpu.read(once);
    for (let i = 0; i < 1000; i++) assert(Math.abs(ten[i] - 5 * one[i]) <= 1e-4 * (1 + Math.abs(one[i])), `row ${i}: ${ten[i]} vs 5·${one[i]}`);
    M.dispose(); x.dispose(); y.dispose();
    return `11 products and 2 reads: ${after.uploads - before.uploads} uploads, ${after.draws - before.draws} draws`;
  });

  await check('async readback', async () => {
    const data = randomVector(10007, 11);
    const v = gpu.vector('f32', data);
    const a0 = gpu.stats.asyncReadbacks;
    const p = gpu.read(v);
    assert(p instanceof Promise, 'read() returns a promise');
    const got = await p;
    assert(gpu.stats.asyncReadbacks === a0 + 1, 'read() did not use the fence/PBO path');
    const sync = gpu.readSync(v);
    for (let i = 0; i < data.length; i++) assert(Object.is(got[i], data[i]) && Object.is(sync[i], data[i]), `element ${i}: ${got[i]} / ${sync[i]} vs ${data[i]}`);
    const empty = gpu.vector('f32', 0);
    assert((await gpu.read(empty)).length === 0, 'empty vector');
    v.dispose(); empty.dispose();
    return `10007 elements bit-exact through PBO + fenceSync and through readPixels`;
  });

  await check('blas1: axpy aypx scal copy', async () => {
    const n = 5003;
    const xs = randomVector(n, 21), ys = randomVector(n, 22);
    const x = gpu.vector('f32', xs), y = gpu.vector('f32', ys);
    const close = (got: Float32Array, want: (i: number) => number, mag: (i: number) => number, what: string) => {
      for (let i = 0; i < n; i++) assert(Math.abs(got[i] - want(i)) <= 2 * U * mag(i), `${what}[${i}]: ${got[i]} vs ${want(i)}`);
    };
    gpu.axpy(0.25, x, y);
    close(await gpu.read(y), (i) => 0.25 * xs[i] + ys[i], (i) => 0.25 * Math.abs(xs[i]) + Math.abs(ys[i]), 'axpy');
    const y1 = await gpu.read(y);
    gpu.aypx(-3, x, y);
    close(await gpu.read(y), (i) => -3 * y1[i] + xs[i], (i) => 3 * Math.abs(y1[i]) + Math.abs(xs[i]), 'aypx');
    const y2 = await gpu.read(y);
    gpu.scal(0.5, y);
    close(await gpu.read(y), (i) => 0.5 * y2[i], () => 0, 'scal');
    gpu.copy(x, y);
    close(await gpu.read(y), (i) => xs[i], () => 0, 'copy');
    x.dispose(); y.dispose();
    return `n = ${n}`;
  });

  await check('beta = 0 does not read y', async () => {
    const A = poisson2D(10, { dtype: 'f32' });
    for (const format of ['csr', 'ell'] as const) {
      const M = gpu.upload(format === 'csr' ? A : ELLMatrix.fromCSR(A));
      const x = gpu.vector('f32', new Float32Array(100).fill(1));
      const y = gpu.vector('f32', new Float32Array(100).fill(NaN));
      gpu.spmv(M, x, y);
      const got = await gpu.read(y);
      assert(got.every(Number.isFinite), `${format}: NaN leaked from y`);
      M.dispose(); x.dispose(); y.dispose();
    }
    return 'csr and ell';
  });

  await check('x aliasing y', async () => {
    const A = poisson2D(12, { dtype: 'f32' });
    const xs = randomVector(144, 31);
    const M = gpu.upload(A);
    const v = gpu.vector('f32', xs);
    gpu.spmv(M, v, v, { alpha: 1, beta: 1 }); // v ← A·v + v
    const r = compare(A, xs, xs, 1, 1, await gpu.read(v));
    M.dispose(); v.dispose();
    return r;
  });

  await check('typed errors and dispose', () => {
    const A = poisson2D(4, { dtype: 'f32' });
    const M = gpu.upload(A);
    const x = gpu.vector('f32', 15), y = gpu.vector('f32', 16);
    const expectThrow = (fn: () => unknown, cls: new (...a: never[]) => Error, re: RegExp) => {
      try {
        fn();
      } catch (e) {
        assert(e instanceof cls && re.test((e as Error).message), `wrong error: ${String(e)}`);
        return (e as Error).message;
      }
      throw new Error(`expected ${cls.name}`);
    };
    const msgs = [
      expectThrow(() => gpu.spmv(M, x, y), ShapeError, /expected 16/),
      expectThrow(() => gpu.upload(poisson2D(4)), UnsupportedError, /f64/),
      expectThrow(() => gpu.upload(convert(A, 'coo') as unknown as CSRMatrix), UnsupportedError, /coo/),
      expectThrow(() => gpu.spmv(M, y, y, { op: 'T' }), UnsupportedError, /op/),
    ];
    M.dispose();
    msgs.push(expectThrow(() => gpu.spmv(M, y, y), DisposedError, /GpuMatrix/));
    x.dispose();
    msgs.push(expectThrow(() => gpu.axpy(1, x, y), DisposedError, /GpuVector/));
    y.dispose();
    assert(gpu.bytesInUse === 0, `bytesInUse ${gpu.bytesInUse} after disposing everything`);
    const other = GpuBackend.create();
    assert(other.available, 'another backend');
    const v = other.vector('f32', 10), N = other.upload(A);
    const y2 = gpu.vector('f32', 16);
    msgs.push(expectThrow(() => gpu.spmv(N, y2, y2), UnsupportedError, /another GpuBackend/));
    msgs.push(expectThrow(() => other.spmv(N, y2, v), UnsupportedError, /another GpuBackend/));
    y2.dispose();
    other.dispose();
    assert(v.disposed && N.disposed && other.bytesInUse === 0, 'backend.dispose() left residents alive');
    msgs.push(expectThrow(() => other.vector('f32', 1), DisposedError, /GpuBackend/));
    return msgs.join(' | ');
  });
  gpu.dispose();

  await check('in a worker (OffscreenCanvas)', async () => {
    const w = new Worker('/worker.js', { type: 'module' });
    try {
      const r = await new Promise<{ ok: boolean; detail: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the worker did not answer in 60 s')), 60_000);
        w.onmessage = (e) => { clearTimeout(timer); resolve(e.data); };
        w.onerror = (e) => { clearTimeout(timer); reject(new Error(`worker error: ${e.message}`)); };
        w.postMessage(0);
      });
      assert(r.ok, r.detail);
      return r.detail;
    } finally {
      w.terminate();
    }
  });
}

declare global {
  interface Window {
    __simdglResults?: { results: CheckResult[]; log: string[]; error?: string };
  }
}

run().then(
  () => (window.__simdglResults = { results, log }),
  (e: Error) => (window.__simdglResults = { results, log, error: `${e?.message}\n${e?.stack}` }),
);
