// IEEE special values on a GPU path against the CPU path (issue 23, finding 2): ±Infinity and NaN in
// A, in x, in y0 and in the scalars go through every SpMV kernel, BLAS-1 and the dense operations of
// a GPU backend (WebGPU: test/webgpu-special-values.test.ts in Node; WebGL2: test/browser/page.ts)
// and through the CPU path of a Runtime, and each result component must fall in the same class there:
// NaN, +Inf, −Inf, or finite and equal within the dtype's precision. Double-single (f64, c128) used
// to turn Inf into NaN (the error term of Inf − x is NaN); f32/c64 dot and nrm2, which sum in
// double-single, too. No DOM and no node: here, so both pages can bundle it.
import { CSRMatrix, DenseMatrix } from '../../src/formats/index.js';
import { allocValues, isComplex, type DType, type Scalar, type ValueArray } from '../../src/dtype.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { SparseMatrix } from '../../src/formats/index.js';
import { GPU_DTYPES } from './checks.js';

export const SPECIAL_VALUE_CHECKS = [
  ...GPU_DTYPES.flatMap((d) => [`special values: spmv ${d}`, `special values: blas1 ${d}`, `special values: dense ${d}`]),
  'special values: double-single at the edges of the f32 range',
];
/** WebGL2 only: DIA over several draws (a backend with a small diaChunk). */
export const CHUNKED_DIA_SPECIAL_CHECKS = GPU_DTYPES.map((d) => `special values: dia in several draws ${d}`);

type Handle = { dispose(): void };
/** What the checks need of a GPU backend (GpuBackend and WebGpuBackend both fit). */
export interface SpecialGpu<M extends Handle, V extends Handle, D extends Handle> {
  vector(dtype: DType, data: ArrayLike<number> | number): V;
  spmv(M: M, x: V, y: V, opts: { alpha?: Scalar; beta?: Scalar; op?: 'N' | 'T' | 'H' }): void;
  read(v: V): Promise<Float32Array | Float64Array>;
  axpy(alpha: Scalar, x: V, y: V): void;
  aypx(alpha: Scalar, x: V, y: V): void;
  scal(alpha: Scalar, y: V): void;
  copy(x: V, y: V): void;
  dot(x: V, y: V, options: { conj?: boolean }): Promise<number | [number, number]>;
  nrm2(x: V): Promise<number>;
  uploadDense(A: DenseMatrix): D;
  readDense(A: D): Promise<DenseMatrix>;
  gemm(A: D, B: D, C: D, opts: { alpha?: Scalar; beta?: Scalar }): void;
  add(A: D, B: D, C: D, opts: { alpha?: Scalar; beta?: Scalar }): void;
  transpose(A: D, B: D, opts: object): void;
}
/** One kernel of the GPU path for a CSR matrix: its upload (matrix in the kernel's format, forced), or why it is skipped. */
export type KernelUpload<M> = { name: string; host: SparseMatrix; upload: (transpose: boolean) => M } | string;
type Check = (name: string, fn: () => Promise<string> | string) => Promise<void>;

const INF = Infinity;

/** 'NaN', '+Inf', '-Inf' or 'finite'. */
function classOf(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v === INF ? '+Inf' : v === -INF ? '-Inf' : 'finite';
}

/**
 * Throws unless got and want (the CPU path's result) agree component by component: the same class,
 * and finite values within 1e-5 (f32, c64) or 1e-12 (double-single) of max(1, |want|). The data are
 * small integers and halves, so the finite parts are nearly exact on both paths.
 */
export function sameClasses(dt: DType, got: ArrayLike<number>, want: ArrayLike<number>, what: string): number {
  if (got.length !== want.length) throw new Error(`${what}: length ${got.length}, expected ${want.length}`);
  const tol = dt === 'f64' || dt === 'c128' ? 1e-12 : 1e-5;
  const bad: string[] = [];
  let specials = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i], w = want[i];
    const cg = classOf(g), cw = classOf(w);
    if (cw !== 'finite') specials++;
    if (cg !== cw || (cw === 'finite' && Math.abs(g - w) > tol * Math.max(1, Math.abs(w)))) bad.push(`[${i}] ${g} (CPU path: ${w})`);
  }
  if (bad.length) throw new Error(`${what}, ${dt}: ${bad.length} of ${want.length} components differ from the CPU path: ${bad.slice(0, 6).join(', ')}`);
  return specials;
}

