/**
 * Sparse direct factorizations behind `rt.factor`: Cholesky (LLᵀ, held as LDLᵀ with D > 0), LDLᵀ
 * without pivoting for symmetric indefinite matrices, and LU with threshold partial pivoting. The
 * symbolic phase (ordering, elimination tree, counts) runs once; `refactor` redoes only the numeric
 * phase for a matrix of the same pattern; `solve` takes many right-hand sides and refines each once.
 */
import { longestSpan, type CSRMatrix } from '../../formats/csr.js';
import type { SparseMatrix } from '../../formats/index.js';
import type { DType } from '../../dtype.js';
import { DisposedError, InputRangeError, NotPositiveDefiniteError, ShapeError, SingularMatrixError, UnsupportedError } from '../../errors.js';
import { optionKeys, checkOptions, checkNumber, checkSignal, inRange, NON_NEGATIVE_INTEGER } from '../../options-check.js';
import { throwIfAborted } from '../../next-task.js';
import { vectorData } from '../../vector-data.js';
import { accurateResidualNorm, F64_RHS_RANGE, normFromSquares, rhsExponentOf, scaleBy } from '../../host-spmv.js';
import { directResidualBound, rowwiseResidualBound } from '../solve.js';
import { reserveMemory, withMemoryBudget } from '../../memory-budget.js';
import type { Analysis, OrderingName } from './analysis.js';
import { bandSolve, keepBandRows, solvedInJs } from './band-lu.js';
import { cscOf, isSymmetric, rowsWithValues, type Csc } from './pattern.js';
import { denseLdl, ldlPointers, type LdlFactor, type LdlKernels } from './ldl.js';
import { denseStart, denseWindow, reciprocalDiagonal, type HeldSolve, type LuFactor, type LuKernels } from './lu.js';
import type { FactorCost, SymbolicKernels } from './symbolic.js';
import { Factorization as PublicFactorization } from './factorization.js';
import { nonFiniteEntry, planFactor, planSteps, squareCsr, firstNonFinite, type FactorPlan } from './plan.js';
import { finish, finishPausing, timersTurn, type Steps } from './steps.js';
import { supernodalFrontBytes, supernodalSymbolic, type SupernodalFactor, type SupernodalNumeric, type SupernodalSymbolic } from './supernodal.js';

/** The factorizations: 'auto' takes Cholesky for symmetric matrices with a positive diagonal (falling back to LDLᵀ, then LU), LU otherwise. */
export type FactorKind = 'auto' | 'cholesky' | 'ldlt' | 'lu';

/** Options of {@link Runtime.factor}. */
export interface FactorOptions {
  /** which factorization (default 'auto') */
  kind?: FactorKind;
  /** the fill-reducing ordering (default 'auto': the natural order for a banded matrix (at least half its band stored), else AMD, and nested dissection too from 2000 unknowns, the one with fewer predicted flops (nested dissection alone on a mesh-like graph of 16384 unknowns or more); for LU of a pattern far from symmetric, 'btf' (block triangular form, each diagonal block ordered by AMD) where A has more than one diagonal block, else 'amd-ata'). 'amd-ata' and 'btf' are LU's only: with kind 'auto' they factorize LU, symmetric A too; with 'cholesky' or 'ldlt' an UnsupportedError */
  ordering?: OrderingName | 'auto';
  /** LU: the diagonal is kept as pivot when at least this fraction of the column's largest candidate (default 0.001, as KLU; 0.1 under the orderings 'amd-ata' and 'btf', as UMFPACK's unsymmetric strategy, but 0.01 where 'auto' took 'btf' for a saddle point's one irreducible block; 1 = strict partial pivoting) */
  pivotTolerance?: number;
  /**
   * Stops the factorization: it rejects with `signal.reason` (a DOMException named 'AbortError' unless
   * abort() was given one) and frees what it held. Seen before the work, within the symbolic phase
   * (which gives the event loop a turn every few milliseconds: a kernel call such as AMD's elimination
   * runs to its end first), between the symbolic and numeric phases, between the kinds 'auto' tries,
   * and between the supernodal Cholesky's parallel steps; a sequential numeric phase (LU, LDLᵀ) runs
   * to its end first.
   */
  signal?: AbortSignal;
}

/** Options of {@link Factorization.solve}. */
export interface FactorSolveOptions {
  /** steps of iterative refinement (default 1); a step is kept only when it lowers the residual */
  refine?: number;
}

/** What {@link Factorization.solve} returns. */
export interface FactorSolveResult {
  /** the solutions, f64 (c128 interleaved for complex), right-hand side after right-hand side */
  x: Float64Array;
  /** the largest true relative residual ‖b − A·x‖₂ / ‖b‖₂ over the right-hand sides */
  relativeResidual: number;
  /** the true relative residual of each right-hand side */
  residuals: number[];
  /** refinement steps kept (summed over the right-hand sides) */
  refinements: number;
}

/** What a factorization is and what it took ({@link Factorization.info}). */
export interface FactorInfo {
  /** the factorization computed */
  kind: 'cholesky' | 'ldlt' | 'lu';
  /** why this kind (for 'auto') */
  kindReason: string;
  /** the numeric kernel: multifrontal supernodal (Cholesky with enough flops), up-looking (LDLᵀ, small Cholesky), left-looking (LU), banded (LU of a banded matrix) or dense (a matrix of at most 48 unknowns under ordering 'auto') */
  method: 'supernodal' | 'up-looking' | 'left-looking' | 'banded' | 'dense';
  /** the fill-reducing ordering used */
  ordering: OrderingName;
  /** why this ordering */
  orderingReason: string;
  /** the dtype of the matrix given (the factor is f64, or c128 for complex) */
  dtype: DType;
  /** rows (= columns) of A */
  n: number;
  /** stored entries of A */
  nnzA: number;
  /** entries of the factor: L (diagonal included) for Cholesky/LDLᵀ, L + U for LU (both diagonals; under ordering 'btf' with the entries above the diagonal blocks, kept as they stand) */
  fillNnz: number;
  /** fillNnz / nnzA */
  fillRatio: number;
  /** floating-point operations of the numeric factorization */
  flops: number;
  /** what the symbolic phase predicted, before the numeric phase (LU's pivoting may differ from it) */
  estimate: FactorCost;
  /** fundamental supernodes of the elimination tree */
  supernodes: number;
  /** columns of the widest supernode */
  largestSupernode: number;
  /** LU: pivots taken off the diagonal (under ordering 'btf', off the entries the transversal matched) */
  offDiagonalPivots: number;
  /** LU: columns of the trailing block factorized (and stored) dense, where the symbolic counts say it is nearly full (0: none) */
  denseColumns: number;
  /** bytes the factor holds (with the copies of the factor and of A's rows kept in the CPU path's memory, where the solves and their residuals run) */
  bytes: number;
  /** milliseconds of each phase (numeric: the latest factorization or refactorization) */
  times: {
    /** computing the ordering(s) */
    ordering: number;
    /** elimination tree, postorder, column counts, supernodes */
    symbolic: number;
    /** the numeric factorization */
    numeric: number;
  };
}

