import { amgPays } from './amg/index.js';
import { isPrivateCanonical, longestRow, type CSRMatrix } from '../formats/csr.js';
import { DIA_MAX_DIAGONALS, diagonalMarks, finishScan, knownScan } from '../formats/diagonal-scan.js';
import { hostNorm, hostResidual, hostResidualNorm, RHS_RANGE, rhsExponentOf, scaleBy } from '../host-spmv.js';
import { InputRangeError } from '../errors.js';
import type { ValueArray } from '../dtype.js';
import type { PathId } from '../path.js';
import type { GmresOptions } from './krylov/gmres.js';
import type { PathRefinement, SolveResult, SolverOps, StopReason } from './ops.js';
import type { PreconditionerKind } from './precond/index.js';
import type { SolveStructure } from './structure.js';
import { DIRECT_MAX_N, type SolveMethod } from './solve-methods.js';

export { DIRECT_MAX_N, SOLVE_METHODS, type SolveMethod } from './solve-methods.js';

export type KrylovMethod<V> = (ops: SolverOps<V>, b: V, options: GmresOptions<V>) => Promise<SolveResult<V>>;

/** What a path offers the 'auto' choice. */
export interface PathSolveInfo {
  label: string;
  /** whether the path has a sparse triangular solve (IC(0), ILU(0), SSOR) */
  triangular: boolean;
  /** whether the path is a GPU (SpMV-only preconditioners first) */
  gpu: boolean;
  /** whether CG with a Chebyshev polynomial runs resident there with its steps fused into A's SpMV (WebGPU, A as DIA, f64) */
  chebyshevFused?: boolean;
}

/** One way to solve: a method and a preconditioner. */
export interface SolveCandidate {
  /** the Krylov method */
  method: SolveMethod;
  /** the preconditioner it runs with */
  preconditioner: PreconditionerKind;
  /**
   * the iterations 'auto' gives it where the caller set no maxIter, before A's factorization takes over
   * (a nonsymmetric saddle point's BiCGSTAB + saddle, which converges slowly rather than stagnating
   * where convection dominates); it goes on from its iterate where no factorization answers
   */
  maxIter?: number;
}

/** The 'auto' choice of rt.solve and explain('solve'): candidates in order, and why. */
export interface SolveChoice {
  /** tried in order: the next one runs when one breaks down (e.g. CG on a matrix that is not definite) */
  candidates: SolveCandidate[];
  reasons: string[];
}

/**
 * Chooses method and preconditioner from the matrix's structure and the path (PETSc's KSP/PC split):
 * CG for Hermitian positive definite A (Hermitian with a positive diagonal, or `spd: true`), MINRES for
 * Hermitian A otherwise, BiCGSTAB for a diagonally dominant A with a positive diagonal (GMRES(30) after it
 * breaks down or stagnates) and for a nonsymmetric saddle point (with 'saddle', bounded by maxIter before
 * A's factorization), GMRES(30) for the rest (BiCGSTAB after a breakdown). The
 * preconditioner: Jacobi for a diagonally dominant HPD matrix (IC(0) gains only a constant factor of
 * iterations there, less than its set-up and triangular solves cost), else IC(0) (HPD) or ILU(0) where
 * the path solves triangular systems, else Chebyshev (HPD) or Jacobi; Jacobi where a diagonal is zero rules the factorizations out, none where Jacobi too is.
 * The user's method or preconditioner is kept as given. A direct factorization comes before these
 * candidates where chooseDirect says so (the runtime decides it: it needs the symbolic phase).
 */
