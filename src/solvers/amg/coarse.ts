import { UnsupportedError } from '../../errors.js';
import { CSRMatrix } from '../../formats/csr.js';
import { checkMemoryFloor } from '../../memory-budget.js';
import { analyze } from '../direct/analysis.js';
import { ldlPointers, type LdlFactor, type LdlNumeric } from '../direct/ldl.js';
import { rowsWithValues, symmetricGraph } from '../direct/pattern.js';
import type { SymbolicKernels } from '../direct/symbolic.js';

/** The direct solvers' kernels the coarsest level's sparse Cholesky runs on (the CPU path's, injected by the runtime). */
export interface CoarseKernels {
  symbolic: SymbolicKernels;
  ldl: LdlNumeric;
  /** the dense (pseudo-)inverse's factorization and columns (denseInverse's, the same bits) */
  inverse?: DenseInverseKernel;
}

/**
 * denseInverse's factorization and inverse of L (n×n, row-major, A's values; dmax its largest
 * |diagonal|): the inverse, or the first pivot below −1e-10·dmax.
 */
export type DenseInverseKernel = (L: Float64Array, n: number, dmax: number) => { inverse: Float64Array } | { pivot: number };

/**
 * How the coarsest level is solved: its dense (pseudo-)inverse, row-major, applied as one product; or
 * its sparse Cholesky factor P·A·Pᵀ = L·Lᵀ (L lower, its diagonal stored, in the factor's order;
 * perm[k] = the row of A eliminated k-th), applied as two triangular solves between two permutations.
 */
export type AmgCoarse =
  | { kind: 'dense'; inverse: Float64Array; reason: string }
  | { kind: 'sparse'; L: CSRMatrix; perm: Int32Array; reason: string };

/** The most rows the coarsest level's dense inverse takes (n² values, ≈ 4n³/3 flops in JS: 2025 rows took 40 s under load). */
export const MAX_COARSE = 5000;
/** Below this the coarsest level is inverted dense without a symbolic phase (it would cost more than it saves). */
const DENSE_ALWAYS = 64;
/** The sparse factor is taken when its flops are at most this share of the dense Cholesky's n³/3 (its kernels run slower per flop, and its triangular solves follow the level order). */
const SPARSE_SHARE = 0.25;
/** The most flops the sparse Cholesky is given (≈ 10 s of one core): more is an UnsupportedError, not minutes of setup. */
export const MAX_COARSE_FLOPS = 1e10;

/**
 * The coarsest level's solver. Dense where it is small or its factor would fill in (dense flops and a
 * dense product are then fastest); the sparse Cholesky of the direct solvers (ordering by AMD or nested
 * dissection, rt.factor's symbolic phase) where its estimated flops are ≤ SPARSE_SHARE of n³/3, its
 * factor fits the memory budget and its flops MAX_COARSE_FLOPS. A coarse matrix that is only
 * semidefinite (a pure-Neumann Laplacian's constant) or indefinite fails the sparse Cholesky and goes
 * to the dense pseudo-inverse, which drops zero pivots and names a negative one. Above MAX_COARSE
 * rows with no affordable sparse factor: an UnsupportedError saying why (`why`: why coarsening stopped,
 * `fix`: what to change).
 */