/** The keys FactorOptions has. */
export const FACTOR_OPTION_KEYS = optionKeys<FactorOptions>({ kind: true, ordering: true, pivotTolerance: true, signal: true });
const SOLVE_KEYS = optionKeys<FactorSolveOptions>({ refine: true });
/**
 * LU's default pivotTolerance: the diagonal stays the pivot while at least this fraction of its
 * column's largest candidate (KLU's), so a symmetric ordering's fill survives…
 */
const PIVOT_TOLERANCE = 0.001;
/**
 * …but under a column ordering ('amd-ata') the diagonal is no better placed than any row (the fill
 * bound holds for every row choice), so only a tenth of the largest keeps it (UMFPACK's unsymmetric
 * default): on west0479 scaled as in the tests, 0.001 left residuals up to 8.8e-9 against 7e-11.
 */
const COLUMN_ORDER_PIVOT_TOLERANCE = 0.1;
/**
 * The same under 'btf' (whose diagonal is the matched entry, chosen by pattern alone, and whose rows are
 * not scaled as KLU's: west0479's residual for b = sin i 3.2e-11 at 0.1, 7.4e-11 at 0.01, 3.5e-9 at
 * 0.001), except where 'auto' took it for one irreducible block of a mostly symmetric pattern (a saddle
 * point's, Analysis.symmetricBlock): a hundredth there, as that ordering's fill survives only while the
 * pivots stay on the matched diagonal, and a tenth moved them off it where the velocity block outweighs
 * the constraints' entries — the Oseen matrix stokes2D(110, { wind: [300, 300] }) took 3 638 pivots off
 * the diagonal, 12.7 M entries and 4.3 s, against 27, 3.6 M and 0.29 s at 0.01 (SciPy's spsolve 0.41 s);
 * stokes2D(80) 166 → 102 ms (twenty-fifth session, scratch runs).
 */
const BTF_PIVOT_TOLERANCE = 0.01;
/** Cholesky runs supernodal (dense fronts) from this many flops; below, the up-looking kernel's lower overhead wins. */
const SUPERNODAL_MIN_FLOPS = 1e6;

/**
 * The CPU path's kernels the factorizations run on, given by the runtime (the solver layer imports no
 * path): `supernodal` the supernodal Cholesky's numeric phase (its kernels and threads), `lu` the
 * sparse and banded LU's, `ldl` the up-looking and dense LDLᵀ's (small Cholesky and LDLᵀ), `symbolic` the
 * orderings' elimination and the tree and counts.
 * @internal
 */
export interface DirectKernels {
  supernodal: SupernodalNumeric;
  lu: LuKernels;
  ldl: LdlKernels;
  symbolic: SymbolicKernels;
  /** A's rows (the columns of Aᵀ) held in the path's memory for the solve's residual */
  residual: (At: Csc) => HeldResidual;
}

/**
 * A's rows held in a path's memory (DirectKernels.residual): the kept factor's solve measures its
 * residual there.
 * @internal
 */
export interface HeldResidual {
  /** bytes it holds in the path's memory */
  bytes: number;
  /** ‖A‖∞ (each row's Σ|aᵢⱼ|, |re| + |im| for complex, summed in order; a NaN row skipped): infNorm's bits */
  normInf: number;
  /** r ← b − A·x (real, or complex interleaved) and w (unless null) ← each row's |bᵢ| + Σⱼ|aᵢⱼ||xⱼ| (the rounding bound's sums); returns [Σ|bᵢ|², ‖b‖∞, ‖x‖∞, ‖r‖∞, Σ|rᵢ|²] (∞ norms of complex entries as |re| + |im|), read before the next call */
  residual(b: Float64Array, x: Float64Array, r: Float64Array, w: Float64Array | null): Float64Array;
  /** frees what it holds */
  dispose(): void;
}

/**
 * Factorizes A (see {@link Runtime.factor}) within a memory budget of `budgetMB` (the module's when
 * undefined): the factor's estimated bytes are reserved before the numeric phase starts. `once`: it
 * serves one solve and is then disposed (rt.solve's direct answer).
 * @internal
 */
export function factorize(A: SparseMatrix, options: FactorOptions, budgetMB: number | undefined, kernels: DirectKernels, plan?: FactorPlan, once = false): Promise<Factorization> {
  return withMemoryBudget(budgetMB, () => factorizeInBudget(A, options, budgetMB, kernels, plan, once));
}

async function factorizeInBudget(A: SparseMatrix, options: FactorOptions, budgetMB: number | undefined, kernels: DirectKernels, plan: FactorPlan | undefined, once: boolean): Promise<Factorization> {
  checkOptions('factor', options, FACTOR_OPTION_KEYS);
  const kind = options.kind ?? 'auto';
  const asked = checkNumber('factor', 'pivotTolerance', options.pivotTolerance, inRange(0, 1));
  const { signal } = options;
  checkSignal('factor', signal);
  throwIfAborted(signal);
  // the symbolic phase counts its memory against budgetMB (inside this scope; with a signal, it pauses
  // every few milliseconds to see it, and each run between the pauses is a scope of its own)
  const ordering = options.ordering ?? 'auto';
  const { csr, C, sym, a, saddle } = plan ?? (signal
    ? await finishPausing(planSteps(A, kind, ordering, kernels.symbolic), signal, (run) => withMemoryBudget(budgetMB, run))
    : planFactor(A, kind, ordering, kernels.symbolic));
  const tol = asked ?? (a.symmetricBlock ? BTF_PIVOT_TOLERANCE : a.ordering === 'amd-ata' || a.ordering === 'btf' ? COLUMN_ORDER_PIVOT_TOLERANCE : PIVOT_TOLERANCE);
  const F = new Factorization(C, sym ? C : rowsWithValues(csr), csr.dtype, a, tol, budgetMB, kernels.supernodal, kernels.lu, kernels.ldl, kernels.residual, once);
  try {
    if (kind !== 'auto') {
      await F.numeric(kind, `kind: '${kind}' was asked for`, signal);
      return F;
    }
    if (!sym || saddle || a.ordering === 'amd-ata' || a.ordering === 'btf') {
      await F.numeric('lu', C.complex ? 'complex: LU' : !sym ? 'not symmetric: LU' : saddle ? `${saddle}; LU` : `ordering '${a.ordering}' was asked for, ${a.ordering === 'btf' ? 'a block triangular form' : 'a column ordering'} only LU uses: LU`, signal);
      return F;
    }
    // symmetric: Cholesky when it succeeds, else LDLᵀ, else LU
    let why = 'symmetric';
    let kinds: readonly ('cholesky' | 'ldlt')[] = ['cholesky', 'ldlt'];
    // a supernodal Cholesky builds its supernodes and fronts before its first pivot (dwt_992, indefinite:
    // ≈ 2/3 of the failed factorization's time): a 2×2 principal minor ≤ 0 proves A indefinite first
    const minor = !a.dense && a.cost.flops >= SUPERNODAL_MIN_FLOPS ? nonPositiveMinor(C) : null;
    if (minor) {
      kinds = ['ldlt'];
      why += `, not positive definite (${minor})`;
    }
    for (const k of kinds) {
      try {
        await F.numeric(k, `${why}: ${k === 'cholesky' ? 'Cholesky' : 'LDLᵀ'}`, signal);
        F.autoChose = true;
        return F;
      } catch (e) {
        if (!(e instanceof NotPositiveDefiniteError || e instanceof SingularMatrixError)) throw e;
        why += `, ${k === 'cholesky' ? 'not positive definite' : 'LDLᵀ without pivoting broke down'} at column ${e.column}`;
      }
    }
    await F.numeric('lu', `${why}: LU`, signal);
    return F;
  } catch (e) {
    F.dispose();
    throw e;
  }
}

