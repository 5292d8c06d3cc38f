// The in-page half of the browser suite: runs every check of checks.ts against the real WebGL2 of
// the browser and leaves the results in window.__simdglResults. Bundled by test/browser.test.ts.
//
// Precision bounds (against the f64 reference of test/reference.ts, computed from the data as the
// GPU holds it: f32-rounded for f32/c64, full f64 for f64/c128):
//   f32, c64:   |err| <= 4·(terms + 4)·2^-24·scale componentwise (checkAgainst 'single'), where
//               scale = |α|·Σ|a||x| + |β|·|y0|;
//   f64, c128:  |err| <= DS_BOUND·scale (double-single; the measured worst case is in each detail);
//   dot, nrm2:  |err| <= DS_BOUND·Σ|x||y| for every dtype (double-single accumulation).
import { GpuBackend, GpuLimitError, type GpuUnavailable, type GpuUploadOptions, type HostMatrix } from '../../src/gpu/index.js';
import { poisson2D, poisson3D, randomMatrix, Prng } from '../../src/generators/index.js';
import { CSRMatrix, DIAMatrix, ELLMatrix, HYBMatrix, SELLMatrix, convert } from '../../src/formats/index.js';
import { parseMatrixMarket } from '../../src/io/index.js';
import { DisposedError, PaddingLimitError, ShapeError, UnsupportedError } from '../../src/errors.js';
import { isComplex } from '../../src/dtype.js';
import type { Op } from '../reference.js';
import { U, compareSpmv, drawingCanvas, fsum, generated, inDType, isDS, offscreenWebGL2, randomData, record, referenceDot, scalars } from './test-data.js';
import { contextLoss } from './context-loss.js';
import { runDenseChecks } from './dense-checks.js';
import { runtimeChecks, type EnginePaths } from './runtime-checks.js';
import { runChunkedDiaSpecialChecks, runSpecialValueChecks } from './special-values-checks.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import {
  BASIC_CHECKS, COMPLEX_DTYPES, DS_BOUND, GENERATED, GPU_DTYPES, KERNELS, SHARED_COMPLEX, SHARED_REAL, dtypeChecks,
  type CheckResult, type GpuDType, type Kernel,
} from './checks.js';

const results: CheckResult[] = [];
// the checks so far, for the Node side to name the last one when the page runs out of time
(globalThis as { __simdglProgress?: CheckResult[] }).__simdglProgress = results;
const log: string[] = [];
/** worst double-single error per matrix (err/scale), for the summary line */
const dsWorst = new Map<string, { scale: number; rel: number; where: string }>();

function check(name: string, fn: () => Promise<string> | string): Promise<void> {
  return record(results, name, fn);
}

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

function randomVector(n: number, seed: number): Float32Array {
  const p = new Prng(seed);
  return Float32Array.from({ length: n }, () => Math.fround(2 * p.next() - 1));
}

/** Padded formats past this many slots are skipped (HYB and CSR cover those matrices). */
const MAX_PADDED_SLOTS = 2e6;

