/**
 * Shared by the test/webgpu-*.test.ts suites: a WebGPU backend on Dawn (the `webgpu` package) in Node,
 * the test matrices (the generated edge cases of test/browser/checks.ts and the shared SuiteSparse
 * ones) and the comparison with the f64 reference under the bounds the WebGL2 suite asserts.
 *
 * The adapter: Dawn needs a Vulkan driver. Without a GPU, SwiftShader's (shipped with Debian's
 * chromium package) serves; VK_ICD_FILENAMES is pointed at it here before Dawn starts, unless it is
 * already set. No adapter is a failure, never a skip: CI must have one.
 */
import { existsSync } from 'node:fs';
import { isComplex, type DType } from '../src/dtype.js';
import { CSRMatrix, DIAMatrix, ELLMatrix, HYBMatrix, SELLMatrix } from '../src/formats/index.js';
import { PaddingLimitError } from '../src/errors.js';
import { poisson2D, poisson3D, randomMatrix, Prng } from '../src/generators/index.js';
import { WebGpuBackend, type WebGpuBackendOptions, type HostMatrix, type WebGpuUploadOptions } from '../src/webgpu/index.js';
import { DS_BOUND, GENERATED } from './browser/checks.js';
import { checkAgainst, referenceSpmv, type Op, type Triplets } from './reference.js';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export function pointDawnAtSwiftShader(): void {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
}

/** A backend, or a thrown error that says loudly why there is none. */
export async function webgpuBackend(opts: WebGpuBackendOptions = {}): Promise<WebGpuBackend> {
  pointDawnAtSwiftShader();
  const b = await WebGpuBackend.create(opts);
  if (!b.available) {
    throw new Error(`NO WEBGPU ADAPTER: the WebGPU suites need one (Dawn + a Vulkan driver; VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}): ${b.reason}`);
  }
  return b;
}

export const DTYPES = ['f32', 'c64', 'f64', 'c128'] as const;
export const isDS = (dt: DType) => dt === 'f64' || dt === 'c128';
const U = 2 ** -24;

/** n elements of dt: f32-rounded for f32/c64, full 53-bit doubles for f64/c128. */
export function randomData(dt: DType, n: number, seed: number): Float32Array | Float64Array {
  const p = new Prng(seed);
  const m = n * (isComplex(dt) ? 2 : 1);
  if (!isDS(dt)) return Float32Array.from({ length: m }, () => Math.fround(2 * p.next() - 1));
  return Float64Array.from({ length: m }, () => 2 * (p.next() + p.next() * 2 ** -32) - 1);
}

/** A complex c128 matrix from a real f64 one: im = re·((k mod 7) − 3)/4 (as the WebGL2 suite). */
function complexify(A: CSRMatrix): CSRMatrix {
  const v = new Float64Array(2 * A.nnz);
  for (let k = 0; k < A.nnz; k++) {
    v[2 * k] = A.values[k];
    v[2 * k + 1] = (A.values[k] * ((k % 7) - 3)) / 4;
  }
  return new CSRMatrix(A.rows, A.cols, 'c128', A.rowPtr, A.colIdx, v);
}

/** The test matrix in dt, from a real f64 or complex c128 base. */
export function inDType(base: CSRMatrix, dt: DType): CSRMatrix {
  if (base.dtype === 'c128' || base.dtype === 'c64') return base.astype(dt);
  if (dt === 'f32' || dt === 'f64') return base.astype(dt);
  return complexify(base.astype('f64')).astype(dt);
}

export function triplets(A: CSRMatrix): Triplets {
  const rowIdx = new Int32Array(A.nnz);
  for (let i = 0; i < A.rows; i++) rowIdx.fill(i, A.rowPtr[i], A.rowPtr[i + 1]);
  return { rows: A.rows, cols: A.cols, complex: isComplex(A.dtype), rowIdx, colIdx: A.colIdx, values: A.values };
}

/** The generated matrices of test/browser/checks.ts (GENERATED), real f64. */
export function generated(name: (typeof GENERATED)[number]): CSRMatrix {
  switch (name) {
    case 'poisson2D-30': return poisson2D(30);
    case 'poisson3D-10': return poisson3D(10);
    case 'random-uniform-2000': return randomMatrix({ rows: 2000, meanRowLength: 12, seed: 3 });
    case 'random-powerlaw-3000': return randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4 });
    case 'rect-300x700': return randomMatrix({ rows: 300, cols: 700, meanRowLength: 10, seed: 5 });
    case 'rect-701x257': return randomMatrix({ rows: 701, cols: 257, meanRowLength: 5, seed: 6 });
    case 'sparse-empty-rows': return randomMatrix({ rows: 1001, meanRowLength: 0.5, seed: 7 });
    case 'long-rows-600': return longRows(600, [2500, 1500, 2000]);
    case 'tiny-1x1': return new CSRMatrix(1, 1, 'f64', new Int32Array([0, 1]), new Int32Array([0]), new Float64Array([3]));
    case 'tiny-5x3': return randomMatrix({ rows: 5, cols: 3, meanRowLength: 2, seed: 8 });
  }
}

