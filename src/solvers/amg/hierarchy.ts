import { UnsupportedError } from '../../errors.js';
import { CSRMatrix, markPrivateCanonical } from '../../formats/csr.js';
import { scaleBy } from '../../host-spmv.js';
import { amalgamate, strengthAggregation } from './aggregate.js';
import { fitCandidates } from './tentative.js';
import { coarseSolver, type AmgCoarse } from './coarse.js';
import type { SparseKernels, SparseSession } from './spgemm.js';

export { MAX_COARSE } from './coarse.js';

/** The smoother of every level but the coarsest (docs/amg.md). */
export type AmgSmoother = 'jacobi' | 'gauss-seidel' | 'chebyshev';

/** Options of the smoothed-aggregation setup. */
export interface AmgOptions {
  /**
   * strength threshold θ of the symmetric strength of connection (default 0.02: for a constant stencil
   * every off-diagonal is strong, as with PyAMG's 0, while the faces across a coefficient jump of
   * orders of magnitude are not)
   */
  theta?: number;
  /** coarsen until a level has at most this many rows, then solve it directly (default 500) */
  maxCoarse?: number;
  /** most levels, the direct one included (default 10) */
  maxLevels?: number;
  /** smoothing sweeps before and after the coarse correction (default 1) */
  sweeps?: number;
  /**
   * 'jacobi' (default: damped by ω = 4/(3ρ(D⁻¹A)), one SpMV a sweep), 'gauss-seidel' (symmetric:
   * a forward then a backward sweep, two triangular solves; needs a path with a triangular solve) or
   * 'chebyshev' (degree 3 in D⁻¹A on [ρ/30, 1.1ρ], three SpMVs a sweep)
   */
  smoother?: AmgSmoother;
  /** 'V' (default) or 'W' (two coarse corrections per level, the coarsest excepted) */
  cycle?: 'V' | 'W';
  /**
   * Near-null-space vectors of A (each of A's length), e.g. elasticity's rigid-body modes
   * (elasticity2DModes): the tentative prolongator interpolates them exactly. Default: the constant.
   */
  nearNullSpace?: Float64Array[];
  /** unknowns per node (default 1; 2 for 2-D elasticity): aggregation groups nodes, not unknowns */
  blockSize?: number;
  /** symmetric Gauss–Seidel sweeps on A·b = 0 that smooth the near-null space on the fine level first (default 4, as PyAMG) */
  improveCandidates?: number;
}

/** One level of the hierarchy: its matrix, D⁻¹, and the transfer to the next coarser level. */
export interface AmgLevel {
  A: CSRMatrix;
  /** inverse of A's diagonal (0 where the diagonal is not positive) */
  dinv: Float64Array;
  /** ρ(D⁻¹A) estimated by 15 Lanczos steps (the largest Ritz value) */
  rho: number;
  /** unknowns per node on this level */
  blockSize: number;
  /** prolongator to this level from the next (absent on the coarsest) */
  P?: CSRMatrix;
  /** restriction Pᵀ */
  R?: CSRMatrix;
}

/** Why coarsening stopped. */
export type AmgStop = 'size' | 'maxLevels' | 'stalled';

export interface AmgHierarchy {
  levels: AmgLevel[];
  /** how the coarsest level is solved (dense inverse or sparse Cholesky) and why */
  coarse: AmgCoarse;
  stop: AmgStop;
  /** a sentence saying why it stopped */
  stopReason: string;
  options: Required<Omit<AmgOptions, 'nearNullSpace'>> & { candidates: number };
  setupMs: number;
  /** frees the levels' P, R and coarse A where the setup's kernels left them (the host matrices read them in place): the hierarchy is not used after */
  dispose(): void;
}

export const AMG_DEFAULTS = { theta: 0.02, maxCoarse: 500, maxLevels: 10, sweeps: 1, smoother: 'jacobi', cycle: 'V', blockSize: 1, improveCandidates: 4 } as const;

/**
 * PyAMG's smoothed_aggregation_solver for a real symmetric A with a positive diagonal: symmetric
 * strength (θ) on the nodes (blocks of `blockSize` unknowns), standard aggregation, the tentative
 * prolongator from the QR of each aggregate's rows of the near-null space (the R factors are the
 * next level's near-null space), P = (I − ω·D⁻¹A)·T with ω = (4/3)/ρ(D⁻¹A), R = Pᵀ,
 * A_c = R·(A·P) by SpGEMM. The products and the Lanczos SpMVs run in a session of `kernels` (the
 * CPU path's, on its pool), which holds each level's operands until the level is built. Stops at
 * maxCoarse rows, at maxLevels, or when aggregation no longer shrinks the level; the coarsest level
 * is then solved dense or by a sparse Cholesky (coarse.ts, with kernels.coarse). A canonical CSR A.
 * `open`: a session of `kernels` to run in (its owner disposes it), which may hold A already (the
 * structure check's copy: rt.amg's setup then makes none of its own).
 */
