/**
 * The symbolic phase of a sparse direct factorization (checks, ordering, counts) and the estimates made
 * from it: in the solver set-up's chunk, which createRuntime waits for (src/runtime/solver-setup-chunk.ts),
 * as rt.explain('solve', A) and rt.estimateFactorCost answer synchronously, while the numeric phases
 * (factor.ts and the kernels it runs on) are imported on first use.
 */
import type { CSRMatrix } from '../../formats/csr.js';
import type { SparseMatrix } from '../../formats/index.js';
import { ShapeError, UnsupportedError } from '../../errors.js';
import { checkMemoryFloor } from '../../memory-budget.js';
import { shownValue } from '../../shown-value.js';
import { sparseMatrix } from '../../formats/owned.js';
import { analyzeSteps, bandAnalysis, btfAnalysis, denseAnalysis, type Analysis, type OrderingName } from './analysis.js';
import type { BlockTriangular } from './btf.js';
import { bandOf, cscOf, denseRows, isSymmetric, nonzeroDiagonal, patternSymmetry, rowsWithValues, type Rows, symmetricGraph, type Csc } from './pattern.js';
import type { FactorCost, SymbolicKernels } from './symbolic.js';
import type { FactorKind } from './factor.js';
import { finish, type Steps } from './steps.js';

const KINDS: readonly FactorKind[] = ['auto', 'cholesky', 'ldlt', 'lu'];
const ORDERINGS: readonly (OrderingName | 'auto')[] = ['auto', 'amd', 'nd', 'natural', 'amd-ata', 'btf'];

/** LU's 'auto' ordering is symmetric (of A + Aᵀ) when at least this fraction of the off-diagonal pattern is mirrored… */
const SYMMETRIC_PATTERN_MIN = 0.5;
/** …and at least this fraction of the diagonal is stored (UMFPACK's symmetric-strategy test); else a column ordering. */
const DIAGONAL_MIN = 0.9;

/** Ordering 'auto' keeps the natural order when A stores at least this fraction of its band (MATLAB's backslash takes its banded solver from 0.5). */
const BAND_MIN_DENSITY = 0.5;
/** Ordering 'auto' factorizes a matrix of at most this many unknowns dense (measured: see docs/direct.md). */
const DENSE_MAX_N = 48;

/**
 * A real CSR of at least this many entries is transposed by the kernels (SymbolicKernels.columns):
 * transposition and pattern symmetry as JavaScript against the kernel's call, random patterns of 4 a
 * row (µs, one thread, warm): 97 entries 2.7 / 2.7, 243 4.5 / 3.1, 842 13.6 / 7.3, 3275 49.8 / 23.7.
 */
const COLUMNS_KERNEL_MIN = 200;

/** The square CSR, canonical, of any format (a ShapeError for a rectangular one; `named`: where a non-matrix is refused); refactor checks its A2 with it. */
export function squareCsr(A: SparseMatrix, where: string, named = where): CSRMatrix {
  const csr = sparseMatrix(A, named).toCSR();
  if (csr.rows !== csr.cols) throw new ShapeError(`${where}: A must be square, it is ${csr.rows}×${csr.cols}`);
  return csr;
}

/**
 * Refused from sizes before any pass: the columns' copy and the ordering's, tree's and counts' arrays
 * take at least 7 Int32Arrays of n and 2 of nnz (an empty 10⁸×10⁸ matrix ran 3 s into rt.factor's
 * symbolic phase, ≈ 200 bytes a row, and crashed Node out of memory; 1.5 s and 0.9 GB into
 * rt.estimateFactorCost's before the WebAssembly memory's error).
 */
function checkSymbolicFloor(csr: CSRMatrix, where: string): void {
  checkMemoryFloor(4 * (7 * csr.rows + 2 * csr.nnz), `${where}: ${csr.rows} rows' symbolic phase`);
}

/** The symbolic phase of a factorization (square CSR, CSC, symmetry, ordering and counts), done once and kept: rt.solve's 'auto' estimates from it and factorizes with it. @internal */
export interface FactorPlan {
  csr: CSRMatrix;
  C: Csc;
  sym: boolean;
  a: Analysis;
  /** kind 'auto' of a real symmetric A with zero or missing diagonal entries (a saddle point): why it factorizes LU, not Cholesky or LDLᵀ */
  saddle?: string;
}

/** Plans the factorization `kind` of A with `ordering` (the kind and ordering checked first); `sk` runs the symbolic loops. @internal */
export function planFactor(A: SparseMatrix, kind: FactorKind, ordering: OrderingName | 'auto', sk: SymbolicKernels): FactorPlan {
  return finish(planSteps(A, kind, ordering, sk));
}