/** rows × 3000: rows 0, 17 and rows−1 hold the given lengths, the others about 4 (some empty). */
export function longRows(rows: number, long: [number, number, number]): CSRMatrix {
  const p = new Prng(12);
  const ri: number[] = [], ci: number[] = [], v: number[] = [];
  const cols = Math.max(3000, ...long);
  for (let i = 0; i < rows; i++) {
    const len = i === 0 ? long[0] : i === 17 ? long[1] : i === rows - 1 ? long[2] : Math.floor(p.next() * 9);
    const set = new Set<number>();
    while (set.size < len) set.add(Math.floor(p.next() * cols));
    for (const c of set) { ri.push(i); ci.push(c); v.push(2 * p.next() - 1); }
  }
  return CSRMatrix.fromTriplets(rows, cols, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

/** Every SpMV kernel of the WebGPU path, forced. */
export const WEBGPU_KERNELS = ['csr_row', 'csr_vector', 'csr_adaptive', 'sell', 'ell', 'dia', 'hyb'] as const;
export type WebGpuKernel = (typeof WEBGPU_KERNELS)[number];

/** Padded formats past this many slots are skipped (CSR and HYB cover those matrices): SwiftShader runs double-single slowly. */
const MAX_PADDED_SLOTS = 4e5;

/** The host matrix and upload options that run kernel k, or why it is skipped (padding past 2 M slots). */
export function forKernel(A: CSRMatrix, k: WebGpuKernel): { host: HostMatrix; opts: WebGpuUploadOptions } | string {
  try {
    switch (k) {
      case 'csr_row': return { host: A, opts: { kernel: 'row' } };
      // 4 threads per row: the subgroup kernel wherever 'subgroups' is offered (every subgroup has ≥ 4 lanes)
      case 'csr_vector': return { host: A, opts: { kernel: 'vector', threadsPerRow: 4 } };
      // C = 32 and σ by the format's rule: sorted (perm) on the irregular matrices, σ = 1 on the regular ones
      case 'sell': return { host: SELLMatrix.fromCSR(A, { sliceHeight: 32, maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'csr_adaptive': return { host: A, opts: { kernel: 'adaptive' } };
      case 'ell': return { host: ELLMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'dia': return { host: DIAMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'hyb': return { host: HYBMatrix.fromCSR(A), opts: {} };
    }
  } catch (e) {
    if (e instanceof PaddingLimitError) return `skipped: ${k} would store ${e.required} slots (> ${MAX_PADDED_SLOTS}); csr and hyb cover this matrix`;
    throw e;
  }
}

/**
 * Compares a result with the f64 reference: the single-precision bound of test/reference.ts for
 * f32/c64, DS_BOUND·scale for double-single. Throws on a violation; returns the worst ratio
 * (|err|/bound for single, |err|/scale for double-single).
 */
export function compareRef(A: CSRMatrix, x: ArrayLike<number>, y0: ArrayLike<number> | null, alpha: number | [number, number], beta: number | [number, number], got: ArrayLike<number>, op: Op = 'N'): number {
  const ref = referenceSpmv(triplets(A), x, y0, alpha, beta, op);
  const cplx = isComplex(A.dtype);
  if (!isDS(A.dtype)) {
    const bad = checkAgainst(got, ref, 'single', cplx);
    if (bad) throw new Error(bad);
    let worst = 0;
    for (let k = 0; k < got.length; k++) {
      const bound = 4 * (ref.terms[Math.floor(k / (cplx ? 2 : 1))] + 4) * U * ref.scale[k];
      if (bound > 0) worst = Math.max(worst, Math.abs(got[k] - ref.y[k]) / bound);
    }
    return worst;
  }
  if (got.length !== ref.y.length) throw new Error(`length ${got.length}, expected ${ref.y.length}`);
  let worst = 0;
  for (let k = 0; k < got.length; k++) {
    const err = Math.abs(got[k] - ref.y[k]);
    const sc = ref.scale[k];
    if (!(err <= DS_BOUND * sc)) throw new Error(`component ${k}: got ${got[k]}, expected ${ref.y[k]} (|err| ${err} > ${DS_BOUND}·scale ${sc})`);
    if (sc > 0) worst = Math.max(worst, err / sc);
  }
  return worst;
}

export function scalars(dt: DType): { alpha: number | [number, number]; alpha2: number | [number, number]; beta: number | [number, number] } {
  if (isComplex(dt)) return { alpha: [1.5, -0.5], alpha2: [-0.75, 0.3], beta: [0.5, 0.25] };
  return isDS(dt) ? { alpha: 1.1, alpha2: -0.7, beta: 0.3 } : { alpha: 1.5, alpha2: -0.75, beta: 0.5 };
}

/** Neumaier-compensated f64 sum. */
export function fsum(terms: Iterable<number>): number {
  let s = 0, c = 0;
  for (const t of terms) {
    const u = s + t;
    c += Math.abs(s) >= Math.abs(t) ? s - u + t : t - u + s;
    s = u;
  }
  return s + c;
}