/** Real components → the dtype's values: complex element k is (v, (k mod 3) − 1), or (1, v) where k mod 4 = 3. */
function values(dt: DType, real: number[]): ValueArray {
  const out = allocValues(dt, real.length);
  real.forEach((v, k) => {
    if (!isComplex(dt)) out[k] = v;
    else if (k % 4 === 3) out.set([1, v], 2 * k);
    else out.set([v, (k % 3) - 1], 2 * k);
  });
  return out;
}

/**
 * Scalars that are zero only after rounding to f32 (f32, c64: as the CPU path rounds them, so their
 * operand is not read); double-single has no such scalar (1e-50 would underflow to 0 on the GPU
 * paths while the CPU path's f64 keeps it: docs/special-values.md).
 */
function tiny(dt: DType): number[] {
  return dt === 'f32' || dt === 'c64' ? [1e-50] : [];
}

/** A real scalar s as the dtype takes it, and for complex dtypes also i·s + 0.5. */
function scalarsOf(dt: DType, s: number): Scalar[] {
  return isComplex(dt) ? [[s, 0], [0.5, s]] : [s];
}

// The 6×6 test matrix: row 0 meets +Inf, row 1 −Inf, row 2 +Inf and −Inf (NaN for x0, x2 of one sign),
// row 3 NaN, row 4 stays finite, row 5 meets Inf · x5 = Inf · 0 (NaN).
const PATTERN: [number, number, number, number][] = [
  // row, col, finite value, special value
  [0, 0, 1, 1], [0, 1, 2, INF],
  [1, 1, 2, 2], [1, 2, -1, -INF], [1, 3, 1, 1],
  [2, 0, 3, INF], [2, 2, -2, -INF], [2, 5, 1, 1],
  [3, 3, 0.5, NaN], [3, 4, 1, 1],
  [4, 4, 3, 3], [4, 5, 0.5, 0.5],
  [5, 0, 1, 1], [5, 5, -1, INF],
];
const X_FINITE = [1, -2, -0.5, 3, -1, 0];
const X_SPECIAL = [INF, -2, -INF, NaN, -1, INF];
const Y0 = [INF, -INF, NaN, 0, 2, -1];

function matrix6(dt: DType, special: boolean): CSRMatrix {
  const rowPtr = new Int32Array(7);
  for (const [r] of PATTERN) rowPtr[r + 1]++;
  for (let i = 0; i < 6; i++) rowPtr[i + 1] += rowPtr[i];
  return new CSRMatrix(6, 6, dt, rowPtr, Int32Array.from(PATTERN, (p) => p[1]), values(dt, PATTERN.map((p) => (special ? p[3] : p[2]))));
}

/** 3 rows × 5000 columns: row 0 full with one +Inf, row 1 full with +Inf and −Inf, row 2 short: long rows cut into pieces (csr_adaptive's second pass, segmented sums). */
function longRows(dt: DType): CSRMatrix {
  const n = 5000;
  const cols: number[] = [], vals: number[] = [];
  const rowPtr = [0];
  for (let r = 0; r < 2; r++) {
    for (let j = 0; j < n; j++) { cols.push(j); vals.push(r === 0 && j === 4321 ? INF : r === 1 && j === 17 ? INF : r === 1 && j === 4444 ? -INF : 1); }
    rowPtr.push(cols.length);
  }
  cols.push(0, 7, 4999); vals.push(1, NaN, 2); rowPtr.push(cols.length);
  return new CSRMatrix(3, n, dt, Int32Array.from(rowPtr), Int32Array.from(cols), values(dt, vals));
}

interface SpmvCase {
  what: string;
  x: ValueArray;
  alpha: Scalar;
  beta: Scalar;
  y0: ValueArray;
  op: 'N' | 'T' | 'H';
}

