/**
 * Conjugate Gradient and BiCGSTAB through the public API, against a plain f64 reference CG written
 * here, on the SPD shared matrices and generated systems; abort, maxIter and breakdown cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D, poisson2D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { Prng } from '../src/generators/prng.js';
import { ShapeError } from '../src/errors.js';
import { loadShared } from './matrices.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

function matvec(A: CSRMatrix, x: ArrayLike<number>): Float64Array {
  const y = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) y[i] += A.values[k] * x[A.colIdx[k]];
  return y;
}
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

/** Textbook unpreconditioned CG in plain f64: the reference iteration count. */
function referenceCg(A: CSRMatrix, b: Float64Array, tol: number, maxIter: number): number {
  const x = new Float64Array(A.rows);
  const r = Float64Array.from(b);
  const p = Float64Array.from(r);
  let rr = dot(r, r);
  const bn = Math.sqrt(dot(b, b));
  for (let it = 1; it <= maxIter; it++) {
    const q = matvec(A, p);
    const alpha = rr / dot(p, q);
    for (let i = 0; i < x.length; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const rrNext = dot(r, r);
    if (Math.sqrt(rrNext) / bn <= tol) return it;
    for (let i = 0; i < p.length; i++) p[i] = r[i] + (rrNext / rr) * p[i];
    rr = rrNext;
  }
  return maxIter;
}

function rhs(n: number, seed = 3): Float64Array {
  const b = new Float64Array(n);
  const g = new Prng(seed);
  for (let i = 0; i < n; i++) b[i] = g.next() * 2 - 1;
  return b;
}

/** ‖b − A·x‖ / ‖b‖ recomputed independently in f64 */
function trueResidual(A: CSRMatrix, x: ArrayLike<number>, b: Float64Array): number {
  const Ax = matvec(A, x);
  let s = 0;
  for (let i = 0; i < b.length; i++) s += (b[i] - Ax[i]) ** 2;
  return Math.sqrt(s) / Math.sqrt(dot(b, b));
}

describe('Conjugate Gradient (f64)', () => {
  const cases: Array<[string, () => CSRMatrix]> = [
    ['bcsstk01', () => loadShared('bcsstk01')],
    ['494_bus', () => loadShared('494_bus')],
    ['poisson3D_32', () => poisson3D(32)],
  ];
  for (const [name, make] of cases) {
    it(`${name} converges to 1e-8 with the reference's iteration count`, async () => {
      const A = make();
      const b = rhs(A.rows);
      const h = rt.upload(A);
      const seen: number[] = [];
      const r = await rt.cg(h, b, { tol: 1e-8, maxIter: 20_000, onIteration: (_, res) => void seen.push(res) });
      expect(r.converged).toBe(true);
      expect(r.reason).toBe('converged');
      expect(r.relativeResidual).toBeLessThanOrEqual(1e-8);
      // the recurrence's residual agrees with the true residual of the returned x
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-7);
      const ref = referenceCg(A, b, 1e-8, 20_000);
      expect(Math.abs(r.iterations - ref)).toBeLessThanOrEqual(Math.max(2, 0.05 * ref));
      expect(r.history.length).toBe(r.iterations + 1);
      expect(seen).toEqual(r.history.slice(1));
      h.dispose();
    });
  }

  it('Jacobi preconditioning converges on bcsstk13 (very ill-conditioned) where plain CG needs far more', async () => {
    const A = loadShared('bcsstk13');
    const b = rhs(A.rows);
    const h = rt.upload(A);
    const plain = await rt.cg(h, b, { tol: 1e-8, maxIter: 2000 });
    const jac = await rt.cg(h, b, { tol: 1e-8, maxIter: 20_000, preconditioner: 'jacobi' });
    expect(jac.converged).toBe(true);
    expect(trueResidual(A, jac.x, b)).toBeLessThanOrEqual(1e-6);
    expect(plain.converged === false || plain.iterations > jac.iterations).toBe(true);
  });

  it('f32 reaches the single-precision floor; complex Hermitian systems converge in c128', async () => {
    const A = poisson2D(30);
    const b = rhs(A.rows);
    const r32 = await rt.cg(rt.upload(A.astype('f32')), Float32Array.from(b), { tol: 1e-5, maxIter: 5000 });
    expect(r32.converged).toBe(true);
    expect(trueResidual(A, r32.x, b)).toBeLessThanOrEqual(1e-4);
    // A real SPD matrix as complex with a complex right-hand side is Hermitian positive definite
    const bc = new Float64Array(2 * A.rows);
    bc.set(rhs(2 * A.rows, 9));
    const rc = await rt.cg(rt.upload(A.astype('c128')), bc, { tol: 1e-10, maxIter: 5000 });
    expect(rc.converged).toBe(true);
    const re = rc.x.filter((_, i) => i % 2 === 0);
    const bre = bc.filter((_, i) => i % 2 === 0);
    expect(trueResidual(A, re, bre)).toBeLessThanOrEqual(1e-9);
  });
});

