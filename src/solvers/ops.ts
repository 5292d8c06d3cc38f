import type { CSRMatrix } from '../formats/csr.js';
import type { DIAMatrix } from '../formats/dia.js';

/**
 * What a Krylov solver needs from an execution path. The runtime implements it for the CPU path
 * (and the GPU path), so each solver is written once. Vectors are opaque handles resident on that
 * path; only scalars (dot products, norms) come back to the caller, so on the GPU the iteration never
 * reads a vector back.
 */
export interface SolverOps<V> {
  /** length of the solve's vectors (rows of the square matrix) */
  readonly n: number;
  /** whether the dtype is complex (dot products are then conjugated in x) */
  readonly complex: boolean;
  /**
   * A zero vector of `length` elements (default n). The BLAS-1 operations work on vectors of any one
   * length, so a multigrid cycle keeps each level's vectors at the level's size; spmv needs length n.
   */
  vector(length?: number): V;
  /** y ← α·A·x + β·y */
  spmv(x: V, y: V, alpha: number, beta: number): Promise<void>;
  /** y ← α·x + y */
  axpy(alpha: [number, number], x: V, y: V): Promise<void>;
  /** y ← α·y + x */
  aypx(alpha: [number, number], x: V, y: V): Promise<void>;
  /** y ← x */
  copy(x: V, y: V): Promise<void>;
  /** x ← α·x */
  scal(alpha: [number, number], x: V): Promise<void>;
  /** Σ conj(xᵢ)·yᵢ as [re, im] */
  dot(x: V, y: V): Promise<[number, number]>;
  /** ‖x‖₂ */
  nrm2(x: V): Promise<number>;
  /** z ← M⁻¹·r for the preconditioner in use; absent when there is none (z is then r itself) */
  precondition?(r: V, z: V): Promise<void>;
  /**
   * c > 0 where `precondition` is z ← c·r (a uniform Jacobi D⁻¹, a constant-coefficient stencil's
   * diagonal): CG with it is CG without it, its directions scaled by c (solve.ts reliableCg runs its f32
   * steps so). Absent otherwise.
   */
  readonly preconditionScale?: number;
  /**
   * Optional fused CG step: x ← x + α·p, r ← r − α·q, returning ‖r‖², in one pass. Paths provide it
   * where it measurably beats the three separate operations.
   */
  cgUpdate?(alpha: number, p: V, q: V, x: V, r: V): Promise<number>;
  /**
   * Optional fused CG direction step: p ← z + β·p, returning Re(pᴴq), in one pass. cg() then forms
   * q = A·p as q ← A·z + β·q (one SpMV with β, by linearity), so an iteration needs neither an aypx
   * nor a separate dot.
   */
  cgDirection?(beta: number, z: V, p: V, q: V): Promise<number>;
  /**
   * Optional: the SpMV and cgDirection in one call, q ← A·z + β·q then p ← z + β·p, returning
   * Re(pᴴq): the same values as the two (the CPU path's f64 DIA matrices, one pool call fewer).
   */
  cgProductDirection?(beta: number, z: V, p: V, q: V): Promise<number>;
  /**
   * Optional, with cgProductDirection and cgUpdatePrecondition (or without a preconditioner: z is r,
   * and rᴴz is ‖r‖²): the same steps with x's update moved
   * from the update to the next product call, which reads p anyway — `product` makes x ← x + α·p
   * (α of the previous update, 0: none) before p ← z + β·p, and `update` makes r, z, ‖r‖² and rᴴz
   * without reading x or p. The same values; cg() folds the last α·p into x when it stops. Both take
   * r, z = M⁻¹·r as a pair that only these calls change after cg() made z: a uniform Jacobi's z = c·r
   * is then read as r scaled (the CPU's f64 DIA kernels), and `update` need not store it.
   */
  cgDeferredX?: {
    product(beta: number, z: V, p: V, q: V, x: V, alpha: number, r: V): Promise<number>;
    update(alpha: number, q: V, r: V, z: V): Promise<[number, number]>;
  };
  /**
   * Optional CG direction step and product in one pass: pNew ← z + β·pOld, q ← A·pNew, returning
   * Re(pNewᴴq). pOld is only read, so the rows need no barrier between the two; cg() swaps the two
   * direction buffers each iteration. q is A·p itself (no drift in f32, unlike cgDirection's q).
   */
  cgDirectionProduct?(beta: number, z: V, pOld: V, pNew: V, q: V): Promise<number>;
  /**
   * Optional fused CG update with the path's own Jacobi preconditioner (present only where the ops
   * were made with it): x ← x + α·p, r ← r − α·q, z ← D⁻¹·r, returning [‖r‖², Re(rᴴz)], in one pass.
   */
  cgUpdatePrecondition?(alpha: number, p: V, q: V, x: V, r: V, z: V): Promise<[number, number]>;
  /**
   * Optional: runs `steps` in order in one call where the path can now (the CPU path: a small system
   * with nothing else in flight, on the calling thread), with the values the separate operations give;
   * returns each dot's [re, im] and each nrm2's [‖x‖, 0], in order. `ops`: the operations the solver
   * holds, whose preconditioner may be another than the path's own. Undefined where it cannot (or `ops`
   * replaced the path's spmv): sequence() then runs the steps one by one. Solvers call sequence(), not this.
   */
  sequence?(steps: readonly SolverStep<V>[], ops: SolverOps<V>): Promise<[number, number][]> | undefined;
  /**
   * Optional: sequence's results synchronously, where the path runs the steps at once (the CPU path:
   * as sequence, but never around a preconditioner other than its own); undefined, with nothing run,
   * otherwise. Solvers call sequenceNow(), not this.
   */
  sequenceNow?(steps: readonly SolverStep<V>[], ops: SolverOps<V>): [number, number][] | undefined;
  /**
   * Optional (the CPU pool): a pass of GMRES's classical Gram–Schmidt over the Krylov
   * vectors V and w in one pass over them: where `coeffs` is given, w ← w − Σᵢ coeffsᵢ·V[i] (the same
   * values as an axpy of −coeffsᵢ per vector, in order); then, for 'dots', each V[i]ᴴ·w of the new w
   * (dot's, summed in another order), for 'squares' [Σ|wᵢ|², 0] (in f64, unscaled: ‖w‖ where it is in
   * range), for 'none' [].
   */
  gramSchmidt?(V: readonly V[], w: V, coeffs: readonly [number, number][] | null, then: 'dots' | 'squares' | 'none'): Promise<[number, number][]>;
  /** frees a vector made by vector() */
  release(v: V): void;
  /** the path's name for messages (e.g. 'WebGL2') */
  readonly label: string;
  /**
   * Makes a host matrix resident as an operator y ← α·M·x + β·y, x of M.cols and y of M.rows elements,
   * through the path's SpMV, in the solve's dtype: what the Jacobi, block-Jacobi and Chebyshev
   * preconditioners apply (n×n), and a multigrid cycle's levels (each level's A and D⁻¹ at its own size,
   * the rectangular R and P between levels). A DIA M (a diagonal) is uploaded as it is, with no CSR
   * layout to choose. `fewProducts`: applied a few times a solve (a multigrid cycle's levels), so a path
   * skips layouts that pay only over many products (the CPU path's cache tiles).
   */
  operator(M: CSRMatrix | DIAMatrix, options?: { fewProducts?: boolean }): ResidentOperator<V>;
  /**
   * Optional: operator() of several matrices at once, where the path uploads them faster together (the
   * WebGPU path streams them through kept staging buffers: a multigrid hierarchy's levels).
   * `transposes[i] = j` (j < i): list[i] is exactly list[j]ᵀ (a level's R = Pᵀ), so a path may copy its
   * values from list[j]'s on the device instead of sending them.
   */
  operators?(list: readonly (CSRMatrix | DIAMatrix)[], options?: { fewProducts?: boolean; transposes?: readonly (number | undefined)[] }): Promise<ResidentOperator<V>[]>;
  /**
   * Optional path-native CG that keeps its scalars on the device and tests convergence every
   * `checkEvery` iterations (the WebGPU path, src/webgpu/cg.ts); cg() uses it when checkEvery > 1.
   */
  cgResident?(b: V, options: SolveOptions<V> & { checkEvery: number }): Promise<SolveResult<V>>;
  /**
   * CG preconditioned by a Chebyshev polynomial in D⁻¹·A (the 'chebyshev' preconditioner's), resident
   * on the device as cgResident is (the WebGPU path); the runtime offers it as cgResident for that preconditioner.
   */
  cgChebyshevResident?(b: V, options: SolveOptions<V> & { checkEvery: number }, poly: ChebyshevPolynomial): Promise<SolveResult<V>>;
  /** whether cgChebyshevResident runs the polynomial's steps in f32 at tolerance tol (CG itself in the matrix's precision: WebGPU, A's values exactly f32, tol not too tight) */
  chebyshevStepsInF32?(poly: ChebyshevPolynomial, tol: number): boolean;
  /** the same for BiCGSTAB (bicgstab() uses it when checkEvery > 1) */
  bicgstabResident?(b: V, options: SolveOptions<V> & { checkEvery: number }): Promise<SolveResult<V>>;
  /** the path's default checkEvery (1 when absent: the host tests every iteration) */
  readonly checkEvery?: number;
  /**
   * Optional: where the path chooses each operation's way by measuring it (the CPU pool's 'auto'
   * dispatch, src/cpu/dispatch.ts), one iteration's operations all run one way, chosen and timed as
   * one (`key`: the method's step); returns the function that ends the step (idempotent). cg() calls it
   * around each iteration's product and update.
   */
  step?(key: string): () => void;
  /**
   * Optional iterative refinement kept on the path (the WebGPU path, src/webgpu/refine.ts): x and
   * r = b − A·x in the path's f64 (double-single on WebGPU), r recomputed from x after each correction
   * — for an f32 / c64 matrix with a wide copy of it — so the solve reads back scalars and, once, x.
   * solveWithTrueResidual uses it where present; undefined where this matrix cannot have it. With
   * `range`, it resolves to undefined (nothing kept, no error) where ‖b‖ as the path computes it is not
   * within [2^-range, 2^range] (withinRange): solveWithTrueResidual then scales b on the host first.
   */
  refinement?(b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<V> | undefined> | undefined;
  /**
   * Makes a sparse triangular factor (host CSR, square, m×m, vectors of m elements; m = n but on a
   * multigrid level) resident on this path for repeated solves
   * (the IC(0)/ILU(0)/SSOR preconditioners). Absent on a path that has no triangular solve: the
   * solver layer then throws an UnsupportedError naming the path.
   */
  triangular?(T: CSRMatrix, options: TriangularOptions): TriangularSolver<V>;
}

/**
 * One operation of a sequence: the SolverOps operation of that name with these arguments (dot
 * conjugates its first vector). 'precondition' is z ← M⁻¹·r, or z ← r where the ops have no preconditioner.
 */
export type SolverStep<V> =
  | readonly ['spmv', V, V, number, number]
  | readonly ['axpy', [number, number], V, V]
  | readonly ['aypx', [number, number], V, V]
  | readonly ['scal', [number, number], V]
  | readonly ['copy', V, V]
  | readonly ['precondition', V, V]
  | readonly ['dot', V, V]
  | readonly ['nrm2', V];

/**
 * Runs `steps` in order: in one call where the path can (SolverOps.sequence), else one operation at a
 * time — the same values either way. Returns each dot's [re, im] and each nrm2's [‖x‖, 0], in order.
 */
export function sequence<V>(ops: SolverOps<V>, steps: readonly SolverStep<V>[]): Promise<[number, number][]> {
  return ops.sequence?.(steps, ops) ?? oneByOne(ops, steps);
}

/**
 * The results of `steps` now, where the path ran them at once (SolverOps.sequenceNow), else undefined
 * with nothing run: a solver writes `sequenceNow(ops, s) ?? (await sequence(ops, s))`, so a small CPU
 * solve's iteration awaits nothing (an await costs a microtask turn, ≈ 0.2 µs on a loaded 2-vCPU VM).
 */
export function sequenceNow<V>(ops: SolverOps<V>, steps: readonly SolverStep<V>[]): [number, number][] | undefined {
  return ops.sequenceNow?.(steps, ops);
}

/** The steps one operation at a time (sequence() where the path has no sequence, or declines). */
export async function oneByOne<V>(ops: SolverOps<V>, steps: readonly SolverStep<V>[]): Promise<[number, number][]> {
  const out: [number, number][] = [];
  for (const s of steps) {
    switch (s[0]) {
      case 'spmv':
        await ops.spmv(s[1], s[2], s[3], s[4]);
        break;
      case 'axpy':
        await ops.axpy(s[1], s[2], s[3]);
        break;
      case 'aypx':
        await ops.aypx(s[1], s[2], s[3]);
        break;
      case 'scal':
        await ops.scal(s[1], s[2]);
        break;
      case 'copy':
        await ops.copy(s[1], s[2]);
        break;
      case 'precondition':
        await (ops.precondition ? ops.precondition(s[1], s[2]) : ops.copy(s[1], s[2]));
        break;
      case 'dot':
        out.push(await ops.dot(s[1], s[2]));
        break;
      case 'nrm2':
        out.push([await ops.nrm2(s[1]), 0]);
        break;
    }
  }
  return out;
}

/**
 * A level schedule of a sparse triangular matrix: each level's rows depend only on rows of earlier
 * levels, so a level's rows can be solved in parallel.
 */
export interface LevelSchedule {
  /** the rows of level l are rows[levelPtr[l] .. levelPtr[l + 1]) */
  readonly levelPtr: Int32Array;
  /** every row once, level by level */
  readonly rows: Int32Array;
}

/** How a triangular factor is to be solved. */
export interface TriangularOptions {
  /** lower (forward substitution) or upper (backward) */
  lower: boolean;
  /** the diagonal is 1 and not stored (ILU(0)'s L) */
  unitDiagonal: boolean;
  /** the factor's level schedule, computed once on the host (triangularOptions: when a path first reads it) */
  levels: LevelSchedule;
}

/** Iterative refinement on a path (SolverOps.refinement): b, x and r = b − A·x stay there, in f64. */
export interface PathRefinement<V> {
  /** ‖b‖, in the path's f64 */
  readonly bnorm: number;
  /** ‖b − A·x0‖ (‖b‖ without x0), in the path's f64 */
  readonly rnorm: number;
  /** the relative rounding of one product or sum in the path's f64 (double-single: 2^-44, with margin), for the residual's rounding bound */
  readonly roundoff: number;
  /** where the path's f64 flushes tiny values to zero: the absolute error that makes in each value (double-single on a GPU: f32's least normal number, 2^-126); absent: none */
  readonly underflow?: number;
  /** the right-hand side of the next correction solve: r in the solve's dtype (the refinement's vector: do not release it) */
  rhs(): V;
  /** x ← x + d and r ← b − A·x in f64, returning ‖r‖; NaN, with x kept as it was, when d is not finite */
  correct(d: V): Promise<number>;
  /** x in f64 (c128-interleaved for complex) */
  read(): Promise<Float64Array>;
  /**
   * An upper bound of ‖x‖ computed on the path, for a path that flushes tiny values (`underflow`): the
   * residual's rounding bound needs it, and the host's pass over x costs more than the path's norm
   * (poisson3D(128) on the H100 machine: ≈ 8 ms of a 97 ms solve). Absent: the host computes ‖x‖.
   */
  xnorm?(): Promise<number>;
  /**
   * Optional: max |xᵢ| of a real x, computed on the path (NaN where x holds ±Inf or NaN): the
   * certificate's first bound needs it (solve.ts rowSumResidualBound), and the host's read of x and
   * pass over it cost more (the CPU pool: 1–3 ms of an f32 + refinement solve of poisson3D(64) at the
   * head's end, on 2 cores).
   */
  xmax?(): Promise<number>;
  /** gives its vectors back */
  dispose(): void;
  /**
   * Optional, for an f32 matrix (the CPU pool's DIA): operations in f64 over the same stored values for
   * CG's first iterations (solve.ts reliableCg), made once; undefined where `precondition` (the solve's)
   * is neither the path's own preconditioner, which they repeat in f64, nor undefined (none).
   */
  wide?(precondition: SolverOps<V>['precondition']): Promise<WideHead<V> | undefined>;
}

/** The f64 operations and vectors of PathRefinement.wide. */
export interface WideHead<V> {
  /** the solve's operations with f64 vectors, A's f32 values widened on load */
  readonly ops: SolverOps<V>;
  /** b, and the answer as it stands (undefined: zero), in f64 for ops */
  readonly b: V;
  readonly x0: V | undefined;
  /** x ← v (an f64 answer of ops) and r ← b − A·x, returning ‖r‖; NaN, with x kept, when v is not finite */
  adopt(v: V): Promise<number>;
  /** v (of ops) rounded to a new vector of the refinement's dtype, to be released by the solve's ops */
  narrow(v: V): V;
}

/** A host matrix resident on a path as an operator (see SolverOps.operator). */
export interface ResidentOperator<V> {
  /** y ← α·M·x + β·y (x and y distinct) */
  apply(x: V, y: V, alpha: number, beta: number): Promise<void>;
  dispose(): void;
}

/** A triangular factor resident on a path. */
export interface TriangularSolver<V> {
  /** x ← T⁻¹·b (x and b distinct) */
  solve(b: V, x: V): Promise<void>;
  /** how this path solves it, for explain: e.g. 'level-scheduled (37 levels)' */
  readonly method: string;
  dispose(): void;
}

/** A Chebyshev polynomial preconditioner p(D⁻¹A)·D⁻¹ of `degree` on the eigenvalue interval [lo, hi] of D⁻¹A. */
export interface ChebyshevPolynomial {
  readonly degree: number;
  readonly lo: number;
  readonly hi: number;
  /** A's inverse diagonal where it is one value (a constant diagonal): a GPU path's fused steps then read no D⁻¹ vector */
  readonly dinv?: number;
}

/** The path's built-in preconditioner: none, or Jacobi (scaling by the inverse of A's diagonal). */
export type Preconditioner = 'none' | 'jacobi';

export interface SolveOptions<V> {
  /** initial guess (default zero) */
  x0?: V;
  /** stop when ‖r‖ ≤ tol·‖b‖ (default 1e-8) */
  tol?: number;
  /** most iterations (default 10·n, at least 100: maxIterOf) */
  maxIter?: number;
  /** called after each iteration with the relative residual; may return a promise */
  onIteration?: (iteration: number, relativeResidual: number) => void | Promise<void>;
  /** stops the solve cleanly between iterations: the result says 'aborted' */
  signal?: AbortSignal;
  /**
   * Read the residual back only every this many iterations, where the path can keep the iteration on
   * its device (WebGPU CG and BiCGSTAB: default 16; elsewhere every iteration is tested whatever this says). The
   * result stays exact: the device stops itself at the converged iteration, and iterations, history
   * and onIteration report every iteration (onIteration runs when its block is read); an abort is
   * seen between blocks. 1 runs the host loop of every path.
   */
  checkEvery?: number;
  /**
   * @internal ‖b‖₂ as the path computes it, where the caller has it already (iterative refinement on the
   * path: its ‖r‖, r being b): a resident solve then reads no norm of b back (one round trip, ≈ 0.4 ms
   * of a 2 M-row WebGPU solve on an H100). Other solves ignore it.
   */
  rhsNorm?: number;
}

/**
 * Why a solve ended. 'stagnated': the iteration's recurrence met the tolerance (or stopped improving)
 * but the true residual ‖b − A·x‖, computed in f64, did not, and refinement could not close the gap.
 */
export type StopReason = 'converged' | 'maxIter' | 'breakdown' | 'nan' | 'aborted' | 'stagnated';

/** A solve's relative tolerance where none is given (SolveOptions.tol). */
export const DEFAULT_TOL = 1e-8;

/** A solve's iteration budget over n unknowns: `maxIter` where given, else 10·n and at least 100. */
export function maxIterOf(maxIter: number | undefined, n: number): number {
  return maxIter ?? Math.max(100, 10 * n);
}

/**
 * Why CG must stop on ρ = rᴴM⁻¹r, or undefined to go on: NaN data is 'nan'; ρ ≤ 0 with r ≠ 0 (an
 * indefinite preconditioner, or rᴴr underflowing) is a 'breakdown', caught before the 0/0 it would
 * cause in β = ρₙₑₓₜ/ρ turns into NaN.
 */
export function stopOnRho(rho: number): StopReason | undefined {
  return Number.isNaN(rho) ? 'nan' : rho > 0 ? undefined : 'breakdown';
}

export interface SolveResult<V> {
  x: V;
  iterations: number;
  /** ‖b − A·x‖ of the last iterate as the recurrence tracks it */
  residualNorm: number;
  /** residualNorm / ‖b‖ */
  relativeResidual: number;
  converged: boolean;
  reason: StopReason;
  /** relative residual after each iteration (entry 0: the initial guess) */
  history: number[];
}
