/**
 * Iterative refinement of an f32 DIA matrix kept on the CPU pool (SolverOps.refinement, driven by
 * src/solvers/solve.ts: f32 CG's residual replacements, or restarted refinement): b and x in f64, r =
 * b − A·x recomputed in f64 from A's f32 values (assembly/cg_fused.ts refine_residual_dia_f32) after
 * each correction, rounded to f32 for the inner solve. Where the host did it (hostRefinement) each
 * replacement cost a host product (5.5–6.4 ms for poisson3D(64), load 6–7), a read and an upload,
 * against 1.0–1.1 ms here.
 */
import type { PathRefinement, SolverOps, WideHead } from '../solvers/ops.js';
import type { CpuBackend } from './backend.js';
import { CpuMatrix, type CpuVector } from './resident.js';
import { copy, axpy, nrm2, sumPartials } from './blas1.js';
import { withinRange } from '../host-spmv.js';

/**
 * An f32 DIA matrix (solver-ops' refinesOnPool) seen as an f64 one whose values are kept as f32 (spmv-plan's compact
 * DIA): the f64 kernels that widen A's values on load, over the same regions — and where its upload
 * flagged its 4-row groups of constant coefficients (src/cpu/uniform-f32.ts, as uploadMatrix does for a
 * compact f64 copy), the CG product kernels that read those from constants (…_f64f32u), the f64 solve's
 * own. The view owns nothing: A's regions are A's. (The f32 steps after the head run over A itself,
 * whose upload's blocks' masks their product reads: cg_dia_f32u.)
 */
export function wideView(M: CpuMatrix): CpuMatrix {
  const params: Record<string, number> = { ...M.params, compact: 1 };
  if (M.regions.uni) params.uniform = 1;
  return new CpuMatrix(M.host, M.regions, params, 'f64');
}

/** The solve's operations in f64 over wideView(A) (cpuSolverOps with the path's own preconditioner, or `none`), and that preconditioner's f32 function. */
export interface WideOps {
  make(none: boolean): Promise<SolverOps<CpuVector> & { dispose(): void }>;
  precondition: SolverOps<CpuVector>['precondition'];
}

/** Sets up refinement of A·x = b from x0 (else 0) for a matrix solver-ops' refinesOnPool accepts; `range`: see SolverOps.refinement. */
export function cpuRefinement(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined, wideOps?: WideOps): Promise<PathRefinement<CpuVector>>;
export function cpuRefinement(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined, wideOps: WideOps | undefined, range?: number): Promise<PathRefinement<CpuVector> | undefined>;
export async function cpuRefinement(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined, wideOps?: WideOps, range?: number): Promise<PathRefinement<CpuVector> | undefined> {
  const n = M.rows;
  const bv = B.vector('f64', n);
  const x = B.vector('f64', n);
  const next = B.vector('f64', n);
  const rhs = B.vector('f32', n);
  const vectors = () => [bv, x, next, rhs];
  // rhs ← b − A·v in f32, returning ‖b − A·v‖ in f64 (NaN when not finite)
  // from x = 0, r = b: rhs is b rounded to f32, made when first asked for — not at all where a head's
  // answer is adopted first (its residual pass writes rhs) — and not by a pass over A
  let roundB = false;
  const residual = async (v: CpuVector): Promise<number> => {
    roundB = false;
    const parts = await B.runReduction('refine_residual_dia_f32', () => [M.ptr('offsets'), M.params.ndiag, M.ptr('data'), M.params.pitch, n, v.ptr, bv.ptr, rhs.ptr], n);
    const norm = Math.sqrt(sumPartials(parts)[0]);
    return Number.isFinite(norm) ? norm : NaN;
  };
  let bnorm = 0;
  let rnorm: number;
  try {
    bv.view().set(b);
    x.view().fill(0);
    for (let i = 0; i < n; i++) bnorm += b[i] * b[i];
    bnorm = Math.sqrt(bnorm);
    if (range !== undefined && !withinRange(bnorm, range)) {
      for (const v of vectors()) v.dispose();
      return undefined;
    }
    if (x0) {
      x.view().set(x0);
      rnorm = await residual(x);
    } else {
      roundB = true;
      rnorm = Number.isFinite(bnorm) ? bnorm : NaN;
    }
  } catch (e) {
    for (const v of vectors()) v.dispose();
    throw e;
  }
  // next ← x + d in f64 (the kernel's check sum NaN where d holds Inf or NaN)
  const add = async (x: CpuVector, d: CpuVector, next: CpuVector) =>
    !Number.isNaN(sumPartials(await B.runReduction('refine_add_f32', () => [x.ptr, d.ptr, next.ptr], n))[0]);
  const pool = poolRefinement(B, Number.isFinite(bnorm) ? bnorm : NaN, rnorm, rhs, x, next, vectors(), residual, add, true);
  const R = {
    ...pool,
    rhs: () => {
      if (roundB) {
        rhs.view().set(b);
        roundB = false;
      }
      return rhs;
    },
  };
  if (!wideOps) return R;
  // made once, with or without the path's preconditioner (`none`) as first asked
  let head: (WideHead<CpuVector> & { dispose(): void; none: boolean }) | undefined;
  return {
    ...R,
    async wide(precondition) {
      // the path's preconditioner, or none (solve.ts unscaled: the f32 steps without a uniform Jacobi)
      const none = precondition === undefined;
      if ((precondition !== wideOps.precondition && !none) || (head && head.none !== none)) return undefined;
      if (!head) {
        const ops = await wideOps.make(none);
        head = {
          none,
          ops,
          b: bv,
          x0: x0 && R.answer(),
          // the f64 answer taken as x: next ← v, kept as R's correct keeps next
          adopt: (v) => R.take(async (next) => (await copy(B, v, next), true)),
          narrow: (v) => {
            const o = B.vector('f32', n);
            o.view().set(v.view());
            return o;
          },
          dispose: () => ops.dispose(),
        };
      }
      return head;
    },
    dispose() {
      head?.dispose();
      R.dispose();
    },
  };
}