function forKernel(A: CSRMatrix, k: Kernel): { host: HostMatrix; opts: GpuUploadOptions } | string {
  try {
    switch (k) {
      case 'csr': return { host: A, opts: { kernel: 'row' } };
      case 'csr_seg': return { host: A, opts: { kernel: 'segmented', segmentLength: 8 } };
      case 'ell': return { host: ELLMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'sell': return { host: SELLMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'sell_c3': return { host: SELLMatrix.fromCSR(A, { sliceHeight: 3, sortWindow: 6, maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'dia': return { host: DIAMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'hyb': return { host: HYBMatrix.fromCSR(A), opts: {} };
    }
  } catch (e) {
    if (e instanceof PaddingLimitError) return `skipped: ${k} would store ${e.required} slots (> ${MAX_PADDED_SLOTS}); csr and hyb cover this matrix`;
    throw e;
  }
}

/**
 * Compares a GPU result with the f64 reference: the single-precision bound for f32/c64, DS_BOUND for
 * double-single. Returns a summary; records the double-single worst case under `tag`.
 */
function compareRef(A: CSRMatrix, x: ArrayLike<number>, y0: ArrayLike<number> | null, alpha: number | [number, number], beta: number | [number, number], got: ArrayLike<number>, op: Op = 'N', tag = ''): string {
  const { ds, worst, worstRel } = compareSpmv(A, x, y0, alpha, beta, got, op);
  if (!ds) return `worst |err|/bound ${worst.toFixed(3)}`;
  if (tag) {
    const w = dsWorst.get(tag);
    if (!w || worst > w.scale) dsWorst.set(tag, { scale: Math.max(worst, w?.scale ?? 0), rel: Math.max(worstRel, w?.rel ?? 0), where: A.dtype });
  }
  return `max |err|/scale ${worst.toExponential(2)}, max |err|/|y| ${worstRel.toExponential(2)} (where |y| >= 1e-3·scale)`;
}

/** y = α·A·x, then y = α2·A·x + β·y0, both compared with the reference. */
async function spmvBoth(gpu: GpuBackend, A: CSRMatrix, kernel: Kernel, seed: number, tag: string): Promise<string> {
  const conv = forKernel(A, kernel);
  if (typeof conv === 'string') return conv;
  const dt = A.dtype;
  const M = gpu.upload(conv.host, conv.opts);
  const xs = randomData(dt, A.cols, seed);
  const y0 = randomData(dt, A.rows, seed + 1);
  const x = gpu.vector(dt, xs);
  const y = gpu.vector(dt, A.rows);
  const yb = gpu.vector(dt, y0);
  const { alpha, alpha2, beta } = scalars(dt);
  try {
    gpu.spmv(M, x, y, { alpha });
    const r1 = compareRef(A, xs, null, alpha, 0, await gpu.read(y), 'N', tag);
    gpu.spmv(M, x, yb, { alpha: alpha2, beta });
    const r2 = compareRef(A, xs, y0, alpha2, beta, await gpu.read(yb), 'N', tag);
    return `${A.rows}×${A.cols}, nnz ${A.nnz}, kernel ${M.kernel}: ${r1}; with beta: ${r2}`;
  } finally {
    for (const h of [M, x, y, yb]) h.dispose();
  }
}

async function run(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const made = GpuBackend.create({ canvas: drawingCanvas() });
  // the GLSL sources, for every backend this page makes (the runtime's path loads them on first use)
  if (made.available) await made.loadShaders();
  await check('capabilities', () => {
    const caps = made.available ? made.capabilities() : (made as GpuUnavailable).capabilities;
    log.push(`capabilities: ${JSON.stringify(caps)}`);
    assert(made.available, `GPU path unavailable: ${(made as GpuUnavailable).reason}`);
    assert(caps.webgl2 && caps.colorBufferFloat && caps.floatReadback && caps.reason === null, JSON.stringify(caps));
    assert(caps.maxTextureSize >= 2048 && caps.maxArrayLayers >= 256, `limits ${caps.maxTextureSize} / ${caps.maxArrayLayers}`);
    return `${caps.renderer} (${caps.vendor}); maxTextureSize ${caps.maxTextureSize}, layers ${caps.maxArrayLayers}, floatBlend ${caps.floatBlend}, asyncReadback ${caps.asyncReadback}, DIA diagonals per draw ${made.diaDiagonalsPerDraw}`;
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
    for (const name of [...BASIC_CHECKS, ...dtypeChecks()]) if (!results.some((r) => r.name === name)) results.push({ name, ok: false, detail: 'GPU unavailable', ms: 0 });
    return;
  }
  const gpu = made;

  await check('double-single arithmetic', async () => {
    // (1) two_prod must be exact: f32 × f32 products have 48 bits, exactly a double-single and a double
    const n = 4099;
    const a = Math.fround(0.7071067811865476);
    const xs = Float64Array.from(randomVector(n, 41));
    const x = gpu.vector('f64', xs);
    const y = gpu.vector('f64', n);
    gpu.axpy(a, x, y);
    const got = await gpu.read(y);
    for (let i = 0; i < n; i++) assert(got[i] === a * xs[i], `two_prod not exact at ${i}: ${got[i]} vs ${a * xs[i]} (the compiler may have simplified the split)`);
    // (2) bits of a full double-single product and of a sum with a tiny addend
    const xd = randomData('f64', n, 42);
    const x2 = gpu.vector('f64', xd);
    const y2 = gpu.vector('f64', n);
    const third = 1 / 3;
    gpu.axpy(third, x2, y2);
    const p = await gpu.read(y2);
    let rel = 0;
    for (let i = 0; i < n; i++) if (xd[i] !== 0) rel = Math.max(rel, Math.abs(p[i] - third * xd[i]) / Math.abs(third * xd[i]));
    const ones = gpu.vector('f64', new Float64Array(n).fill(1));
    const tiny = Float64Array.from(xd, (v) => v * 2 ** -30);
    const t = gpu.vector('f64', tiny);
    gpu.axpy(1, t, ones); // 1 + 2^-30·x: the addend's top 18 bits must survive
    const s = await gpu.read(ones);
    let relSum = 0;
    for (let i = 0; i < n; i++) relSum = Math.max(relSum, Math.abs(s[i] - (1 + tiny[i])));
    for (const h of [x, y, x2, y2, ones, t]) h.dispose();
    const bits = -Math.log2(rel);
    const bitsSum = -Math.log2(relSum || 2 ** -60);
    assert(bits >= 44 && bitsSum >= 44, `double-single products carry ${bits.toFixed(1)} bits, sums ${bitsSum.toFixed(1)} (want >= 44)`);
    return `two_prod exact on ${n} f32 pairs; ds product relative error ${rel.toExponential(2)} (${bits.toFixed(1)} bits), 1 + 2^-30·x error ${relSum.toExponential(2)} (${bitsSum.toFixed(1)} bits)`;
  });

  let seed = 100;
  for (const g of GENERATED) {
    const base = generated(g);
    for (const dt of GPU_DTYPES) {
      const A = inDType(base, dt);
      for (const k of KERNELS) await check(`${k} ${dt} ${g}`, () => spmvBoth(gpu, A, k, seed++, g));
    }
  }

  if (params.get('matrices') === '1') {
    for (const name of [...SHARED_REAL, ...SHARED_COMPLEX]) {
      const cplx = (SHARED_COMPLEX as readonly string[]).includes(name);
      let base: CSRMatrix | null = null;
      let err: unknown = null;
      try {
        const bytes = new Uint8Array(await (await fetch(`/matrices/${name}.mtx`)).arrayBuffer());
        base = parseMatrixMarket(bytes, { dtype: cplx ? 'c128' : 'f64' }).matrix.toCSR() as CSRMatrix;
      } catch (e) {
        err = e;
      }
      for (const dt of cplx ? COMPLEX_DTYPES : GPU_DTYPES) {
        const A = base ? inDType(base, dt) : null;
        for (const k of KERNELS) {
          await check(`${k} ${dt} mm:${name}`, () => {
            if (!A) throw err;
            return spmvBoth(gpu, A, k, seed++, `mm:${name}`);
          });
        }
      }
    }
    log.push(
      'double-single worst |err|/scale (and |err|/|y| where |y| >= 1e-3·scale) per shared matrix over all kernels: ' +
        [...dsWorst].filter(([k]) => k.startsWith('mm:')).map(([k, w]) => `${k} ${w.scale.toExponential(2)} (${w.rel.toExponential(2)})`).join(', '),
    );
  }

  for (const dt of GPU_DTYPES) {
    await check(`blas1 ${dt}`, () => blas1(gpu, dt));
    await check(`dot ${dt}`, () => dot(gpu, dt));
    await check(`nrm2 ${dt}`, () => nrm2(gpu, dt));
    await check(`op T/H ${dt}`, () => transposed(gpu, dt));
  }

  // ---- DIA in several draws: 3 diagonals per draw ------------------------------------------------
  const chunked = GpuBackend.create({ canvas: drawingCanvas(), diaChunk: 3 });
  assert(chunked.available, 'chunked backend');
  for (const dt of GPU_DTYPES) {
    await check(`dia chunked ${dt}`, async () => {
      const A = inDType(poisson3D(8), dt); // 7 diagonals: 3 draws
      const D = DIAMatrix.fromCSR(A);
      const M = chunked.upload(D);
      const xs = randomData(dt, A.cols, 51);
      const x = chunked.vector(dt, xs);
      const y = chunked.vector(dt, A.rows);
      const { alpha, beta } = scalars(dt);
      const d0 = chunked.stats.draws;
      chunked.spmv(M, x, y, { alpha });
      assert(chunked.stats.draws - d0 === 3, `expected 3 draws, got ${chunked.stats.draws - d0}`);
      const r1 = compareRef(A, xs, null, alpha, 0, await chunked.read(y));
      chunked.spmv(M, x, x, { alpha, beta }); // x aliasing y over several draws
      const r2 = compareRef(A, xs, xs, alpha, beta, await chunked.read(x));
      M.dispose(); x.dispose(); y.dispose();
      return `${D.ndiag} diagonals in 3 draws: ${r1}; aliased with beta: ${r2}`;
    });
  }
  const cpuPath = await createRuntime({ backend: 'cpu' });
  await runChunkedDiaSpecialChecks(chunked, cpuPath, check, (A, transpose) => {
    const host = DIAMatrix.fromCSR(A);
    return { host, matrix: chunked.upload(host, { transpose }) };
  });
  chunked.dispose();

  // ---- tiling: 64×64 tiles force several layers --------------------------------------------------
  const small = GpuBackend.create({ canvas: drawingCanvas(), maxTextureSize: 64 });
  assert(small.available, 'second backend');
  const P = poisson2D(150); // 22,500 rows: f32 vectors 5,625 texels (2 layers), CSR values 111,900 (28 layers)
  for (const dt of GPU_DTYPES) {
    const A = inDType(P, dt);
    for (const k of KERNELS) {
      await check(`tiling: ${k} ${dt}`, async () => {
        const conv = forKernel(A, k);
        assert(typeof conv !== 'string', String(conv));
        const M = small.upload(conv.host, conv.opts);
        const layers = M.data.textures.map((t) => t.layout.layers);
        const xs = randomData(dt, A.cols, 9);
        const x = small.vector(dt, xs);
        const y = small.vector(dt, A.rows);
        assert(x.layout.layers > 1 && Math.max(...layers) > 1, `expected several layers, got x ${x.layout.layers}, matrix ${layers}`);
        small.spmv(M, x, y, { alpha: 2 });
        const r = compareRef(A, xs, null, 2, 0, await small.read(y));
        M.dispose(); x.dispose(); y.dispose();
        return `64×64 tiles: x over ${x.layout.layers} layers, matrix arrays over ${layers.join('/')} layers; ${r}`;
      });
    }
  }
  await check('tiling: limit error', () => {
    const tiny = GpuBackend.create({ canvas: drawingCanvas(), maxTextureSize: 4, maxLayers: 2 });
    assert(tiny.available, 'third backend');
    const ok = tiny.vector('f32', 128); // 32 texels = 2 layers of 4×4: fits exactly
    const okc = tiny.vector('c64', 64);
    let thrown: unknown = null;
    try {
      tiny.vector('f64', 65);
    } catch (e) {
      thrown = e;
    }
    assert(thrown instanceof GpuLimitError && (thrown as GpuLimitError).code === 'E_GPU_LIMIT', `expected GpuLimitError, got ${String(thrown)}`);
    ok.dispose();
    okc.dispose();
    tiny.dispose();
    return (thrown as Error).message;
  });
  small.dispose();

  await check('csr auto picks the segmented kernel for long rows', async () => {
    const A = generated('long-rows-600').astype('f32');
    const M = gpu.upload(A);
    const N = gpu.upload(poisson2D(10, { dtype: 'f32' }));
    assert(M.kernel === 'csr_segmented' && N.kernel === 'csr_row', `kernels ${M.kernel} / ${N.kernel}`);
    const xs = randomData('f32', A.cols, 77);
    const x = gpu.vector('f32', xs), y = gpu.vector('f32', A.rows);
    gpu.spmv(M, x, y, { alpha: 1.5 });
    const r = compareRef(A, xs, null, 1.5, 0, await gpu.read(y));
    const kernels = `long rows → ${M.kernel}, poisson → ${N.kernel}`;
    M.dispose(); N.dispose(); x.dispose(); y.dispose();
    return `${kernels}; ${r}`;
  });

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

  await check('beta = 0 does not read y', async () => {
    const A = poisson2D(10, { dtype: 'f32' });
    const hosts = { csr: A, ell: ELLMatrix.fromCSR(A), sell: SELLMatrix.fromCSR(A), 'sell (gather)': SELLMatrix.fromCSR(A, { sliceHeight: 3, sortWindow: 6 }) };
    for (const [format, host] of Object.entries(hosts)) {
      const M = gpu.upload(host);
      const x = gpu.vector('f32', new Float32Array(100).fill(1));
      const y = gpu.vector('f32', new Float32Array(100).fill(NaN));
      gpu.spmv(M, x, y);
      const got = await gpu.read(y);
      assert(got.every(Number.isFinite), `${format}: NaN leaked from y`);
      M.dispose(); x.dispose(); y.dispose();
    }
    return Object.keys(hosts).join(', ');
  });

  await check('x aliasing y', async () => {
    const A = randomMatrix({ rows: 144, meanRowLength: 6, distribution: 'powerlaw', seed: 31, dtype: 'f32' });
    const xs = randomVector(144, 31);
    const out: string[] = [];
    for (const host of [A, SELLMatrix.fromCSR(A, { sliceHeight: 4, sortWindow: 8 })]) {
      const M = gpu.upload(host);
      const v = gpu.vector('f32', xs);
      gpu.spmv(M, v, v, { alpha: 1, beta: 1 }); // v ← A·v + v
      out.push(`${M.kernel}: ${compareRef(A, xs, xs, 1, 1, await gpu.read(v))}`);
      M.dispose(); v.dispose();
    }
    return out.join('; ');
  });

  await check('sell: one pass where positions are rows, a gather pass otherwise', async () => {
    const out: string[] = [];
    const cases: [string, CSRMatrix, SELLMatrix, number][] = [];
    const P = poisson2D(20, { dtype: 'f32' });
    const R = randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4, dtype: 'f32' });
    cases.push(['poisson, default C and σ', P, SELLMatrix.fromCSR(P), 1]);
    cases.push(['power law, default C and σ', R, SELLMatrix.fromCSR(R), 2]);
    cases.push(['power law, C = 4, σ = 1', R, SELLMatrix.fromCSR(R, { sliceHeight: 4, sortWindow: 1 }), 1]);
    cases.push(['power law, C = 6, σ = 1', R, SELLMatrix.fromCSR(R, { sliceHeight: 6, sortWindow: 1 }), 2]);
    for (const [what, A, S, passes] of cases) {
      const M = gpu.upload(S);
      const xs = randomData('f32', A.cols, 5);
      const x = gpu.vector('f32', xs), y = gpu.vector('f32', A.rows);
      const d0 = gpu.stats.draws;
      gpu.spmv(M, x, y, { alpha: 1.5 });
      const draws = gpu.stats.draws - d0;
      assert(M.kernel === 'sell' && draws === passes, `${what}: kernel ${M.kernel}, ${draws} draws, expected ${passes}`);
      out.push(`${what} (SELL-${S.sliceHeight}-${S.sortWindow}): ${draws} pass(es), ${compareRef(A, xs, null, 1.5, 0, await gpu.read(y))}`);
      M.dispose(); x.dispose(); y.dispose();
    }
    return out.join('; ');
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
      expectThrow(() => gpu.upload(convert(A, 'coo') as unknown as CSRMatrix), UnsupportedError, /coo/),
      expectThrow(() => gpu.spmv(M, y, y, { op: 'T' }), UnsupportedError, /transpose: true/),
      expectThrow(() => gpu.spmv(M, gpu.vector('f64', 16), y), UnsupportedError, /dtypes must match/),
      expectThrow(() => gpu.spmv(M, y, y, { alpha: [1, 2] }), UnsupportedError, /imaginary/),
      expectThrow(() => gpu.vector('c64', [1, 2, 3]), ShapeError, /whole c64 elements/),
      expectThrow(() => gpu.vector('f64', [1e300]), GpuLimitError, /f32 range/),
    ];
    M.dispose();
    msgs.push(expectThrow(() => gpu.spmv(M, y, y), DisposedError, /GpuMatrix/));
    x.dispose();
    msgs.push(expectThrow(() => gpu.axpy(1, x, y), DisposedError, /GpuVector/));
    y.dispose();
    for (const r of [...(gpu as unknown as { residents: Set<{ dispose(): void }> }).residents]) r.dispose(); // the f64 vector above
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
  await runDenseChecks(gpu, (o) => GpuBackend.create(o), check, log);
  await runSpecialValueChecks(gpu, cpuPath, check, (A) => KERNELS.map((k) => {
    const f = forKernel(A, k);
    return typeof f === 'string' ? f : { name: k, host: f.host, upload: (transpose: boolean) => gpu.upload(f.host, { ...f.opts, transpose }) };
  }));
  cpuPath.dispose();
  gpu.dispose();

  await check('context loss: a pending read rejects', () => contextLoss(drawingCanvas(), true));
  await check('context loss and restore', () => contextLoss(drawingCanvas(), false));
  await check('context loss and restore (canvas element)', () => contextLoss(document.createElement('canvas'), false));

  await runtimeChecks(check);

  await check('in a worker (OffscreenCanvas)', async () => {
    const w = new Worker('/worker.js', { type: 'module' });
    try {
      const r = await new Promise<{ ok: boolean; detail: string; unavailable?: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the worker did not answer in 60 s')), 60_000);
        w.onmessage = (e) => { clearTimeout(timer); resolve(e.data); };
        w.onerror = (e) => { clearTimeout(timer); reject(new Error(`worker error: ${e.message}`)); };
        w.postMessage(0);
      });
      if (!offscreenWebGL2()) {
        // an engine without WebGL2 on OffscreenCanvas (WebKitGTK): no WebGL2 in a worker, and the reason must say so
        assert(r.unavailable && /no WebGL2 on OffscreenCanvas/.test(r.unavailable) && /no document/.test(r.unavailable), `expected the reason for no WebGL2 in a worker, got ${JSON.stringify(r)}`);
        return `this engine has no WebGL2 on OffscreenCanvas, so none in a worker; the backend says: ${r.unavailable}`;
      }
      assert(r.ok, r.detail);
      return r.detail;
    } finally {
      w.terminate();
    }
  });
}

async function blas1(gpu: GpuBackend, dt: GpuDType): Promise<string> {
  const n = 5003;
  const c = isComplex(dt) ? 2 : 1;
  const xs = randomData(dt, n, 21), ys = randomData(dt, n, 22);
  const x = gpu.vector(dt, xs), y = gpu.vector(dt, ys);
  const alpha: [number, number] = isComplex(dt) ? [0.25, -1.5] : [isDS(dt) ? 0.1 : 0.25, 0];
  const mul = (a: [number, number], v: ArrayLike<number>, i: number): [number, number] =>
    c === 1 ? [a[0] * v[i], 0] : [a[0] * v[2 * i] - a[1] * v[2 * i + 1], a[0] * v[2 * i + 1] + a[1] * v[2 * i]];
  const amag = Math.hypot(alpha[0], alpha[1]);
  const abs = (v: ArrayLike<number>, i: number) => (c === 1 ? Math.abs(v[i]) : Math.hypot(v[2 * i], v[2 * i + 1]));
  let worst = 0;
  const close = (got: ArrayLike<number>, want: (i: number) => [number, number], mag: (i: number) => number, what: string) => {
    const tol = isDS(dt) ? DS_BOUND : 4 * U;
    for (let i = 0; i < n; i++) {
      const w = want(i);
      for (let p = 0; p < c; p++) {
        const err = Math.abs(got[c * i + p] - w[p]);
        const m = mag(i);
        assert(err <= tol * m, `${what}[${i}].${p}: ${got[c * i + p]} vs ${w[p]} (|err| ${err} > ${tol}·${m})`);
        if (m > 0) worst = Math.max(worst, err / m);
      }
    }
  };
  gpu.axpy(alpha, x, y);
  const y1 = await gpu.read(y);
  close(y1, (i) => { const p = mul(alpha, xs, i); return [p[0] + ys[c * i], p[1] + (c === 2 ? ys[c * i + 1] : 0)]; }, (i) => amag * abs(xs, i) + abs(ys, i), 'axpy');
  gpu.aypx(alpha, x, y);
  const y2 = await gpu.read(y);
  close(y2, (i) => { const p = mul(alpha, y1, i); return [p[0] + xs[c * i], p[1] + (c === 2 ? xs[c * i + 1] : 0)]; }, (i) => amag * abs(y1, i) + abs(xs, i), 'aypx');
  gpu.scal(alpha, y);
  close(await gpu.read(y), (i) => mul(alpha, y2, i), (i) => amag * abs(y2, i), 'scal');
  gpu.copy(x, y);
  const cp = await gpu.read(y);
  for (let k = 0; k < n * c; k++) assert(cp[k] === xs[k] || (isDS(dt) && Math.abs(cp[k] - xs[k]) <= 2 ** -48 * Math.abs(xs[k])), `copy[${k}]: ${cp[k]} vs ${xs[k]}`);
  const nan = gpu.vector(dt, new Float64Array(n * c).fill(NaN));
  gpu.scal(0, nan);
  assert((await gpu.read(nan)).every((v) => v === 0), 'scal(0) left NaN');
  x.dispose(); y.dispose(); nan.dispose();
  return `n = ${n}: axpy, aypx, scal, copy, scal(0) on NaN; worst |err|/magnitude ${worst.toExponential(2)}`;
}

/** dot(x, y) (and dotc for complex) of 100,003 elements vs a compensated f64 sum: 4 reduction passes. */
async function dot(gpu: GpuBackend, dt: GpuDType): Promise<string> {
  const n = 100003;
  const cplx = isComplex(dt);
  const xs = randomData(dt, n, 61), ys = randomData(dt, n, 62);
  const x = gpu.vector(dt, xs), y = gpu.vector(dt, ys);
  const parts: string[] = [];
  for (const conj of cplx ? [false, true] : [false]) {
    const d0 = gpu.stats.draws;
    const got = await gpu.dot(x, y, { conj });
    const passes = gpu.stats.draws - d0;
    const { want, mag } = referenceDot(xs, ys, n, cplx, conj);
    const g: [number, number] = typeof got === 'number' ? [got, 0] : got;
    assert(cplx === (typeof got !== 'number'), `dot returned ${JSON.stringify(got)}`);
    const err = Math.max(Math.abs(g[0] - want[0]), Math.abs(g[1] - want[1]));
    assert(err <= DS_BOUND * mag, `dot${conj ? 'c' : ''}: got ${g}, expected ${want} (|err| ${err} > ${DS_BOUND}·${mag})`);
    parts.push(`${conj ? 'dotc' : 'dot'} |err|/Σ|x||y| ${(err / mag).toExponential(2)} in ${passes} passes`);
  }
  const e = gpu.vector(dt, 0);
  const z = await gpu.dot(e, e);
  assert(typeof z === 'number' ? z === 0 : z[0] === 0 && z[1] === 0, `empty dot ${z}`);
  x.dispose(); y.dispose(); e.dispose();
  return `n = ${n}: ${parts.join('; ')}; empty vectors: 0`;
}

async function nrm2(gpu: GpuBackend, dt: GpuDType): Promise<string> {
  const n = 30011;
  const xs = randomData(dt, n, 71);
  const x = gpu.vector(dt, xs);
  const got = await gpu.nrm2(x);
  const want = Math.sqrt(fsum(Array.from(xs, (v) => v * v)));
  const rel = Math.abs(got - want) / want;
  assert(rel <= DS_BOUND, `nrm2 ${got} vs ${want} (relative error ${rel})`);
  x.dispose();
  return `n = ${n}: relative error ${rel.toExponential(2)}`;
}

/** op = T (and H for complex) through the transposed CSR, for every kernel's upload. */
async function transposed(gpu: GpuBackend, dt: GpuDType): Promise<string> {
  const A = inDType(generated('rect-300x700'), dt);
  const ops: Op[] = ['T', 'H']; // H = T for real data
  const out: string[] = [];
  for (const k of KERNELS) {
    const conv = forKernel(A, k);
    if (typeof conv === 'string') { out.push(`${k} ${conv}`); continue; }
    const M = gpu.upload(conv.host, { ...conv.opts, transpose: true });
    assert(M.hasTranspose, 'no transpose');
    const xs = randomData(dt, A.rows, 81);
    const y0 = randomData(dt, A.cols, 82);
    const x = gpu.vector(dt, xs);
    const { alpha, beta } = scalars(dt);
    for (const op of ops) {
      const y = gpu.vector(dt, y0);
      gpu.spmv(M, x, y, { alpha, beta, op });
      out.push(`${k} ${op}: ${compareRef(A, xs, y0, alpha, beta, await gpu.read(y), op)}`);
      y.dispose();
    }
    M.dispose(); x.dispose();
  }
  return out.join('; ');
}

declare global {
  interface Window {
    __simdglResults?: { results: CheckResult[]; log: string[]; error?: string; paths?: EnginePaths };
  }
}

run().then(
  () => (window.__simdglResults = { results, log }),
  (e: Error) => (window.__simdglResults = { results, log, error: `${e?.message}\n${e?.stack}` }),
);
