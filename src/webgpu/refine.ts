/**
 * Iterative refinement kept on the GPU (SolverOps.refinement, driven by src/solvers/solve.ts's
 * refineOnPath): b, x and r = b − A·x live in double-single on the backend's pooled solver vectors,
 * r is recomputed from x (not updated) after each correction, and only ‖b‖, ‖r‖ and, once at the end,
 * x come back to the host. f64 / c128 matrices compute r with A itself; f32 / c64 ones with A's
 * double-single copy (WebGpuBackend.wideOf: the values once more at twice the bytes, made at the first
 * refined solve and freed with A), and the inner solve gets r rounded to f32 — f64 answers at f32
 * bandwidth for all iterations but the few residuals.
 */
import { isComplex, type DType } from '../dtype.js';
import type { PathRefinement } from '../solvers/ops.js';
import type { WebGpuMatrix, WebGpuVector } from './resident.js';
import { checkRange } from './encoding.js';
import { WebGpuLimitError } from './errors.js';
import { withinRange } from '../host-spmv.js';

/** What the refinement needs from WebGpuBackend. */
export interface RefineBackend {
  scratchVector(dtype: DType, length: number): WebGpuVector;
  recycle(v: WebGpuVector): void;
  /** without the host's range scan of f64 data: a finite value beyond f32 arrives as ±Inf (checkRange refuses it) */
  writeVector(v: WebGpuVector, data: ArrayLike<number>): void;
  copy(x: WebGpuVector, y: WebGpuVector): void;
  spmv(A: WebGpuMatrix, x: WebGpuVector, y: WebGpuVector, o: { alpha: number; beta: number }): void;
  axpy(alpha: number, x: WebGpuVector, y: WebGpuVector): void;
  nrm2(x: WebGpuVector): Promise<number>;
  read(v: WebGpuVector): Promise<Float32Array | Float64Array>;
  /** out ← w rounded to single precision */
  narrow(w: WebGpuVector, out: WebGpuVector): void;
  /** x ← x + d, x double-single, d single precision */
  addNarrow(d: WebGpuVector, x: WebGpuVector): void;
  /** A's double-single copy (A itself when it is f64 / c128) */
  wideOf(A: WebGpuMatrix): WebGpuMatrix;
}

/** B.writeVector, false where it refuses a value f32 cannot hold (the host's split of a short vector). */
function tryWrite(B: RefineBackend, v: WebGpuVector, data: Float64Array): boolean {
  try {
    B.writeVector(v, data);
    return true;
  } catch (e) {
    if (e instanceof WebGpuLimitError) return false;
    throw e;
  }
}

/** The double-single dtype of the same kind. */
export function wideType(dt: DType): DType {
  return dt === 'f32' ? 'f64' : dt === 'c64' ? 'c128' : dt;
}

/**
 * The relative rounding of a double-single product or sum (wgsl/ds.wgsl: about 2^-46; hi + lo holds
 * 48 bits), taken 4× larger as the margin of the residual's certificate (src/solvers/solve.ts).
 */
const DS_ROUNDOFF = 2 ** -44;
/** f32's least normal number: what a flushed subnormal lo word (or product, or sum) loses at most. */
const F32_MIN_NORMAL = 2 ** -126;

function finiteOrNaN(v: number): number {
  return Number.isFinite(v) ? v : NaN;
}

/**
 * Sets up refinement of A·x = b from x0 (else 0): uploads b (and x0), computes ‖b‖ and ‖b − A·x0‖ on the
 * GPU. With `range` (SolverOps.refinement), undefined — nothing kept, no error — where that ‖b‖ is not
 * within [2^-range, 2^range] (zero, not finite, or a value f32 cannot hold): the caller scales b first.
 */
export function webgpuRefinement(B: RefineBackend, A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined): Promise<PathRefinement<WebGpuVector>>;
export function webgpuRefinement(B: RefineBackend, A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<WebGpuVector> | undefined>;
export async function webgpuRefinement(B: RefineBackend, A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<WebGpuVector> | undefined> {
  const dt = A.dtype;
  const wdt = wideType(dt);
  const single = wdt !== dt;
  const n = A.rows;
  const W = B.wideOf(A);
  const bv = B.scratchVector(wdt, n);
  let x = B.scratchVector(wdt, n);
  const r = B.scratchVector(wdt, n);
  const rhs = single ? B.scratchVector(dt, n) : r;
  const release = () => {
    for (const v of new Set([bv, x, r, rhs])) B.recycle(v);
  };
  // r ← b − A·x in double-single, and ‖r‖
  const residual = (xv: WebGpuVector): Promise<number> => {
    B.copy(bv, r);
    B.spmv(W, xv, r, { alpha: -1, beta: 1 });
    return B.nrm2(r);
  };
  let bnorm: number;
  let rnorm: number;
  try {
    // with `range`, a value f32 cannot hold is out of range too, whether the host's split of a short
    // vector refuses it here or it arrives as ±Inf (the norm's test below)
    if (range === undefined) B.writeVector(bv, b);
    else if (!tryWrite(B, bv, b)) {
      release();
      return undefined;
    }
    if (x0) B.writeVector(x, x0);
    // Inf in b is NaN here, as the host's norm makes it (src/host-spmv.ts): the solve ends 'nan'; but
    // a finite value f32 cannot hold (uploaded unchecked, it is ±Inf there) is refused as on any upload
    bnorm = await B.nrm2(bv);
    if (range !== undefined && !withinRange(bnorm, range)) {
      release();
      return undefined;
    }
    if (!Number.isFinite(bnorm)) checkRange(b);
    bnorm = finiteOrNaN(bnorm);
    if (x0) {
      rnorm = await residual(x);
      if (!Number.isFinite(rnorm)) checkRange(x0);
      rnorm = finiteOrNaN(rnorm);
    } else {
      B.copy(bv, r);
      rnorm = bnorm;
    }
  } catch (e) {
    release();
    throw e;
  }
  return {
    bnorm,
    rnorm,
    roundoff: DS_ROUNDOFF,
    // GPUs flush f32 subnormals: the lo word of a value below ≈ 2^-102 is 0 there
    underflow: F32_MIN_NORMAL,
    rhs() {
      if (single) B.narrow(r, rhs);
      return rhs;
    },
    async correct(d) {
      const next = B.scratchVector(wdt, n);
      let applied = false;
      try {
        B.copy(x, next);
        if (single) B.addNarrow(d, next);
        else B.axpy(1, d, next);
        const norm = await residual(next);
        // a correction with Inf or NaN in it is not applied: x stays the last finite iterate
        if (!Number.isFinite(norm)) return NaN;
        B.recycle(x);
        x = next;
        applied = true;
        return norm;
      } finally {
        if (!applied) B.recycle(next);
      }
    },
    read: async () => (await B.read(x)) as Float64Array,
    // the double-single norm within 2^-30 (its sums' rounding), plus what squares below f32's least
    // normal number (|xᵢ| < 2^-63), flushed there, may have held: √(components)·2^-63 at most
    xnorm: async () => (await B.nrm2(x)) * (1 + 2 ** -30) + Math.sqrt(n * (isComplex(dt) ? 2 : 1)) * 2 ** -63,
    dispose: release,
  };
}
