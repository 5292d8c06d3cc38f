import { allocValues, isComplex, type ValueArray } from '../../dtype.js';
import { InputRangeError, SimdglError, UnsupportedError } from '../../errors.js';
import { CSRMatrix } from '../../formats/csr.js';
import { shownValue } from '../../shown-value.js';
import { checkNumber } from '../../options-check.js';
import type { PreconditionerOperator } from '../operator.js';
import type { ChebyshevPolynomial, ResidentOperator, SolverOps, TriangularOptions } from '../ops.js';
import type { SolveStructure } from '../structure.js';
import { blockDiagonalInverse, detectBlockSize } from './block-jacobi.js';
import { chebyshevSteps, lanczosBounds } from './chebyshev.js';
import { ic0 } from './ic0.js';
import { ilu0 } from './ilu0.js';
import { inverseDiagonal } from './jacobi.js';
import { reversedSchedule, triangularOptions } from './levels.js';
import { ssorFactors } from './ssor.js';
import { saddleBlockMatrix, saddleTriangularMatrices } from './saddle.js';
import { solveStructure } from '../structure.js';
import { checkAmgOptions, type AmgInfo } from '../amg/info.js';
import type { AmgOptions } from '../amg/hierarchy.js';
import { amgCycleChunk } from '../amg/cycle-chunk.js';
import { amgSetup } from '../amg/index.js';
import type { SparseKernels, SparseSession } from '../amg/spgemm.js';

/** The preconditioners of rt.preconditioner and rt.solve. */
export type PreconditionerKind = 'none' | 'jacobi' | 'block-jacobi' | 'ssor' | 'ic0' | 'ilu0' | 'chebyshev' | 'amg' | 'saddle';
export const PRECONDITIONER_KINDS: readonly PreconditionerKind[] = ['none', 'jacobi', 'block-jacobi', 'ssor', 'ic0', 'ilu0', 'chebyshev', 'amg', 'saddle'];

/** Chebyshev's interval of D⁻¹A chosen before its plan (planPreconditioner's `bounds`). */
export interface ChebyshevBounds {
  lo: number;
  hi: number;
  /** how they were found, for the description: 'from …' */
  how: string;
  /** ms that took */
  ms: number;
  /** D⁻¹, where it was made */
  dinv?: ValueArray;
  /** D⁻¹'s one value, where A's diagonal is constant */
  dinvValue?: number;
}

/** A preconditioner and its options (each option is read by the kind named beside it). */
export interface PreconditionerOptions {
  /** which preconditioner; 'auto' lets rt.solve choose from the matrix and the path */
  kind: PreconditionerKind | 'auto';
  /** ssor: the relaxation factor ω in (0, 2) (default 1: symmetric Gauss–Seidel) */
  omega?: number;
  /** block-jacobi: rows per diagonal block, 1–64 (default: the matrix's node size where its rows come in groups of one pattern, else 4) */
  blockSize?: number;
  /** chebyshev: the polynomial's degree, 1–32 (default 4) */
  degree?: number;
  /** amg, and saddle's multigrid of its block-diagonal matrix: the smoothed-aggregation setup's options (docs/amg.md) */
  amg?: AmgOptions;
}

/**
 * The host part of a preconditioner, computed once from A (factors, level schedules, eigenvalue
 * bounds) and made resident on any path by instantiate(): Ginkgo's factory result.
 */
export interface PreconditionerPlan {
  readonly kind: PreconditionerKind;
  /** what it is, with its parameters and any diagonal shift, for explain and the solve's outcome */
  readonly description: string;
  /** the diagonal shift an incomplete factorization needed (0 when none) */
  readonly shift: number;
  /** ms the host setup took */
  readonly setupMs: number;
  /** amg: the hierarchy (levels, complexities, why coarsening stopped) */
  readonly amg?: AmgInfo;
  instantiate<V>(ops: SolverOps<V>): PreconditionerOperator<V>;
  /** frees what the setup left in the runtime's memory (AMG's level matrices); no instantiate() after it */
  dispose?(): void;
}

/**
 * Checks a preconditioner's options: UnsupportedError for a kind outside the set, InputTypeError /
 * InputRangeError naming a number option of the wrong type or out of range (with the value and its type).
 */
