import { CSRMatrix, markPrivateCanonical } from '../../formats/csr.js';
import { DIAMatrix } from '../../formats/dia.js';
import { UnsupportedError } from '../../errors.js';
import type { PreconditionerOperator } from '../operator.js';
import type { ResidentOperator, SolverOps, TriangularSolver } from '../ops.js';
import { triangularOptions } from '../precond/levels.js';
import { ssorFactors } from '../precond/ssor.js';
import { MAX_COARSE } from './coarse.js';
import type { AmgHierarchy } from './hierarchy.js';

/**
 * The multigrid cycle of a hierarchy made resident on a path, as a preconditioner: every level's A,
 * D⁻¹, R, P (and the Gauss–Seidel triangles) and the coarse inverse uploaded through ops.operator /
 * ops.triangular, the cycle made of the path's SpMV, triangular solve and BLAS-1 operations only, so
 * it runs wherever the solve runs (CPU pool, WebGPU).
 *
 * Every level runs at its own size: its vectors are ops.vector(rows of the level), its A and D⁻¹ are
 * uploaded as they are and R, P as the rectangular matrices between two levels, so a coarse level's
 * BLAS-1 and products cost what the level holds, not what the fine level does (on WebGPU nothing is
 * padded to the fine size either).
 *
 * The same smoother before and after the coarse correction, each symmetric in the A inner product
 * (damped Jacobi, symmetric Gauss–Seidel, a Chebyshev polynomial), so the V- and W-cycles are
 * symmetric positive definite operators for CG.
 */