/** The test matrices, each with the products that run on it. */
function spmvCases(dt: DType): { A: CSRMatrix; cases: SpmvCase[] }[] {
  const one: Scalar = isComplex(dt) ? [1, 0] : 1;
  const zero: Scalar = isComplex(dt) ? [0, 0] : 0;
  const xf = values(dt, X_FINITE), xs = values(dt, X_SPECIAL), y0 = values(dt, Y0);
  const nan = values(dt, Y0.map(() => NaN));
  const special: SpmvCase[] = [
    { what: 'Inf/NaN in A', x: xf, alpha: one, beta: zero, y0: nan, op: 'N' },
    { what: 'Inf/NaN in A and x', x: xs, alpha: one, beta: zero, y0: nan, op: 'N' },
    { what: 'Inf/NaN in A, op T', x: xf, alpha: one, beta: zero, y0: nan, op: 'T' },
    { what: 'alpha 0, Inf/NaN in A', x: xf, alpha: zero, beta: one, y0: values(dt, X_FINITE), op: 'N' },
  ];
  if (isComplex(dt)) special.push({ what: 'Inf/NaN in A, op H', x: xf, alpha: one, beta: zero, y0: nan, op: 'H' });
  const finite: SpmvCase[] = [
    { what: 'Inf/NaN in x', x: xs, alpha: one, beta: zero, y0: nan, op: 'N' },
    { what: 'Inf/NaN in y0, beta 1', x: xf, alpha: one, beta: one, y0, op: 'N' },
  ];
  for (const b of tiny(dt)) finite.push({ what: `beta ${b} over NaN y0`, x: xf, alpha: one, beta: isComplex(dt) ? [b, 0] : b, y0: nan, op: 'N' });
  for (const s of [INF, -INF, NaN, 0, ...tiny(dt)]) {
    for (const a of scalarsOf(dt, s)) finite.push({ what: `alpha ${a}`, x: xf, alpha: a, beta: zero, y0: nan, op: 'N' });
    for (const b of scalarsOf(dt, s)) finite.push({ what: `beta ${b} (y0 finite)`, x: xf, alpha: one, beta: b, y0: values(dt, X_FINITE), op: 'N' });
  }
  const L = longRows(dt);
  const long: SpmvCase = { what: 'long rows with Inf/NaN', x: values(dt, new Array(L.cols).fill(1)), alpha: one, beta: zero, y0: values(dt, [NaN, NaN, NaN]), op: 'N' };
  return [{ A: matrix6(dt, true), cases: special }, { A: matrix6(dt, false), cases: finite }, { A: L, cases: [long] }];
}

/**
 * SpMV with special values through every kernel `kernels` names on the GPU, against the CPU path
 * running the same storage format (so DIA's stored zeros meet Inf in x on both).
 */
async function spmvChecks<M extends Handle, V extends Handle>(gpu: SpecialGpu<M, V, Handle>, rt: Runtime, dt: DType, kernels: (A: CSRMatrix) => KernelUpload<M>[]): Promise<string> {
  let ran = 0, specials = 0;
  const skipped = new Set<string>();
  for (const { A, cases } of spmvCases(dt)) {
    const transpose = cases.some((c) => c.op !== 'N');
    for (const k of kernels(A)) {
      if (typeof k === 'string') { skipped.add(k); continue; }
      const h = rt.upload(k.host, { format: 'keep' });
      const M = k.upload(transpose);
      try {
        for (const c of cases) {
          const want = (await rt.spmv(h, c.x, { y: c.y0.slice(), alpha: c.alpha, beta: c.beta, op: c.op })) as ValueArray;
          const x = gpu.vector(dt, c.x), y = gpu.vector(dt, c.y0);
          try {
            gpu.spmv(M, x, y, { alpha: c.alpha, beta: c.beta, op: c.op });
            specials += sameClasses(dt, await gpu.read(y), want, `spmv ${k.name}, ${c.what}`);
            ran++;
          } finally {
            x.dispose(); y.dispose();
          }
        }
      } finally {
        h.dispose(); M.dispose();
      }
    }
  }
  return `${ran} products (${specials} Inf/NaN components) match the CPU path${skipped.size ? `; ${[...skipped].join('; ')}` : ''}`;
}

