// Browser checks of the dense GPU operations (src/gpu/dense.ts: uploadDense / readDense, gemm tiled and
// naive, add, transpose), run by test/browser/page.ts with the page's check() and turned into vitest
// tests by test/browser.test.ts through DENSE_CHECKS. Only type imports of the GPU modules at the top,
// so that the Node side can import the check names without WebGL or the generated shaders.
//
// Reference: plain f64 triple loops over the data as the GPU holds it (f32-rounded for f32/c64, full
// doubles for f64/c128). Bounds, componentwise, with scale = |α|·Σ_p|a_ip||b_pj| + |β|·|c_ij|:
//   f32, c64:   |err| <= 4·(k + 4)·2^-24·scale
//   f64, c128:  |err| <= DS_BOUND (1e-12)·scale   (double-single; the measured worst is in the details)
// Transpose is checked bit for bit against the definition B[j][i] = A[i][j], on shapes larger than
// any tile and not square; a host copy of seed 004's "optimised" kernel (tiles transposed in place,
// block coordinates not swapped) must fail that same check.
import type { GpuBackend, GpuBackendOptions, GpuDense, GpuUnavailable } from '../../src/gpu/index.js';
import { GpuLimitError, GpuContextLostError } from '../../src/gpu/errors.js';
import { DenseMatrix } from '../../src/formats/dense.js';
import { Prng } from '../../src/generators/prng.js';
import { DisposedError, ShapeError, UnsupportedError } from '../../src/errors.js';
import type { DType } from '../../src/dtype.js';
import { DS_BOUND, GPU_DTYPES } from './checks.js';
import { drawingCanvas } from './test-data.js';

type Check = (name: string, fn: () => Promise<string> | string) => Promise<void>;
type Make = (opts: GpuBackendOptions) => GpuBackend | GpuUnavailable;
type C = number | [number, number];

/** gemm shapes [m, k, n]: C (m×n) = A (m×k)·B (k×n) */
export const GEMM_SHAPES: readonly (readonly [number, number, number])[] = [
  [1, 1, 1],
  [1, 37, 53],
  [53, 38, 1],
  [37, 1, 53],
  [7, 13, 11],
  [3, 1000, 3],
  [1000, 3, 1000],
  [64, 64, 64],
  [257, 129, 257],
];

/** transpose shapes [rows, cols] of A */
export const TRANSPOSE_SHAPES: readonly (readonly [number, number])[] = [
  [1, 1], [1, 50], [50, 1], [2, 3], [16, 16], [17, 16], [16, 48], [31, 33], [48, 48], [64, 64], [100, 37], [257, 129], [3, 1000], [1000, 3],
];

const shapeName = ([m, k, n]: readonly number[]) => `${m}x${k}·${k}x${n}`;

export const DENSE_CHECKS: readonly string[] = [
  ...GPU_DTYPES.map((d) => `dense upload/read ${d}`),
  ...GPU_DTYPES.flatMap((d) => GEMM_SHAPES.map((s) => `dense gemm ${d} ${shapeName(s)}`)),
  ...GPU_DTYPES.map((d) => `dense add ${d}`),
  ...GPU_DTYPES.map((d) => `dense transpose ${d}`),
  'dense transpose: the check catches a seed-004-style transpose',
  'dense: rows over several layers (64×64 tiles)',
  'dense: typed errors and dispose',
  'dense: context loss and restore',
  'dense gemm f32 n=512 timing: naive vs tiled',
];

const U = 2 ** -24;
const isDS = (dt: DType) => dt === 'f64' || dt === 'c128';
const cplx = (dt: DType) => dt === 'c64' || dt === 'c128';

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