/**
 * A diagonal entry ≤ 0 or a 2×2 principal minor aᵢᵢ·aⱼⱼ − aᵢⱼ² ≤ 0 of a real symmetric C, in words,
 * or null: A is then not positive definite (every principal submatrix of a definite matrix is
 * definite). Compared as |aᵢⱼ| ≥ √aᵢᵢ·√aⱼⱼ (no overflow or underflow of the squares); rounding can
 * only take a minor at the edge of singular for a negative one, and LDLᵀ factorizes a definite A too.
 */
function nonPositiveMinor(C: Csc): string | null {
  if (C.complex) return null;
  const { n, colPtr, rowIdx, values } = C;
  const root = new Float64Array(n);
  for (let j = 0; j < n; j++) for (let p = colPtr[j]; p < colPtr[j + 1]; p++) if (rowIdx[p] === j) root[j] = values[p];
  for (let j = 0; j < n; j++) {
    if (root[j] <= 0) return `diagonal entry ${j} is ${root[j]}`;
    root[j] = Math.sqrt(root[j]);
  }
  for (let j = 0; j < n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i = rowIdx[p];
      if (i > j && Math.abs(values[p]) >= root[i] * root[j]) return `|a(${i},${j})| ≥ √(a(${i},${i})·a(${j},${j}))`;
    }
  }
  return null;
}

/** Where a factorization with a signal looks at it: after a turn of the event loop's timers (steps.ts), so that a timer or event that aborts gets its turn. */
async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await timersTurn();
  throwIfAborted(signal);
}

/** The factorization rt.factor returns: the numeric phases, imported on first use (src/runtime/direct.ts). */
export class Factorization extends PublicFactorization {
  private disposed = false;
  private kindNow: 'cholesky' | 'ldlt' | 'lu' = 'lu';
  private ldlNow: LdlFactor | null = null;
  private luNow: LuFactor | null = null;
  /** the LU or LDLᵀ factor copied once into the CPU path's memory, where its solves run (null: none, supernodal, or a small banded LU's solved in JavaScript) */
  private held: HeldSolve | null = null;
  /** the LDLᵀ factor (small Cholesky and LDLᵀ); setting it holds it in the CPU path's memory, freeing the one before */
  private get ldl(): LdlFactor | null {
    return this.ldlNow;
  }
  private set ldl(f: LdlFactor | null) {
    if (f === this.ldlNow) return;
    const held = f && this.ldlKernels.hold(f, this.a.perm);
    this.release();
    this.ldlNow = f;
    this.held = held;
  }
  /** the LU factor; setting it holds it in the CPU path's memory (unless bandSolve solves it: solvedInJs), freeing the one before */
  private get lu(): LuFactor | null {
    return this.luNow;
  }
  private set lu(f: LuFactor | null) {
    if (f === this.luNow) return;
    const held = f && !solvedInJs(f) ? this.luKernels.hold(f) : null;
    this.release();
    this.luNow = f;
    this.held = held;
  }
  private release(): void {
    this.held?.dispose();
    this.held = null;
    this.luNow?.inPlace?.release();
    this.ldlNow = this.luNow = null;
  }
  private snHeld: SupernodalFactor | null = null;
  private pending: Promise<void> = Promise.resolve();
  /** solves and refactors started and not yet settled */
  private inFlight = 0;
  /** the supernodal factor (held in the CPU path's memory): replacing it frees the one before */
  private get sn(): SupernodalFactor | null {
    return this.snHeld;
  }
  private set sn(f: SupernodalFactor | null) {
    if (this.snHeld !== f) this.snHeld?.dispose();
    this.snHeld = f;
  }
  private snSym: SupernodalSymbolic | null = null;
  private reason = '';
  private numericMs = 0;
  private denseColumns = 0;
  /** what the numeric phase adds to the kind's reason (the banded LU's LDLᵀ form) */
  private note = '';
  private baseReason = '';
  /** @internal kind 'auto' chose Cholesky or LDLᵀ: a refactor keeps it, and its pivot error says what 'auto' would pick now */
  autoChose = false;
  /** the LU factor came from the band LDLᵀ (LuKernels.bandLdlt) (U = D·Lᵀ) */
  private ldltForm = false;
  /**
   * the solve's work vectors, kept between solves (a small solve costs less than allocating them): the
   * residual r and its row sums wr every solve; a refinement step's dx, xt, wdx once one is taken; y the
   * supernodal solve's. All six made at once were 23 KB of west0479's 27 KB allocated a factor + solve
   */
  private work: { r: Float64Array; wr: Float64Array } | null = null;
  private stepWork: { dx: Float64Array; xt: Float64Array; wdx: Float64Array } | null = null;
  private y: Float64Array | null = null;
  /** what the latest residual's pass measured besides ‖r‖₂ */
  private readonly norms = { b2: 0, bInf: 0, xInf: 0, rInf: 0 };
  /** A's rows held in the CPU path's memory for the residual (from RESIDUAL_KERNEL_MIN entries; made with the factor, freed by refactor and dispose) */
  private heldA: HeldResidual | null = null;
  /** ‖A‖∞ (|re| + |im| for complex), for refinement's test; reset by refactor */
  private normInf: number | undefined;
  /** the longest row of A (the residual's rounding bound reads it; the pattern never changes) */
  private maxRow: number | undefined;
  /**
   * whether the latest solve's residual needed its row-wise bound: this solve's residual passes then sum
   * its rows' |bᵢ| + Σ|aᵢⱼ||xⱼ| as they go (a kept factor's right-hand sides are alike; where guessed
   * wrong, the bound's own pass). Not needed, they cost ≈ 8 % of the pass (olm1000, 494_bus, bcsstk01)
   */
  private rowSums = true;
  /** the latest solve's row sums (one right-hand side, b not rescaled; null: none) or their bound once taken: {@link rowwiseBound} */
  private lastSums: Float64Array | null = null;
  private lastBound: number | undefined;