export function checkPreconditionerOptions(o: PreconditionerOptions, where: string): void {
  if (o.kind !== 'auto' && !PRECONDITIONER_KINDS.includes(o.kind)) {
    throw new UnsupportedError(`${where}: kind must be 'auto' or one of ${PRECONDITIONER_KINDS.map((k) => `'${k}'`).join(', ')}, got ${shownValue(o.kind)}`);
  }
  checkNumber(where, 'omega', o.omega, { what: 'a number in (0, 2)', ok: (v) => v > 0 && v < 2 });
  checkNumber(where, 'blockSize', o.blockSize, { what: 'an integer in [1, 64]', ok: (v) => Number.isInteger(v) && v >= 1 && v <= 64 });
  checkNumber(where, 'degree', o.degree, { what: 'an integer in [1, 32]', ok: (v) => Number.isInteger(v) && v >= 1 && v <= 32 });
  if (o.amg !== undefined) checkAmgOptions(o.amg, where);
}

/** Where A holds its first NaN or ±Inf (by rows): row, column and value. */
function nonFiniteAt(A: CSRMatrix): string {
  const w = isComplex(A.dtype) ? 2 : 1;
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      for (let c = 0; c < w; c++) {
        const v = A.values[w * k + c];
        if (!Number.isFinite(v)) return `A holds ${v}${w === 2 ? (c ? ' (imaginary part)' : ' (real part)') : ''} at row ${i}, column ${A.colIdx[k]}: its setup needs finite values`;
      }
    }
  }
  return 'A holds NaN or ±Inf: its setup needs finite values';
}

/**
 * The refusals of planPreconditioner that A's structure decides, before any setup: a kind that divides by
 * A's values where A holds NaN or ±Inf, IC(0) of a matrix that is not Hermitian, Chebyshev without a
 * Hermitian A and a positive diagonal. Null where the setup may run. explain('solve') gives them as
 * rt.solve does (it explained gmres + ic0 of a nonsymmetric A that rt.solve refuses).
 */
export function structuralRefusal(A: CSRMatrix, s: SolveStructure, kind: PreconditionerKind): Error | null {
  const hermitian = isComplex(A.dtype) ? 'Hermitian' : 'symmetric';
  // NaN or ±Inf in A: every setup that reads A's off-diagonal values divides by them or sums them
  // through — IC(0)/ILU(0) reported a breakdown 'even with the diagonal shifted', SSOR and AMG (±Inf on
  // the diagonal) made the solve end 'breakdown', AMG read NaN as 'not symmetric'. Jacobi reads the
  // diagonal alone (refusing a non-finite one itself); 'none' lets the solve end 'nan'
  if (!s.finite && kind !== 'none' && kind !== 'jacobi') return new InputRangeError(`${kind}: ${nonFiniteAt(A)}; preconditioner 'none' (or 'auto') solves it, ending with reason 'nan'`);
  if (kind === 'ic0' && !s.hermitian) return new UnsupportedError(`ic0: the matrix is not ${hermitian}; use 'ilu0'`);
  if (kind === 'chebyshev' && (!s.hermitian || !s.positiveDiagonal)) {
    return new UnsupportedError(`chebyshev: needs a ${hermitian} matrix with a positive diagonal (its eigenvalues are estimated as real and positive); use 'jacobi'`);
  }
  return null;
}

/**
 * The host setup of a preconditioner of a concrete kind for the canonical square CSR A (`kernels`: the
 * CPU path's sparse kernels, for AMG's setup). `bounds`: Chebyshev's interval [lo, hi] of D⁻¹A chosen
 * already (on a GPU path: runtime.ts, chebyshevPlan), `how` it was found, the ms that took, and D⁻¹
 * where it was made (`dinvValue` where it is one value), instead of the CPU pool's Lanczos estimate.
 * `session`: an open session of `kernels` AMG's setup runs in (its caller disposes it).
 */