/** rows×cols of dt, entries in [-1, 1): f32-rounded for f32/c64, full doubles for f64/c128. */
function randomDense(dt: DType, rows: number, cols: number, seed: number): DenseMatrix {
  const p = new Prng(seed);
  const n = rows * cols * (cplx(dt) ? 2 : 1);
  const values = isDS(dt)
    ? Float64Array.from({ length: n }, () => 2 * (p.next() + p.next() * 2 ** -32) - 1)
    : Float32Array.from({ length: n }, () => Math.fround(2 * p.next() - 1));
  return new DenseMatrix(rows, cols, dt, values);
}

function filled(dt: DType, rows: number, cols: number, v: number): DenseMatrix {
  const n = rows * cols * (cplx(dt) ? 2 : 1);
  return new DenseMatrix(rows, cols, dt, isDS(dt) ? new Float64Array(n).fill(v) : new Float32Array(n).fill(v));
}

const re = (s: C) => (typeof s === 'number' ? s : s[0]);
const im = (s: C) => (typeof s === 'number' ? 0 : s[1]);

/** The plain f64 reference: y = α·A·B + β·C0 (C0 null or β = 0: not read) and the scale of each component. */
function refGemm(A: DenseMatrix, B: DenseMatrix, C0: DenseMatrix | null, alpha: C, beta: C): { y: Float64Array; scale: Float64Array } {
  const m = A.rows, k = A.cols, n = B.cols;
  const c = cplx(A.dtype) ? 2 : 1;
  const a = A.values, b = B.values;
  const y = new Float64Array(m * n * c), scale = new Float64Array(m * n * c);
  const [ar, ai, br, bi] = [re(alpha), im(alpha), re(beta), im(beta)];
  const useC = C0 !== null && (br !== 0 || bi !== 0);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sr = 0, si = 0, mag = 0;
      for (let p = 0; p < k; p++) {
        if (c === 1) {
          const t = a[i * k + p] * b[p * n + j];
          sr += t;
          mag += Math.abs(t);
        } else {
          const [xr, xi, vr, vi] = [a[2 * (i * k + p)], a[2 * (i * k + p) + 1], b[2 * (p * n + j)], b[2 * (p * n + j) + 1]];
          sr += xr * vr - xi * vi;
          si += xr * vi + xi * vr;
          mag += Math.sqrt((xr * xr + xi * xi) * (vr * vr + vi * vi));
        }
      }
      const o = (i * n + j) * c;
      let yr = ar * sr - ai * si, yi = ar * si + ai * sr;
      let s = Math.hypot(ar, ai) * mag;
      if (useC) {
        const cr = C0!.values[o], ci = c === 2 ? C0!.values[o + 1] : 0;
        yr += br * cr - bi * ci;
        yi += br * ci + bi * cr;
        s += Math.hypot(br, bi) * Math.hypot(cr, ci);
      }
      y[o] = yr;
      scale[o] = s;
      if (c === 2) {
        y[o + 1] = yi;
        scale[o + 1] = s;
      }
    }
  }
  return { y, scale };
}

/** Componentwise check against the reference; returns the worst |err|/bound (single) or |err|/scale (double-single). */
function compare(dt: DType, got: ArrayLike<number>, ref: { y: Float64Array; scale: Float64Array }, terms: number, what: string): number {
  assert(got.length === ref.y.length, `${what}: ${got.length} components, expected ${ref.y.length}`);
  let worst = 0;
  for (let q = 0; q < got.length; q++) {
    const err = Math.abs(got[q] - ref.y[q]);
    const unit = isDS(dt) ? DS_BOUND * ref.scale[q] : 4 * (terms + 4) * U * ref.scale[q];
    if (!(err <= unit)) throw new Error(`${what}: component ${q}: got ${got[q]}, expected ${ref.y[q]} (|err| ${err} > bound ${unit}, scale ${ref.scale[q]})`);
    if (unit > 0) worst = Math.max(worst, isDS(dt) ? err / ref.scale[q] : err / unit);
  }
  return worst;
}

const fmt = (dt: DType, w: number) => (isDS(dt) ? `|err|/scale ${w.toExponential(2)}` : `|err|/bound ${w.toFixed(3)}`);