  /** @internal made by {@link Runtime.factor} */
  constructor(
    private A: Csc,
    /** A by rows (the columns of Aᵀ; A itself when symmetric): the residual gathers along them */
    private At: Csc,
    private readonly dtype: DType,
    private readonly a: Analysis,
    private readonly tol: number,
    private readonly budgetMB: number | undefined,
    private readonly supernodal: SupernodalNumeric,
    private readonly luKernels: LuKernels,
    private readonly ldlKernels: LdlKernels,
    private readonly rowsKernel: (At: Csc) => HeldResidual,
    /** the factor serves one solve, then is disposed (rt.solve's): nothing made that only repeated solves repay (keepBandRows) */
    private readonly once = false,
  ) {
    super();
  }

  /** @internal runs the numeric phase of `kind`; throws the typed error of a failed pivot */
  async numeric(kind: 'cholesky' | 'ldlt' | 'lu', reason: string, signal?: AbortSignal): Promise<void> {
    await checkpoint(signal);
    const t0 = performance.now();
    const bad = nonFiniteEntry(this.A);
    if (bad) throw new InputRangeError(`factor: ${bad}`);
    this.note = '';
    if (kind === 'cholesky' && !this.a.dense && this.a.cost.flops >= SUPERNODAL_MIN_FLOPS) {
      const sym = withMemoryBudget(this.budgetMB, () => this.supernodalStructure());
      const { colPtr, rowIdx, values } = this.A;
      const r = await this.supernodal(sym, { colPtr, rowIdx, values, perm: this.a.perm, pinv: this.a.pinv }, signal);
      if (typeof r === 'number') throw this.notPositive(r);
      this.sn = r;
      this.ldl = this.lu = null;
    } else if (signal) {
      // with a signal the sparse LU and LDLᵀ kernels run as ranges of steps, the event loop given a turn
      // every SLICE_MS (steps.ts): an abort is seen there, the kernel's memory freed as the steps close
      await finishPausing(this.numericInBudget(kind, true), signal, (run) => withMemoryBudget(this.budgetMB, run));
    } else withMemoryBudget(this.budgetMB, () => finish(this.numericInBudget(kind, false)));
    // A's rows for the solve's residual, held beside the factor (kept by a refactor's failure, whose A stays)
    const At = this.At;
    if (!this.heldA && At.colPtr[At.n] >= RESIDUAL_KERNEL_MIN) this.heldA = withMemoryBudget(this.budgetMB, () => this.rowsKernel(At));
    this.kindNow = kind;
    this.baseReason = reason;
    this.reason = reason + this.note;
    this.numericMs = performance.now() - t0;
  }

  /** The supernodes and their row patterns (kept for refactor), the numeric phase's memory reserved. */
  private supernodalStructure(): SupernodalSymbolic {
    const { A, a } = this;
    const sym = (this.snSym ??= supernodalSymbolic(a.parent, a.counts, a.supernodeStarts, A.colPtr, A.rowIdx, a.perm, a.pinv));
    const blocks = sym.valPtr[sym.valPtr.length - 1];
    reserveMemory(a.cost.bytes + 8 * (blocks - a.cost.fillNnz) + supernodalFrontBytes(sym), 'factor: the supernodal Cholesky factor and its largest front (from the symbolic phase)');
    return sym;
  }

  /** The sequential numeric phase as steps: they yield only when `paused` (the sparse LU's and LDLᵀ's kernels run as ranges then). */
  private *numericInBudget(kind: 'cholesky' | 'ldlt' | 'lu', paused: boolean): Steps<void> {
    const { A, a } = this;
    const n = A.n;
    if (kind === 'lu') {
      const est = a.cost;
      // LU's estimate comes from the symmetric pattern (half of it for each of L and U, with room for
      // pivoting off the diagonal) or from AᵀA's Cholesky factor under 'amd-ata' (a bound on each of
      // L and U: half of the estimate); the arrays grow if pivoting needs more
      reserveMemory(est.bytes, 'factor: the LU factor (estimated from the symbolic phase)');
      const guess = a.ordering === 'amd-ata' ? Math.ceil(0.5 * est.fillNnz) : Math.ceil(0.6 * est.fillNnz) + n;
      const grow = (bytes: number): void => reserveMemory(bytes, 'factor: the LU factor growing past its estimate');
      // under 'btf' the dense window is a diagonal block's tail (the later blocks' columns stay sparse)
      const [from, to] = a.band ? [n, n] : a.matchOf ? denseWindow(a.counts, a.parent) : [denseStart(a.counts), n];
      // under 'btf' the kernel factorizes B's diagonal blocks (A's rows renumbered by the transversal); the entries above them are kept apart
      const rows = a.matchOf && a.blockOf ? { matchOf: a.matchOf, blockOf: a.blockOf, above: a.above ?? 0 } : undefined;
      // a symmetric band (complex symmetric included) whose pivots all stay on the diagonal: LDLᵀ's quarter of the flops
      const sym = a.band && a.band.lower === a.band.upper && isSymmetric(A) ? this.luKernels.bandLdlt(n, A.colPtr, A.rowIdx, A.values, A.complex, a.band.lower, this.tol) : null;
      this.ldltForm = sym !== null;
      this.note = sym ? '; A = Aᵀ and every pivot stayed on the diagonal: the band factorized as LDLᵀ' : '';
      const r = sym ?? (a.band
        ? this.luKernels.band(n, A.colPtr, A.rowIdx, A.values, A.complex, a.band, this.tol)
        : yield* this.luKernels.sparseSteps(n, A.colPtr, A.rowIdx, A.values, A.complex, a.perm, this.tol, guess, grow, from, to, rows, paused));
      if (typeof r === 'number') {
        const col = a.perm[r];
        throw new SingularMatrixError(`factor: the matrix is singular: no nonzero pivot left in column ${col} (elimination step ${r} of ${n}, LU with partial pivoting)`, col, r);
      }
      // the banded and dense kernels' factors (natural order) solve by rows (at most twice the factor's
      // values); every factor gets U's reciprocal diagonal now, not from its first solve (see keepBandRows)
      if (a.band) keepBandRows(r, a.band, this.once);
      else r.dinv = reciprocalDiagonal(r);
      this.lu = r;
      this.denseColumns = to - from;
      this.ldl = this.sn = null;
    } else {
      reserveMemory(a.cost.bytes, `factor: the ${kind === 'cholesky' ? 'Cholesky' : 'LDLᵀ'} factor (from the symbolic phase)`);
      const r = a.dense ? denseLdl(n, A.colPtr, A.rowIdx, A.values, kind === 'cholesky', this.ldlKernels.dense) : yield* this.upLooking(kind === 'cholesky', paused);
      if (typeof r === 'number') {
        const k = r;
        const col = a.perm[k];
        if (kind === 'cholesky') throw this.notPositive(k);
        throw new SingularMatrixError(`factor: zero pivot in column ${col} (elimination step ${k} of ${n}, LDLᵀ without pivoting): the matrix is singular or needs pivoting, use kind: 'lu'${this.autoChose ? this.keptKind('LU') : ''}`, col, k);
      }
      this.ldl = r;
      this.lu = this.sn = null;
    }
  }