export function amgCycle<V>(ops: SolverOps<V>, h: AmgHierarchy): PreconditionerOperator<V> {
  const { sweeps, smoother, cycle: shape } = h.options;
  if (smoother === 'gauss-seidel' && !ops.triangular) {
    throw new UnsupportedError(`amg: the ${ops.label} path has no sparse triangular solve for the 'gauss-seidel' smoother; use smoother 'jacobi' or 'chebyshev' there`);
  }
  const made: { dispose(): void }[] = [];
  const vectors: V[] = [];
  const keep = <T extends { dispose(): void }>(r: T): T => {
    made.push(r);
    return r;
  };
  // each level's operators take part in a few products a cycle, ≈ 15 cycles a solve; where the path
  // uploads many matrices faster together (ops.operators), they are gathered and go up in one batch,
  // which the first application awaits
  const batch = ops.operators ? new DeferredOperators<V>() : undefined;
  // R after P: R = Pᵀ exactly (the setup's transpose), so a batch may copy P's values into it on the device
  const op = (M: CSRMatrix | DIAMatrix, transposeOf?: CSRMatrix): ResidentOperator<V> => (batch ? batch.add(M, transposeOf) : keep(ops.operator(M, { fewProducts: true })));
  const vec = (length: number) => {
    const v = ops.vector(length);
    vectors.push(v);
    return v;
  };
  const release = () => {
    batch?.dispose();
    for (const m of made) m.dispose();
    for (const v of vectors) ops.release(v);
  };
  const last = h.levels.length - 1;
  try {
    const levels = h.levels.map((L, l) => {
      const smoothed = l < last;
      const gs = smoothed && smoother === 'gauss-seidel' ? ssorFactors(unitOnEmptyRows(L.A), 1) : undefined;
      const tri = (T: CSRMatrix, lower: boolean): TriangularSolver<V> => keep(ops.triangular!(T, triangularOptions(T, lower, false)));
      const m = L.A.rows;
      const P = L.P && op(L.P);
      return {
        // the fine level's A is the solve's own (ops.spmv); the coarsest needs none (its dense inverse is applied)
        A: l === 0 || !smoothed ? undefined : op(L.A),
        dinv: smoothed && smoother !== 'gauss-seidel' ? op(diagonal(L.dinv)) : undefined,
        lower: gs && tri(gs.lower, true),
        upper: gs && tri(gs.upper, false),
        rho: L.rho,
        R: L.R && op(L.R, L.P),
        P,
        b: l === 0 ? undefined : vec(m),
        x: l === 0 ? undefined : vec(m),
        r: smoothed ? vec(m) : undefined,
        t: smoothed && smoother !== 'jacobi' ? vec(m) : undefined,
        z: smoothed && smoother !== 'jacobi' ? vec(m) : undefined,
        d: smoothed && smoother === 'chebyshev' ? vec(m) : undefined,
      };
    });
    const coarse = coarseOperator(ops, h, keep, vec, op);
    type Level = (typeof levels)[number];
    const spmv = (L: Level, x: V, y: V, alpha: number, beta: number) => (L.A ? L.A.apply(x, y, alpha, beta) : ops.spmv(x, y, alpha, beta));
    const residual = async (L: Level, b: V, x: V) => {
      await ops.copy(b, L.r!);
      await spmv(L, x, L.r!, -1, 1);
    };
    // z ← S·r, the smoother's correction for residual r (r kept)
    const correction = async (L: Level, r: V, z: V) => {
      if (smoother === 'gauss-seidel') {
        await L.lower!.solve(r, L.t!);
        await L.upper!.solve(L.t!, z);
        return;
      }
      if (smoother === 'jacobi') return L.dinv!.apply(r, z, 4 / 3 / L.rho, 0);
      // Chebyshev, degree 3 in D⁻¹A on [ρ/30, 1.1ρ] (Saad, Alg. 12.1): z = p(D⁻¹A)·D⁻¹·r
      const [hi, lo] = [1.1 * L.rho, (1.1 * L.rho) / 30];
      const [theta, delta] = [(hi + lo) / 2, (hi - lo) / 2];
      const sigma = theta / delta;
      const [res, d] = [L.t!, L.d!];
      await ops.copy(r, res);
      await L.dinv!.apply(r, d, 1 / theta, 0);
      await ops.copy(d, z);
      let rho = 1 / sigma;
      for (let k = 1; k < 3; k++) {
        await spmv(L, d, res, -1, 1);
        const next = 1 / (2 * sigma - rho);
        await ops.scal([next * rho, 0], d);
        await L.dinv!.apply(res, d, (2 * next) / delta, 1);
        await ops.axpy([1, 0], d, z);
        rho = next;
      }
    };
    // sweeps of x ← x + S·(b − A·x); from x = 0 the first needs no residual
    const smooth = async (L: Level, b: V, x: V, zero: boolean) => {
      for (let s = 0; s < sweeps; s++) {
        if (zero && s === 0) {
          await correction(L, b, x);
          continue;
        }
        await residual(L, b, x);
        if (smoother === 'jacobi') await L.dinv!.apply(L.r!, x, 4 / 3 / L.rho, 1);
        else {
          await correction(L, L.r!, L.z!);
          await ops.axpy([1, 0], L.z!, x);
        }
      }
    };
    const visits = shape === 'W' ? 2 : 1;
    const cycle = async (l: number, b: V, x: V): Promise<void> => {
      if (l === last) return coarse.apply(b, x);
      const L = levels[l];
      const next = levels[l + 1];
      await smooth(L, b, x, true);
      // the coarsest level is solved exactly: one visit is enough there
      for (let v = 0; v < (l + 1 === last ? 1 : visits); v++) {
        await residual(L, b, x);
        await L.R!.apply(L.r!, next.b!, 1, 0);
        await cycle(l + 1, next.b!, next.x!);
        await L.P!.apply(next.x!, x, 1, 1);
      }
      await smooth(L, b, x, false);
    };
    const name = { jacobi: 'damped-Jacobi', 'gauss-seidel': 'symmetric Gauss–Seidel', chebyshev: 'Chebyshev (degree 3)' }[smoother];
    const ready = batch?.upload(ops);
    return {
      method: `${shape}-cycle over ${h.levels.length} levels (${sweeps} ${name} sweep${sweeps > 1 ? 's' : ''} before and after; ${coarse.method})`,
      apply: async (r, z) => {
        if (ready) await ready;
        return cycle(0, r, z);
      },
      dispose: release,
    };
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * Operators gathered for one ops.operators call: add() hands out an operator that applies the uploaded
 * one once upload() has resolved (the cycle awaits that before its first product). dispose() frees
 * them, at once or when the upload ends; an upload that failed rejects the cycle's applications.
 */
class DeferredOperators<V> {
  private readonly list: (CSRMatrix | DIAMatrix)[] = [];
  /** transposes[i] = j: list[i] is list[j]ᵀ (ops.operators) */
  private readonly transposes: (number | undefined)[] = [];
  private made: ResidentOperator<V>[] | undefined;
  private disposed = false;

  /** M's operator; `transposeOf`: a matrix added before, of which M is exactly the transpose */
  add(M: CSRMatrix | DIAMatrix, transposeOf?: CSRMatrix): ResidentOperator<V> {
    const j = transposeOf ? this.list.indexOf(transposeOf) : -1;
    this.transposes.push(j >= 0 ? j : undefined);
    const i = this.list.push(M) - 1;
    return { apply: (x, y, alpha, beta) => this.made![i].apply(x, y, alpha, beta), dispose: () => {} };
  }

  upload(ops: SolverOps<V>): Promise<void> {
    const done = ops.operators!(this.list, { fewProducts: true, transposes: this.transposes }).then((made) => {
      this.made = made;
      if (this.disposed) this.dispose();
    });
    // a cycle disposed before any application would otherwise leave a rejection unhandled
    done.catch(() => {});
    return done;
  }

  dispose(): void {
    this.disposed = true;
    if (!this.made) return;
    for (const m of this.made) m.dispose();
    this.made = [];
  }
}

/**
 * A with 1 on the diagonal of its empty rows: a zero column of a rank-deficient tentative
 * prolongator leaves an empty row (and column) in the coarse matrix, which the Gauss–Seidel triangles
 * cannot divide by; the unknown is decoupled, its residual always 0, so any diagonal does.
 */
function unitOnEmptyRows(A: CSRMatrix): CSRMatrix {
  const n = A.rows;
  let empty = 0;
  for (let i = 0; i < n; i++) if (A.rowPtr[i] === A.rowPtr[i + 1]) empty++;
  if (empty === 0) return A;
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(A.nnz + empty);
  const val = new Float64Array(A.nnz + empty);
  for (let i = 0, m = 0; i < n; i++) {
    const [s, e] = [A.rowPtr[i], A.rowPtr[i + 1]];
    if (s === e) {
      idx[m] = i;
      val[m++] = 1;
    } else {
      idx.set(A.colIdx.subarray(s, e), m);
      val.set(A.values.subarray(s, e), m);
      m += e - s;
    }
    ptr[i + 1] = m;
  }
  return new CSRMatrix(n, n, 'f64', ptr, idx, val);
}

/**
 * diag(d) as a one-diagonal DIA matrix, which every path uploads as it is: as CSR it went through the
 * CPU path's layout choice (poisson3D(128): 76 ms for the fine level's 2 097 152 rows, of ≈ 370 ms the
 * cycle's uploads take). Where d needs no padding (a multiple of 4 rows) the DIA's data is d itself:
 * a copy of the fine level's 16 MB into fresh pages cost ≈ 13 ms of the H100 host's first solve. d is
 * not written after (the hierarchy's D⁻¹ never is).
 */
export function diagonal(d: Float64Array): DIAMatrix {
  const n = d.length;
  const pitch = Math.ceil(n / 4) * 4;
  let data = d;
  if (pitch > n) {
    data = new Float64Array(pitch);
    data.set(d);
  }
  return new DIAMatrix(n, n, 'f64', Int32Array.of(0), pitch, data);
}

/**
 * The coarsest level's solve x ← A⁻¹·b on the path: the dense inverse as one product, or the sparse
 * Cholesky factor as Π·b, L⁻¹, L⁻ᵀ, Πᵀ (two permutation products, two triangular solves). A path
 * without a triangular solve (WebGL2) applies the level's dense inverse made from the factor instead, up to MAX_COARSE rows.
 */
function coarseOperator<V>(
  ops: SolverOps<V>,
  h: AmgHierarchy,
  keep: <T extends { dispose(): void }>(r: T) => T,
  vec: (length: number) => V,
  op: (M: CSRMatrix) => ResidentOperator<V>,
): { apply(b: V, x: V): Promise<void>; method: string } {
  const c = h.coarse;
  const A = h.levels[h.levels.length - 1].A;
  const m = A.rows;
  if (c.kind === 'sparse' && ops.triangular) {
    const tri = (T: CSRMatrix, lower: boolean) => keep(ops.triangular!(T, triangularOptions(T, lower, false)));
    const L = tri(c.L, true);
    const U = tri(c.L.transpose(), false);
    const gather = op(permutation(c.perm, false));
    const scatter = op(permutation(c.perm, true));
    const [s, t] = [vec(m), vec(m)];
    return {
      apply: async (b, x) => {
        await gather.apply(b, s, 1, 0);
        await L.solve(s, t);
        await U.solve(t, s);
        await scatter.apply(s, x, 1, 0);
      },
      method: `sparse Cholesky of ${m} rows (${c.L.nnz} entries in L)`,
    };
  }
  if (c.kind === 'sparse' && m > MAX_COARSE) {
    throw new UnsupportedError(`amg: the coarsest level (${m} rows) is solved by a sparse Cholesky factor, and the ${ops.label} path has no triangular solve for it (nor does a dense inverse take more than ${MAX_COARSE} rows); solve on the CPU path, or lower amg.maxCoarse / amg.theta`);
  }
  const inverse = op(denseCSR(c.kind === 'dense' ? c.inverse : factorInverse(c.L, c.perm), m));
  return { apply: (b, x) => inverse.apply(b, x, 1, 0), method: `dense inverse of ${m} rows${c.kind === 'sparse' ? ' (from its sparse Cholesky factor: no triangular solve on this path)' : ''}` };
}

/**
 * A⁻¹ = Πᵀ·L⁻ᵀ·L⁻¹·Π dense row-major from the sparse factor (L lower CSR, its diagonal last in each
 * row), column by column: n pairs of sparse triangular solves (n·2·nnz(L) flops), not the dense n³.
 */
function factorInverse(L: CSRMatrix, perm: Int32Array): Float64Array {
  const n = perm.length;
  const { rowPtr, colIdx, values } = L;
  const inv = new Float64Array(n * n);
  const w = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    // Π·e_perm[c] = e_c: L·y = e_c (y is 0 above c), then Lᵀ·w = y by the rows of L
    w.fill(0);
    w[c] = 1;
    for (let i = c; i < n; i++) {
      let s = w[i];
      const end = rowPtr[i + 1] - 1;
      for (let k = rowPtr[i]; k < end; k++) s -= values[k] * w[colIdx[k]];
      w[i] = s / values[end];
    }
    for (let i = n - 1; i >= 0; i--) {
      const end = rowPtr[i + 1] - 1;
      const wi = (w[i] /= values[end]);
      for (let k = rowPtr[i]; k < end; k++) w[colIdx[k]] -= values[k] * wi;
    }
    // column perm[c] of A⁻¹, row perm[k] from w[k]; A⁻¹ is symmetric, so written as row perm[c]
    const row = perm[c] * n;
    for (let k = 0; k < n; k++) inv[row + perm[k]] = w[k];
  }
  return inv;
}

/** Π with (Π·b)[k] = b[perm[k]], or Πᵀ (`back`: x[perm[k]] = s[k]) */
function permutation(perm: Int32Array, back: boolean): CSRMatrix {
  const n = perm.length;
  const idx = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    if (back) idx[perm[k]] = k;
    else idx[k] = perm[k];
  }
  return new CSRMatrix(n, n, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), idx, new Float64Array(n).fill(1));
}

/** The dense row-major n×n `a` as a CSR of every entry: canonical by construction, marked so (the uploads skip validating it). */
export function denseCSR(a: Float64Array, n: number): CSRMatrix {
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(n * n);
  for (let i = 0; i < n; i++) {
    ptr[i + 1] = (i + 1) * n;
    for (let j = 0; j < n; j++) idx[i * n + j] = j;
  }
  return markPrivateCanonical(new CSRMatrix(n, n, 'f64', ptr, idx, a));
}