export function chooseSolve(s: SolveStructure, path: PathSolveInfo, o: { method?: SolveMethod | 'auto'; preconditioner?: PreconditionerKind | 'auto'; spd?: boolean }): SolveChoice {
  const reasons: string[] = [];
  const hpd = o.spd === true || (s.hermitian && s.positiveDiagonal);
  const kind = s.hermitian ? 'Hermitian' : 'not Hermitian';
  if (o.spd) reasons.push('spd: true given by the caller');
  else reasons.push(`A is ${kind}${s.hermitian ? (s.positiveDiagonal ? ' with a positive diagonal: taken as positive definite' : ', its diagonal not all positive: taken as indefinite') : ''} (checked once per matrix)`);
  let methods: SolveMethod[];
  // BiCGSTAB + the block-triangular saddle: its iterations bounded where the factorization can take over
  let bound: number | undefined;
  if (o.method && o.method !== 'auto') {
    methods = [o.method];
    reasons.push(`method ${o.method} given by the caller`);
  } else if (hpd) {
    methods = ['cg', 'minres'];
    reasons.push('method cg: Hermitian positive definite (minres if CG breaks down: A is then not definite)');
  } else if (s.hermitian) {
    methods = ['minres', 'gmres'];
    reasons.push('method minres: Hermitian indefinite (short recurrences, minimal residual)');
  } else if (s.saddle && (!o.preconditioner || o.preconditioner === 'auto' || o.preconditioner === 'saddle')) {
    methods = ['bicgstab'];
    bound = SADDLE_NONSYMMETRIC_MAX_ITER;
    reasons.push(
      `method bicgstab: a nonsymmetric saddle point with the block-triangular saddle preconditioner, where restarted GMRES(30) loses the hundred directions it needs (${SADDLE_NONSYMMETRIC_MEASURED}); where it has not converged in ${SADDLE_NONSYMMETRIC_MAX_ITER} iterations (a convection-dominated flow, which the cycle of F's symmetric part serves poorly), A's factorization`,
    );
  } else if (s.finite && s.positiveDiagonal && s.diagonallyDominant) {
    methods = ['bicgstab', 'gmres'];
    reasons.push(
      `method bicgstab: not Hermitian, with a positive diagonal and diagonally dominant rows (convection–diffusion, upwind schemes), where BiCGSTAB's work per iteration is fixed (two products, two preconditioner solves, a few dots) while GMRES(30)'s Gram–Schmidt grows with its basis (${BICGSTAB_MEASURED}); gmres(30) if it breaks down or stagnates`,
    );
  } else {
    methods = ['gmres', 'bicgstab'];
    reasons.push('method gmres(30), right-preconditioned: nonsymmetric, not diagonally dominant with a positive diagonal, where BiCGSTAB breaks down or stalls more often (bicgstab if GMRES breaks down)');
  }
  let pre: PreconditionerKind;
  const minDiameter = path.gpu ? AMG_MIN_DIAMETER_GPU : AMG_MIN_DIAMETER;
  if (o.preconditioner && o.preconditioner !== 'auto') {
    pre = o.preconditioner;
    reasons.push(
      `preconditioner ${pre} given by the caller${
        pre === 'chebyshev' && path.chebyshevFused
          ? `: the ${path.label} path's fused plan (CG and the polynomial resident, each step fused into A's SpMV; degree 6 on [λmax/100, λmax] of D⁻¹A, λmax ≤ 2 from Gershgorin's discs where A is diagonally dominant, else from 20 Lanczos steps on the path; a handle from rt.preconditioner takes it too where A is diagonally dominant)`
          : ''
      }`,
    );
  } else if (!s.finite) {
    // every preconditioner's setup divides by A's values: NaN there threw (ilu0: 'breaks down even with
    // the diagonal shifted') where NaN in A must end the solve 'nan' (docs/solvers.md)
    pre = 'none';
    reasons.push('preconditioner none: A holds NaN or ±Inf, which every setup would divide by (the solve ends with reason nan)');
  } else if (s.zeroDiagonals > 0 && s.hermitian) {
    pre = 'saddle';
    reasons.push(
      `preconditioner saddle: A is a symmetric saddle point (${s.zeroDiagonals} zero diagonal entr${s.zeroDiagonals === 1 ? 'y' : 'ies'}: constraints), which no one-level preconditioner serves — AMG of the block-diagonal [[K, 0], [0, diag(B·diag(K)⁻¹·Bᵀ)]], whose MINRES iterations hardly grow with the mesh (${SADDLE_MEASURED})`,
    );
  } else if (s.saddle) {
    pre = 'saddle';
    reasons.push(
      `preconditioner saddle: A is a nonsymmetric saddle point (${s.zeroDiagonals} zero diagonal entr${s.zeroDiagonals === 1 ? 'y' : 'ies'}: constraints; the other diagonal entries positive) — the block-triangular [[F, B₁ᵀ], [0, −S]], S the diagonal of B₂·diag(F)⁻¹·B₁ᵀ, F by AMG of its symmetric part, where ILU(0)'s Krylov solve stagnated`,
    );
  } else if (s.zeroDiagonals > 0) {
    pre = 'ilu0';
    if (!path.triangular) pre = 'none';
    reasons.push(
      `${s.zeroDiagonals} zero diagonal entr${s.zeroDiagonals === 1 ? 'y' : 'ies'} rule out jacobi and ssor: ${
        pre === 'ilu0' ? 'ilu0 (zero pivots are shifted and reported)' : `none (the ${path.label} path has no triangular solve for ilu0)`
      }`,
    );
  } else if (amgPays(s) && !((s.diameter ?? Infinity) < minDiameter)) {
    pre = 'amg';
    reasons.push(`${amgPays(s)!}; its graph's pseudo-diameter ${s.diameter} ≥ ${minDiameter}${path.gpu ? ` (the ${path.label} path's threshold)` : ''}`);
  } else if (hpd && s.hermitian && s.positiveDiagonal && s.diagonallyDominant) {
    // on a GPU path whose resident Chebyshev-CG fuses the polynomial into A's SpMV: that, from
    // GPU_CHEBYSHEV_MIN_N rows (its bounds cost nothing here: Gershgorin's discs)
    const chebyshev = path.chebyshevFused === true && s.n >= GPU_CHEBYSHEV_MIN_N;
    pre = chebyshev ? 'chebyshev' : 'jacobi';
    if (amgPays(s)) {
      reasons.push(
        path.gpu
          ? `preconditioner ${pre}, not amg: the graph's pseudo-diameter ${s.diameter} < ${minDiameter}, the ${path.label} path's threshold: ${pre === 'jacobi' ? 'Jacobi' : 'Chebyshev'}-CG runs resident on the device while AMG's setup runs on the host CPU (${AMG_GPU_MEASURED})`
          : `preconditioner jacobi, not amg: the graph's pseudo-diameter ${s.diameter} < ${minDiameter}, so Jacobi-CG's iterations (which grow with it on a Laplacian-like matrix) cost less than AMG's setup and cycles (rt.solve's CPU time on 2 threads, Jacobi against AMG: poisson3D(64), diameter 189, 0.64–0.78 s against 1.16–1.40 s; poisson3D(100), 297, 3.7 s against 4.6 s; from poisson3D(128), 381, AMG is the cheaper: 9.8 s against 10.7 s)`,
      );
    }
    reasons.push(
      chebyshev
        ? `preconditioner chebyshev: A is diagonally dominant (λmax of D⁻¹A ≤ 2 from Gershgorin's discs: the bounds cost no product) and the ${path.label} path runs CG with the polynomial resident, each of its steps fused into A's SpMV: CG's iterations fall about as the degree rises while its products with A stay about plain CG's, so the per-iteration passes (dots, scalar steps, updates) are saved (${GPU_CHEBYSHEV_MEASURED})`
        : `preconditioner jacobi: A is diagonally dominant, where IC(0) cuts CG's iterations by a constant factor only (2.3–2.8× on Poisson problems) while its set-up and two triangular solves an iteration cost more than that (measured on 2 threads: poisson3D(64) 1.1 s against 2.0 s with ic0, poisson2D(1024) 26 s against 51 s, when those solves ran in one pass; split over the pool since 2026-11-29, still 262 against 97 ms on poisson3D(64), bench/spd-precond-probe.mjs)${
            path.gpu ? `; on the ${path.label} path Jacobi also keeps the whole iteration on the device, and an f64 matrix's constant diagonal runs as none there${path.chebyshevFused ? ` (chebyshev from ${GPU_CHEBYSHEV_MIN_N} rows)` : ' (chebyshev is taken where A runs as DIA in f64 there, its steps fused into the SpMV)'}` : ''
          }`,
    );
  } else if (path.triangular) {
    pre = s.hermitian && hpd ? 'ic0' : 'ilu0';
    reasons.push(`preconditioner ${pre}: the ${path.label} path solves triangular systems (level-scheduled), and incomplete factors cut iterations most`);
  } else {
    pre = hpd && s.hermitian ? 'chebyshev' : 'jacobi';
    reasons.push(`preconditioner ${pre}: the ${path.label} path has no triangular solve; ${pre === 'chebyshev' ? 'a Chebyshev polynomial needs only SpMV' : 'Jacobi is a diagonal scaling'}`);
  }
  // MINRES needs a Hermitian positive definite preconditioner: ILU(0) is not Hermitian, Jacobi of a
  // diagonal with negative entries is not definite. After CG's breakdown A is not definite, and IC(0)
  // of it is a shifted factor of some other matrix: dwt_992 (Hermitian, positive diagonal, indefinite)
  // took MINRES 1227 iterations with it, 449 with Jacobi (≈ 500 against 70 ms)
  const given = o.preconditioner !== undefined && o.preconditioner !== 'auto';
  const forMethod = (m: SolveMethod): PreconditionerKind => {
    if (given || m !== 'minres') return pre;
    if (pre === 'ilu0' || pre === 'chebyshev' || pre === 'jacobi' || pre === 'ic0') return s.positiveDiagonal ? 'jacobi' : 'none';
    return pre;
  };
  if (!given && pre === 'ic0' && methods.includes('minres')) reasons.push('minres after a CG breakdown takes jacobi, not ic0: A is then not definite, and IC(0) presumes it is');
  return { candidates: methods.map((m) => ({ method: m, preconditioner: forMethod(m), ...(bound ? { maxIter: bound } : {}) })), reasons };
}

/**
 * Why 'auto' takes BiCGSTAB with the block-triangular saddle preconditioner for a nonsymmetric saddle
 * point: rt.solve to 1e-8 on stokes2D(n, { wind: [10, 10] }), 2 threads, medians of 3, SciPy in the same
 * run (bench/saddle-probe.mjs; bench/device/results-2026-11-29-twenty-fifth/cpu2/oseen-probe.log). GMRES(30)
 * with it took 3 912 iterations on 4 719 unknowns (a scratch run), GMRES(200) 79–103 on 4 719–107 919.
 */
const SADDLE_NONSYMMETRIC_MEASURED =
  'the Oseen equations stokes2D(n, { wind: [10, 10] }) on 2 threads: 36 079 unknowns 102 iterations, 204 ms, against 1 539 ms before (GMRES(30) + ILU(0) stagnated, then LU) and SciPy spsolve 385 ms; 107 919: 108 it, 489 ms against 7 839 and 2 409 ms; 269 399: 109 it, 1.5 s against 45.3 and 12.8 s';

/** 'auto''s iterations for BiCGSTAB + saddle on a nonsymmetric saddle point before the factorization (SolveCandidate.maxIter). */
export const SADDLE_NONSYMMETRIC_MAX_ITER = 400;

/**
 * Why 'auto' takes BiCGSTAB first for a diagonally dominant nonsymmetric A with a positive diagonal: rt.solve
 * to 1e-8, both with 'auto''s ILU(0), medians of 3 (2026-11-29, twentieth session; bench/nonsymmetric-probe.mjs,
 * bench/device/nonsymmetric.ts; logs in bench/device/results-2026-11-29-twentieth/lead). On west0479 and
 * rajat01 (zero diagonals, not dominant) BiCGSTAB + ILU(0) ended 'nan' and 'breakdown' where GMRES(30) +
 * ILU(0) came within rounding of tol: those keep GMRES first.
 */
const BICGSTAB_MEASURED =
  "BiCGSTAB against GMRES(30) on upwind convection–diffusion, 2 threads: 3-D 262 144 rows 322 against 722 ms, 2-D 65 536 rows 173 against 508 ms, 2-D 262 144 rows 982 against 1 677 ms; on random dominant matrices of 100 000–200 000 rows 96–170 against 102–177 ms; WebGPU on an H200: 3-D 2 097 152 rows 1.8–2.5 s against 5.5 s, 2-D 262 144 rows 0.46–0.73 s against 2.4 s";

/**
 * Why 'auto' preconditions a symmetric saddle point with 'saddle': MINRES on stokes2D, 2 threads, to 1e-8
 * (bench/saddle-probe.mjs, bench/device/results-2026-11-29-twenty-fourth/cpu2/saddle-probe.log).
 */
const SADDLE_MEASURED =
  'MINRES on stokes2D, 2 threads: 19 039 unknowns 95 iterations, 58 ms, against 1 450 and 181 ms with none; 67 199: 108 it, 169 ms against 3 316 and 1 103 ms; 269 399: 119 it, 0.69 s against 8 948 and 11.7 s, SciPy spsolve 14.1 s';

/**
 * The pseudo-diameter from which 'auto' takes AMG over Jacobi for a Laplacian-like matrix that amgPays
 * accepts: Jacobi-CG's time grows as n·diameter, AMG's (setup and cycles) as n. rt.solve's process CPU
 * time on 2 threads (2026-11-26, the pooled SpGEMM setup and level-sized cycle, load 12), Jacobi
 * against AMG: poisson3D(64) (diameter 189) 0.64–0.78 s against 1.16–1.40 s, poisson3D(80) (237)
 * 1.31–1.49 against 2.11, poisson3D(100) (297) 3.7 against 4.6, poisson3D(128) (381) 10.7 against 9.8;
 * poisson2D(256) (510) 0.30–0.35 against 0.22–0.25, poisson2D(512) (1022) 1.51 against 0.64. The
 * per-unknown costs put the crossing at 350 (3-D) to 360–430 (2-D).
 */
export const AMG_MIN_DIAMETER = 350;

/**
 * The same threshold on a GPU path, where Jacobi-CG keeps its whole iteration on the device and AMG's
 * setup and first upload of the hierarchy run on the host. Measured on an H100 (WebGPU, Dawn, setup on
 * 16 threads; bench/device/amg-auto.ts, 2026-11-26), rt.solve with Jacobi against AMG: poisson3D(128)
 * (diameter 381) 4.9 s against 10.0 s, poisson2D(1024) (2046) 2.6 s against 4.4 s. Jacobi's resident
 * iterations cost ≈ 1.6–1.8·10⁻¹⁰ s per unknown and unit of diameter (0.4 ms an iteration at 2 M
 * rows), AMG ≈ 2.0–2.5 µs per unknown more than the fixed costs both pay: they cross near a diameter
 * of 11 000–16 000, far past both matrices; 10 000 keeps AMG where in doubt.
 */
export const AMG_MIN_DIAMETER_GPU = 10000;
/**
 * From this many rows 'auto' takes Chebyshev over Jacobi where PathSolveInfo.chebyshevFused: a win at
 * 2 M rows, a tie at 262 144 (GPU_CHEBYSHEV_MEASURED), not measured between
 */
export const GPU_CHEBYSHEV_MIN_N = 1 << 20;
const GPU_CHEBYSHEV_MEASURED =
  "rt.solve's repeated solve of poisson3D(128), f64, 2 M rows, on an H100: 56.2–58.5 ms with degree-6 Chebyshev (56 iterations) against 67.4 ms with Jacobi (319), CuPy's cg 118.9 ms in the same call; poisson3D(64): 11.6 against 12.4 ms, a tie (bench/device/results-2026-11-27-seventh/gpucheb)";

const AMG_GPU_MEASURED =
  'on an H100, rt.solve with Jacobi against AMG: poisson3D(128), diameter 381, 4.9 s against 10.0 s; poisson2D(1024), 2046, 2.6 s against 4.4 s; the two cross near a diameter of 11 000';

/** What 'auto' weighs a factorization by: the symbolic phase's estimate (rt.estimateFactorCost). */
export interface DirectEstimate {
  /** entries of the factor */
  fillNnz: number;
  /** flops of the numeric factorization */
  flops: number;
  /** bytes of the factor and its workspace */
  bytes: number;
  /** the fill-reducing ordering it assumes */
  ordering: string;
}

/** The host factorization's rate assumed by 'auto', flop/s: about what the supernodal/up-looking/left-looking kernels reach on one core here (bcsstk13: 5.5e7 flops in ≈0.3 s). */
export const FACTOR_FLOP_RATE = 2e8;
/** The Krylov iteration's rate assumed by 'auto', flop/s (SpMV and triangular solves on the path), and its fixed cost per iteration in ms (dots, synchronisation). */
export const KRYLOV_FLOP_RATE = 1e9;
export const KRYLOV_ITERATION_MS = 0.05;

/** Whether a factor of `bytes` leaves 'auto' room to work: at most half the memory budget (one solve's rule, the rent-or-buy rule's, the fallback's after the Krylov candidates). */
export function factorFitsBudget(bytes: number, budgetBytes: number): boolean {
  return bytes <= budgetBytes / 2;
}

/**
 * Whether 'auto' factorizes: the estimated factor time (flops / FACTOR_FLOP_RATE) against the estimated
 * Krylov time, min(n, 20·√n) iterations — a pessimistic guess on purpose: the matrices a Krylov method
 * struggles with (bcsstk13, west0479) are the small ill-conditioned ones a factorization solves at
 * once — of KRYLOV_ITERATION_MS plus 4·nnz + 12·n flops (SpMV, preconditioner, vector updates; ×4
 * complex) at KRYLOV_FLOP_RATE; and the factor's bytes within half the memory budget.
 */
export function chooseDirect(est: DirectEstimate, n: number, nnz: number, complex: boolean, budgetBytes: number): { direct: boolean; reason: () => string } {
  const factorMs = (est.flops / FACTOR_FLOP_RATE) * 1e3;
  const iterations = Math.min(n, 20 * Math.sqrt(n));
  const krylovMs = iterations * (KRYLOV_ITERATION_MS + (((complex ? 4 : 1) * (4 * nnz + 12 * n)) / KRYLOV_FLOP_RATE) * 1e3);
  // the reason is words for explain('solve'): written when asked (its numbers' formatting was ≈ 10% of t1's rt.solve;
  // a getter instead kept each solve's plan through V8's young-generation collections)
  const what = (): string => `fill ${est.fillNnz} entries (${(est.bytes / 1048576).toFixed(1)} MiB), ${est.flops.toExponential(2)} flops with ${est.ordering} ordering: ≈ ${factorMs.toFixed(1)} ms at ${FACTOR_FLOP_RATE.toExponential(0)} flop/s against ≈ ${krylovMs.toFixed(1)} ms for ${Math.round(iterations)} Krylov iterations (min(n, 20·√n))`;
  if (!factorFitsBudget(est.bytes, budgetBytes)) return { direct: false, reason: () => `no direct factorization: the factor needs ${(est.bytes / 1048576).toFixed(1)} MiB, more than half the memory budget (${(budgetBytes / 1048576).toFixed(0)} MiB)` };
  if (factorMs > krylovMs) return { direct: false, reason: () => `no direct factorization: ${what()}` };
  return { direct: true, reason: () => `method direct (a sparse factorization on the host CPU, whatever the path): ${what()}` };
}

/**
 * Whether 'auto' weighs a factorization of a matrix above DIRECT_MAX_N unknowns (chooseDirect, as below
 * it): where its first Krylov candidate would be CG with an incomplete Cholesky factor on a path that solves triangular systems (a Chebyshev
 * polynomial on one that does not: the same matrices) — a Hermitian positive definite matrix neither
 * diagonally dominant (Jacobi's case) nor Laplacian-like (AMG's): a stiffness matrix of elasticity or of
 * higher-order elements, whose CG iterations grow with the mesh while a one-level preconditioner divides
 * them by a constant (docs/solvers.md, "Large stiffness matrices"). (A symmetric saddle point's MINRES
 * with the 'saddle' preconditioner does not grow so: not weighed.) Decided from A's structure alone (`gpu`: AMG's threshold on a GPU path), before A is copied
 * to the path. Up to FACTORIZE_ABOVE_CAP_MAX_NNZ stored entries: the orderings run on the calling thread,
 * which no signal interrupts. A factor past half the memory budget, or whose flops cost more than the
 * Krylov estimate (a 3-D mesh's fill), is left for the Krylov candidate as below the cap.
 */
export function factorizeAboveCap(s: SolveStructure, gpu: boolean, spd?: boolean): boolean {
  if (s.n <= DIRECT_MAX_N || s.nnz > FACTORIZE_ABOVE_CAP_MAX_NNZ) return false;
  const [first] = chooseSolve(s, { label: 'any', triangular: true, gpu, chebyshevFused: false }, { spd }).candidates;
  return first.method === 'cg' && first.preconditioner === 'ic0';
}

/**
 * Whether one of `samples` rows spread over A is not diagonally dominant (|aᵢᵢ| < Σ|aᵢⱼ|, j ≠ i): a
 * look at A's rows in O(samples) that tells rt.solve whether factorizeAboveCap may say yes before its
 * structure pass — which, for the Laplacian-like and diagonally dominant matrices it never says yes to,
 * runs faster after A's copy on the path (that copy's uniform diagonals). Only an order of work: the
 * answer is factorizeAboveCap's.
 */
export function sampledRowNotDominant(A: CSRMatrix, samples = 64): boolean {
  const { rows: n, rowPtr, colIdx, values } = A;
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const abs = (k: number) => (c === 1 ? Math.abs(values[k]) : Math.hypot(values[2 * k], values[2 * k + 1]));
  for (let t = 0; t < Math.min(samples, n); t++) {
    const i = Math.floor(((t + 0.5) * n) / Math.min(samples, n));
    let diagonal = 0;
    let off = 0;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      if (colIdx[k] === i) diagonal += abs(k);
      else off += abs(k);
    }
    if (diagonal < off) return true;
  }
  return false;
}

/**
 * The largest matrix (stored entries) factorizeAboveCap plans for: 2^24, about a second of orderings and
 * symbolic analysis on the calling thread (75 ns an entry for elasticity2D(400)'s 5.8 M, 0.43 s, in a
 * scratch run not logged; elasticity2D(200)'s 1.4 M: 91 ms, bench/device/results-2026-11-29-twenty-third/
 * cpu2/factor-threads.log).
 */
export const FACTORIZE_ABOVE_CAP_MAX_NNZ = 1 << 24;

/**
 * Rent or buy, for a matrix 'auto' keeps solving with a Krylov method (a time-stepping loop, its
 * preconditioner kept with A: src/runtime/kept-setup.ts): the factorization one solve did not repay is
 * bought once the solves of A so far would have saved its cost with it — the Krylov solves' time less
 * the factor's solves' — which keeps the loop within twice the better choice's time whatever the number
 * of solves to come (the ski-rental rule). Its cost: the ordering's (planned once the solves reach
 * REPEAT_PLAN_US_PER_NNZ per stored entry, then measured) and the numeric phase's at
 * REPEAT_FACTOR_FLOP_RATE; its solve's, the factor's bytes read at FACTOR_SOLVE_BYTES_PER_MS. Never
 * where a factor's solve saves nothing (a 3-D grid's fill: poisson3D(40)'s 139 MiB factor against
 * 19 ms of CG + Jacobi) or the factor needs more than half the memory budget, as for one solve; and
 * not before REPEAT_MIN_SOLVES Krylov solves (a first solve's set-up alone may outweigh a small
 * factorization: poisson2D(256)'s AMG under load).
 */
export const REPEAT_PLAN_US_PER_NNZ = 0.5;
/** Krylov solves of A before the rule weighs anything: a matrix solved once or twice more is no loop yet. */
export const REPEAT_MIN_SOLVES = 3;
/** The numeric phase's rate the rule assumes, flop/s: 2 threads reached 3.3e9 (poisson2D(512)) and 7e9 (poisson2D(1024)); a margin below. */
export const REPEAT_FACTOR_FLOP_RATE = 1e9;
/** A kept factor's solve, bytes of the factor a ms: 2.8–3.3e6 measured (poisson2D(512): 102 MiB in 31–38 ms; poisson2D(1024): 458 MiB in 144–157 ms; bench/repeat.ts's method 'direct' loops). */
export const FACTOR_SOLVE_BYTES_PER_MS = 2.5e6;

/** The Krylov solves' ms after which the rule plans A's ordering (nnz stored entries). */
export function planAgainAfterMs(nnz: number): number {
  return (REPEAT_PLAN_US_PER_NNZ * nnz) / 1e3;
}

/** Whether A's Krylov solves so far (their count and ms) are enough for the rule to plan A's ordering (planAgainAfterMs). */
export function planAgain(nnz: number, solves: number, spentMs: number): boolean {
  return solves >= REPEAT_MIN_SOLVES && spentMs >= planAgainAfterMs(nnz);
}

/** What the rule weighs: the estimate, the ordering's measured ms, and the Krylov solves of A so far (their count and wall ms). */
export function chooseDirectAgain(est: DirectEstimate, planMs: number, solves: number, spentMs: number, budgetBytes: number): { direct: boolean | 'never'; reason: () => string } {
  const buyMs = planMs + (est.flops / REPEAT_FACTOR_FLOP_RATE) * 1e3;
  const solveMs = est.bytes / FACTOR_SOLVE_BYTES_PER_MS;
  const eachMs = spentMs / solves;
  const savedMs = spentMs - solves * solveMs;
  const head = `after ${solves} Krylov solve${solves > 1 ? 's' : ''} of A (${spentMs.toFixed(0)} ms): `;
  if (!factorFitsBudget(est.bytes, budgetBytes)) return { direct: 'never', reason: () => `${head}no factorization for the solves to come: the factor needs ${(est.bytes / 1048576).toFixed(1)} MiB, more than half the memory budget` };
  const what = `a factorization (${planMs.toFixed(0)} ms of ordering, ${est.flops.toExponential(2)} flops at ${REPEAT_FACTOR_FLOP_RATE.toExponential(0)} flop/s: ≈ ${buyMs.toFixed(0)} ms), its solves ≈ ${solveMs.toFixed(1)} ms (${(est.bytes / 1048576).toFixed(1)} MiB at ${(FACTOR_SOLVE_BYTES_PER_MS / 1e6).toFixed(1)} GB/s) against ≈ ${eachMs.toFixed(1)} ms a Krylov solve`;
  if (solveMs >= eachMs) return { direct: 'never', reason: () => `${head}${what}: never bought (its solve saves nothing)` };
  if (savedMs < buyMs) return { direct: false, reason: () => `${head}${what}: bought once the solves so far would have saved its cost with it (rent or buy; ≈ ${savedMs.toFixed(0)} ms now)` };
  return { direct: true, reason: () => `method direct, ${head}${what}: bought, the solves so far would have saved its cost with it (rent or buy; its factor kept with A)` };
}

/** √(‖A‖₁·‖A‖∞) (a bound on ‖|A|‖₂), the longest row and √(longest row · longest column), once per matrix. */
const ABS_NORMS = new WeakMap<CSRMatrix, { abs2: number; maxRow: number; pattern2: number }>();

/**
 * A's ABS_NORMS, computed on first use. A complex entry counts as |re| + |im| (≥ its modulus, so the
 * bounds stay bounds, and F.solve's ‖A‖∞ counts it so): Math.hypot per entry took ≈ 0.8 ms of qc324's
 * 5 ms direct solve.
 */
function absNorms(A: CSRMatrix): { abs2: number; maxRow: number; pattern2: number } {
  let n = ABS_NORMS.get(A);
  if (n) return n;
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const colSums = new Float64Array(A.cols);
  const colCounts = new Int32Array(A.cols);
  let rowMax = 0;
  let maxRow = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const a = c === 1 ? Math.abs(A.values[k]) : Math.abs(A.values[2 * k]) + Math.abs(A.values[2 * k + 1]);
      s += a;
      colSums[A.colIdx[k]] += a;
      colCounts[A.colIdx[k]]++;
    }
    rowMax = Math.max(rowMax, s);
    maxRow = Math.max(maxRow, A.rowPtr[i + 1] - A.rowPtr[i]);
  }
  let colMax = 0;
  let maxCol = 0;
  for (let j = 0; j < A.cols; j++) {
    colMax = Math.max(colMax, colSums[j]);
    maxCol = Math.max(maxCol, colCounts[j]);
  }
  n = { abs2: Math.sqrt(rowMax * colMax), maxRow, pattern2: Math.sqrt(maxRow * maxCol) };
  ABS_NORMS.set(A, n);
  return n;
}

/**
 * Seeds A's ABS_NORMS for a symmetric A (the caller's guarantee: equal values in both triangles) from
 * `rowMax`, the largest Σ|aᵢⱼ| summed along a row in order: a symmetric A's column sums, in absNorms's
 * order, are the same sums, so these are absNorms's values bit for bit, without its pass over A
 * (rt.solve's direct answer takes the factorization's ‖A‖∞: ≈ 0.3–0.5 ms of each of 494_bus's first calls).
 */
export function seedSymmetricAbsNorms(A: CSRMatrix, rowMax: number): void {
  if (ABS_NORMS.has(A)) return;
  const maxRow = longestRow(A);
  ABS_NORMS.set(A, { abs2: Math.sqrt(rowMax * rowMax), maxRow, pattern2: Math.sqrt(maxRow * maxRow) });
}

/**
 * A bound on the rounding of ‖b − A·x‖₂ computed in plain f64 (the rounding of residualRounding with
 * f64's unit roundoff): where it is above the target, that residual certifies nothing.
 */
export function f64ResidualBound(A: CSRMatrix, x: Float64Array, bnorm: number): number {
  const n = absNorms(A);
  return (n.maxRow + 2) * 2 ** -53 * (bnorm + n.abs2 * hostNorm(x));
}

/**
 * v + 2⁻¹⁰⁷⁴ (v ≥ 0) without the addition where it changes nothing: from 2⁻¹⁰²⁰ up, 2⁻¹⁰⁷⁴ is below half
 * an ulp of v and the sum rounds to v. The same bits; an operation on a subnormal costs a microcode
 * assist on x86 (west0479's row-wise bound: 20–30 → 16–20 µs).
 */
function withUnderflow(v: number): number {
  return v >= 2 ** -1020 ? v : v + 2 ** -1074;
}

/**
 * A bound on the rounding of ‖b − A·x‖₂ computed in plain f64 along A's rows (F.solve's residual):
 * f64ResidualBound where A's norms are at hand (a symmetric A's, seeded from the factor) and it is at
 * most `enough`; else the row-wise bound, one pass over A: row i's computed rᵢ is off by at most
 * (c·kᵢ + 2)·u·wᵢ with wᵢ = |bᵢ| + Σⱼ|aᵢⱼ|·|xⱼ| (kᵢ entries; |re| + |im| for complex, c = 2, whose
 * modulus takes √2 < 2 of a part's error), plus what underflow adds (2⁻¹⁰⁷⁴ an operation), 1.01 for
 * the γ's 1/(1 − k·u) and this sum's own rounding. Where x's large entries meet small rows it is far
 * tighter than the norm-wise bound (west0479: 3.3e-10 against 9.3e-6 of ‖b‖, whose excess sent every
 * direct solve through accurateResidualNorm). `rowwise`: the row-wise bound where already known.
 */
export function directResidualBound(A: Pick<CSRMatrix, 'rows' | 'rowPtr' | 'colIdx' | 'values' | 'dtype'>, x: Float64Array, b: Float64Array, bnorm: number, enough: number, rowwise?: () => number | undefined): number {
  if (ABS_NORMS.has(A as CSRMatrix)) {
    const normwise = f64ResidualBound(A as CSRMatrix, x, bnorm);
    if (normwise <= enough) return normwise;
  }
  // the row-wise bound already summed (F.solve's pass, for these A, x and b: Factorization.rowwiseBound)
  const known = rowwise?.();
  if (known !== undefined) return known;
  const { rows, rowPtr, colIdx, values } = A;
  const complex = A.dtype === 'c64' || A.dtype === 'c128';
  const w = new Float64Array(rows);
  if (complex) {
    for (let i = 0; i < rows; i++) {
      let s = Math.abs(b[2 * i]) + Math.abs(b[2 * i + 1]);
      for (let k = rowPtr[i], end = rowPtr[i + 1]; k < end; k++) {
        const j = colIdx[k];
        s += (Math.abs(values[2 * k]) + Math.abs(values[2 * k + 1])) * (Math.abs(x[2 * j]) + Math.abs(x[2 * j + 1]));
      }
      w[i] = s;
    }
  } else {
    for (let i = 0; i < rows; i++) {
      let s = Math.abs(b[i]);
      for (let k = rowPtr[i], end = rowPtr[i + 1]; k < end; k++) s += Math.abs(values[k]) * Math.abs(x[colIdx[k]]);
      w[i] = s;
    }
  }
  return rowwiseResidualBound(rowPtr, w, complex);
}

/**
 * directResidualBound's row-wise bound from the rows' wᵢ = |bᵢ| + Σⱼ|aᵢⱼ|·|xⱼ| (|re| + |im| for complex),
 * in that order: F.solve's residual pass (assembly/residual.ts, factor.ts) sums them as it goes where
 * its latest solve needed them, so its bound costs no pass over A. Overwrites w with each row's error bound.
 */
export function rowwiseResidualBound(rowPtr: ArrayLike<number>, w: Float64Array, complex: boolean): number {
  const rows = w.length;
  if (complex) {
    for (let i = 0; i < rows; i++) w[i] = 2 * (2 * (rowPtr[i + 1] - rowPtr[i]) + 2) * withUnderflow(2 ** -53 * w[i]);
  } else {
    for (let i = 0; i < rows; i++) w[i] = (rowPtr[i + 1] - rowPtr[i] + 2) * withUnderflow(2 ** -53 * w[i]);
  }
  return 1.01 * hostNorm(w);
}

/**
 * A bound on the rounding in ‖r‖ of a path refinement's r = b − A·x: per row at most
 * (row length + 2)·R.roundoff·(|bᵢ| + Σⱼ|aᵢⱼ||xⱼ|) (each product and sum, and the rounding of b and x
 * themselves), so ‖error‖₂ ≤ (max row + 2)·R.roundoff·(‖b‖ + √(‖A‖₁‖A‖∞)·‖x‖); plus, where the path
 * flushes tiny values (R.underflow: double-single's lo words below f32's least normal number are 0 on
 * a GPU), an absolute error of R.underflow in each value of A, b and x and each product and sum:
 * ≤ R.underflow·((max row + 3)·√n + √(max row · max column)·‖x‖ + √(‖A‖₁‖A‖∞)·√n).
 * `roundoff` false: the flushed part alone.
 */
export function residualRounding<V>(A: CSRMatrix, R: PathRefinement<V>, x: Float64Array, roundoff = true, xnorm?: number): number {
  // a path whose residual is plain f64 (the CPU's) has no bound to add: no pass over A for its norms
  if (!(roundoff && R.roundoff > 0) && !((R.underflow ?? 0) > 0)) return 0;
  const n = absNorms(A);
  xnorm ??= hostNorm(x);
  const rounding = roundoff ? (n.maxRow + 2) * R.roundoff * (R.bnorm + n.abs2 * xnorm) : 0;
  return rounding + flushed(A, n, R.underflow ?? 0, xnorm);
}

/** residualRounding's flushed part for norms n (exact or looser) of A. */
function flushed(A: CSRMatrix, n: { abs2: number; maxRow: number; pattern2: number }, u: number, xnorm: number): number {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  return u > 0 ? c * u * ((n.maxRow + 3 + n.abs2) * Math.sqrt(A.rows) + n.pattern2 * xnorm) : 0;
}

/**
 * Whether rnorm + residualRounding(A, R, x, false) ≤ target, deciding first, for a matrix whose
 * ABS_NORMS are not made yet, with looseAbsNorms' bounds (above them): the flushed part is tiny at
 * normal scales, so the exact norms' scatter over A's columns (≈ 230 ms for 2 M rows on the H100
 * machine's host, a first solve's) is needed only where the loose bound does not meet the target.
 */
export function flushedWithin<V>(A: CSRMatrix, R: PathRefinement<V>, x: Float64Array, rnorm: number, target: number, pathXnorm?: number): boolean {
  const u = R.underflow ?? 0;
  if (!(u > 0)) return rnorm <= target;
  const xnorm = pathXnorm ?? hostNorm(x);
  if (!ABS_NORMS.has(A) && rnorm + flushed(A, looseNormsOf(A), u, xnorm) <= target) return true;
  return rnorm + residualRounding(A, R, x, false, xnorm) <= target;
}

/** looseAbsNorms of a matrix, once per matrix (a repeated solve makes neither pass again). */
const LOOSE_NORMS = new WeakMap<CSRMatrix, LooseNorms>();

/**
 * looseAbsNorms(A), made once per matrix: flushedWithin's bounds, and the largest |aᵢⱼ| by which rt.solve
 * scales A for a GPU path (one pass over A's values serves both).
 */
export function looseNormsOf(A: CSRMatrix): LooseNorms {
  let loose = LOOSE_NORMS.get(A);
  if (!loose) LOOSE_NORMS.set(A, (loose = looseAbsNorms(A)));
  return loose;
}

/** B = 2^e·A (the same pattern, its values scaled exactly): its loose norms are A's scaled, with no pass over B. */
export function seedScaledLooseNorms(B: CSRMatrix, A: CSRMatrix, e: number): void {
  const a = looseNormsOf(A);
  const [abs2, maxAbs, maxRowSum] = scaleBy(Float64Array.of(a.abs2, a.maxAbs, a.maxRowSum), e);
  LOOSE_NORMS.set(B, { ...a, abs2, maxAbs, maxRowSum });
}

/** looseAbsNorms' bounds, the largest |aᵢⱼ| they come from (|re| and |im| apart for complex; NaN where A holds NaN), and an upper bound of the largest row sum Σⱼ|aᵢⱼ|. */
type LooseNorms = { abs2: number; maxRow: number; pattern2: number; maxAbs: number; maxRowSum: number };

/**
 * Upper bounds of absNorms(A) from sequential passes alone (no column sums): a row sum is at most the
 * longest row times the largest |aᵢⱼ| (|re| + |im| for complex), a column sum at most rows times it;
 * √(longest row · longest column) ≤ √(longest row · rows). 1.01: the rounding of absNorms' own sums.
 */
export function looseAbsNorms(A: CSRMatrix): LooseNorms {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  // a runtime-private CSR's format features from the same walk, where no pass made them yet (a GPU
  // path's first solve: the format choice's scan follows, 50 ms of poisson3D(128)'s on the H200 host)
  if (c === 1 && isPrivateCanonical(A)) {
    const scan = knownScan(A);
    if (!scan) return looseAbsNormsScanning(A);
    // an 'auto' upload's validation pass found them (src/formats/diagonal-scan.ts validateCanonicalScanning)
    if (scan.abs) return looseOf(A, 1, scan.maxRow, scan.abs.maxAbs, scan.abs.maxRowSum, scan.abs.nan);
  }
  const { rows, rowPtr, values } = A;
  let maxRow = 0;
  let maxAbs = 0;
  let maxRowSum = 0;
  let nan = false;
  for (let i = 0; i < rows; i++) {
    maxRow = Math.max(maxRow, rowPtr[i + 1] - rowPtr[i]);
    let sum = 0;
    for (let k = c * rowPtr[i], end = c * rowPtr[i + 1]; k < end; k++) {
      const a = Math.abs(values[k]);
      sum += a;
      if (a > maxAbs) maxAbs = a;
      else if (a !== a) nan = true;
    }
    if (sum > maxRowSum) maxRowSum = sum;
  }
  return looseOf(A, c, maxRow, maxAbs, maxRowSum, nan);
}

/** looseAbsNorms of a real A with, in the same pass, the format features' scan (src/runtime/features.ts scan: diagonals marked, row lengths), kept for A. */
function looseAbsNormsScanning(A: CSRMatrix): LooseNorms {
  const { rows, rowPtr, colIdx, values } = A;
  const seen = diagonalMarks(rows, A.cols);
  const found: number[] = [];
  let diagonals = 0;
  let sumSq = 0;
  let maxRow = 0;
  let maxAbs = 0;
  let maxRowSum = 0;
  let nan = false;
  let end = rowPtr[0];
  for (let i = 0; i < rows; i++) {
    const start = end;
    end = rowPtr[i + 1];
    const len = end - start;
    if (len > maxRow) maxRow = len;
    sumSq += len * len;
    const base = rows - 1 - i;
    let sum = 0;
    for (let k = start; k < end; k++) {
      const d = colIdx[k] + base;
      if (!seen[d]) {
        seen[d] = 1;
        if (++diagonals <= DIA_MAX_DIAGONALS) found.push(d);
      }
      const a = Math.abs(values[k]);
      sum += a;
      if (a > maxAbs) maxAbs = a;
      else if (a !== a) nan = true;
    }
    if (sum > maxRowSum) maxRowSum = sum;
  }
  finishScan(A, seen.length, found, { diagonals, maxRow, sumSq }, true);
  return looseOf(A, 1, maxRow, maxAbs, maxRowSum, nan);
}

/** looseAbsNorms' bounds from its pass's findings. */
function looseOf(A: CSRMatrix, c: number, maxRow: number, maxAbs: number, maxRowSum: number, nan: boolean): LooseNorms {
  // NaN in A: absNorms' abs2 is NaN, and so is this one (the caller's comparison then fails either way)
  if (nan) maxAbs = maxRowSum = NaN;
  const pattern2 = Math.sqrt(maxRow * A.rows);
  return { abs2: 1.01 * c * maxAbs * pattern2, maxRow, pattern2, maxAbs, maxRowSum: 1.01 * maxRowSum };
}

/**
 * A bound on the rounding of ‖b − A·x‖₂ computed in plain f64 without A's column sums: row i's error is
 * at most (c·kᵢ + 2)·u·(|bᵢ| + Σⱼ|aᵢⱼ|·|xⱼ|) (directResidualBound's), and ‖|b| + |A|·|x|‖₂ ≤ c·‖b‖ +
 * √n·maxᵢ Σⱼ|aᵢⱼ|·max|xⱼ| — looseNormsOf's row sums (once per matrix) and one pass over x; 2⁻¹⁰⁷⁴ an
 * operation for what underflows. Near absNorms' bound on a stencil (poisson3D(128), b = 1: ≈ 1e-11 of
 * ‖b‖), far above it where x or A spans many orders of magnitude: there certified() looks closer.
 */
export function rowSumResidualBound(A: CSRMatrix, x: Float64Array, bnorm: number, largest?: (x: Float64Array) => number): number {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  let xmax = 0;
  // (`largest`: max |xⱼ| of a real x, or a bound of it, where it is known: src/largest-component.ts)
  if (c === 1 && largest) xmax = largest(x);
  else if (c === 1) for (let i = 0; i < x.length; i++) xmax = Math.max(xmax, Math.abs(x[i]));
  else for (let i = 0; i < x.length; i += 2) xmax = Math.max(xmax, Math.abs(x[i]) + Math.abs(x[i + 1]));
  return rowSumBound(A, xmax, bnorm);
}

/** rowSumResidualBound from `xmax`, max |xⱼ| (|re| + |im| for complex) or a bound of it, where x itself is not at hand (PathRefinement.xmax). */
export function rowSumBound(A: CSRMatrix, xmax: number, bnorm: number): number {
  const n = looseNormsOf(A);
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const root = Math.sqrt(A.rows);
  return 1.01 * c * (c * n.maxRow + 2) * (2 ** -53 * (c * bnorm + root * n.maxRowSum * xmax) + root * 2 ** -1074);
}

/** What explain('solve', A) says: the path, method and preconditioner rt.solve would run, and why. */
export interface SolveExplanation {
  /** the operation explained */
  op: 'solve';
  /** the path the solve runs on */
  path: PathId;
  /** the method it runs first ('direct': a sparse factorization on the host, the Krylov candidates after a singular factor) */
  method: SolveMethod | 'direct';
  /** the preconditioner it runs first */
  preconditioner: PreconditionerKind;
  /** the candidates a breakdown (or a singular factor) moves to, in order */
  fallbacks: SolveCandidate[];
  /** the factorization's estimate from its symbolic phase, when 'auto' or 'direct' planned one */
  direct?: DirectEstimate;
  /** the matrix's symmetry and diagonal behind the choice */
  structure: SolveStructure;
  /** the choice in words */
  reasons: string[];
  /** where a Krylov solve runs a copy of A scaled by 2^matrixExponent (SolveOutcome's) */
  matrixExponent?: number;
  /** all of it as lines, PETSc -ksp_view style */
  text: string;
}