  /** The up-looking LDLᵀ of the permuted matrix into arrays sized by the symbolic counts: the factor, or the column whose pivot failed. */
  private *upLooking(positive: boolean, paused: boolean): Steps<LdlFactor | number> {
    const { A, a } = this;
    const n = A.n;
    const Lp = ldlPointers(a.counts);
    const f: LdlFactor = { Lp, Li: new Int32Array(Lp[n]), Lx: new Float64Array(Lp[n]), D: new Float64Array(n) };
    const k = yield* this.ldlKernels.sparseSteps(A, a.pinv, a.parent, f, positive, paused);
    return k >= 0 ? k : f;
  }

  private notPositive(k: number): NotPositiveDefiniteError {
    const col = this.a.perm[k];
    return new NotPositiveDefiniteError(
      `factor: the matrix is not positive definite: a pivot ≤ 0 at column ${col} (elimination step ${k} of ${this.A.n}); kind: 'ldlt' or 'lu' factorizes indefinite matrices${this.autoChose ? this.keptKind('LDLᵀ or LU') : ''}`, col, k,
    );
  }

  /** A refactor's pivot error after kind 'auto' chose: the kind is kept, a new factorization would choose again. */
  private keptKind(next: string): string {
    return `; refactor keeps the ${this.kindNow === 'cholesky' ? 'Cholesky' : 'LDLᵀ'} that kind 'auto' chose for the first matrix: a new rt.factor(A2) with kind 'auto' would pick ${next}`;
  }

  /**
   * @internal directResidualBound's row-wise bound for the latest solve's residual, from the row sums its
   * pass left, where that solve had one right-hand side, b not rescaled: rt.solve's direct answer (the
   * same A by rows, x and b) takes it instead of a pass over A. Undefined where there is none.
   */
  rowwiseBound(): number | undefined {
    if (this.lastBound === undefined && this.lastSums) this.lastBound = rowwiseResidualBound(this.At.colPtr, this.lastSums, this.At.complex);
    return this.lastBound;
  }

  /**
   * ‖A‖∞ as the latest solve computed it (each row's Σ|aᵢⱼ| summed along the row in order, the
   * largest kept), undefined before a solve or after a refactor.
   * @internal rt.solve seeds the residual bound's norms of a symmetric A with it (seedSymmetricAbsNorms)
   */
  get rowAbsSumMax(): number | undefined {
    return this.normInf;
  }

  override get info(): FactorInfo {
    this.live();
    const { a, A } = this;
    const n = A.n;
    const nnzA = A.colPtr[n];
    let fillNnz: number;
    let flops = 0;
    let bytes: number;
    const c = A.complex ? 2 : 1;
    if (this.lu) {
      const { Lp, Up } = this.lu;
      // under 'btf' the entries above the diagonal blocks are kept as they stand
      fillNnz = Lp[n] + Up[n] + (this.lu.blocks?.Fp[n] ?? 0);
      bytes = fillNnz * (4 + 8 * c) + 4 * (2 * n + 2) + 8 * n;
    } else if (this.sn) {
      fillNnz = a.cost.fillNnz;
      flops = a.cost.flops;
      bytes = this.sn.bytes;
    } else {
      fillNnz = a.cost.fillNnz;
      flops = a.cost.flops;
      bytes = (fillNnz - n) * 12 + 8 * n + 4 * (n + 1);
    }
    let largest = 0;
    const s = a.supernodeStarts;
    for (let k = 0; k + 1 < s.length; k++) largest = Math.max(largest, s[k + 1] - s[k]);
    const lu = this.lu ? luCounts(this.lu, a.matchOf, this.ldltForm, A.complex) : null;
    const info: FactorInfo = {
      kind: this.kindNow, kindReason: this.reason, method: a.dense ? 'dense' : this.sn ? 'supernodal' : this.lu ? (a.band ? 'banded' : 'left-looking') : 'up-looking', ordering: a.ordering, orderingReason: a.orderingReason, dtype: this.dtype,
      n, nnzA, fillNnz, fillRatio: fillNnz / Math.max(1, nnzA),
      flops: lu ? lu.flops : flops,
      estimate: a.cost, supernodes: s.length - 1, largestSupernode: largest,
      offDiagonalPivots: lu ? lu.offDiagonalPivots : 0,
      denseColumns: this.lu ? this.denseColumns : 0, bytes: bytes + (this.held?.bytes ?? 0) + (this.heldA?.bytes ?? 0),
      times: { ordering: a.orderingMs, symbolic: a.symbolicMs, numeric: this.numericMs },
    };
    return info;
  }

  override solve(data: ArrayLike<number> | BigInt64Array | BigUint64Array, options: FactorSolveOptions = {}): Promise<FactorSolveResult> {
    // with nothing in flight, a factor held in JavaScript solves to the end before solveNow returns
    // (it awaits only the supernodal factor's solves): nothing is left to order after it, so it needs
    // none of serial()'s bookkeeping (two promises a call, a measurable part of a small solve)
    if (this.inFlight === 0 && !this.sn) return this.solveNow(data, options);
    return this.serial(() => this.solveNow(data, options));
  }

