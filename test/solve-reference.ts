/**
 * Independent f64 references for the solver tests, written on dense arrays with a pattern mask from
 * the textbook (Saad, Iterative Methods for Sparse Linear Systems, §10.3; Golub & Van Loan §4.2, §3.1)
 * and sharing no code with src/solvers: dense LU with partial pivoting, right-looking IC(0) and KIJ
 * ILU(0) restricted to A's pattern, triangular solves, and plain preconditioned CG and GMRES(m) with
 * modified Gram–Schmidt — the iteration counts the library's methods are compared with.
 */
import { CSRMatrix } from '../src/formats/csr.js';
import { Prng } from '../src/generators/prng.js';

export type Dense = Float64Array[];

/** A (real) CSR as dense rows, and its pattern (the diagonal always in). */
export function toDense(A: CSRMatrix): { a: Dense; mask: boolean[][] } {
  const n = A.rows;
  const a = Array.from({ length: n }, () => new Float64Array(n));
  const mask = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => i === j));
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      a[i][A.colIdx[k]] += A.values[k];
      mask[i][A.colIdx[k]] = true;
    }
  }
  return { a, mask };
}

/** y = A·x in f64 for real or complex (interleaved) CSR, straight from the CSR. */
export function matvec(A: CSRMatrix, x: ArrayLike<number>): Float64Array {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const y = new Float64Array(A.rows * c);
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      if (c === 1) y[i] += A.values[k] * x[j];
      else {
        y[2 * i] += A.values[2 * k] * x[2 * j] - A.values[2 * k + 1] * x[2 * j + 1];
        y[2 * i + 1] += A.values[2 * k] * x[2 * j + 1] + A.values[2 * k + 1] * x[2 * j];
      }
    }
  }
  return y;
}

/** ‖b − A·x‖/‖b‖ for real or complex (interleaved) CSR, in f64. */
export function trueResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  return relDiff(matvec(A, x), b);
}

/** k copies of R down the diagonal: R's difficulty at k times its size (written here from the CSR arrays). */
export function blockDiagonal(R: CSRMatrix, k: number): CSRMatrix {
  const n = R.rows;
  const nnz = R.rowPtr[n];
  const rowPtr = new Int32Array(k * n + 1);
  const colIdx = new Int32Array(k * nnz);
  const values = new Float64Array(k * nnz);
  for (let b = 0; b < k; b++) {
    for (let i = 0; i <= n; i++) rowPtr[b * n + i] = b * nnz + R.rowPtr[i];
    for (let q = 0; q < nnz; q++) {
      colIdx[b * nnz + q] = R.colIdx[q] + b * n;
      values[b * nnz + q] = R.values[q];
    }
  }
  return new CSRMatrix(k * n, k * n, R.dtype, rowPtr, colIdx, values);
}

/** A right-hand side of n entries uniform in [−1, 1), the same for the same seed. */
export function randomRhs(n: number, seed: number): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() * 2 - 1);
}

/** ‖x − y‖₂/‖y‖₂ over components (real or interleaved complex alike). */
export function relDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let d = 0;
  let s = 0;
  for (let i = 0; i < y.length; i++) {
    d += (x[i] - y[i]) ** 2;
    s += y[i] ** 2;
  }
  return Math.sqrt(d / s);
}

/** x = A⁻¹·b by dense LU with partial pivoting. */
export function denseSolve(a0: Dense, b: ArrayLike<number>): Float64Array {
  const n = a0.length;
  const a = a0.map((r) => Float64Array.from(r));
  const x = Float64Array.from(b);
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i][k]) > Math.abs(a[p][k])) p = i;
    [a[k], a[p]] = [a[p], a[k]];
    [x[k], x[p]] = [x[p], x[k]];
    for (let i = k + 1; i < n; i++) {
      const m = a[i][k] / a[k][k];
      for (let j = k; j < n; j++) a[i][j] -= m * a[k][j];
      x[i] -= m * x[k];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    for (let j = i + 1; j < n; j++) s -= a[i][j] * x[j];
    x[i] = s / a[i][i];
  }
  return x;
}

/** Right-looking IC(0): L (dense, lower) with L·Lᵀ = A on the pattern. */
export function referenceIC0(A: CSRMatrix): Dense {
  const { a, mask } = toDense(A);
  const n = a.length;
  for (let k = 0; k < n; k++) {
    a[k][k] = Math.sqrt(a[k][k]);
    for (let i = k + 1; i < n; i++) if (mask[i][k]) a[i][k] /= a[k][k];
    for (let j = k + 1; j < n; j++) for (let i = j; i < n; i++) if (mask[i][j] && mask[i][k] && mask[j][k]) a[i][j] -= a[i][k] * a[j][k];
  }
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) a[i][j] = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) if (!mask[i][j]) a[i][j] = 0;
  return a;
}