export function buildHierarchy(A: CSRMatrix, kernels: SparseKernels, options: AmgOptions = {}, open?: SparseSession): AmgHierarchy {
  if (A.rows >= WARM_FROM) warmKernels(kernels);
  const session = open ?? kernels();
  // the products stay where the kernels made them, the hierarchy's until its dispose()
  const free = session.retain();
  try {
    return { ...build(A, session, kernels, options), dispose: free };
  } catch (e) {
    free();
    throw e;
  } finally {
    if (!open) session.dispose();
  }
}

/**
 * Each Galerkin product of a level may hold at most this many times the fine level's entries and rows:
 * legitimate hierarchies stay under 1.25 (poisson2D(200), poisson3D(40) at θ 0.02 and 0, elasticity2D(60)
 * with its modes, bcsstk13), while a hub's dense A·P held 470 (poisson2D(150) plus one node coupled to
 * all: 26 s and 1.3 GB) and a power-law graph's first coarse level 11–17 (20 000 and 50 000 nodes; at
 * 10⁵ nodes 36 s and 664 MB for a 6 MB matrix). Past it: amg's UnsupportedError (cpu/spgemm.ts galerkin).
 */
const OPERATOR_GROWTH = 8;

/** Rows of A from which a setup is preceded by warmKernels (once per kernels). */
const WARM_FROM = 100000;
const warmed = new WeakSet<SparseKernels>();

/**
 * A setup of a 1-D Laplacian of 4096 rows, thrown away. V8 runs a WebAssembly function's first calls
 * in its baseline tier (Liftoff), and a call stays in the tier it started in (no on-stack
 * replacement); the setup calls Gauss–Seidel once and each product kernel a few times, so on a large
 * fine level those calls ran at about half speed (Gauss–Seidel on poisson3D(128): 406 against 218 ms
 * CPU; `node --no-liftoff` the same 198). After this small run they, and the setup's JavaScript loops,
 * are optimized. Same hierarchy: it only runs code.
 */
function warmKernels(kernels: SparseKernels): void {
  if (warmed.has(kernels)) return;
  warmed.add(kernels);
  const n = 4096;
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(3 * n - 2);
  const val = new Float64Array(3 * n - 2);
  for (let i = 0, m = 0; i < n; i++) {
    for (const j of [i - 1, i, i + 1]) {
      if (j < 0 || j >= n) continue;
      idx[m] = j;
      val[m++] = j === i ? 2 : -1;
    }
    ptr[i + 1] = m;
  }
  const session = kernels();
  try {
    // a coarsest level of 152 rows: above coarse.ts's DENSE_ALWAYS, so its symbolic analysis runs too
    build(new CSRMatrix(n, n, 'f64', ptr, idx, val), session, kernels, { maxCoarse: 200 });
  } finally {
    session.dispose();
  }
  // a 1-D Laplacian's coarsest level takes the sparse Cholesky: the dense inverse's kernels, which a
  // large setup's coarsest level takes (poisson3D(128)'s 314 rows: its first setup spent 60 ms there,
  // a second 14, on the H100 machine's host), on a dense matrix of their own
  const inverse = kernels.coarse?.inverse;
  if (inverse) {
    const m = WARM_DENSE;
    const L = new Float64Array(m * m);
    for (let i = 0; i < m; i++) {
      L[i * m + i] = 2;
      if (i > 0) L[i * m + i - 1] = L[(i - 1) * m + i] = -1;
    }
    inverse(L, m, 2);
  }
}

/** Rows of warmKernels' dense inverse: past V8's tiering budget in its two kernels. */
const WARM_DENSE = 128;