function scalars(dt: DType): { alpha: C; alpha2: C; beta: C } {
  if (cplx(dt)) return { alpha: [1.5, -0.5], alpha2: [-0.75, 0.3], beta: [0.5, 0.25] };
  return isDS(dt) ? { alpha: 1.1, alpha2: -0.7, beta: 0.3 } : { alpha: 1.5, alpha2: -0.75, beta: 0.5 };
}

/** What the GPU holds of a value: itself for f32/c64, hi + lo for double-single. */
function held(dt: DType, v: number): number {
  if (!isDS(dt)) return v;
  const hi = Math.fround(v);
  return hi + Math.fround(v - hi);
}

/** B against the definition B[j][i] = A[i][j] (conj for 'H'), bit for bit; null or the first violation. */
function transposeViolation(dt: DType, A: DenseMatrix, got: ArrayLike<number>, bRows: number, bCols: number, conj = false): string | null {
  const c = cplx(dt) ? 2 : 1;
  if (bRows !== A.cols || bCols !== A.rows) return `B is ${bRows}×${bCols}, expected ${A.cols}×${A.rows}`;
  if (got.length !== A.rows * A.cols * c) return `B has ${got.length} components, expected ${A.rows * A.cols * c}`;
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j < A.cols; j++) {
      for (let p = 0; p < c; p++) {
        const want = (p === 1 && conj ? -1 : 1) * held(dt, A.values[(i * A.cols + j) * c + p]);
        const g = got[(j * A.rows + i) * c + p];
        if (!Object.is(g, want)) return `B[${j}][${i}]${c === 2 ? (p ? '.im' : '.re') : ''} = ${g}, but A[${i}][${j}] = ${want}`;
      }
    }
  }
  return null;
}

/**
 * Seed 004's "optimised" CUDA transpose on the host, generalised to rectangles: each 16×16 thread
 * block loads its tile, and thread (lx, ly) writes out[gy][gx] = tile[ly][lx] = A[by·16 + lx][bx·16 + ly]
 * — the tile is transposed in place but the block coordinates (bx, by) are never swapped.
 */
function seed004Transpose(A: DenseMatrix, T = 16): Float64Array {
  const c = cplx(A.dtype) ? 2 : 1;
  const [bRows, bCols] = [A.cols, A.rows];
  const out = new Float64Array(bRows * bCols * c);
  for (let gy = 0; gy < bRows; gy++) {
    for (let gx = 0; gx < bCols; gx++) {
      const [bx, by, lx, ly] = [Math.floor(gx / T), Math.floor(gy / T), gx % T, gy % T];
      const [si, sj] = [by * T + lx, bx * T + ly]; // correct would be [gx, gy]
      if (si < A.rows && sj < A.cols) for (let p = 0; p < c; p++) out[(gy * bCols + gx) * c + p] = A.values[(si * A.cols + sj) * c + p];
    }
  }
  return out;
}

/** The correct host transpose (what the checker must accept). */
function hostTranspose(A: DenseMatrix): Float64Array {
  const c = cplx(A.dtype) ? 2 : 1;
  const out = new Float64Array(A.rows * A.cols * c);
  for (let i = 0; i < A.rows; i++) for (let j = 0; j < A.cols; j++) for (let p = 0; p < c; p++) out[(j * A.rows + i) * c + p] = A.values[(i * A.cols + j) * c + p];
  return out;
}

