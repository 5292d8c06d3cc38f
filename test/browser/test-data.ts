// Test data, the reference comparison and the check recorder shared by the WebGL2 page (page.ts), the WebGPU page and the
// Node WebGPU suites (test/webgpu-helpers.ts): the generated matrices of checks.ts, random vectors,
// the dtype variants of a matrix. Bundled into the pages, so it imports nothing from node:.
import { poisson2D, poisson3D, randomMatrix, Prng } from '../../src/generators/index.js';
import { CSRMatrix } from '../../src/formats/index.js';
import { isComplex, type DType } from '../../src/dtype.js';
import { checkAgainst, referenceSpmv, type Op, csrTriplets } from '../reference.js';
import { DS_BOUND, type CheckResult, type GENERATED } from './checks.js';

export const U = 2 ** -24;
export const isDS = (dt: DType) => dt === 'f64' || dt === 'c128';

/** n elements of dt: f32-rounded for f32/c64, full 53-bit doubles for f64/c128. */
export function randomData(dt: DType, n: number, seed: number): Float32Array | Float64Array {
  const p = new Prng(seed);
  const m = n * (isComplex(dt) ? 2 : 1);
  if (!isDS(dt)) return Float32Array.from({ length: m }, () => Math.fround(2 * p.next() - 1));
  return Float64Array.from({ length: m }, () => 2 * (p.next() + p.next() * 2 ** -32) - 1);
}

/** A complex c128 matrix from a real f64 one: im = re·((k mod 7) − 3)/4. */
function complexify(A: CSRMatrix): CSRMatrix {
  const v = new Float64Array(2 * A.nnz);
  for (let k = 0; k < A.nnz; k++) {
    v[2 * k] = A.values[k];
    v[2 * k + 1] = (A.values[k] * ((k % 7) - 3)) / 4;
  }
  return new CSRMatrix(A.rows, A.cols, 'c128', A.rowPtr, A.colIdx, v);
}

/** The test matrix in dt, from a real f64 or complex c128 (or c64) base. */
export function inDType(base: CSRMatrix, dt: DType): CSRMatrix {
  if (base.dtype === 'c128' || base.dtype === 'c64') return base.astype(dt);
  if (dt === 'f32' || dt === 'f64') return base.astype(dt);
  return complexify(base.astype('f64')).astype(dt);
}


/** The generated matrices of checks.ts (GENERATED), real f64. */
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

/** The α, α2, β of the SpMV checks for a dtype. */
export function scalars(dt: DType): { alpha: number | [number, number]; alpha2: number | [number, number]; beta: number | [number, number] } {
  if (isComplex(dt)) return { alpha: [1.5, -0.5], alpha2: [-0.75, 0.3], beta: [0.5, 0.25] };
  return isDS(dt) ? { alpha: 1.1, alpha2: -0.7, beta: 0.3 } : { alpha: 1.5, alpha2: -0.75, beta: 0.5 };
}

/** dot(x, y) (x conjugated when conj) in f64 by compensated sums, and Σ|x||y|, the scale of its error bound. */
export function referenceDot(xs: ArrayLike<number>, ys: ArrayLike<number>, n: number, cplx: boolean, conj: boolean): { want: [number, number]; mag: number } {
  let mag = 0;
  if (!cplx) {
    for (let i = 0; i < n; i++) mag += Math.abs(xs[i] * ys[i]);
    return { want: [fsum(Array.from({ length: n }, (_, i) => xs[i] * ys[i])), 0], mag };
  }
  const s = conj ? -1 : 1;
  const re: number[] = [], im: number[] = [];
  for (let i = 0; i < n; i++) {
    const [a, b, c, d] = [xs[2 * i], s * xs[2 * i + 1], ys[2 * i], ys[2 * i + 1]];
    re.push(a * c, -b * d);
    im.push(a * d, b * c);
    mag += Math.hypot(a, b) * Math.hypot(c, d);
  }
  return { want: [fsum(re), fsum(im)], mag };
}

/**
 * Compares a GPU SpMV result with the f64 reference: the single-precision bound of test/reference.ts
 * for f32/c64, DS_BOUND·scale for double-single; throws on a violation. `worst` is |err|/bound
 * (single) or |err|/scale (double-single); `worstRel` the double-single |err|/|y| where |y| ≥ 1e-3·scale.
 */
export function compareSpmv(A: CSRMatrix, x: ArrayLike<number>, y0: ArrayLike<number> | null, alpha: number | [number, number], beta: number | [number, number], got: ArrayLike<number>, op: Op = 'N'): { ds: boolean; worst: number; worstRel: number } {
  const ref = referenceSpmv(csrTriplets(A), x, y0, alpha, beta, op);
  const cplx = isComplex(A.dtype);
  if (!isDS(A.dtype)) {
    const bad = checkAgainst(got, ref, 'single', cplx);
    if (bad) throw new Error(bad);
    let worst = 0;
    for (let k = 0; k < got.length; k++) {
      const bound = 4 * (ref.terms[Math.floor(k / (cplx ? 2 : 1))] + 4) * U * ref.scale[k];
      if (bound > 0) worst = Math.max(worst, Math.abs(got[k] - ref.y[k]) / bound);
    }
    return { ds: false, worst, worstRel: 0 };
  }
  if (got.length !== ref.y.length) throw new Error(`length ${got.length}, expected ${ref.y.length}`);
  let worst = 0;
  let worstRel = 0;
  for (let k = 0; k < got.length; k++) {
    const err = Math.abs(got[k] - ref.y[k]);
    const sc = ref.scale[k];
    if (!(err <= DS_BOUND * sc)) throw new Error(`component ${k}: got ${got[k]}, expected ${ref.y[k]} (|err| ${err} > ${DS_BOUND}·scale ${sc})`);
    if (sc > 0) worst = Math.max(worst, err / sc);
    if (Math.abs(ref.y[k]) >= 1e-3 * sc && ref.y[k] !== 0) worstRel = Math.max(worstRel, err / Math.abs(ref.y[k]));
  }
  return { ds: true, worst, worstRel };
}

/** Runs one check of a page and records it in `results`: its detail, or the error with its stack. */
export async function record(results: CheckResult[], name: string, fn: () => Promise<string> | string): Promise<void> {
  const t0 = performance.now();
  try {
    results.push({ name, ok: true, detail: await fn(), ms: performance.now() - t0 });
  } catch (e) {
    const err = e as Error;
    results.push({ name, ok: false, detail: `${err?.name}: ${err?.message}\n${err?.stack ?? ''}`, ms: performance.now() - t0 });
  }
}

/** Whether this engine gives an OffscreenCanvas a WebGL2 context (WebKitGTK does not: no WebGL in workers). */
export function offscreenWebGL2(): boolean {
  return typeof OffscreenCanvas !== 'undefined' && new OffscreenCanvas(1, 1).getContext('webgl2') !== null;
}

/** A fresh canvas this engine draws WebGL2 on: an OffscreenCanvas where it can, else a canvas element. */
export function drawingCanvas(): OffscreenCanvas | HTMLCanvasElement {
  return offscreenWebGL2() ? new OffscreenCanvas(1, 1) : document.createElement('canvas');
}