function build(A: CSRMatrix, session: SparseSession, kernels: SparseKernels, options: AmgOptions): Omit<AmgHierarchy, 'dispose'> {
  const t0 = performance.now();
  const { nearNullSpace, ...rest } = options;
  const o = { ...AMG_DEFAULTS, ...rest };
  // the constant where the kernels run: smoothed and read there, never copied on this thread
  let B: Float64Array[] = nearNullSpace?.map(unitScaled) ?? [session.ones(A.rows)];
  // PyAMG's improve_candidates: the near-null space loses the components A damps least well, e.g.
  // near a Dirichlet boundary
  if (o.improveCandidates > 0) for (const b of B) session.gaussSeidelOnZero(A, b, o.improveCandidates);
  const levels: AmgLevel[] = [];
  let cur = A;
  let bs = o.blockSize;
  let stop: AmgStop = 'size';
  let stopReason = `the coarsest level has ≤ ${o.maxCoarse} rows`;
  for (;;) {
    const level = levelOf(cur, bs, levels.length, session);
    levels.push(level);
    if (cur.rows <= o.maxCoarse) break;
    if (levels.length === o.maxLevels) {
      stop = 'maxLevels';
      stopReason = `maxLevels (${o.maxLevels}) reached with ${cur.rows} rows on the coarsest level`;
      break;
    }
    const { agg, count } = bs === 1 ? session.aggregate(cur, o.theta) : strengthAggregation(amalgamate(cur, bs), o.theta);
    if (count === 0 || count * B.length >= cur.rows) {
      stop = 'stalled';
      stopReason = `coarsening stalled on level ${levels.length - 1}: ${cur.rows} rows make ${count} aggregates${B.length > 1 ? ` of ${B.length} unknowns` : ''}, no fewer unknowns`;
      break;
    }
    // P = (I − ω·D⁻¹A)·T with ω = (4/3)/ρ, one product; the constant's T made where the product runs
    // (its JavaScript loops, fitOne's and the scale's, were ≈ 100 ms of a poisson3D(128) setup on 16 threads)
    const w = -4 / 3 / level.rho;
    const one = bs === 1 && B.length === 1 ? session.smoothedTentative(cur, agg, count, B[0], level.dinv, w) : undefined;
    let P: CSRMatrix;
    const fine = B;
    if (one) [P, B] = [one.P, [one.coarse]];
    else {
      const fit = fitCandidates(agg, count, bs, B);
      const scale = new Float64Array(cur.rows);
      for (let i = 0; i < scale.length; i++) scale[i] = w * level.dinv[i];
      P = session.smoothedProlongator(cur, fit.T, scale);
      session.release(fit.T);
      B = fit.coarse;
    }
    for (const v of [agg, ...fine]) session.release(v);
    // the products are canonical by construction and stay the library's: marked so, the cycle's uploads
    // do not validate them again
    markPrivateCanonical(P);
    const R = markPrivateCanonical(session.transpose(P));
    level.P = P;
    level.R = R;
    const next = markPrivateCanonical(session.galerkin(R, cur, P, { entries: OPERATOR_GROWTH * (A.nnz + A.rows), level: levels.length - 1, fine: A.nnz + A.rows }));
    for (const M of [R, cur, P]) session.release(M);
    cur = next;
    bs = B.length;
  }
  const fix = stop === 'stalled' ? `A has too few strong connections at theta ${o.theta}: lower amg.theta, or use 'jacobi'` : 'raise amg.maxLevels';
  const coarse = coarseSolver(cur, kernels.coarse, stopReason, fix);
  return { levels, coarse, stop, stopReason, options: { ...o, candidates: B.length }, setupMs: performance.now() - t0 };
}

/**
 * A copy of v scaled by a power of two, exactly, to its largest |entry| in [1, 2): the tentative
 * prolongator's sums of squares (fitCandidates, smoothedTentative) then neither overflow nor underflow —
 * a near-null-space vector of entries near 1e300 or 1e-200 gave T zero columns, and CG the iterations of
 * no coarse correction — while a vector in range gives the same T and levels (they are invariant under
 * the scaling, bit for bit: only the coarse near-null space scales with it).
 */
function unitScaled(v: Float64Array): Float64Array {
  let m = 0;
  for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i]));
  const out = Float64Array.from(v);
  return m > 0 ? scaleBy(out, -Math.floor(Math.log2(m))) : out;
}

/** The level of A: its D⁻¹ (a pass on the pool, which keeps √|aᵢᵢ| there for the aggregation) and ρ(D⁻¹A). */
function levelOf(A: CSRMatrix, blockSize: number, l: number, session: SparseSession): AmgLevel {
  const n = A.rows;
  const { dinv, positive } = session.diagonal(A);
  if (!positive || n < 2) return { A, dinv, rho: 1, blockSize };
  // PyAMG's approximate_spectral_radius: 15 Lanczos steps, the largest Ritz value. Ritz values lie in
  // A's spectrum (scaled by D^-1/2), so a clearly negative one proves A indefinite.
  const { min, max } = session.lanczosBounds(A, dinv, 15);
  if (min < -1e-8 * max) throw new UnsupportedError(`amg: A is indefinite (D⁻¹A has an eigenvalue ≤ ${min.toPrecision(3)} on level ${l}); multigrid needs a positive definite matrix: use method 'minres' or 'gmres' with 'jacobi' or 'ilu0'`);
  return { A, dinv, rho: max, blockSize };
}