export function planPreconditioner(
  A: CSRMatrix,
  s: SolveStructure,
  o: PreconditionerOptions & { kind: PreconditionerKind },
  kernels: SparseKernels,
  bounds?: ChebyshevBounds,
  session?: SparseSession,
): PreconditionerPlan {
  const t0 = performance.now() - (bounds?.ms ?? 0);
  const plan = (kind: PreconditionerKind, description: string, instantiate: PreconditionerPlan['instantiate'], shift = 0, amg?: AmgInfo, dispose?: () => void): PreconditionerPlan => ({
    kind,
    description,
    shift,
    setupMs: performance.now() - t0,
    amg,
    instantiate,
    ...(dispose ? { dispose } : {}),
  });
  const refused = structuralRefusal(A, s, o.kind);
  if (refused) throw refused;
  switch (o.kind) {
    case 'none':
      return plan('none', 'none', (ops) => ({ method: 'copy', apply: (r, z) => ops.copy(r, z), dispose: () => {} }));
    case 'jacobi': {
      const M = diagonalMatrix(A.rows, inverseDiagonal(A));
      return plan('jacobi', 'jacobi (inverse of the diagonal)', (ops) => matrixOperator(ops, M, 'diagonal scaling'));
    }
    case 'block-jacobi': {
      const b = o.blockSize ?? detectBlockSize(A);
      const M = blockDiagonalInverse(A, b);
      return plan('block-jacobi', `block-jacobi (${b}×${b} blocks${o.blockSize ? '' : ', size detected'}, inverted at setup)`, (ops) =>
        matrixOperator(ops, M, `block-diagonal product (${b}×${b})`),
      );
    }
    case 'ssor': {
      const omega = o.omega ?? 1;
      const { lower, upper } = ssorFactors(A, omega);
      const f = [triangle(lower, true, false), triangle(upper, false, false)];
      return plan('ssor', omega === 1 ? 'ssor (ω = 1: symmetric Gauss–Seidel)' : `ssor (ω = ${omega})`, (ops) => triangularPair(ops, 'ssor', f));
    }
    case 'ic0': {
      const F = ic0(A);
      if (!F) throw new UnsupportedError(`ic0: the factorization breaks down even with the diagonal shifted by 10·|aᵢᵢ|; use 'jacobi' or 'ilu0'`);
      const lower = triangle(F.L, true, false);
      const f = [lower, { T: F.LH, options: triangularOptions(F.LH, false, false, () => reversedSchedule(lower.options.levels)) }];
      return plan('ic0', `ic0 (zero fill${shiftText(F.shift)})`, (ops) => triangularPair(ops, 'ic0', f), F.shift);
    }
    case 'ilu0': {
      const F = ilu0(A);
      if (typeof F === 'string') throw new UnsupportedError(`ilu0: the factorization breaks down even with the diagonal shifted by 10·|aᵢᵢ| (${F}); use 'jacobi'`);
      const f = [triangle(F.L, true, true), triangle(F.U, false, false)];
      return plan('ilu0', `ilu0 (zero fill${shiftText(F.shift)}${F.why ? ` (${F.why})` : ''})`, (ops) => triangularPair(ops, 'ilu0', f), F.shift);
    }
    case 'chebyshev': {
      const degree = o.degree ?? 4;
      let dinv: ValueArray | undefined = bounds?.dinv;
      let lo: number;
      let hi: number;
      if (bounds) [lo, hi] = [bounds.lo, bounds.hi];
      else {
        dinv = inverseDiagonal(A);
        const est = isComplex(A.dtype) ? lanczosBounds(A) : pooledLanczos(kernels, A, dinv instanceof Float64Array ? dinv : Float64Array.from(dinv));
        // λmax from below: 10% margin; λmin over-estimated, which keeps p(A) positive definite (docs/solvers.md)
        hi = 1.1 * est.max;
        lo = Math.max(est.min, hi * 1e-4);
      }
      // D⁻¹ as a matrix for the host's steps, made at their first use: a GPU path's resident solve reads its own
      let D: CSRMatrix | undefined;
      const poly = { degree, lo, hi, ...(bounds?.dinvValue !== undefined ? { dinv: bounds.dinvValue } : {}) };
      return plan('chebyshev', `chebyshev (degree ${degree} in D⁻¹A on [${lo.toPrecision(3)}, ${hi.toPrecision(3)}] ${bounds?.how ?? 'from 20 Lanczos steps'})`, (ops) =>
        chebyshevOperator(ops, () => (D ??= diagonalMatrix(A.rows, (dinv ??= inverseDiagonal(A)))), poly),
      );
    }
    case 'amg':
      return multigrid('amg', A, s, (d) => d);
    case 'saddle': {
      if (!s.hermitian) {
        // a nonsymmetric saddle point's block-triangular preconditioner (saddle.ts): F's symmetric part's cycle between two products
        const { M, T, Z, constraints } = saddleTriangularMatrices(A);
        return multigrid('saddle', M, solveStructure(M), (d) => `saddle (block triangular: the ${A.rows - constraints} unknowns with a nonzero diagonal by ${d} of their block's symmetric part, the ${constraints} constraints by the Schur complement's diagonal)`, (ops, cycle) => blockTriangular(ops, T, Z, cycle));
      }
      // AMG of the block-diagonal matrix (saddle.ts): K's cycle and S's diagonal side by side
      const { M, constraints } = saddleBlockMatrix(A);
      return multigrid('saddle', M, solveStructure(M), (d) => `saddle (block diagonal: the ${A.rows - constraints} unknowns with a nonzero diagonal by ${d}, the ${constraints} constraints by the Schur complement's diagonal)`);
    }
  }

  /**
   * A V-cycle of M's smoothed-aggregation hierarchy, described by `words` of the hierarchy's own
   * description; `around` makes the operator that applies it (default: the cycle itself).
   */
  function multigrid(kind: 'amg' | 'saddle', M: CSRMatrix, sM: SolveStructure, words: (description: string) => string, around?: <V>(ops: SolverOps<V>, cycle: PreconditionerOperator<V>) => PreconditionerOperator<V>): PreconditionerPlan {
    const { hierarchy, info, description } = amgSetup(M, sM, kernels, o.amg, session);
    return plan(kind, words(description), (ops) => {
      const cycle = amgCycleChunk.get().amgCycle(ops, hierarchy);
      return around ? around(ops, cycle) : cycle;
    }, 0, info, () => hierarchy.dispose());
  }
}