/** planFactor as steps (steps.ts): rt.factor with a signal pauses at them. @internal */
export function* planSteps(A: SparseMatrix, kind: FactorKind, ordering: OrderingName | 'auto', sk: SymbolicKernels): Steps<FactorPlan> {
  if (!KINDS.includes(kind)) throw new UnsupportedError(`factor: kind must be ${KINDS.map((k) => `'${k}'`).join(', ')}, got ${shownValue(kind)}`);
  if (!ORDERINGS.includes(ordering)) throw new UnsupportedError(`factor: ordering must be ${ORDERINGS.map((k) => `'${k}'`).join(', ')}, got ${shownValue(ordering)}`);
  const csr = squareCsr(A, 'factor');
  checkSymbolicFloor(csr, 'factor');
  yield;
  const { C, sym, symmetry } = columnsOf(csr, sk);
  yield;
  if ((kind === 'cholesky' || kind === 'ldlt') && C.complex) {
    throw new UnsupportedError(`factor: kind '${kind}' takes real matrices; use kind: 'lu' for complex ones`);
  }
  if ((kind === 'cholesky' || kind === 'ldlt') && !sym) {
    throw new UnsupportedError(`factor: kind '${kind}' needs a symmetric matrix (A equal to Aᵀ, both triangles stored); use kind: 'lu'`);
  }
  const luOnly = ordering === 'amd-ata' || ordering === 'btf';
  if (luOnly && (kind === 'cholesky' || kind === 'ldlt')) {
    throw new UnsupportedError(`factor: ordering '${ordering}' (${ordering === 'btf' ? 'block triangular form' : 'a column ordering'}) is for LU; kind '${kind}' takes 'amd', 'nd', 'natural' or 'auto'`);
  }
  // kind 'auto' of a symmetric A with zero diagonal entries is LU: LDLᵀ without pivoting meets a zero pivot
  // wherever such an unknown comes before its neighbours, as a fill-reducing ordering puts it (stokes2D(80),
  // 19 039 unknowns: LDLᵀ broke down, and the LU after it under the symmetric ordering left the diagonal
  // 11 061 times, 8.9 M entries, 1 557 ms, against 152, 2.0 M and 189 ms under the transversal's:
  // bench/device/results-2026-11-29-twenty-fourth/cpu2/saddle-probe.log)
  const nonzero = kind === 'auto' && sym ? nonzeroDiagonal(C) : undefined;
  const zeros = nonzero === undefined ? 0 : C.n - nonzero;
  const saddle = zeros > 0 ? `symmetric with ${zeros} of ${C.n} diagonal entries zero (a saddle point's constraint block): LDLᵀ without pivoting would meet a zero pivot` : undefined;
  // kind 'auto' with the column ordering or block triangular form asked for is LU (the only kind that uses them), symmetric A too
  const a = yield* analysisSteps(C, csrRows(csr), kind === 'lu' || (kind === 'auto' && (!sym || luOnly || zeros > 0)), ordering, sk, symmetry, zeros > 0 ? nonzero : undefined);
  return { csr, C, sym, a, ...(saddle ? { saddle } : {}) };
}

/**
 * A by columns, and whether it is symmetric (real only). An f64 CSR is tested first as it stands (its
 * arrays are the columns of Aᵀ, symmetric exactly when A is): a symmetric one is copied as its own
 * columns, three block copies instead of a transposition; another is transposed by the kernels (`sk`),
 * which measure its pattern symmetry in the same call (as JavaScript, the transposition and the
 * symmetry's pass were 19 and 10 µs of west0479's 0.6 ms rt.solve).
 */
function columnsOf(csr: CSRMatrix, sk: SymbolicKernels): { C: Csc; sym: boolean; symmetry?: { symmetry: number; diagonal: number } } {
  if (csr.dtype === 'f64') {
    const n = csr.rows;
    const values = csr.values as Float64Array;
    if (isSymmetric({ n, colPtr: csr.rowPtr, rowIdx: csr.colIdx, values, complex: false })) return { C: rowsWithValues(csr), sym: true };
    return csr.nnz >= COLUMNS_KERNEL_MIN ? { ...sk.columns(csr), sym: false } : { C: cscOf(csr), sym: false };
  }
  const C = cscOf(csr);
  return { C, sym: !C.complex && isSymmetric(C) };
}