/** BLAS-1 (axpy, aypx, scal, copy, dot with and without conj, nrm2) with Inf/NaN in x, y and the scalars. */
async function blas1Checks<V extends Handle>(gpu: SpecialGpu<Handle, V, Handle>, rt: Runtime, dt: DType): Promise<string> {
  const xs = values(dt, [INF, -2, -INF, NaN, 1, 0, 0.5, 3]);
  const ys = values(dt, [1, INF, 2, -1, NaN, -INF, 0, 4]);
  const yf = values(dt, [1, 2, -3, 0.5, 4, 0, -1, 2]);
  let n = 0;
  const run = async (what: string, x: ValueArray, y: ValueArray, op: (g: V, h: V) => void, cpu: (g: ReturnType<Runtime['vector']>, h: ReturnType<Runtime['vector']>) => Promise<void>) => {
    const cx = rt.vector(x.slice(), dt), cy = rt.vector(y.slice(), dt);
    await cpu(cx, cy);
    const want = await cy.read();
    cx.dispose(); cy.dispose();
    const gx = gpu.vector(dt, x), gy = gpu.vector(dt, y);
    op(gx, gy);
    const got = await gpu.read(gy);
    gx.dispose(); gy.dispose();
    sameClasses(dt, got, want, what);
    n++;
  };
  for (const s of [2, INF, -INF, NaN, 0, ...tiny(dt)]) {
    for (const a of scalarsOf(dt, s)) {
      for (const [x, y, tag] of [[xs, yf, 'x special'], [values(dt, [1, 2, -3, 0.5, 4, 0, -1, 2]), ys, 'y special']] as const) {
        await run(`axpy alpha ${a}, ${tag}`, x, y, (g, h) => gpu.axpy(a, g, h), (g, h) => rt.axpy(a, g, h));
        await run(`aypx alpha ${a}, ${tag}`, x, y, (g, h) => gpu.aypx(a, g, h), (g, h) => rt.aypx(a, g, h));
      }
      await run(`scal alpha ${a}`, xs, ys, (_, h) => gpu.scal(a, h), (_, h) => rt.scal(a, h));
    }
  }
  await run('copy', xs, yf, (g, h) => gpu.copy(g, h), (g, h) => rt.copy(g, h));
  // dot and nrm2: one special kind per vector, so that each class (Inf, −Inf, NaN) can come out
  const dotVectors: [string, number[]][] = [
    ['+Inf', [1, INF, 2, -1]], ['−Inf', [1, -INF, 2, 0.5]], ['+Inf and −Inf', [INF, 1, -INF, 2]], ['NaN', [1, NaN, 2, 3]], ['finite', [1, 2, 3, -4]],
  ];
  const partner = values(dt, [2, 1, 0.5, 3]);
  for (const [what, v] of dotVectors) {
    const x = values(dt, v);
    for (const conj of isComplex(dt) ? [false, true] : [false]) {
      const cx = rt.vector(x.slice(), dt), cy = rt.vector(partner.slice(), dt);
      const want = await rt.dot(cx, cy, { conj });
      const wantNorm = await rt.nrm2(cx);
      cx.dispose(); cy.dispose();
      const gx = gpu.vector(dt, x), gy = gpu.vector(dt, partner);
      const got = await gpu.dot(gx, gy, { conj });
      const gotNorm = await gpu.nrm2(gx);
      gx.dispose(); gy.dispose();
      sameClasses(dt, typeof got === 'number' ? [got] : got, typeof want === 'number' ? [want] : want, `dot${conj ? ' (conj)' : ''}, ${what} in x`);
      sameClasses(dt, [gotNorm], [wantNorm], `nrm2, ${what} in x`);
      n += 2;
    }
  }
  return `${n} operations match the CPU path`;
}

function dense(dt: DType, rows: number, cols: number, real: number[]): DenseMatrix {
  return new DenseMatrix(rows, cols, dt, values(dt, real));
}