async function gemmCase(gpu: GpuBackend, dt: DType, [m, k, n]: readonly [number, number, number], seed: number): Promise<string> {
  const hA = randomDense(dt, m, k, seed), hB = randomDense(dt, k, n, seed + 1), hC0 = randomDense(dt, m, n, seed + 2);
  const { alpha, alpha2, beta } = scalars(dt);
  const A = gpu.uploadDense(hA), B = gpu.uploadDense(hB);
  const made: GpuDense[] = [A, B];
  try {
    const parts: string[] = [];
    const ref1 = refGemm(hA, hB, null, alpha, 0), ref2 = refGemm(hA, hB, hC0, alpha2, beta);
    for (const kernel of ['tiled', 'naive'] as const) {
      const C = gpu.uploadDense(filled(dt, m, n, NaN)); // beta = 0: C must not be read
      const C2 = gpu.uploadDense(hC0);
      made.push(C, C2);
      gpu.gemm(A, B, C, { alpha, kernel });
      gpu.gemm(A, B, C2, { alpha: alpha2, beta, kernel });
      const w1 = compare(dt, (await gpu.readDense(C)).values, ref1, k, `${kernel}, beta = 0 over NaN`);
      const w2 = compare(dt, (await gpu.readDense(C2)).values, ref2, k, `${kernel}, with beta`);
      parts.push(`${kernel}: ${fmt(dt, Math.max(w1, w2))}`);
    }
    return `C ${m}×${n}, k = ${k}, beta = 0 over a NaN C and alpha/beta: ${parts.join('; ')}`;
  } finally {
    for (const h of made) h.dispose();
  }
}

async function addCase(gpu: GpuBackend, dt: DType, seed: number): Promise<string> {
  const c = cplx(dt) ? 2 : 1;
  const { alpha, beta } = scalars(dt);
  let worst = 0;
  for (const [r, cols] of [[1, 1], [1, 7], [7, 13], [257, 129], [3, 1000]] as const) {
    const hA = randomDense(dt, r, cols, seed++), hB = randomDense(dt, r, cols, seed++);
    const nan = gpu.uploadDense(filled(dt, r, cols, NaN));
    const A = gpu.uploadDense(hA), B = gpu.uploadDense(hB), C = gpu.denseMatrix(dt, r, cols);
    try {
      for (const [al, be, X, Y, what] of [
        [alpha, beta, A, B, 'alpha, beta'],
        [0, beta, nan, B, 'alpha = 0 over a NaN A'],
        [alpha, 0, A, nan, 'beta = 0 over a NaN B'],
      ] as const) {
        gpu.add(X, Y, C, { alpha: al, beta: be });
        const got = (await gpu.readDense(C)).values;
        const y = new Float64Array(r * cols * c), scale = new Float64Array(r * cols * c);
        for (let e = 0; e < r * cols; e++) {
          const [xr, xi] = c === 1 ? [hA.values[e], 0] : [hA.values[2 * e], hA.values[2 * e + 1]];
          const [yr, yi] = c === 1 ? [hB.values[e], 0] : [hB.values[2 * e], hB.values[2 * e + 1]];
          const useA = re(al) !== 0 || im(al) !== 0, useB = re(be) !== 0 || im(be) !== 0;
          const vr = (useA ? re(al) * xr - im(al) * xi : 0) + (useB ? re(be) * yr - im(be) * yi : 0);
          const vi = (useA ? re(al) * xi + im(al) * xr : 0) + (useB ? re(be) * yi + im(be) * yr : 0);
          const s = (useA ? Math.hypot(re(al), im(al)) * Math.hypot(xr, xi) : 0) + (useB ? Math.hypot(re(be), im(be)) * Math.hypot(yr, yi) : 0);
          y[e * c] = vr;
          scale[e * c] = s;
          if (c === 2) {
            y[e * c + 1] = vi;
            scale[e * c + 1] = s;
          }
        }
        worst = Math.max(worst, compare(dt, got, { y, scale }, 2, `${r}×${cols}, ${what}`));
      }
      // aliasing: C = alpha·A + beta·C
      gpu.add(A, B, C, { alpha: 1, beta: 0 }); // C = A
      gpu.add(B, C, C, { alpha, beta }); // C = alpha·B + beta·A
      const al2 = refAdd(hB, hA, alpha, beta);
      worst = Math.max(worst, compare(dt, (await gpu.readDense(C)).values, al2, 2, `${r}×${cols}, C aliasing an operand`));
    } finally {
      for (const h of [nan, A, B, C]) h.dispose();
    }
  }
  return `1×1, 1×7, 7×13, 257×129, 3×1000; alpha/beta, a zero scalar over NaN, C aliasing an operand: ${fmt(dt, worst)}`;
}