  private async solveNow(data: ArrayLike<number> | BigInt64Array | BigUint64Array, options: FactorSolveOptions): Promise<FactorSolveResult> {
    this.live();
    checkOptions('solve', options, SOLVE_KEYS);
    const refine = checkNumber('solve', 'refine', options.refine, NON_NEGATIVE_INTEGER) ?? 1;
    const n = this.A.n;
    const c = this.A.complex ? 2 : 1;
    const b = vectorData(data, 'solve: b');
    const m = n * c;
    if (b.length === 0 && n === 0) return { x: new Float64Array(0), relativeResidual: 0, residuals: [], refinements: 0 };
    if (b.length === 0 || b.length % m !== 0) {
      throw new ShapeError(`solve: b has ${b.length} entries, expected a positive multiple of ${m} (${n} unknowns${c === 2 ? ', complex interleaved' : ''})`);
    }
    const k = b.length / m;
    const x = new Float64Array(b.length);
    const residuals: number[] = [];
    let refinements = 0;
    let { r, wr }: { r: Float64Array; wr: Float64Array | null } = (this.work ??= workVectors(m, 1, n, ([r, wr]) => ({ r, wr })));
    // a refinement step's, from the first step on (r and dx, wr and wdx swap when a step is kept)
    let dx: Float64Array | null = null;
    let wdx: Float64Array | null = null;
    let xt: Float64Array | null = null;
    // wr, wdx: the row sums of the bound on r's (dx's) rounding, swapped with them (null: not summed)
    if (!this.rowSums) wr = null;
    this.lastSums = null;
    this.lastBound = undefined;
    const b64 = b instanceof Float64Array ? b : Float64Array.from(b);
    // a NaN or ±Inf would spread through every x entry it reaches and leave a NaN residual: say where
    const bad = firstNonFinite(b64);
    if (bad >= 0) throw new InputRangeError(`solve: b[${bad}] is ${b64[bad]}${k > 1 ? ` (right-hand side ${Math.floor(bad / m)})` : ''}, expected a finite number`);
    const anorm = (this.normInf ??= this.heldA ? this.heldA.normInf : infNorm(this.At));
    const norms = this.norms;
    for (let j = 0; j < k; j++) {
      // b is only read; one right-hand side needs no views (making one costs more than a small solve)
      let bj = k === 1 ? b64 : b64.subarray(j * m, (j + 1) * m);
      const xj = k === 1 ? x : x.subarray(j * m, (j + 1) * m);
      const pending = this.applyInverse(bj, xj);
      // disposed while the supernodal factor's solve waited: its work vectors are gone (a TypeError)
      if (pending) {
        await pending;
        this.live();
      }
      let rn = this.residual(bj, xj, r, wr);
      // ‖b‖ beyond 2^±900 (the residual's pass measured it) is solved again scaled by a power of two
      // (exactly) and x scaled back, as the Krylov methods do: b = [3, −2, 1]·5e-321 was solved in
      // subnormals and reported 1.06e-3 for an x whose true residual is 1.18e-3 (the best x there has
      // 8.8e-4). f64 needs no narrower range (the Krylov methods' 2^±16 is f32's): b of 1e5 is not solved twice.
      // ‖b‖₂ itself past the largest f64 (entries near 2^1023: x was NaN, unscaled) takes the exponent
      // from the largest component (‖b‖∞'s |re| + |im| may overflow too)
      const e = rhsExponentOf(bj, norms.b2, F64_RHS_RANGE);
      if (e !== 0) {
        bj = scaleBy(Float64Array.from(bj), -e);
        const again = this.applyInverse(bj, xj);
        if (again) {
          await again;
          this.live();
        }
        rn = this.residual(bj, xj, r, wr);
      }
      const bn = norms.b2;
      // a step only while the normwise backward error ‖r‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞) is above a few
      // rounding units (below, no step can lower the residual by more than that); kept only when it
      // lowers ‖r‖ (the residual's pass gives every norm the test needs)
      const bound = refine > 0 && rn > 0 ? REFINE_ABOVE * (anorm * norms.xInf + norms.bInf) : Infinity;
      for (let s = 0; s < refine && norms.rInf > bound; s++) {
        if (dx === null || xt === null) {
          const step = (this.stepWork ??= workVectors(m, 2, n, ([dx, xt, wdx]) => ({ dx, xt, wdx })));
          ({ dx, xt } = step);
          wdx = wr && step.wdx;
        }
        const more = this.applyInverse(r, dx);
        if (more) {
          await more;
          this.live();
        }
        for (let t = 0; t < m; t++) xt[t] = xj[t] + dx[t];
        const rt = this.residual(bj, xt, dx, wdx);
        if (!(rt < rn)) break;
        xj.set(xt);
        [r, dx, wr, wdx] = [dx, r, wdx, wr];
        rn = rt;
        refinements++;
      }
      // the residual reported is the returned x's, taken back to the scaled b's scale (exactly) where
      // scaling it back lost bits (subnormal, or past the largest f64)
      let xr: Float64Array = xj;
      if (e !== 0) {
        xr = xj.slice();
        scaleBy(xj, e);
        const back = scaleBy(xj.slice(), -e);
        if (back.some((v, i) => v !== xr[i])) rn = this.residual(bj, (xr = back), r, wr);
      }
      // a finite b whose solution leaves the f64 range (scaled back past 2^1024, or overflowing in the
      // solve): an x of ±Inf or NaN was returned with the scaled residual, or NaN, and no error
      const over = firstNonFinite(xj);
      if (over >= 0) {
        const at = `x[${Math.floor(over / c)}]${k > 1 ? ` of right-hand side ${j}` : ''}`;
        throw new InputRangeError(`solve: ${at} is ${xj[over]}: the solution leaves the f64 range (|x| past 1.8e308; b is finite, A nearly singular or b too large): scale b down`);
      }
      // x made of rounding (‖A‖∞·‖x‖∞ beyond X_OF_ROUNDING·‖b‖∞: a singular A's rounding-level pivot) has
      // a plain residual of rounding too (0 for a true 0.38); below that bar the plain residual, computed
      // in the solve's own rounding pattern, still read 0 for exact 6.6e-10 (3×3, ‖A‖‖x‖/‖b‖ = 1.1e8) and
      // 9.7e-4 (7×7): where its rounding bound (norm-wise; then row-wise, from the row sums wr the
      // residual's pass left, else from a pass of its own) is above both the residual and CERTAIN·‖b‖,
      // it is recomputed with every sum's error carried
      const { n: rows, colPtr: rowPtr, rowIdx: colIdx, values, complex } = this.At;
      const Ar = { rows, rowPtr, colIdx, values, dtype: complex ? 'c128' : 'f64' } as const;
      const floor = Math.max(rn, CERTAIN * bn);
      const normwise = 1.01 * Math.sqrt(c * rows) * (c * (this.maxRow ??= longestSpan(this.At.colPtr, this.At.n)) + 2) * (2 ** -53 * (norms.bInf + anorm * norms.xInf) + 2 ** -1074);
      const certain = anorm * norms.xInf > X_OF_ROUNDING * norms.bInf;
      if (!certain) this.rowSums = normwise > floor;
      let rowwise: number | undefined;
      if (certain || (normwise > floor && (rowwise = wr ? rowwiseResidualBound(rowPtr, wr, complex) : directResidualBound(Ar, xr, bj, bn, 0)) > floor)) {
        rn = accurateResidualNorm(Ar, xr, bj);
      }
      if (k === 1 && e === 0) {
        this.lastBound = rowwise;
        this.lastSums = rowwise === undefined ? wr : null;
      }
      residuals.push(bn === 0 ? rn : rn / bn);
    }
    return { x, relativeResidual: residuals.reduce((p, v) => Math.max(p, v), 0), residuals, refinements };
  }