/** A's pattern by rows as its canonical CSR holds it (rows ascending, as rowsOf(C) would rebuild them: 9–13 µs for west0479). */
function csrRows(csr: CSRMatrix): Rows {
  return { rowPtr: csr.rowPtr, colIdx: csr.colIdx };
}

/**
 * The symbolic phase for A by columns and by `rows`. LU with ordering 'auto' orders A + Aᵀ when A's
 * pattern is mostly symmetric with a mostly stored diagonal (the pivots can then stay on the diagonal the
 * ordering chose), else the columns by minimum degree of AᵀA (from A, not formed) (any row pivoting then stays within its fill).
 * `known`: A's pattern symmetry where it was measured already (patternSymmetry's answer); `saddleNonzero`: a
 * symmetric A's nonzero diagonal entries, counted by planSteps, where some are zero (a saddle point: the transversal's ordering).
 */
function* analysisSteps(C: Csc, rows: Rows, lu: boolean, ordering: OrderingName | 'auto', sk: SymbolicKernels, known?: { symmetry: number; diagonal: number }, saddleNonzero?: number): Steps<Analysis> {
  let asked = ordering;
  let why = '';
  let mostlySymmetric = false;
  if (ordering === 'auto' && C.n <= DENSE_MAX_N) {
    return denseAnalysis(C.n, lu, C.complex, `n = ${C.n} ≤ ${DENSE_MAX_N}: factorized dense in the natural order (no ordering or symbolic phase: they would cost more than the flops they save)`);
  }
  const band = ordering === 'auto' && C.n > 1 ? bandOf(C) : null;
  if (band && band.density >= BAND_MIN_DENSITY) {
    why = `banded: A stores ${band.density.toFixed(2)} of its band (≥ ${BAND_MIN_DENSITY}), whose fill the natural order does not exceed: no reordering`;
    // LU runs the banded kernel, which needs no symbolic phase
    if (lu) return bandAnalysis(C.n, band, C.complex, `${why}, banded LU (${band.lower} + ${band.upper} diagonals)`);
    asked = 'natural';
  } else if (lu && ordering === 'auto' && C.n > 1) {
    const { symmetry } = known ?? patternSymmetry(C, rows);
    // (stored zeros count as missing: neither is a pivot the symmetric ordering could keep)
    const saddle = saddleNonzero !== undefined;
    const diagonal = saddleNonzero ?? nonzeroDiagonal(C);
    mostlySymmetric = symmetry >= SYMMETRIC_PATTERN_MIN;
    const stats = `pattern symmetry ${symmetry.toFixed(2)}, ${diagonal} of ${C.n} diagonal entries nonzero`;
    if (!mostlySymmetric || diagonal < DIAGONAL_MIN * C.n || saddle) {
      asked = 'btf';
      why = `${stats} (${saddle ? 'A symmetric: any zero' : `< ${SYMMETRIC_PATTERN_MIN} or < ${DIAGONAL_MIN}·n`}): `;
    } else why = `${stats}: a symmetric ordering of A + Aᵀ; `;
  }
  let bt: BlockTriangular | number | undefined;
  let btfMs = 0;
  // 'auto''s transversal for one irreducible block of a mostly symmetric pattern (Analysis.symmetricBlock)
  let symmetricBlock = false;
  if (asked === 'btf') {
    const auto = ordering === 'auto';
    const t0 = performance.now();
    // the kernel orders the form it finds ('auto' takes a column ordering for one block of a pattern far from symmetric instead)
    bt = sk.btf(C, rows, auto && !mostlySymmetric ? 2 : 0);
    btfMs = performance.now() - t0;
    if (typeof bt === 'number') {
      // the numeric phase then fails on the column ordering's factor with the usual SingularMatrixError
      why += `${auto ? '' : `ordering 'btf' was asked for, but `}A is structurally singular (a maximum transversal matches ${bt} of ${C.n} rows: no block triangular form): `;
      asked = 'amd-ata';
    } else if (auto && bt.blocks === 1 && !mostlySymmetric) {
      why += 'one irreducible block (no block triangular form to use): ';
      asked = 'amd-ata';
    } else if (auto && bt.blocks === 1) {
      // the transversal puts nonzeros on the diagonal, and B + Bᵀ stays near A's own pattern: its minimum
      // degree fills less than AᵀA's (stokes2D(80): 2.0 M entries, 152 pivots off the diagonal, 0.17 s,
      // against 3.2 M, 8 593 and 0.25 s in a scratch run, not logged; test/direct-saddle.test.ts checks the fill)
      why += 'one irreducible block, its pattern mostly symmetric: the rows matched to the columns by a maximum transversal (B, its diagonal free of zeros), ordered by approximate minimum degree of B + Bᵀ';
      symmetricBlock = true;
    } else {
      const { largest, singletons } = bt;
      why += `${auto ? '' : `ordering 'btf' was asked for: `}block triangular form, ${bt.blocks} diagonal blocks (${singletons} of them 1×1, the largest ${largest}×${largest}), each ordered by approximate minimum degree of its B + Bᵀ (B: A with its rows matched to the columns)`;
    }
    if (asked === 'amd-ata') why += 'a column ordering, approximate minimum degree of AᵀA';
  }
  yield;
  const a = asked === 'btf' ? btfAnalysis((bt as BlockTriangular).order!, lu, C.complex, btfMs)
    : yield* analyzeSteps(asked === 'amd-ata' ? { n: C.n, colPtr: C.colPtr, rowIdx: C.rowIdx, rows, skip: denseRows(rows, C.n) } : symmetricGraph(C.n, C.colPtr, C.rowIdx, rows), asked, lu, C.complex, sk);
  if (why) a.orderingReason = asked === 'auto' ? why + a.orderingReason : why;
  if (typeof bt === 'object' && asked === 'btf') {
    a.matchOf = bt.colOf;
    a.blockOf = bt.blk;
    a.above = bt.above;
    if (symmetricBlock) a.symmetricBlock = true;
    // the entries above the diagonal blocks are kept as they stand
    const off = bt.above;
    a.cost.fillNnz += off;
    a.cost.bytes += off * (C.complex ? 20 : 12);
  }
  return a;
}