export function coarseSolver(A: CSRMatrix, kernels: CoarseKernels | undefined, why: string, fix: string): AmgCoarse {
  const n = A.rows;
  const denseFlops = n ** 3 / 3;
  let reason = `n = ${n} ≤ ${DENSE_ALWAYS}`;
  if (n > DENSE_ALWAYS && kernels === undefined) reason = 'no sparse direct kernels given';
  else if (n > DENSE_ALWAYS && kernels) {
    const C = rowsWithValues(A);
    const a = analyze(symmetricGraph(n, C.colPtr, C.rowIdx), 'auto', false, false, kernels.symbolic);
    const { flops, bytes, fillNnz } = a.cost;
    const est = `sparse Cholesky (${a.ordering}) estimated at ${fmt(flops)} flops, ${fillNnz} entries in L, against n³/3 = ${fmt(denseFlops)}`;
    if (flops > SPARSE_SHARE * denseFlops) reason = `${est}: more than ${SPARSE_SHARE} of it, dense is faster`;
    else if (flops > MAX_COARSE_FLOPS) {
      if (n <= MAX_COARSE) reason = `${est}: over the sparse limit of ${fmt(MAX_COARSE_FLOPS)} flops`;
      else throw new UnsupportedError(`amg: ${why}; its ${est}, over the ${fmt(MAX_COARSE_FLOPS)} the coarse solve is given, and more than the ${MAX_COARSE} rows a dense one takes; ${fix}`);
    } else {
      // L and its transpose on the path besides the factor's arrays
      checkMemoryFloor(bytes + 2 * fillNnz * 12, `amg: the coarsest level's sparse Cholesky factor (${n} rows, ${why})`);
      const Lp = ldlPointers(a.counts);
      const f: LdlFactor = { Lp, Li: new Int32Array(Lp[n]), Lx: new Float64Array(Lp[n]), D: new Float64Array(n) };
      const k = kernels.ldl(C, a.pinv, a.parent, f, true);
      let dmax = 0;
      for (let i = 0; i < n; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) if (A.colIdx[p] === i) dmax = Math.max(dmax, A.values[p]);
      // a pivot ≤ 1e-12 of the largest diagonal is the dense pseudo-inverse's zero: a semidefinite level
      const weak = k < 0 ? f.D.findIndex((d) => !(d > 1e-12 * dmax)) : k;
      if (weak < 0) return { kind: 'sparse', L: scaledFactor(f), perm: a.perm, reason: `${est}: ≤ ${SPARSE_SHARE} of it` };
      if (n > MAX_COARSE) throw new UnsupportedError(`amg: ${why}; the coarsest matrix is not positive definite (sparse Cholesky pivot ≤ 0 or ≤ 1e-12 of the largest diagonal at elimination step ${weak}), and its dense pseudo-inverse takes at most ${MAX_COARSE} rows; ${fix}`);
      reason = `the sparse Cholesky found a pivot ≤ 1e-12 of the largest diagonal at step ${weak} (semidefinite or indefinite): the dense pseudo-inverse`;
    }
  }
  if (n > MAX_COARSE) throw new UnsupportedError(`amg: ${why}, more than the ${MAX_COARSE} rows its dense solve takes (${reason}); ${fix}`);
  return { kind: 'dense', inverse: denseInverse(A, kernels?.inverse), reason };
}

function fmt(x: number): string {
  return x.toPrecision(2);
}

/** L·√D of a unit-lower LDLᵀ factor (by columns, rows ascending), as a lower CSR with its diagonal stored. */
function scaledFactor(f: LdlFactor): CSRMatrix {
  const { Lp, Li, Lx, D } = f;
  const n = D.length;
  // column j of L·√D is row j of its transpose: that upper CSR first, then transposed
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(Lp[n] + n);
  const val = new Float64Array(Lp[n] + n);
  for (let j = 0, m = 0; j < n; j++) {
    const s = Math.sqrt(D[j]);
    idx[m] = j;
    val[m++] = s;
    for (let p = Lp[j]; p < Lp[j + 1]; p++, m++) {
      idx[m] = Li[p];
      val[m] = Lx[p] * s;
    }
    ptr[j + 1] = m;
  }
  return new CSRMatrix(n, n, 'f64', ptr, idx, val).transpose();
}

function negativePivot(n: number, d: number, dmax: number): UnsupportedError {
  return new UnsupportedError(
    `amg: the coarsest matrix (${n} rows) has a negative pivot ${d.toExponential(2)} in its Cholesky factorization (its largest diagonal ${dmax.toExponential(2)}): A is indefinite, or singular and coarsened to a level its rounding dominates (then raise amg.maxCoarse); multigrid needs a positive (semi)definite matrix: for an indefinite one use method 'minres' or 'gmres'`,
  );
}

/**
 * The coarsest matrix's inverse by a dense Cholesky factorization (on `kernel` where given: the CPU
 * path's, the same bits); a pivot ≤ 1e-12 of the largest
 * diagonal (a semidefinite coarse matrix, e.g. a pure-Neumann Laplacian's constant, or a zero column
 * of a rank-deficient tentative prolongator) drops that unknown, so the result is a symmetric
 * pseudo-inverse and the cycle stays symmetric.
 *
 * Rows of L, and columns of the inverse, go four at a time: each keeps its own sums in the order of a
 * one-at-a-time loop (the same bits), while four independent chains of additions share each load of L
 * (poisson3D(128)'s 291-row coarsest level: 122 ms of the H100 host's setup one at a time).
 */