describe('BiCGSTAB', () => {
  it('solves a nonsymmetric generated system (convection–diffusion-like), real and complex', async () => {
    // diagonally dominant nonsymmetric: random off-diagonals plus a strong diagonal
    const R = randomMatrix({ rows: 2000, meanRowLength: 6, seed: 4 });
    const rows: number[] = [], cols: number[] = [], vals: number[] = [];
    for (let i = 0; i < R.rows; i++) {
      rows.push(i), cols.push(i), vals.push(8);
      for (let k = R.rowPtr[i]; k < R.rowPtr[i + 1]; k++) if (R.colIdx[k] !== i) rows.push(i), cols.push(R.colIdx[k]), vals.push(R.values[k]);
    }
    const A = CSRMatrix.fromTriplets(R.rows, R.cols, 'f64', new Int32Array(rows), new Int32Array(cols), new Float64Array(vals));
    const b = rhs(A.rows);
    const r = await rt.bicgstab(rt.upload(A), b, { tol: 1e-10 });
    expect(r.converged).toBe(true);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
    const rj = await rt.bicgstab(rt.upload(A), b, { tol: 1e-10, preconditioner: 'jacobi' });
    expect(rj.converged).toBe(true);
    const bc = new Float64Array(2 * A.rows);
    bc.set(rhs(2 * A.rows, 5));
    const rc = await rt.bicgstab(rt.upload(A.astype('c128')), bc, { tol: 1e-10 });
    expect(rc.converged).toBe(true);
  });
});

describe('stopping cases', () => {
  it('maxIter ends with converged: false and reason maxIter', async () => {
    const A = poisson3D(16);
    const r = await rt.cg(rt.upload(A), rhs(A.rows), { tol: 1e-12, maxIter: 5 });
    expect(r).toMatchObject({ converged: false, reason: 'maxIter', iterations: 5 });
  });

  it('an AbortSignal stops the solve between iterations', async () => {
    const A = poisson3D(16);
    const ctrl = new AbortController();
    const r = await rt.cg(rt.upload(A), rhs(A.rows), {
      tol: 1e-14,
      onIteration: (it) => {
        if (it === 3) ctrl.abort();
      },
      signal: ctrl.signal,
    });
    expect(r).toMatchObject({ converged: false, reason: 'aborted', iterations: 3 });
  });

  it('an indefinite matrix is a breakdown, NaN in b is reported, never a hang', async () => {
    const indefinite = CSRMatrix.fromTriplets(2, 2, 'f64', new Int32Array([0, 1]), new Int32Array([0, 1]), new Float64Array([1, -1]));
    const r = await rt.cg(rt.upload(indefinite), new Float64Array([1, 1]));
    expect(r).toMatchObject({ converged: false, reason: 'breakdown' });
    const A = poisson2D(5);
    const b = rhs(A.rows);
    b[3] = NaN;
    expect((await rt.cg(rt.upload(A), b)).reason).toBe('nan');
    expect((await rt.bicgstab(rt.upload(A), b)).reason).toBe('nan');
  });

  it('bad input is a typed error', async () => {
    const rect = rt.upload(randomMatrix({ rows: 3, cols: 4, seed: 1 }));
    await expect(rt.cg(rect, new Float64Array(3))).rejects.toThrow(/square/);
    const A = rt.upload(poisson2D(3));
    await expect(rt.cg(A, new Float64Array(8))).rejects.toThrow(ShapeError);
    await expect(rt.cg(A, new Float64Array(8))).rejects.toThrow(/cg: b has length 8, expected 9/);
    const zeroDiag = CSRMatrix.fromTriplets(2, 2, 'f64', new Int32Array([0, 1]), new Int32Array([1, 0]), new Float64Array([1, 1]));
    await expect(rt.cg(rt.upload(zeroDiag), new Float64Array(2), { preconditioner: 'jacobi' })).rejects.toThrow(/A\[0,0\] is zero/);
    await expect(rt.cg(A, new Float64Array(9), { tol: -1 })).rejects.toThrow(RangeError);
  });
});