/**
 * The index of b's first NaN or ±Inf, or −1 (F.solve refuses such a b; rt.solve ends 'nan' before factorizing).
 * @internal
 */
export function firstNonFinite(b: Float64Array): number {
  for (let i = 0; i < b.length; i++) if (b[i] - b[i] !== 0) return i;
  return -1;
}

/**
 * Why A cannot be factorized for holding a NaN or ±Inf (the first by columns, named by row, column and
 * value), or null: such an entry spoils every pivot of its column, which would read as 'singular'.
 * @internal rt.solve asks before factorizing, to end with reason 'nan' as the Krylov methods do
 */
export function nonFiniteEntry(A: Csc): string | null {
  if (finiteChecked.has(A)) return null;
  const { colPtr, rowIdx, values, complex } = A;
  const w = complex ? 2 : 1;
  // one flat pass over the values (x − x is 0 for every finite x, NaN for ±Inf and NaN); the entry's
  // row and column are looked for only when there is one
  let finite = true;
  for (let k = 0, e = w * colPtr[A.n]; k < e; k++) if (values[k] - values[k] !== 0) finite = false;
  if (finite) {
    finiteChecked.add(A);
    return null;
  }
  for (let j = 0; j < A.n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      for (let c = 0; c < w; c++) {
        const v = values[w * p + c];
        if (!Number.isFinite(v)) return `A holds ${v}${complex ? (c ? ' (imaginary part)' : ' (real part)') : ''} at row ${rowIdx[p]}, column ${j}: a factorization needs finite values`;
      }
    }
  }
  return null;
}

/**
 * The matrices nonFiniteEntry found finite (a Csc is the factorization's own copy, never written
 * after it is made): rt.solve's check and each numeric phase 'auto' tries read A once, not each time.
 */
const finiteChecked = new WeakSet<Csc>();

/** What {@link Runtime.estimateFactorCost} returns: the cost, and the ordering it assumes. */
export interface FactorEstimate extends FactorCost {
  /** the ordering the estimate assumes (the one rt.factor would choose with the same options) */
  ordering: OrderingName;
}

/** The cost of factorizing A from the symbolic phase alone: see {@link Runtime.estimateFactorCost}; `sk` runs the symbolic loops. @internal */
export function estimateFactorCost(A: SparseMatrix, kind: 'cholesky' | 'ldlt' | 'lu', ordering: OrderingName | 'auto', sk: SymbolicKernels): FactorEstimate {
  const csr = squareCsr(A, 'estimateFactorCost');
  checkSymbolicFloor(csr, 'estimateFactorCost');
  const C = cscOf(csr);
  if ((ordering === 'amd-ata' || ordering === 'btf') && kind !== 'lu') throw new UnsupportedError(`estimateFactorCost: ordering '${ordering}' is for LU`);
  const a = finish(analysisSteps(C, csrRows(csr), kind === 'lu', ordering, sk));
  return { ...a.cost, ordering: a.ordering };
}