function denseInverse(A: CSRMatrix, kernel?: DenseInverseKernel): Float64Array {
  const n = A.rows;
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) L[i * n + A.colIdx[k]] = A.values[k];
  let dmax = 0;
  for (let i = 0; i < n; i++) dmax = Math.max(dmax, Math.abs(L[i * n + i]));
  if (kernel) {
    const r = kernel(L, n, dmax);
    if ('pivot' in r) throw negativePivot(n, r.pivot, dmax);
    return r.inverse;
  }
  const dropped = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let d = L[rj + j];
    for (let k = 0; k < j; k++) d -= L[rj + k] ** 2;
    // a pivot below rounding of the coarse matrix's own diagonal: A indefinite — or semidefinite, whose
    // null space coarsened to a level of rounding-sized entries (a 1-D Neumann Laplacian at maxCoarse 1)
    if (d < -1e-10 * dmax) throw negativePivot(n, d, dmax);
    if (!(d > 1e-12 * dmax)) {
      dropped[j] = 1;
      for (let i = j; i < n; i++) L[i * n + j] = 0;
      continue;
    }
    const ljj = Math.sqrt(d);
    L[rj + j] = ljj;
    let i = j + 1;
    for (; i + 3 < n; i += 4) {
      const [r0, r1, r2, r3] = [i * n, i * n + n, i * n + 2 * n, i * n + 3 * n];
      let s0 = L[r0 + j];
      let s1 = L[r1 + j];
      let s2 = L[r2 + j];
      let s3 = L[r3 + j];
      for (let k = 0; k < j; k++) {
        const l = L[rj + k];
        s0 -= L[r0 + k] * l;
        s1 -= L[r1 + k] * l;
        s2 -= L[r2 + k] * l;
        s3 -= L[r3 + k] * l;
      }
      L[r0 + j] = s0 / ljj;
      L[r1 + j] = s1 / ljj;
      L[r2 + j] = s2 / ljj;
      L[r3 + j] = s3 / ljj;
    }
    for (; i < n; i++) {
      const ri = i * n;
      let s = L[ri + j];
      for (let k = 0; k < j; k++) s -= L[ri + k] * L[rj + k];
      L[ri + j] = s / ljj;
    }
  }
  // inverse by columns: L·y = e_c (y is 0 above c), Lᵀ·x = y by columns of Lᵀ (rows of L, contiguous),
  // with dropped unknowns held at 0. Four columns c..c+3 at once: column c+b's terms for k < c+b
  // multiply its zeros (L·0 = +0, and s − (±0) = s: s is never −0), so its sums are the lone column's.
  const inv = new Float64Array(n * n);
  const Y = new Float64Array(4 * n);
  const y = [Y.subarray(0, n), Y.subarray(n, 2 * n), Y.subarray(2 * n, 3 * n), Y.subarray(3 * n)];
  for (let c = 0; c < n; c += 4) {
    const m = Math.min(4, n - c);
    Y.fill(0);
    const [y0, y1, y2, y3] = y;
    for (let i = c; i < n; i++) {
      if (dropped[i]) continue;
      const row = i * n;
      let s0 = i === c ? 1 : 0;
      let s1 = i === c + 1 ? 1 : 0;
      let s2 = i === c + 2 ? 1 : 0;
      let s3 = i === c + 3 ? 1 : 0;
      for (let k = c; k < i; k++) {
        const l = L[row + k];
        s0 -= l * y0[k];
        s1 -= l * y1[k];
        s2 -= l * y2[k];
        s3 -= l * y3[k];
      }
      const d = L[row + i];
      // a column's rows above its own stay 0
      y0[i] = s0 / d;
      if (i >= c + 1) y1[i] = s1 / d;
      if (i >= c + 2) y2[i] = s2 / d;
      if (i >= c + 3) y3[i] = s3 / d;
    }
    for (let i = n - 1; i >= 0; i--) {
      if (dropped[i]) {
        y0[i] = y1[i] = y2[i] = y3[i] = 0;
        continue;
      }
      const row = i * n;
      const d = L[row + i];
      const x0 = (y0[i] /= d);
      const x1 = (y1[i] /= d);
      const x2 = (y2[i] /= d);
      const x3 = (y3[i] /= d);
      for (let k = 0; k < i; k++) {
        const l = L[row + k];
        y0[k] -= l * x0;
        y1[k] -= l * x1;
        y2[k] -= l * x2;
        y3[k] -= l * x3;
      }
    }
    for (let b = 0; b < m; b++) for (let i = 0; i < n; i++) inv[i * n + c + b] = y[b][i];
  }
  return inv;
}