  override refactor(A2: SparseMatrix): Promise<this> {
    return this.serial(() => this.refactorNow(A2));
  }

  /**
   * Runs solves and refactors of this factorization one after another: the supernodal factor's
   * solve waits on the CPU path, and neither its work vectors nor its factor may change meanwhile.
   */
  private serial<T>(op: () => Promise<T>): Promise<T> {
    // with nothing in flight a factor held in JavaScript starts the op at once (its solve then runs
    // to the end before returning: no extra turn); the supernodal factor's ops always queue, so a
    // dispose() right after a call still finds it waiting
    const run = this.inFlight === 0 && !this.sn ? op() : this.pending.then(op, op);
    this.inFlight++;
    const done = (): void => {
      this.inFlight--;
    };
    this.pending = run.then(done, done);
    return run;
  }

  private async refactorNow(A2: SparseMatrix): Promise<this> {
    // not live(): a failed refactor leaves no factor, and a refactor is what makes it usable again
    if (this.disposed) throw new DisposedError('factorization');
    const csr = squareCsr(A2, 'refactor', 'refactor: A2');
    const C = cscOf(csr);
    const A = this.A;
    if (C.n !== A.n) throw new ShapeError(`refactor: A2 is ${C.n}×${C.n}, the factorized matrix ${A.n}×${A.n}`);
    if (C.complex !== A.complex) throw new ShapeError(`refactor: A2 is ${csr.dtype}, the factorized matrix ${this.dtype}: real and complex do not mix`);
    for (let j = 0; j < A.n; j++) {
      let same = C.colPtr[j + 1] === A.colPtr[j + 1];
      for (let p = C.colPtr[j]; same && p < C.colPtr[j + 1]; p++) same = C.rowIdx[p] === A.rowIdx[p];
      if (!same) throw new ShapeError(`refactor: A2's pattern differs from the factorized matrix's in column ${j}`);
    }
    if (this.kindNow !== 'lu' && !isSymmetric(C)) throw new UnsupportedError(`refactor: A2 is not symmetric, the ${this.kindNow} factorization needs it`);
    this.A = C;
    this.At = this.kindNow === 'lu' ? rowsWithValues(csr) : C;
    this.heldA?.dispose();
    this.heldA = null;
    this.normInf = undefined;
    this.lastSums = null;
    this.lastBound = undefined;
    this.ldl = this.lu = this.sn = null;
    await this.numeric(this.kindNow, this.baseReason);
    // disposed while the numeric phase ran: the factor it made stayed in the runtime's memory (a
    // supernodal one 1.8 MB, counted until the factorization was collected) and the refactor resolved
    if (this.disposed) {
      this.dispose();
      throw new DisposedError('factorization');
    }
    return this;
  }

  override dispose(): void {
    this.disposed = true;
    this.ldl = this.lu = this.sn = null;
    this.heldA?.dispose();
    this.heldA = null;
    this.work = this.stepWork = this.y = null;
  }

  private live(): void {
    if (this.disposed) throw new DisposedError('factorization');
    if (!this.ldl && !this.lu && !this.sn) throw new UnsupportedError('factorization: the last refactor failed; refactor with a valid matrix first');
  }

  /** x ← A⁻¹·b through the factor (b is not modified); a promise only for the supernodal factor (the CPU path's), the others run at once. */
  private applyInverse(b: Float64Array, x: Float64Array): Promise<void> | undefined {
    const n = this.A.n;
    const perm = this.a.perm;
    if (this.sn) {
      const y = (this.y ??= new Float64Array(n));
      for (let k = 0; k < n; k++) y[k] = b[perm[k]];
      return this.sn.solve(y).then(() => {
        for (let k = 0; k < n; k++) x[perm[k]] = y[k];
      });
    }
    // in the CPU path's memory (the banded and dense kernels' real factors by rows, see keepBandRows), a small one's rows in JavaScript
    if (this.held) this.held.solve(b, x);
    else bandSolve(this.lu!, b, x);
  }

  /**
   * r ← b − A·x, gathered along A's rows (in the CPU path's memory from RESIDUAL_KERNEL_MIN entries, the
   * kernel's operations in its order below: the same bits), and w (unless null) ← each row's |bᵢ| + Σⱼ|aᵢⱼ||xⱼ| (the
   * rounding bound's sums, rowwiseResidualBound's, in directResidualBound's order); returns ‖r‖₂, and
   * sets `norms` (‖b‖₂, ‖b‖∞, ‖x‖∞, ‖r‖∞; |re| + |im| for ∞ of complex) from the same pass.
   */
  private residual(b: Float64Array, x: Float64Array, r: Float64Array, w: Float64Array | null): number {
    const o = this.norms;
    // the plain sums of squares over- or underflow from entries of 1e±154 (b = 1e200·…: NaN reported
    // for an exact answer; a subnormal b: 0 for a wrong one): then the norms scaled against it
    if (this.heldA) {
      const sums = this.heldA.residual(b, x, r, w);
      o.b2 = normFromSquares(sums[0], b);
      o.bInf = sums[1];
      o.xInf = sums[2];
      o.rInf = sums[3];
      return normFromSquares(sums[4], r);
    }
    // the same operations in JavaScript (inline: as a function of its own it cost t1's solve ≈ 0.4 µs)
    const { n, colPtr: rowPtr, rowIdx: colIdx, values } = this.At;
    let b2 = 0;
    let bInf = 0;
    let xInf = 0;
    let r2 = 0;
    let rInf = 0;
    const sums = w !== null;
    if (!this.At.complex) {
      for (let i = 0; i < n; i++) {
        const bi = b[i];
        let s = bi;
        const ab = Math.abs(bi);
        // a branch a row, not an entry (the kernel's form)
        if (sums) {
          let wi = ab;
          for (let p = rowPtr[i], e = rowPtr[i + 1]; p < e; p++) {
            const a = values[p];
            const xj = x[colIdx[p]];
            s -= a * xj;
            wi += Math.abs(a) * Math.abs(xj);
          }
          w[i] = wi;
        } else {
          for (let p = rowPtr[i], e = rowPtr[i + 1]; p < e; p++) s -= values[p] * x[colIdx[p]];
        }
        r[i] = s;
        b2 += bi * bi;
        r2 += s * s;
        const ax = Math.abs(x[i]);
        const ar = Math.abs(s);
        if (ab > bInf) bInf = ab;
        if (ax > xInf) xInf = ax;
        if (ar > rInf) rInf = ar;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const br = b[2 * i];
        const bi = b[2 * i + 1];
        let sr = br;
        let si = bi;
        const ab = Math.abs(br) + Math.abs(bi);
        if (sums) {
          let wi = ab;
          for (let p = rowPtr[i], e = rowPtr[i + 1]; p < e; p++) {
            const j = colIdx[p];
            const ar = values[2 * p];
            const ai = values[2 * p + 1];
            const xr = x[2 * j];
            const xi = x[2 * j + 1];
            sr -= ar * xr - ai * xi;
            si -= ar * xi + ai * xr;
            wi += (Math.abs(ar) + Math.abs(ai)) * (Math.abs(xr) + Math.abs(xi));
          }
          w[i] = wi;
        } else {
          for (let p = rowPtr[i], e = rowPtr[i + 1]; p < e; p++) {
            const j = colIdx[p];
            const ar = values[2 * p];
            const ai = values[2 * p + 1];
            const xr = x[2 * j];
            const xi = x[2 * j + 1];
            sr -= ar * xr - ai * xi;
            si -= ar * xi + ai * xr;
          }
        }
        r[2 * i] = sr;
        r[2 * i + 1] = si;
        b2 += br * br + bi * bi;
        r2 += sr * sr + si * si;
        const ax = Math.abs(x[2 * i]) + Math.abs(x[2 * i + 1]);
        const ar = Math.abs(sr) + Math.abs(si);
        if (ab > bInf) bInf = ab;
        if (ax > xInf) xInf = ax;
        if (ar > rInf) rInf = ar;
      }
    }
    o.b2 = normFromSquares(b2, b);
    o.bInf = bInf;
    o.xInf = xInf;
    o.rInf = rInf;
    return normFromSquares(r2, r);
  }
}