/** gemm, add and transpose with Inf/NaN in A, B, C and the scalars (gemm's scalars real: the runtime takes real ones). */
async function denseChecks<D extends Handle>(gpu: SpecialGpu<Handle, Handle, D>, rt: Runtime, dt: DType): Promise<string> {
  const A = dense(dt, 3, 4, [1, INF, 0, 2, -1, 2, -INF, 0.5, NaN, 1, 1, 1]);
  const Af = dense(dt, 3, 4, [1, 2, 0, 2, -1, 2, -3, 0.5, 4, 1, 1, 1]);
  const B = dense(dt, 4, 2, [1, 0, -1, 2, 0.5, 1, 2, -1]);
  const Bs = dense(dt, 4, 2, [INF, 0, -1, 2, 0.5, -INF, 2, -1]);
  const C = dense(dt, 3, 2, [INF, 1, NaN, -INF, 2, 0]);
  const Cf = dense(dt, 3, 2, [1, 1, 2, -2, 2, 0]);
  const nanC = dense(dt, 3, 2, new Array(6).fill(NaN));
  let n = 0;
  // one GPU dense operation on (a, b, c) against the CPU path's `want`
  const compare = async (what: string, a: DenseMatrix, b: DenseMatrix, c: DenseMatrix, want: DenseMatrix, op: (ga: D, gb: D, gc: D) => void) => {
    const ga = gpu.uploadDense(a), gb = gpu.uploadDense(b), gc = gpu.uploadDense(c);
    try {
      op(ga, gb, gc);
      sameClasses(dt, (await gpu.readDense(gc)).values, want.values, what);
    } finally {
      for (const o of [ga, gb, gc]) o.dispose();
    }
    n++;
  };
  const gemm = async (what: string, a: DenseMatrix, b: DenseMatrix, c: DenseMatrix, alpha: number, beta: number) =>
    compare(`gemm, ${what}`, a, b, c, await rt.gemm(a, b, { alpha, beta, C: new DenseMatrix(c.rows, c.cols, dt, c.values.slice()) }), (ga, gb, gc) => gpu.gemm(ga, gb, gc, { alpha, beta }));
  await gemm('Inf/NaN in A', A, B, nanC, 1, 0);
  await gemm('Inf/NaN in B', Af, Bs, nanC, 1, 0);
  await gemm('Inf/NaN in C, beta 1', Af, B, C, 1, 1);
  for (const s of [INF, -INF, NaN]) {
    await gemm(`alpha ${s}`, Af, B, nanC, s, 0);
    await gemm(`beta ${s}`, Af, B, Cf, 1, s);
  }
  for (const s of tiny(dt)) await gemm(`beta ${s} over a NaN C`, Af, B, nanC, 1, s);
  const add = async (what: string, a: DenseMatrix, b: DenseMatrix, alpha: Scalar, beta: Scalar) =>
    compare(`add, ${what}`, a, b, nanC, await rt.add(a, b, { alpha, beta }), (ga, gb, gc) => gpu.add(ga, gb, gc, { alpha, beta }));
  const one: Scalar = isComplex(dt) ? [1, 0] : 1;
  const Cs = dense(dt, 3, 2, [INF, 1, INF, -INF, NaN, 0]);
  await add('Inf/NaN in both', C, Cs, one, one);
  for (const s of [INF, -INF, NaN, 0, ...tiny(dt)]) {
    for (const a of scalarsOf(dt, s)) {
      await add(`alpha ${a}`, Cf, C, a, one);
      await add(`beta ${a}`, C, Cf, one, a);
    }
  }
  await compare('transpose', A, A, dense(dt, 4, 3, new Array(12).fill(0)), await rt.transpose(A), (ga, _, gc) => gpu.transpose(ga, gc, {}));
  return `${n} operations match the CPU path`;
}

/**
 * Double-single has f32's exponent range (docs/special-values.md), stated against the CPU path's f64
 * on every kernel: products of operands beyond 2^115, where Dekker's split overflows, keep f32
 * precision (they were NaN); a result beyond the f32 range is ±Inf where f64 stays finite; a finite
 * value beyond it is refused on upload with the path's limit error (code E_GPU_LIMIT).
 */