function refAdd(X: DenseMatrix, Y: DenseMatrix, alpha: C, beta: C): { y: Float64Array; scale: Float64Array } {
  const c = cplx(X.dtype) ? 2 : 1;
  const n = X.rows * X.cols;
  const y = new Float64Array(n * c), scale = new Float64Array(n * c);
  for (let e = 0; e < n; e++) {
    const [xr, xi] = c === 1 ? [X.values[e], 0] : [X.values[2 * e], X.values[2 * e + 1]];
    const [yr, yi] = c === 1 ? [Y.values[e], 0] : [Y.values[2 * e], Y.values[2 * e + 1]];
    const s = Math.hypot(re(alpha), im(alpha)) * Math.hypot(xr, xi) + Math.hypot(re(beta), im(beta)) * Math.hypot(yr, yi);
    y[e * c] = re(alpha) * xr - im(alpha) * xi + re(beta) * yr - im(beta) * yi;
    scale[e * c] = s;
    if (c === 2) {
      y[e * c + 1] = re(alpha) * xi + im(alpha) * xr + re(beta) * yi + im(beta) * yr;
      scale[e * c + 1] = s;
    }
  }
  return { y, scale };
}

async function transposeCase(gpu: GpuBackend, dt: DType, seed: number): Promise<string> {
  for (const [r, c] of TRANSPOSE_SHAPES) {
    const hA = randomDense(dt, r, c, seed++);
    const A = gpu.uploadDense(hA), B = gpu.uploadDense(filled(dt, c, r, NaN));
    try {
      gpu.transpose(A, B);
      const bad = transposeViolation(dt, hA, (await gpu.readDense(B)).values, B.rows, B.cols);
      assert(bad === null, `${r}×${c}: ${bad}`);
      if (cplx(dt)) {
        gpu.transpose(A, B, { conj: true });
        const badH = transposeViolation(dt, hA, (await gpu.readDense(B)).values, B.rows, B.cols, true);
        assert(badH === null, `${r}×${c} conj: ${badH}`);
      }
      if (r === c) {
        gpu.transpose(A, A); // in place (rendered into a fresh target, then swapped)
        const bad2 = transposeViolation(dt, hA, (await gpu.readDense(A)).values, A.rows, A.cols);
        assert(bad2 === null, `${r}×${c} in place: ${bad2}`);
      }
    } finally {
      A.dispose();
      B.dispose();
    }
  }
  return `B[j][i] = A[i][j] bit for bit on ${TRANSPOSE_SHAPES.map(([r, c]) => `${r}×${c}`).join(', ')}${cplx(dt) ? ' (and conj: Aᴴ)' : ''}; square ones also in place`;
}