/** A of at least this many stored entries gets its residual from the CPU path's kernel (A's rows held there): bcsstk01's 400 measured alike both ways, olm1000's 3996 22.5 against 28 µs a solve, t1's 10 ≈ 0.5 µs slower, and a few µs more to factorize (the region made). */
const RESIDUAL_KERNEL_MIN = 1000;

/** Views of one allocation: `count` vectors of m = c·n entries, then one of n (a residual's row sums), given to `named`. */
function workVectors<T>(m: number, count: number, n: number, named: (v: Float64Array[]) => T): T {
  const all = new Float64Array(count * m + n);
  const v: Float64Array[] = [];
  for (let k = 0; k < count; k++) v.push(all.subarray(k * m, (k + 1) * m));
  v.push(all.subarray(count * m));
  return named(v);
}

/**
 * Refinement steps while the normwise backward error is above this: 16 rounding units (2⁻⁴⁹). The
 * first solve leaves 0.05–6.4 units on every matrix of the benchmark but young1c (70); at that level a
 * step costs a second solve and residual to lower the residual by a factor 1.5–7 at most (qc324:
 * 4.1 units, 8.1e-16 → 1.2e-16; poisson2D(256): 6.4 units, 3.6e-15 → 2.4e-15), while young1c's
 * 70 units still get their step (5.0e-15 → 3.6e-16).
 */
const REFINE_ABOVE = 2 ** -49;

/**
 * ‖A‖∞·‖x‖∞ / ‖b‖∞ from which F.solve recomputes its residual with Dot2: the plain one's rounding
 * bound is then above 1e-2·‖b‖ and it certifies nothing. Far above any answer of a nonsingular A
 * measured (b = 1 on the shared matrices: at most 4.2e10, west0479; bcsstk13 1.2e10), so the extra pass runs for singular ones only.
 */
const X_OF_ROUNDING = 1e14;

/**
 * F.solve's plain residual stands where its rounding bound is at most the larger of it and this share
 * of ‖b‖ (the value reported is then within that of the exact one), else Dot2 recomputes it. At 1e-8
 * no shared matrix but west0479 (row-wise bound 1.3e-10: one pass over A, no Dot2) needs a pass; at
 * 1e-10 494_bus would need Dot2 on every solve (≈ 4× the solve, measured at load 11).
 */
const CERTAIN = 1e-8;

/** ‖A‖∞ = the largest row sum of |aᵢⱼ| (|re| + |im| for complex), from A's rows (At: the columns of Aᵀ). */
function infNorm(At: Csc): number {
  const { n, colPtr, values } = At;
  let s = 0;
  for (let i = 0; i < n; i++) {
    let t = 0;
    if (!At.complex) for (let p = colPtr[i]; p < colPtr[i + 1]; p++) t += Math.abs(values[p]);
    else for (let p = colPtr[i]; p < colPtr[i + 1]; p++) t += Math.abs(values[2 * p]) + Math.abs(values[2 * p + 1]);
    if (t > s) s = t;
  }
  return s;
}

/**
 * An LU factor's flops and off-diagonal pivots for `info` (a pass over U's pattern and the pivots). Counted
 * when info is read: getters on its object literal, which put this off until their own read, made each
 * literal an object of its own shape, kept with its factor through V8's young-generation collections.
 */
function luCounts(lu: LuFactor, matchOf: Int32Array | undefined, ldltForm: boolean, complex: boolean): { flops: number; offDiagonalPivots: number } {
  const { Lp, Up, Ui, pinv, q } = lu;
  const n = Lp.length - 1;
  // Σₖ 2·lₖ·(uₖ − 1) + lₖ (the updates and the scaling; lₖ = |L(:,k)| − 1, uₖ = |U(k,:)|), summed as
  // 2·Σ over U's entries of lᵢ at their row i, less Σₖ lₖ: no array of U's row counts (rt.solve reads
  // info once a call, and its arrays were a measurable part of a small solve's garbage)
  let sumL = 0;
  let flops = 0;
  if (ldltForm) {
    // the LDLᵀ form of a symmetric band updates one triangle: l(l + 1)/2 multiply-adds, not l²
    for (let k = 0; k < n; k++) {
      const l = Lp[k + 1] - Lp[k] - 1;
      flops += l * (l + 1) + l;
    }
  } else {
    for (let k = 0; k < n; k++) sumL += Lp[k + 1] - Lp[k] - 1;
    let byRows = 0;
    for (let p = 0, e = Up[n]; p < e; p++) {
      const i = Ui[p];
      byRows += Lp[i + 1] - Lp[i] - 1;
    }
    flops = 2 * byRows - sumL;
  }
  // row r is the pivot of step pinv[r]: off the diagonal where it is not column q[pinv[r]]'s diagonal
  // row (under 'btf' the matched one: row r's is column matchOf[r]), counted by rows without an inverse
  let offDiagonalPivots = 0;
  for (let r = 0; r < n; r++) if ((matchOf ? matchOf[r] : r) !== q[pinv[r]]) offDiagonalPivots++;
  return { flops: complex ? 4 * flops : flops, offDiagonalPivots };
}