async function rangeChecks<M extends Handle, V extends Handle>(gpu: SpecialGpu<M, V, Handle>, rt: Runtime, kernels: (A: CSRMatrix) => KernelUpload<M>[]): Promise<string> {
  let n = 0;
  for (const dt of ['f64', 'c128'] as const) {
    // y = [1e35·3, −3e38·0.5, 3·2e36, 1e38·10]: the last overflows f32
    const real = (v: number[]) => Float64Array.from(dt === 'f64' ? v : v.flatMap((r) => [r, 0]));
    const A = new CSRMatrix(4, 4, dt, Int32Array.from([0, 1, 2, 3, 4]), Int32Array.from([0, 1, 2, 3]), real([1e35, -3e38, 3, 1e38]));
    const xs = real([3, 0.5, 2e36, 10]);
    for (const k of kernels(A)) {
      if (typeof k === 'string') continue;
      const h = rt.upload(k.host, { format: 'keep' });
      const want = (await rt.spmv(h, xs)) as ValueArray;
      h.dispose();
      const M = k.upload(false), x = gpu.vector(dt, xs), y = gpu.vector(dt, A.rows);
      const got = await (gpu.spmv(M, x, y, {}), gpu.read(y));
      for (const o of [M, x, y]) o.dispose();
      const c = isComplex(dt) ? 2 : 1;
      for (let i = 0; i < 3; i++) {
        const rel = Math.abs(got[c * i] - want[c * i]) / Math.abs(want[c * i]);
        if (!(rel <= 2 ** -23)) throw new Error(`${k.name} ${dt}: row ${i} is ${got[c * i]}, the CPU path's ${want[c * i]} (relative difference ${rel})`);
      }
      if (got[3 * c] !== INF || want[3 * c] !== 1e39) throw new Error(`${k.name} ${dt}: 1e38·10 is ${got[3 * c]} (expected +Inf: beyond f32), the CPU path's ${want[3 * c]}`);
      n++;
    }
    const big = new CSRMatrix(1, 1, dt, Int32Array.from([0, 1]), Int32Array.from([0]), real([1e39]));
    for (const k of kernels(big)) {
      if (typeof k === 'string') continue;
      let code = 'no error';
      try { k.upload(false).dispose(); } catch (e) { code = (e as { code?: string }).code ?? String(e); }
      if (code !== 'E_GPU_LIMIT') throw new Error(`${k.name} ${dt}: uploading 1e39 gave ${code}, expected the limit error E_GPU_LIMIT`);
    }
  }
  return `${n} kernel runs: operands up to 3e38 multiply within 2^-23 of f64, 1e38·10 = +Inf (f64: 1e39), 1e39 refused on upload`;
}

/**
 * Runs the SPECIAL_VALUE_CHECKS: `gpu` is the path under test, `rt` a Runtime on the CPU path, and
 * `kernels` lists the path's SpMV kernels for a CSR matrix (each forced through its upload).
 */
export async function runSpecialValueChecks<M extends Handle, V extends Handle, D extends Handle>(
  gpu: SpecialGpu<M, V, D>,
  rt: Runtime,
  check: Check,
  kernels: (A: CSRMatrix) => KernelUpload<M>[],
): Promise<void> {
  for (const dt of GPU_DTYPES) {
    await check(`special values: spmv ${dt}`, () => spmvChecks(gpu as unknown as SpecialGpu<M, V, Handle>, rt, dt, kernels));
    await check(`special values: blas1 ${dt}`, () => blas1Checks(gpu as unknown as SpecialGpu<Handle, V, Handle>, rt, dt));
    await check(`special values: dense ${dt}`, () => denseChecks(gpu as unknown as SpecialGpu<Handle, Handle, D>, rt, dt));
  }
  await check('special values: double-single at the edges of the f32 range', () => rangeChecks(gpu as unknown as SpecialGpu<M, V, Handle>, rt, kernels));
}

/** The CHUNKED_DIA_SPECIAL_CHECKS: `gpu` runs DIA in several draws, `dia` uploads a DIA matrix there. */
export async function runChunkedDiaSpecialChecks<M extends Handle, V extends Handle>(
  gpu: SpecialGpu<M, V, Handle>,
  rt: Runtime,
  check: Check,
  dia: (A: CSRMatrix, transpose: boolean) => { host: SparseMatrix; matrix: M },
): Promise<void> {
  for (const dt of GPU_DTYPES) {
    await check(`special values: dia in several draws ${dt}`, () =>
      spmvChecks(gpu, rt, dt, (A) => [{ name: 'dia (several draws)', host: dia(A, false).host, upload: (t) => dia(A, t).matrix }]));
  }
}