/**
 * lanczosBounds of a real A on the CPU path's worker pool (SparseSession.lanczosBounds: the same start
 * and steps, in WebAssembly): for 2 M rows the plain JavaScript took 2.3–3.1 s of a Chebyshev setup on
 * the H100 machine's host (bench/device/results-2026-11-27-gpu/call5).
 */
function pooledLanczos(kernels: SparseKernels, A: CSRMatrix, dinv: Float64Array): { min: number; max: number } {
  const session = kernels();
  try {
    return session.lanczosBounds(A, dinv, 20);
  } finally {
    session.dispose();
  }
}

function shiftText(shift: number): string {
  return shift ? `, breakdown: diagonal shifted by ${shift}·|aᵢᵢ|` : '';
}

interface Triangle {
  T: CSRMatrix;
  options: TriangularOptions;
}

function triangle(T: CSRMatrix, lower: boolean, unitDiagonal: boolean): Triangle {
  return { T, options: triangularOptions(T, lower, unitDiagonal) };
}

/** z = T₂⁻¹·(T₁⁻¹·r) on a path with a triangular solve; an UnsupportedError naming a path without one. */
function triangularPair<V>(ops: SolverOps<V>, kind: string, f: Triangle[]): PreconditionerOperator<V> {
  if (!ops.triangular) {
    throw new UnsupportedError(`${kind}: the ${ops.label} path has no sparse triangular solve; use 'jacobi', 'block-jacobi' or 'chebyshev' there, or run on another path`);
  }
  const solvers: ReturnType<NonNullable<SolverOps<V>['triangular']>>[] = [];
  try {
    for (const t of f) solvers.push(ops.triangular(t.T, t.options));
  } catch (e) {
    for (const s of solvers) s.dispose();
    // a factor the path cannot hold (double-single's f32 exponent on a GPU path: ILU(0) of a matrix
    // spanning 2^-51 … 2^100 held 2.4e44, and rt.solve's 'auto' threw WebGpuLimitError naming that value):
    // the preconditioner's refusal, which 'auto' runs without
    if (e instanceof SimdglError && e.code === 'E_GPU_LIMIT') throw new UnsupportedError(`${kind}: its factor has an entry the ${ops.label} path cannot hold (${e.message}); use 'jacobi' or 'none'`);
    throw e;
  }
  const [a, b] = solvers;
  const t = ops.vector();
  return {
    method: `forward: ${a.method}; backward: ${b.method}`,
    apply: async (r, z) => {
      await a.solve(r, t);
      await b.solve(t, z);
    },
    dispose: () => {
      a.dispose();
      b.dispose();
      ops.release(t);
    },
  };
}