/** KIJ ILU(0): the unit lower L (below the diagonal) and U (on and above) in one dense array. */
export function referenceILU0(A: CSRMatrix): Dense {
  const { a, mask } = toDense(A);
  const n = a.length;
  for (let k = 0; k < n; k++) {
    for (let i = k + 1; i < n; i++) {
      if (!mask[i][k]) continue;
      a[i][k] /= a[k][k];
      for (let j = k + 1; j < n; j++) if (mask[i][j] && mask[k][j]) a[i][j] -= a[i][k] * a[k][j];
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (!mask[i][j]) a[i][j] = 0;
  return a;
}

export function forward(L: Dense, b: ArrayLike<number>, unit = false): Float64Array {
  const x = new Float64Array(L.length);
  for (let i = 0; i < L.length; i++) {
    let s = b[i];
    for (let j = 0; j < i; j++) s -= L[i][j] * x[j];
    x[i] = unit ? s : s / L[i][i];
  }
  return x;
}

export function backward(U: Dense, b: ArrayLike<number>, transpose = false): Float64Array {
  const n = U.length;
  const x = new Float64Array(n);
  const u = (i: number, j: number): number => (transpose ? U[j][i] : U[i][j]);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < n; j++) s -= u(i, j) * x[j];
    x[i] = s / u(i, i);
  }
  return x;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a));

/** Textbook PCG from x = 0; iterations until ‖r‖/‖b‖ ≤ tol (the iterate is left in x when given). */
export function referencePcg(A: CSRMatrix, b: Float64Array, M: (r: Float64Array) => Float64Array, tol: number, maxIter: number, x = new Float64Array(A.rows)): number {
  const r = Float64Array.from(b);
  let z = M(r);
  const p = Float64Array.from(z);
  let rz = dot(r, z);
  const bn = norm(b);
  for (let it = 1; it <= maxIter; it++) {
    const q = matvec(A, p);
    const alpha = rz / dot(p, q);
    for (let i = 0; i < x.length; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    if (norm(r) / bn <= tol) return it;
    z = M(r);
    const rzNext = dot(r, z);
    for (let i = 0; i < p.length; i++) p[i] = z[i] + (rzNext / rz) * p[i];
    rz = rzNext;
  }
  return maxIter;
}

/**
 * Right-preconditioned GMRES(m) with modified Gram–Schmidt and an explicit least-squares solve of the
 * Hessenberg system each step (no rotations); iterations until the residual estimate meets tol.
 */
export function referenceGmres(A: CSRMatrix, b: Float64Array, M: (r: Float64Array) => Float64Array, m: number, tol: number, maxIter: number): number {
  const n = A.rows;
  const x = new Float64Array(n);
  const bn = norm(b);
  let it = 0;
  while (it < maxIter) {
    const Ax = matvec(A, x);
    const r = Float64Array.from(b, (v, i) => v - Ax[i]);
    const beta = norm(r);
    if (beta / bn <= tol) return it;
    const V = [r.map((v) => v / beta)];
    const H: number[][] = [];
    let y: Float64Array = new Float64Array(0);
    for (let k = 0; k < m && it < maxIter; k++) {
      const w = matvec(A, M(V[k]));
      const h = new Array(k + 2).fill(0);
      for (let i = 0; i <= k; i++) {
        h[i] = dot(V[i], w);
        for (let t = 0; t < n; t++) w[t] -= h[i] * V[i][t];
      }
      h[k + 1] = norm(w);
      H.push(h);
      V.push(w.map((v) => v / h[k + 1]));
      it++;
      // min ‖β·e₁ − H·y‖ by the normal equations of the (k+2)×(k+1) system
      const cols = k + 1;
      const HtH = Array.from({ length: cols }, () => new Float64Array(cols));
      const Htg = new Float64Array(cols);
      for (let i = 0; i < cols; i++) {
        for (let j = 0; j < cols; j++) for (let t = 0; t < k + 2; t++) HtH[i][j] += (H[i][t] ?? 0) * (H[j][t] ?? 0);
        Htg[i] = H[i][0] * beta;
      }
      y = denseSolve(HtH, Htg);
      const res = new Float64Array(k + 2);
      res[0] = beta;
      for (let j = 0; j < cols; j++) for (let t = 0; t < k + 2; t++) res[t] -= (H[j][t] ?? 0) * y[j];
      if (norm(res) / bn <= tol) return it;
    }
    const u = new Float64Array(n);
    for (let j = 0; j < y.length; j++) for (let t = 0; t < n; t++) u[t] += y[j] * V[j][t];
    const z = M(u);
    for (let t = 0; t < n; t++) x[t] += z[t];
  }
  return maxIter;
}