export async function runDenseChecks(gpu: GpuBackend, make: Make, check: Check, log: string[]): Promise<void> {
  let seed = 5000;
  for (const dt of GPU_DTYPES) {
    await check(`dense upload/read ${dt}`, async () => {
      const out: string[] = [];
      for (const [r, c] of [[1, 1], [1, 5], [5, 1], [7, 13], [257, 129], [3, 1000], [0, 4], [4, 0]] as const) {
        const h = randomDense(dt, r, c, seed++);
        const A = gpu.uploadDense(h);
        const Z = gpu.denseMatrix(dt, r, c);
        try {
          const back = await gpu.readDense(A);
          assert(back.rows === r && back.cols === c && back.dtype === dt, `${r}×${c}: read back ${back.rows}×${back.cols} ${back.dtype}`);
          for (let q = 0; q < h.values.length; q++) {
            assert(Object.is(back.values[q], held(dt, h.values[q])), `${r}×${c}: component ${q} ${back.values[q]}, uploaded ${h.values[q]}`);
          }
          const z = await gpu.readDense(Z);
          assert(z.values.length === h.values.length && z.values.every((v) => v === 0), `${r}×${c}: denseMatrix is not zero`);
          out.push(`${r}×${c} (${A.layout.width}×${A.layout.height}×${A.layout.layers} texels)`);
        } finally {
          A.dispose();
          Z.dispose();
        }
      }
      return `exact round trip${isDS(dt) ? ' (hi + lo)' : ''}: ${out.join(', ')}`;
    });
  }
  for (const dt of GPU_DTYPES) {
    for (const s of GEMM_SHAPES) await check(`dense gemm ${dt} ${shapeName(s)}`, () => gemmCase(gpu, dt, s, (seed += 3)));
  }
  for (const dt of GPU_DTYPES) await check(`dense add ${dt}`, () => addCase(gpu, dt, (seed += 20)));
  for (const dt of GPU_DTYPES) await check(`dense transpose ${dt}`, () => transposeCase(gpu, dt, (seed += 20)));

  await check('dense transpose: the check catches a seed-004-style transpose', () => {
    const caught: string[] = [];
    for (const [r, c] of [[64, 64], [48, 48], [257, 129], [16, 48], [100, 37]] as const) {
      const h = randomDense('f32', r, c, seed++);
      assert(transposeViolation('f32', h, hostTranspose(h), c, r) === null, `${r}×${c}: the checker rejects a correct transpose`);
      const bad = transposeViolation('f32', h, seed004Transpose(h), c, r);
      assert(bad !== null, `${r}×${c}: the seed-004 transpose passed the check`);
      caught.push(`${r}×${c}: ${bad}`);
    }
    // why the shapes go past one tile: on a single 16×16 tile (and on 1×1) the wrong kernel is right
    for (const n of [1, 16]) {
      const h = randomDense('f32', n, n, seed++);
      assert(transposeViolation('f32', h, seed004Transpose(h), n, n) === null, `${n}×${n}: expected the seed-004 transpose to be right on one tile`);
    }
    return `rejected on every shape past one tile (right only on ≤ 16×16, which is why those shapes alone prove nothing): ${caught.join(' | ')}`;
  });

  await check('dense: rows over several layers (64×64 tiles)', async () => {
    const small = make({ maxTextureSize: 64 });
    assert(small.available, 'small-tile backend');
    try {
      const out: string[] = [];
      for (const dt of ['f32', 'f64', 'c64'] as const) {
        const [m, k, n] = [200, 120, 60]; // A over 4 layers, B over 2, C over 4; rows of at most 60 texels
        const hA = randomDense(dt, m, k, seed++), hB = randomDense(dt, k, n, seed++), hC0 = randomDense(dt, m, n, seed++);
        const { alpha, beta } = scalars(dt);
        const hT = randomDense(dt, 100, 120, seed++); // transpose 100×120 → 120×100: both over 2 layers
        const A = small.uploadDense(hA), B = small.uploadDense(hB), C = small.uploadDense(hC0);
        const S = small.uploadDense(hT), T = small.denseMatrix(dt, 120, 100);
        try {
          assert(A.layout.layers === 4 && C.layout.layers === 4, `layers A ${A.layout.layers}, C ${C.layout.layers}`);
          small.gemm(A, B, C, { alpha, beta });
          const w = compare(dt, (await small.readDense(C)).values, refGemm(hA, hB, hC0, alpha, beta), k, `${dt} gemm over layers`);
          small.transpose(S, T);
          assert(S.layout.layers === 2 && T.layout.layers === 2, `layers S ${S.layout.layers}, T ${T.layout.layers}`);
          const bad = transposeViolation(dt, hT, (await small.readDense(T)).values, T.rows, T.cols);
          assert(bad === null, `${dt} transpose over layers: ${bad}`);
          out.push(`${dt} gemm ${fmt(dt, w)}, transpose exact`);
        } finally {
          for (const h of [A, B, C, S, T]) h.dispose();
        }
      }
      let thrown: unknown = null;
      try {
        small.denseMatrix('f32', 2, 257); // 65 texels per row > 64
      } catch (e) {
        thrown = e;
      }
      assert(thrown instanceof GpuLimitError, `expected GpuLimitError for 257 f32 columns on 64-texel rows, got ${String(thrown)}`);
      return `64 rows per layer: gemm 200×120 · 120×60 (A and C over 4 layers), transpose 100×120 (2 layers): ${out.join('; ')}; 257 f32 columns: ${(thrown as Error).message}`;
    } finally {
      small.dispose();
    }
  });

  await check('dense: typed errors and dispose', () => {
    const before = gpu.bytesInUse;
    const A = gpu.denseMatrix('f32', 3, 4), B = gpu.denseMatrix('f32', 4, 5), C = gpu.denseMatrix('f32', 3, 5), D = gpu.denseMatrix('f64', 4, 5);
    assert(gpu.bytesInUse > before, 'bytesInUse did not grow');
    const expectThrow = (fn: () => unknown, cls: new (...a: never[]) => Error, rx: RegExp) => {
      try {
        fn();
      } catch (e) {
        assert(e instanceof cls && rx.test((e as Error).message), `wrong error: ${String(e)}`);
        return (e as Error).message;
      }
      throw new Error(`expected ${cls.name}`);
    };
    const msgs = [
      expectThrow(() => gpu.gemm(A, C, C), ShapeError, /A.cols must equal B.rows/),
      expectThrow(() => gpu.gemm(A, B, A), ShapeError, /expected 3×5/),
      expectThrow(() => gpu.gemm(A, D, C), UnsupportedError, /dtypes must match/),
      expectThrow(() => gpu.add(A, B, C), ShapeError, /shapes must match/),
      expectThrow(() => gpu.transpose(A, C), ShapeError, /expected 4×3/),
      expectThrow(() => gpu.gemm(A, B, C, { alpha: [1, 1] }), UnsupportedError, /imaginary/),
      expectThrow(() => gpu.denseMatrix('f32', -1, 2), ShapeError, /nonnegative/),
      expectThrow(() => gpu.uploadDense(new DenseMatrix(1, 1, 'f64', new Float64Array([1e300]))), GpuLimitError, /f32 range/),
    ];
    D.dispose();
    msgs.push(expectThrow(() => gpu.gemm(A, D, C), DisposedError, /GpuDense/));
    for (const h of [A, B, C]) h.dispose();
    assert(gpu.bytesInUse === before, `bytesInUse ${gpu.bytesInUse} after dispose, was ${before}`);
    const other = make({});
    assert(other.available, 'another backend');
    const X = other.denseMatrix('f32', 2, 2);
    const Y = gpu.denseMatrix('f32', 2, 2);
    msgs.push(expectThrow(() => gpu.gemm(X, Y, Y), UnsupportedError, /another GpuBackend/));
    Y.dispose();
    other.dispose();
    assert(X.disposed && other.bytesInUse === 0, 'backend.dispose() left a GpuDense alive');
    return msgs.join(' | ');
  });

  await check('dense: context loss and restore', async () => {
    const g = make({ canvas: drawingCanvas() });
    assert(g.available, 'backend');
    const ext = g.gl.getExtension('WEBGL_lose_context');
    assert(ext, 'WEBGL_lose_context is missing');
    try {
      const hA = randomDense('f64', 9, 7, seed++), hB = randomDense('f64', 7, 5, seed++);
      const A = g.uploadDense(hA), B = g.uploadDense(hB), C = g.denseMatrix('f64', 9, 5);
      g.gemm(A, B, C, { alpha: 1.1 });
      const before = (await g.readDense(C)).values;
      const bytes = g.bytesInUse;
      let lost = 0, restored = 0;
      g.onContextLost(() => lost++);
      g.onContextRestored(() => restored++);
      ext.loseContext();
      const waitFor = async (cond: () => boolean, what: string) => {
        for (let t = 0; t < 500 && !cond(); t++) await new Promise((r) => setTimeout(r, 10));
        assert(cond(), `timed out waiting for ${what}`);
      };
      await waitFor(() => lost === 1, 'webglcontextlost'); // restoring before the event is refused
      let threw: unknown = null;
      try {
        g.gemm(A, B, C);
      } catch (e) {
        threw = e;
      }
      assert(threw instanceof GpuContextLostError, `gemm while lost: ${String(threw)}`);
      ext.restoreContext();
      await waitFor(() => restored === 1, 'webglcontextrestored');
      assert(!A.contentsLost && !B.contentsLost && C.contentsLost, `contentsLost: A ${A.contentsLost}, B ${B.contentsLost}, C ${C.contentsLost}`);
      assert(g.bytesInUse === bytes, `bytesInUse ${g.bytesInUse}, was ${bytes}`);
      assert((await g.readDense(C)).values.every((v) => v === 0), 'a lost GpuDense is not zero');
      g.gemm(A, B, C, { alpha: 1.1 });
      const after = (await g.readDense(C)).values;
      for (let q = 0; q < after.length; q++) assert(after[q] === before[q], `component ${q}: ${after[q]} after the restore, ${before[q]} before`);
      return 'gemm threw E_GPU_LOST while lost; after the restore the uploaded A and B came back, the written C reports contentsLost (zeros); A·B bit-identical to before';
    } finally {
      g.dispose();
    }
  });

  await check('dense gemm f32 n=512 timing: naive vs tiled', async () => {
    const n = 512;
    const renderer = gpu.capabilities().renderer;
    const device = /swiftshader/i.test(renderer) ? `software rasteriser (SwiftShader: ${renderer})` : renderer;
    const hA = randomDense('f32', n, n, 1), hB = randomDense('f32', n, n, 2);
    const A = gpu.uploadDense(hA), B = gpu.uploadDense(hB), C = gpu.denseMatrix('f32', n, n);
    const w = gpu.denseMatrix('f32', 8, 8);
    try {
      for (const kernel of ['tiled', 'naive'] as const) gpu.gemm(w, w, w, { kernel }); // compile outside the timing
      await gpu.readDense(w);
      const ref = refGemm(hA, hB, null, 1, 0);
      const time = async (kernel: 'tiled' | 'naive', reps: number) => {
        let best = Infinity;
        for (let r = 0; r < reps; r++) {
          const t0 = performance.now();
          gpu.gemm(A, B, C, { kernel });
          const got = await gpu.readDense(C); // the draw has finished when its result is back
          best = Math.min(best, performance.now() - t0);
          if (r === 0) compare('f32', got.values, ref, n, `${kernel} n=${n}`);
        }
        return best;
      };
      const tiled = await time('tiled', 3);
      const naive = await time('naive', 1);
      const gf = (ms: number) => ((2 * n ** 3) / (ms * 1e6)).toFixed(2);
      const line = `dense gemm f32 n=${n} on ${device}: naive ${naive.toFixed(0)} ms (${gf(naive)} GFLOP/s), tiled ${tiled.toFixed(0)} ms (${gf(tiled)} GFLOP/s): tiled ${(naive / tiled).toFixed(1)}× faster (tiled best of 3, naive 1 run; draw + read-back of C, both results checked against the f64 reference)`;
      log.push(line);
      return line;
    } finally {
      for (const h of [A, B, C, w]) h.dispose();
    }
  });
}