/**
 * The refinement both kinds return: x and next in f64 on the pool, rhs the residual of x in the inner
 * solve's precision. A correction d goes into next ← x + d and is kept only when it and next's residual
 * are finite: x stays the last finite iterate, rhs its residual.
 */
function poolRefinement(
  B: CpuBackend,
  bnorm: number,
  rnorm: number,
  rhs: CpuVector,
  x: CpuVector,
  next: CpuVector,
  vectors: CpuVector[],
  residual: (v: CpuVector) => Promise<number>,
  add: (x: CpuVector, d: CpuVector, next: CpuVector) => Promise<boolean>,
  real: boolean,
): PathRefinement<CpuVector> & { take(make: (next: CpuVector) => Promise<boolean>): Promise<number>; answer(): CpuVector } {
  // max |xᵢ| of the chunks' partials (assembly/blas1.ts amax_f64), NaN where a chunk met ±Inf or NaN
  const xmax = async () => {
    const parts = await B.runReduction('amax_f64', () => [x.ptr], x.length);
    let m = 0;
    for (let c = 0; c < parts.length; c += 2) {
      if (Number.isNaN(parts[c + 1])) return NaN;
      m = Math.max(m, parts[c]);
    }
    return m;
  };
  // next ← make(next) and r ← b − A·next, kept (x ↔ next) when both are finite; returns ‖r‖ or NaN
  const take = async (make: (next: CpuVector) => Promise<boolean>) => {
    if (!(await make(next))) return NaN;
    const norm = await residual(next);
    if (Number.isNaN(norm)) {
      // rhs must stay the residual of the x kept
      await residual(x);
      return NaN;
    }
    [x, next] = [next, x];
    return norm;
  };
  return {
    bnorm,
    rnorm,
    // r is computed in f64, as the host's residual is
    roundoff: 0,
    rhs: () => rhs,
    correct: (d) => take((next) => add(x, d, next)),
    take,
    answer: () => x,
    read: async () => new Float64Array(x.view() as Float64Array),
    xmax: real ? xmax : undefined,
    dispose: () => {
      for (const v of vectors) v.dispose();
    },
  };
}

/**
 * Refinement of an f64 or c128 matrix on the pool, any format: b, x and r = b − A·x in the matrix's
 * own f64 (c128), r recomputed from x by the path's SpMV after each correction and its norm by the
 * pool's nrm2 — where solve.ts's host loop formed r − A·d on the path and then, after a second
 * correction solve (an f64 1e-10 solve whose first path residual misses tol), b − A·x and its norm on
 * the main thread in JavaScript: two host products of A (≈ 12 ms each for poisson3D(64)) and a read
 * of x. The answer's reported residual is this r's norm: the same f64 arithmetic, in another order.
 */
export function cpuRefinementF64(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined): Promise<PathRefinement<CpuVector>>;
export function cpuRefinementF64(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<CpuVector> | undefined>;
export async function cpuRefinementF64(B: CpuBackend, M: CpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<CpuVector> | undefined> {
  const n = M.rows;
  const spmv = (v: CpuVector, y: CpuVector) => B.spmv(M, v, y, { alpha: [-1, 0], beta: [1, 0], op: 'N' });
  const bv = B.vector(M.dtype, n);
  const x = B.vector(M.dtype, n);
  const next = B.vector(M.dtype, n);
  const rhs = B.vector(M.dtype, n);
  const vectors = () => [bv, x, next, rhs];
  const finite = (v: number) => (Number.isFinite(v) ? v : NaN);
  // rhs ← b − A·v, returning its norm (NaN when not finite)
  const residual = async (v: CpuVector): Promise<number> => {
    await copy(B, bv, rhs);
    await spmv(v, rhs);
    return finite(await nrm2(B, rhs));
  };
  let bnorm: number;
  let rnorm: number;
  try {
    bv.view().set(b);
    bnorm = finite(await nrm2(B, bv));
    if (range !== undefined && !withinRange(bnorm, range)) {
      for (const v of vectors()) v.dispose();
      return undefined;
    }
    if (x0) {
      x.view().set(x0);
      rnorm = await residual(x);
    } else {
      x.view().fill(0);
      rhs.view().set(b);
      rnorm = bnorm;
    }
  } catch (e) {
    for (const v of vectors()) v.dispose();
    throw e;
  }
  // next ← x + d (one holding Inf or NaN shows in next's residual, NaN)
  const add = async (x: CpuVector, d: CpuVector, next: CpuVector) => {
    await copy(B, x, next);
    await axpy(B, [1, 0], d, next);
    return true;
  };
  return poolRefinement(B, bnorm, rnorm, rhs, x, next, vectors(), residual, add, M.dtype === 'f64');
}