function diagonalMatrix(n: number, d: ArrayLike<number> & { length: number }): CSRMatrix {
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    ptr[i + 1] = i + 1;
    idx[i] = i;
  }
  const complex = d.length === 2 * n;
  const v = allocValues(complex ? 'c128' : 'f64', n);
  v.set(d as ArrayLike<number>);
  return new CSRMatrix(n, n, complex ? 'c128' : 'f64', ptr, idx, v);
}

/**
 * z = P⁻¹·r of a block-triangular saddle preconditioner (saddle.ts saddleTriangularMatrices): the
 * velocity right-hand side T·r, F̃⁻¹ of it by `cycle` (zero on the constraints), plus the constraints'
 * −S⁻¹·r_p by Z.
 */
function blockTriangular<V>(ops: SolverOps<V>, T: CSRMatrix, Z: CSRMatrix, cycle: PreconditionerOperator<V>): PreconditionerOperator<V> {
  const Tr = ops.operator(T);
  const Zr = ops.operator(Z);
  const t = ops.vector();
  return {
    method: `${cycle.method}, between the products by B₁ᵀ·S⁻¹ and −S⁻¹`,
    apply: async (r, z) => {
      await Tr.apply(r, t, 1, 0);
      await cycle.apply(t, z);
      await Zr.apply(r, z, 1, 1);
    },
    dispose: () => {
      cycle.dispose();
      Tr.dispose();
      Zr.dispose();
      ops.release(t);
    },
  };
}

function matrixOperator<V>(ops: SolverOps<V>, M: CSRMatrix, method: string): PreconditionerOperator<V> {
  const R = ops.operator(M);
  return { method, apply: (r, z) => R.apply(r, z, 1, 0), dispose: () => R.dispose() };
}

/**
 * z = p(D⁻¹A)·D⁻¹·r: `degree` steps of the Chebyshev iteration for A·z = r from z = 0 on [lo, hi]
 * (Saad, Iterative Methods, Alg. 12.1), Jacobi-scaled. A fixed polynomial, so a linear operator, and
 * Hermitian positive definite for such an A whatever the bounds' error (docs/solvers.md).
 */
function chebyshevOperator<V>(ops: SolverOps<V>, D: () => CSRMatrix, poly: ChebyshevPolynomial): PreconditionerOperator<V> {
  // made at the first apply: a path that runs the polynomial resident with CG (cgChebyshevResident)
  // never applies it here, and uploading D⁻¹ cost a 2 M-row WebGPU solve ≈ 10–20 ms of host time
  let made: { Dinv: ResidentOperator<V>; res: V; d: V } | null = null;
  const steps = chebyshevSteps(poly);
  return {
    method: `${poly.degree - 1} SpMV and ${poly.degree} diagonal scalings per application`,
    chebyshev: poly,
    apply: async (r, z) => {
      const { Dinv, res, d } = (made ??= { Dinv: ops.operator(D()), res: ops.vector(), d: ops.vector() });
      // d = c2·D⁻¹·r; z = d; then per step: res = r − A·z, d = c1·d + c2·D⁻¹·res, z += d
      await ops.copy(r, res);
      await Dinv.apply(r, d, steps[0][1], 0);
      await ops.copy(d, z);
      for (let k = 1; k < steps.length; k++) {
        const [c1, c2] = steps[k];
        await ops.spmv(d, res, -1, 1);
        await ops.scal([c1, 0], d);
        await Dinv.apply(res, d, c2, 1);
        await ops.axpy([1, 0], d, z);
      }
    },
    dispose: () => {
      if (!made) return;
      made.Dinv.dispose();
      ops.release(made.res);
      ops.release(made.d);
      made = null;
    },
  };
}
