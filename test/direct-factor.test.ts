/**
 * rt.factor: Cholesky, LDLᵀ and LU against a dense f64 (and complex) LU with partial pivoting written
 * here, on every square shared matrix and generated SPD, symmetric indefinite, nonsymmetric, singular
 * and structurally singular cases; refactor and solve-many bit for bit equal to fresh factorizations;
 * typed errors for bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { randomMatrix } from '../src/generators/random.js';
import { Prng } from '../src/generators/prng.js';
import { DisposedError, MemoryLimitError, NotPositiveDefiniteError, OptionError, ShapeError, SingularMatrixError, UnsupportedError } from '../src/errors.js';
import type { FactorKind } from '../src/solvers/direct/factor.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { matvec, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
});
afterAll(() => rt.dispose());

const cplx = (A: CSRMatrix) => A.dtype === 'c128' || A.dtype === 'c64';

const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, t) => s + t * t, 0));
const diffNorm = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.sqrt(Array.from(a).reduce((s, t, i) => s + (t - b[i]) ** 2, 0));

/** Dense LU with partial pivoting (real or complex), the reference solve; null when singular. */
function denseSolve(A: CSRMatrix, b: Float64Array): Float64Array | null {
  const n = A.rows;
  const c = cplx(A) ? 2 : 1;
  const M = new Float64Array(n * n * c);
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      for (let t = 0; t < c; t++) M[(i * n + j) * c + t] += A.values[k * c + t];
    }
  }
  const x = Float64Array.from(b);
  for (let k = 0; k < n; k++) {
    let p = k;
    let best = -1;
    for (let i = k; i < n; i++) {
      const a = c === 1 ? Math.abs(M[i * n + k]) : Math.hypot(M[(i * n + k) * 2], M[(i * n + k) * 2 + 1]);
      if (a > best) [best, p] = [a, i];
    }
    if (!(best > 0)) return null;
    if (p !== k) {
      for (let j = 0; j < n * c; j++) [M[k * n * c + j], M[p * n * c + j]] = [M[p * n * c + j], M[k * n * c + j]];
      for (let t = 0; t < c; t++) [x[k * c + t], x[p * c + t]] = [x[p * c + t], x[k * c + t]];
    }
    for (let i = k + 1; i < n; i++) {
      if (c === 1) {
        const l = M[i * n + k] / M[k * n + k];
        if (l === 0) continue;
        for (let j = k; j < n; j++) M[i * n + j] -= l * M[k * n + j];
        x[i] -= l * x[k];
      } else {
        const [pr, pi] = [M[(k * n + k) * 2], M[(k * n + k) * 2 + 1]];
        const [ar, ai] = [M[(i * n + k) * 2], M[(i * n + k) * 2 + 1]];
        const d = pr * pr + pi * pi;
        const lr = (ar * pr + ai * pi) / d, li = (ai * pr - ar * pi) / d;
        if (lr === 0 && li === 0) continue;
        for (let j = k; j < n; j++) {
          const [ur, ui] = [M[(k * n + j) * 2], M[(k * n + j) * 2 + 1]];
          M[(i * n + j) * 2] -= lr * ur - li * ui;
          M[(i * n + j) * 2 + 1] -= lr * ui + li * ur;
        }
        const [xr, xi] = [x[2 * k], x[2 * k + 1]];
        x[2 * i] -= lr * xr - li * xi;
        x[2 * i + 1] -= lr * xi + li * xr;
      }
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    if (c === 1) {
      let s = x[k];
      for (let j = k + 1; j < n; j++) s -= M[k * n + j] * x[j];
      x[k] = s / M[k * n + k];
    } else {
      let sr = x[2 * k], si = x[2 * k + 1];
      for (let j = k + 1; j < n; j++) {
        const [ur, ui] = [M[(k * n + j) * 2], M[(k * n + j) * 2 + 1]];
        sr -= ur * x[2 * j] - ui * x[2 * j + 1];
        si -= ur * x[2 * j + 1] + ui * x[2 * j];
      }
      const [pr, pi] = [M[(k * n + k) * 2], M[(k * n + k) * 2 + 1]];
      const d = pr * pr + pi * pi;
      x[2 * k] = (sr * pr + si * pi) / d;
      x[2 * k + 1] = (si * pr - sr * pi) / d;
    }
  }
  return x;
}

/** A known solution (entries in [-1, 1], deterministic) and b = A·x. */
function knownSystem(A: CSRMatrix, seed = 1): { xTrue: Float64Array; b: Float64Array } {
  const rng = new Prng(seed);
  const xTrue = Float64Array.from({ length: A.rows * (cplx(A) ? 2 : 1) }, () => 2 * rng.next() - 1);
  return { xTrue, b: matvec(A, xTrue) };
}

/** A pattern matrix (all ones) given values: diagonal = row length + 1, off-diagonal −1 (symmetric patterns become SPD) or random in [−1, 1]. */
function valued(A: CSRMatrix, symmetric: boolean): CSRMatrix {
  const rng = new Prng(7);
  const v = new Float64Array(A.nnz);
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      v[k] = A.colIdx[k] === i ? A.rowPtr[i + 1] - A.rowPtr[i] + 1 : symmetric ? -1 : 2 * rng.next() - 1;
    }
  }
  // rows without a diagonal entry keep a nonsingular chance through the random entries
  return new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, v);
}

const SQUARE = sharedMatrixNames().filter((m) => {
  const A = loadShared(m);
  return A.rows === A.cols;
});

describe('rt.factor on every square shared matrix (kind auto) against a dense LU', () => {
  for (const name of SQUARE) {
    it(name, async () => {
      const raw = loadShared(name);
      const isPattern = ['dwt_992', 'rajat01'].includes(name);
      const variants: [string, CSRMatrix][] = isPattern ? [['valued', valued(raw, name === 'dwt_992')], ['ones', raw]] : [['', raw]];
      for (const [tag, A] of variants) {
        const { xTrue, b } = knownSystem(A);
        let F;
        try {
          F = await rt.factor(A);
        } catch (e) {
          // only a matrix of ones may be singular; then the dense LU must agree it is (or nearly)
          expect(tag).toBe('ones');
          expect(e).toBeInstanceOf(SingularMatrixError);
          continue;
        }
        const { x, relativeResidual } = await F.solve(b);
        const res = trueResidual(A, x, b);
        // the reported residual is the true one
        expect(Math.abs(res - relativeResidual)).toBeLessThanOrEqual(0.5 * res + 1e-15); // (summed in another order)
        expect(res).toBeLessThan(1e-12);
        if (A.rows <= 1000) {
          const ref = denseSolve(A, b)!;
          expect(ref).not.toBeNull();
          // forward error no worse than the dense LU's (within a factor of 100)
          const errRef = diffNorm(ref, xTrue);
          expect(diffNorm(x, xTrue)).toBeLessThanOrEqual(100 * errRef + 1e-13 * norm(xTrue));
        }
        expect(F.info.n).toBe(A.rows);
        expect(F.info.fillNnz).toBeGreaterThanOrEqual(A.rows);
        F.dispose();
      }
    });
  }
});

describe('kinds and orderings', () => {
  const spd: [string, () => CSRMatrix][] = [
    ['bcsstk01', () => loadShared('bcsstk01')],
    ['494_bus', () => loadShared('494_bus')],
    ['poisson2D(40)', () => poisson2D(40)],
    ['poisson3D(12)', () => poisson3D(12)],
  ];
  for (const [name, make] of spd) {
    it(`${name}: Cholesky, LDLᵀ and LU with AMD, ND and natural orderings agree with the dense solve`, async () => {
      const A = make();
      const { b } = knownSystem(A, 3);
      const ref = denseSolve(A, b)!;
      for (const kind of ['cholesky', 'ldlt', 'lu'] as FactorKind[]) {
        for (const ordering of ['amd', 'nd', 'natural'] as const) {
          const F = await rt.factor(A, { kind, ordering });
          expect([F.info.kind, F.info.ordering]).toEqual([kind, ordering]);
          const { x, relativeResidual } = await F.solve(b);
          expect(relativeResidual).toBeLessThan(1e-12);
          expect(diffNorm(x, ref)).toBeLessThan(1e-8 * norm(ref));
          if (kind === 'lu') expect(F.info.offDiagonalPivots).toBe(0); // SPD: the diagonal always qualifies
        }
      }
    });
  }

  it('supernodal Cholesky (large enough flops) agrees with the up-looking LDLᵀ; its failures name the column too', async () => {
    for (const A of [loadShared('bcsstk13'), poisson3D(12), elasticity2D(30)]) {
      const { b } = knownSystem(A, 9);
      const S = await rt.factor(A, { kind: 'cholesky' });
      const L = await rt.factor(A, { kind: 'ldlt' });
      expect([S.info.method, L.info.method]).toEqual(['supernodal', 'up-looking']);
      const xs = (await S.solve(b, { refine: 0 })).x;
      const xl = (await L.solve(b, { refine: 0 })).x;
      expect(diffNorm(xs, xl)).toBeLessThan(1e-6 * norm(xl));
      expect((await S.solve(b)).relativeResidual).toBeLessThan(1e-12);
    }
    // poisson3D(12) − 2.7·I is indefinite: the supernodal kernel stops at a column, auto moves to LDLᵀ
    const P = poisson3D(12);
    const shifted = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((v) => (v > 0 ? v - 2.7 : v)));
    await expect(rt.factor(shifted, { kind: 'cholesky' })).rejects.toSatisfy((e: unknown) => e instanceof NotPositiveDefiniteError && e.column >= 0 && e.column < P.rows);
    const F = await rt.factor(shifted);
    expect(F.info.kind).toBe('ldlt');
    expect((await F.solve(knownSystem(shifted).b)).relativeResidual).toBeLessThan(1e-10);
  });

  it('the fill and flops Cholesky reports equal the symbolic estimate; LU on a symmetric pattern fills twice as much (plus the zeros of its dense block)', async () => {
    const A = poisson2D(30);
    const C = await rt.factor(A, { kind: 'cholesky', ordering: 'amd' });
    const L = await rt.factor(A, { kind: 'lu', ordering: 'amd' });
    expect(C.info.fillNnz).toBe(C.info.estimate.fillNnz);
    expect(L.info.estimate.fillNnz).toBe(2 * C.info.fillNnz);
    // the last separator is nearly full: stored dense, its zeros with it (at most a fifth of its triangles)
    const m = L.info.denseColumns;
    expect(m).toBeGreaterThanOrEqual(16);
    expect(L.info.fillNnz).toBeGreaterThanOrEqual(2 * C.info.fillNnz);
    expect(L.info.fillNnz).toBeLessThanOrEqual(2 * C.info.fillNnz + 0.2 * m * (m + 1));
    expect(C.info.supernodes).toBeGreaterThan(0);
    expect(C.info.supernodes).toBeLessThan(A.rows);
    expect(C.info.times.numeric).toBeGreaterThanOrEqual(0);
  });
});

describe('generated cases', () => {
  it('symmetric indefinite: Cholesky names the column, LDLᵀ and auto solve it', async () => {
    // poisson2D(12) − 2·I: eigenvalues 4 − 2 ± …, both signs
    const P = poisson2D(12);
    const v = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] === i) v[k] -= 2.1;
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
    await expect(rt.factor(A, { kind: 'cholesky' })).rejects.toSatisfy(
      (e: unknown) => e instanceof NotPositiveDefiniteError && e.column >= 0 && e.column < A.rows && e.message.includes(`column ${e.column}`),
    );
    const { b } = knownSystem(A);
    const ref = denseSolve(A, b)!;
    for (const kind of ['ldlt', 'auto'] as FactorKind[]) {
      const F = await rt.factor(A, { kind });
      expect(F.info.kind).toBe('ldlt');
      const { x, relativeResidual } = await F.solve(b);
      expect(relativeResidual).toBeLessThan(1e-12);
      expect(diffNorm(x, ref)).toBeLessThan(1e-9 * norm(ref));
      if (kind === 'auto') expect(F.info.kindReason).toMatch(/not positive definite at column \d+/);
    }
  });

  it('LDLᵀ without pivoting breaks down on a zero diagonal: a typed error; auto falls back to LU', async () => {
    // [[0, 1], [1, 0]] ⊕ I: symmetric, nonsingular, needs pivoting
    const A = CSRMatrix.fromTriplets(3, 3, 'f64', Int32Array.from([0, 1, 2]), Int32Array.from([1, 0, 2]), Float64Array.from([1, 1, 1]));
    await expect(rt.factor(A, { kind: 'ldlt', ordering: 'natural' })).rejects.toBeInstanceOf(SingularMatrixError);
    const F = await rt.factor(A, { ordering: 'natural' });
    expect(F.info.kind).toBe('lu');
    expect(Array.from((await F.solve(Float64Array.from([1, 2, 3]))).x)).toEqual([2, 1, 3]);
  });

  it("LU's info keeps the flops and off-diagonal pivots of the factor it was read of (counted on first read): after a refactor and after dispose", async () => {
    // one random pattern with a full diagonal: weak (0.01: the pivots leave it) for A, strong for A2
    const R = randomMatrix({ rows: 200, meanRowLength: 6, seed: 7 });
    const withDiagonal = (d: number): CSRMatrix => CSRMatrix.fromTriplets(200, 200, 'f64',
      Int32Array.from([...rowsOf(R), ...Array.from({ length: 200 }, (_, i) => i)]), Int32Array.from([...R.colIdx, ...Array.from({ length: 200 }, (_, i) => i)]),
      Float64Array.from([...R.values, ...Array.from({ length: 200 }, () => d)]));
    const F = await rt.factor(withDiagonal(0.01), { kind: 'lu' });
    const unread = F.info;
    const read = { ...F.info };
    await F.refactor(withDiagonal(100));
    const second = F.info;
    expect([second.flops, second.offDiagonalPivots]).not.toEqual([read.flops, read.offDiagonalPivots]);
    expect({ ...unread }).toEqual(read);
    const secondRead = { ...F.info };
    F.dispose();
    expect({ ...second }).toEqual(secondRead);
  });

  it("LU's info.flops and offDiagonalPivots: a full matrix's count by formula and the row exchanges of a dense partial-pivoting LU written here (natural order, strict pivoting; and under 'btf' a row-permuted bidiagonal, pivoted on its matched entries)", async () => {
    // a full random matrix: no cancellation leaves an entry out, so L and U are full and each step k
    // of n updates (n−k−1)² entries (2 flops each) and scales n−k−1
    const n = 60;
    const rng = new Prng(3);
    const dense = Array.from({ length: n * n }, () => rng.next() - 0.5);
    const full = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from({ length: n * n }, (_, k) => Math.floor(k / n)), Int32Array.from({ length: n * n }, (_, k) => k % n), Float64Array.from(dense));
    let flops = 0;
    for (let m = 0; m < n; m++) flops += 2 * m * m + m;
    // the reference: row exchanges of Gaussian elimination with strict partial pivoting (the largest |entry| of each column)
    const M = dense.slice();
    const rowAt = Array.from({ length: n }, (_, i) => i);
    let exchanges = 0;
    for (let k = 0; k < n; k++) {
      let p = k;
      for (let i = k + 1; i < n; i++) if (Math.abs(M[i * n + k]) > Math.abs(M[p * n + k])) p = i;
      if (rowAt[p] !== k) exchanges++;
      for (let j = 0; j < n; j++) [M[k * n + j], M[p * n + j]] = [M[p * n + j], M[k * n + j]];
      [rowAt[k], rowAt[p]] = [rowAt[p], rowAt[k]];
      for (let i = k + 1; i < n; i++) {
        const l = M[i * n + k] / M[k * n + k];
        for (let j = k + 1; j < n; j++) M[i * n + j] -= l * M[k * n + j];
      }
    }
    expect(exchanges).toBeGreaterThan(n / 2);
    const F = await rt.factor(full, { kind: 'lu', ordering: 'natural', pivotTolerance: 1 });
    expect([F.info.flops, F.info.offDiagonalPivots]).toEqual([flops, exchanges]);
    F.dispose();
    // an upper bidiagonal U (10 on the diagonal, 1 above) with row i placed at row σ(i): its one perfect
    // matching is row σ(i) ↔ column i, each column a 1×1 block under 'btf', nothing to eliminate: every
    // pivot is its matched entry (0 off the diagonal, where row r counted against column r would read
    // nearly all rows as exchanged) and no flops
    const m = 200;
    const sigma = Array.from({ length: m }, (_, i) => (i * 7) % m);
    const ri: number[] = [], ci: number[] = [], vi: number[] = [];
    for (let i = 0; i < m; i++) for (const [j, v] of [[i, 10], [i + 1, 1]] as const) if (j < m) (ri.push(sigma[i]), ci.push(j), vi.push(v));
    const P = CSRMatrix.fromTriplets(m, m, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(vi));
    const B = await rt.factor(P, { kind: 'lu', ordering: 'btf' });
    const b = Float64Array.from({ length: m }, (_, i) => 1 + (i % 3));
    expect((await B.solve(b)).relativeResidual).toBeLessThan(1e-14);
    expect([B.info.flops, B.info.offDiagonalPivots]).toEqual([0, 0]);
    B.dispose();
  });

  it('nonsymmetric random (with pivoting needed) against the dense LU, real and complex', async () => {
    for (const dtype of ['f64', 'c128'] as const) {
      // a random pattern plus a weak diagonal (0.01): nonsingular, and the pivots leave the diagonal
      const R = randomMatrix({ rows: 300, meanRowLength: 6, seed: 11, dtype });
      const c = dtype === 'c128' ? 2 : 1;
      const rows = [...rowsOf(R), ...Array.from({ length: 300 }, (_, i) => i)];
      const cols = [...R.colIdx, ...Array.from({ length: 300 }, (_, i) => i)];
      const vals = [...R.values, ...Array.from({ length: 300 * c }, (_, k) => (k % c === 0 ? 0.01 : 0))];
      const A = CSRMatrix.fromTriplets(300, 300, dtype, Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
      const { xTrue, b } = knownSystem(A, 5);
      const F = await rt.factor(A);
      expect(F.info.kind).toBe('lu');
      expect(F.info.offDiagonalPivots).toBeGreaterThan(0);
      const { x, relativeResidual } = await F.solve(b);
      const ref = denseSolve(A, b)!;
      expect(relativeResidual).toBeLessThan(1e-12);
      expect(diffNorm(x, xTrue)).toBeLessThanOrEqual(100 * diffNorm(ref, xTrue) + 1e-13 * norm(xTrue));
      // strict partial pivoting works as well
      const S = await rt.factor(A, { pivotTolerance: 1 });
      expect((await S.solve(b)).relativeResidual).toBeLessThan(1e-12);
    }
  });

  it('far-from-symmetric patterns take the block triangular form where A has several diagonal blocks (west0479), else the column ordering (minimum degree of AᵀA); pivot tolerance 0.1; both fill less than AMD of A + Aᵀ', async () => {
    const A = loadShared('west0479');
    const { xTrue, b } = knownSystem(A, 4);
    const F = await rt.factor(A);
    expect([F.info.kind, F.info.ordering]).toEqual(['lu', 'btf']);
    expect(F.info.orderingReason).toMatch(/pattern symmetry 0\.\d\d.*block triangular form, 166 diagonal blocks/);
    const S = await rt.factor(A, { ordering: 'amd' });
    expect(F.info.fillNnz).toBeLessThan(0.7 * S.info.fillNnz);
    const { x, relativeResidual } = await F.solve(b);
    expect(relativeResidual).toBeLessThan(1e-12);
    expect(diffNorm(x, xTrue)).toBeLessThanOrEqual(100 * diffNorm(denseSolve(A, b)!, xTrue) + 1e-13 * norm(xTrue));
    // the default pivot tolerance of 'btf' and of the column ordering is 0.1, the symmetric orderings' 0.001: bit for bit the explicit ones
    expect((await (await rt.factor(A, { pivotTolerance: 0.1 })).solve(b)).x).toEqual(x);
    const C = await rt.factor(A, { ordering: 'amd-ata' });
    expect(C.info.fillNnz).toBeLessThan(0.7 * S.info.fillNnz);
    expect((await (await rt.factor(A, { ordering: 'amd-ata', pivotTolerance: 0.1 })).solve(b)).x).toEqual((await C.solve(b)).x);
    // one irreducible block (a matrix of two cyclic shifts, no diagonal): the column ordering under 'auto'
    const n = 200;
    const rng = new Prng(8);
    const cyc = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from({ length: 2 * n }, (_, k) => k >> 1), Int32Array.from({ length: 2 * n }, (_, k) => ((k >> 1) + 1 + (k & 1)) % n), Float64Array.from({ length: 2 * n }, () => 0.5 + rng.next()));
    const G = await rt.factor(cyc);
    expect(G.info.ordering).toBe('amd-ata');
    expect(G.info.orderingReason).toMatch(/one irreducible block.*column ordering/);
    const cb = knownSystem(cyc, 5);
    expect(diffNorm((await G.solve(cb.b)).x, cb.xTrue)).toBeLessThanOrEqual(100 * diffNorm(denseSolve(cyc, cb.b)!, cb.xTrue) + 1e-13 * norm(cb.xTrue));
    const Y = loadShared('young1c');
    const yb = knownSystem(Y, 2).b;
    expect((await (await rt.factor(Y)).solve(yb)).x).toEqual((await (await rt.factor(Y, { pivotTolerance: 0.001 })).solve(yb)).x);
    // a symmetric pattern with a full diagonal keeps the symmetric ordering
    expect((await rt.factor(loadShared('young1c'))).info.orderingReason).toMatch(/symmetric ordering of A \+ Aᵀ/);
    // the column ordering is for LU only
    await expect(rt.factor(poisson2D(5), { kind: 'cholesky', ordering: 'amd-ata' })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(rt.factor(poisson2D(5), { kind: 'ldlt', ordering: 'amd-ata' })).rejects.toThrow(/'amd-ata' \(a column ordering\) is for LU/);
    await expect(rt.factor(poisson2D(5), { kind: 'ldlt', ordering: 'btf' })).rejects.toThrow(/'btf' \(block triangular form\) is for LU/);
    expect((await rt.factor(poisson2D(5), { kind: 'lu', ordering: 'amd-ata' })).info.ordering).toBe('amd-ata');
  });

  it('singular (dependent rows) and structurally singular (an empty column): SingularMatrixError naming the column', async () => {
    const P = poisson2D(6);
    const n = P.rows;
    // row 5 := row 4 (numerically singular, pattern intact)
    const t = { r: [] as number[], c: [] as number[], v: [] as number[] };
    for (let i = 0; i < n; i++) {
      const src = i === 5 ? 4 : i;
      for (let k = P.rowPtr[src]; k < P.rowPtr[src + 1]; k++) t.r.push(i), t.c.push(P.colIdx[k]), t.v.push(P.values[k]);
    }
    const dep = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(t.r), Int32Array.from(t.c), Float64Array.from(t.v));
    for (const kind of ['lu', 'auto'] as FactorKind[]) await expect(rt.factor(dep, { kind })).rejects.toBeInstanceOf(SingularMatrixError);
    // column 7 empty
    const r: number[] = [], c: number[] = [], v: number[] = [];
    for (let i = 0; i < n; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] !== 7) r.push(i), c.push(P.colIdx[k]), v.push(P.values[k]);
    const empty = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    await expect(rt.factor(empty, { kind: 'lu' })).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 7 && /column 7/.test(e.message));
    // complex, through the sparse kernel (AMD) and the banded one (a tridiagonal of 60: 'auto' keeps its band)
    const cx = (rows: number[], cols: number[], vals: number[], m: number) =>
      CSRMatrix.fromTriplets(m, m, 'c128', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals.flatMap((x, k) => [x, 0.5 * x + 0.1 * (k % 3)])));
    const emptyC = cx(r, c, v, n);
    await expect(rt.factor(emptyC, { kind: 'lu', ordering: 'amd' })).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 7 && /column 7/.test(e.message));
    const tri = { r: [] as number[], c: [] as number[], v: [] as number[] };
    for (let i = 0; i < 60; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < 60 && j !== 11) tri.r.push(i), tri.c.push(j), tri.v.push(j === i ? 4 : -1);
    const F = rt.factor(cx(tri.r, tri.c, tri.v, 60), { kind: 'lu' });
    await expect(F).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 11 && /column 11/.test(e.message));
    // the same band with column 11 kept is factorized by the banded kernel
    tri.r.length = tri.c.length = tri.v.length = 0;
    for (let i = 0; i < 60; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < 60) tri.r.push(i), tri.c.push(j), tri.v.push(j === i ? 4 : -1);
    expect((await rt.factor(cx(tri.r, tri.c, tri.v, 60), { kind: 'lu' })).info.method).toBe('banded');
    // a zero matrix with a full diagonal pattern: Cholesky's error names a column
    const Z = new CSRMatrix(3, 3, 'f64', Int32Array.from([0, 1, 2, 3]), Int32Array.from([0, 1, 2]), new Float64Array(3));
    await expect(rt.factor(Z, { kind: 'cholesky' })).rejects.toBeInstanceOf(NotPositiveDefiniteError);
  });
});

/** A dense n×n matrix (row-major, real or interleaved complex) as CSR, exact zeros left out. */
function fromDense(n: number, M: ArrayLike<number>, dtype: 'f64' | 'c128' = 'f64'): CSRMatrix {
  const c = dtype === 'c128' ? 2 : 1;
  const r: number[] = [], cl: number[] = [], v: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const at = (i * n + j) * c;
      if (M[at] === 0 && (c === 1 || M[at + 1] === 0)) continue;
      r.push(i), cl.push(j);
      for (let t = 0; t < c; t++) v.push(M[at + t]);
    }
  }
  return CSRMatrix.fromTriplets(n, n, dtype, Int32Array.from(r), Int32Array.from(cl), Float64Array.from(v));
}

/** A random n×n matrix with about `density` of its entries set (uniform in [−1, 1]), symmetric when asked, plus `shift` on the diagonal. */
function randomDense(n: number, density: number, seed: number, symmetric: boolean, shift: number, c = 1): Float64Array {
  const rng = new Prng(seed);
  const M = new Float64Array(n * n * c);
  for (let i = 0; i < n; i++) {
    for (let j = symmetric ? i : 0; j < n; j++) {
      if (i !== j && rng.next() >= density) continue;
      for (let t = 0; t < c; t++) {
        const v = 2 * rng.next() - 1 + (i === j && t === 0 ? shift : 0);
        M[(i * n + j) * c + t] = v;
        if (symmetric) M[(j * n + i) * c + t] = v;
      }
    }
  }
  return M;
}

/** The first k (natural order) whose pivot of Gaussian elimination without pivoting is ≤ 0 (-1: none): where Cholesky stops. */
function firstNonPositivePivot(n: number, M0: Float64Array): number {
  const M = Float64Array.from(M0);
  for (let k = 0; k < n; k++) {
    const d = M[k * n + k];
    if (!(d > 0)) return k;
    for (let i = k + 1; i < n; i++) {
      const l = M[i * n + k] / d;
      for (let j = k; j < n; j++) M[i * n + j] -= l * M[k * n + j];
    }
  }
  return -1;
}

describe('small matrices (n ≤ 48, ordering auto): the dense kernels', () => {
  it('SPD, symmetric indefinite, nonsymmetric and complex: the dense reference\'s answer, and what the sparse kernels give', async () => {
    const cases: [string, CSRMatrix, string][] = [
      ['SPD', fromDense(41, randomDense(41, 0.2, 1, true, 12)), 'cholesky'],
      ['indefinite', fromDense(30, randomDense(30, 0.3, 2, true, 0.5)), 'ldlt'],
      ['nonsymmetric, pivoting', fromDense(48, randomDense(48, 0.15, 3, false, 0.01)), 'lu'],
      ['complex', fromDense(33, randomDense(33, 0.2, 4, false, 0.01, 2), 'c128'), 'lu'],
      ['4×4', fromDense(4, [0, 2, 0, 1, 3, 0, 1, 0, 0, 1, 0, 4, 1, 0, 5, 0]), 'lu'],
    ];
    for (const [name, A, kind] of cases) {
      const { xTrue, b } = knownSystem(A, 9);
      const ref = denseSolve(A, b)!;
      const F = await rt.factor(A);
      expect([name, F.info.kind, F.info.method, F.info.ordering]).toEqual([name, kind, 'dense', 'natural']);
      const { x, relativeResidual } = await F.solve(b);
      expect(relativeResidual).toBeLessThan(1e-13);
      expect(diffNorm(x, xTrue)).toBeLessThanOrEqual(100 * diffNorm(ref, xTrue) + 1e-13 * norm(xTrue));
      // the sparse kernels (an ordering asked for) agree
      const S = await rt.factor(A, { ordering: 'amd' });
      expect(S.info.method).not.toBe('dense');
      expect(diffNorm((await S.solve(b)).x, x)).toBeLessThan(1e-11 * norm(x));
      // refactor is bit for bit a fresh factorization
      const A2 = new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, A.values.map((v) => 2 * v));
      await F.refactor(A2);
      expect(Array.from((await F.solve(b)).x)).toEqual(Array.from((await (await rt.factor(A2)).solve(b)).x));
    }
    // one more unknown: the sparse kernels
    expect((await rt.factor(poisson2D(7))).info.method).not.toBe('dense');
  });

  it('Cholesky names the column of the first pivot ≤ 0, LDLᵀ of a zero pivot, LU of a singular or structurally singular matrix', async () => {
    const n = 30;
    const M = randomDense(n, 0.3, 2, true, 0.5);
    const k = firstNonPositivePivot(n, M);
    expect(k).toBeGreaterThan(0);
    await expect(rt.factor(fromDense(n, M), { kind: 'cholesky' })).rejects.toSatisfy(
      (e: unknown) => e instanceof NotPositiveDefiniteError && e.column === k && e.message.includes(`column ${k}`),
    );
    // [[0, 1], [1, 0]] ⊕ I: LDLᵀ without pivoting stops at column 0
    const P = fromDense(3, [0, 1, 0, 1, 0, 0, 0, 0, 1]);
    await expect(rt.factor(P, { kind: 'ldlt' })).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 0);
    expect(Array.from((await (await rt.factor(P)).solve(Float64Array.from([1, 2, 3]))).x)).toEqual([2, 1, 3]);
    // row 7 empty and, apart, column 5 empty (structurally singular); rows 1 and 2 equal, in exact arithmetic
    const N = randomDense(20, 0.3, 5, false, 3);
    const zeroRow = Float64Array.from(N).fill(0, 7 * 20, 8 * 20);
    await expect(rt.factor(fromDense(20, zeroRow))).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column >= 0 && e.column < 20 && e.message.includes(`column ${e.column}`));
    const dep = fromDense(4, [2, 0, 0, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 0, 0, 4]);
    await expect(rt.factor(dep)).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 2);
    const empty = Float64Array.from(N);
    for (let i = 0; i < 20; i++) empty[i * 20 + 5] = 0;
    await expect(rt.factor(fromDense(20, empty))).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && e.column === 5 && /column 5/.test(e.message));
  });
});

describe('refactor, solve-many, dtypes', () => {
  it('refactor and solve-many are bit for bit a fresh factorization and single solves', async () => {
    for (const [A, scale] of [[poisson2D(25), 3], [loadShared('west0479'), 0.5], [loadShared('young1c'), 2], [loadShared('olm1000'), 0.7]] as const) {
      const c = cplx(A) ? 2 : 1;
      const v2 = Float64Array.from(A.values, (t, k) => (k % 3 === 0 ? t * scale : t));
      // keep it symmetric for the Poisson matrix: scale by the sum of row and column so (i,j) and (j,i) match
      if (A.rows === 625) for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) v2[k] = A.colIdx[k] === i ? 4 * scale : -1;
      const A2 = new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, v2);
      const F = await rt.factor(A);
      const m = A.rows * c;
      const b = Float64Array.from({ length: 3 * m }, (_, i) => Math.sin(i + 1));
      // started together: a solve before the refactor sees A, one after it A2 (one after another)
      const before = await (await rt.factor(A)).solve(b);
      const [r1, , r2] = await Promise.all([F.solve(b), F.refactor(A2), F.solve(b)]);
      expect(r1.x).toEqual(before.x);
      const fresh = await rt.factor(A2);
      expect(r2.x).toEqual((await fresh.solve(b)).x);
      const many = await F.solve(b);
      const one = await fresh.solve(b);
      expect(many.x).toEqual(one.x);
      for (let j = 0; j < 3; j++) {
        const single = await fresh.solve(b.slice(j * m, (j + 1) * m));
        expect(Array.from(single.x)).toEqual(Array.from(many.x.subarray(j * m, (j + 1) * m)));
        expect(single.relativeResidual).toBe(many.residuals[j]);
      }
      expect(many.relativeResidual).toBeLessThan(1e-10);
    }
  });

  it('qc324 (complex symmetric, banded): the band factorized as LDLᵀ, the dense reference\'s answer; refactor of 2A halves it bit for bit against a fresh factor', async () => {
    const A = loadShared('qc324');
    const { xTrue, b } = knownSystem(A, 6);
    const F = await rt.factor(A);
    expect([F.info.kind, F.info.method]).toEqual(['lu', 'banded']);
    expect(F.info.kindReason).toMatch(/A = Aᵀ and every pivot stayed on the diagonal: the band factorized as LDLᵀ/);
    // its flops: one triangle's updates, about half the LU formula's for the same L and U
    const lu = await rt.factor(A, { kind: 'lu', ordering: 'natural' });
    expect(F.info.flops).toBeLessThan(0.6 * lu.info.flops);
    const { x, relativeResidual } = await F.solve(b);
    expect(relativeResidual).toBeLessThan(1e-12);
    expect(diffNorm(x, xTrue)).toBeLessThanOrEqual(100 * diffNorm(denseSolve(A, b)!, xTrue) + 1e-13 * norm(xTrue));
    const A2 = new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, A.values.map((v) => 2 * v));
    await F.refactor(A2);
    expect(F.info.kindReason.match(/LDLᵀ/g)?.length).toBe(1);
    const x2 = (await F.solve(b)).x;
    expect(Array.from(x2)).toEqual(Array.from((await (await rt.factor(A2)).solve(b)).x));
    expect(diffNorm(x2.map((v) => 2 * v), x)).toBeLessThan(1e-10 * norm(x));
  });

  it('f32 and c64 data are factorized in f64: the same answer as the f64/c128 copy', async () => {
    for (const [A, wide] of [[poisson2D(10, { dtype: 'f32' }), 'f64'], [loadShared('qc324').astype('c64'), 'c128']] as const) {
      const b = Float64Array.from({ length: A.rows * (cplx(A) ? 2 : 1) }, (_, i) => Math.cos(i));
      const x32 = (await (await rt.factor(A)).solve(b)).x;
      const x64 = (await (await rt.factor(A.astype(wide))).solve(b)).x;
      expect(x32).toEqual(x64);
    }
  });

  it('refinement: refine 0 skips it, the default keeps a step only when it helps; an uploaded handle factorizes its matrix', async () => {
    const A = loadShared('bcsstk13');
    const { b } = knownSystem(A);
    const h = rt.upload(A);
    const F = await rt.factor(h);
    const r0 = await F.solve(b, { refine: 0 });
    const r1 = await F.solve(b);
    expect(r0.refinements).toBe(0);
    expect(r1.relativeResidual).toBeLessThanOrEqual(r0.relativeResidual);
    expect(r1.relativeResidual).toBeLessThan(1e-12);
    expect(trueResidual(A, r1.x, b)).toBeCloseTo(r1.relativeResidual, 14);
    h.dispose();
  });
});

describe('tiny', () => {
  it('refinement runs only while the normwise backward error is above 16 rounding units', async () => {
    let skipped = 0;
    let refined = 0;
    // a strongly diagonal tridiagonal matrix solves to within the rounding unit at once
    const r: number[] = [], co: number[] = [], v: number[] = [];
    for (let i = 0; i < 50; i++) {
      r.push(i), co.push(i), v.push(4);
      if (i < 49) r.push(i, i + 1), co.push(i + 1, i), v.push(-1, -1);
    }
    const tri = CSRMatrix.fromTriplets(50, 50, 'f64', Int32Array.from(r), Int32Array.from(co), Float64Array.from(v));
    // 2×2 blocks [[ε, 1], [1, 1]] with ε = 0.002–0.006: threshold pivoting (0.001) keeps ε, L's 1/ε grows
    // the backward error to a few hundred rounding units, which one step removes
    const br: number[] = [], bc: number[] = [], bv: number[] = [];
    for (let i = 0; i < 100; i += 2) br.push(i, i, i + 1, i + 1), bc.push(i, i + 1, i, i + 1), bv.push(0.002 * (1 + (i % 3)), 1 + 0.01 * i, 1, 1 - 0.003 * i);
    const blocks = CSRMatrix.fromTriplets(100, 100, 'f64', Int32Array.from(br), Int32Array.from(bc), Float64Array.from(bv));
    const cases: [CSRMatrix, Float64Array][] = [
      ...[1, 2, 3].map((s): [CSRMatrix, Float64Array] => [tri, Float64Array.from({ length: 50 }, (_, i) => Math.sin(i * s + 1))]),
      [blocks, Float64Array.from({ length: 100 }, (_, i) => Math.sin(i + 1))],
      ...['494_bus', 'bcsstk13', 'young1c', 'qc324', 'west0479'].map((m): [CSRMatrix, Float64Array] => [loadShared(m), knownSystem(loadShared(m), 2).b]),
    ];
    for (const [A, b] of cases) {
      const c = cplx(A) ? 2 : 1;
      const F = await rt.factor(A);
      const r0 = await F.solve(b, { refine: 0 });
      // η = ‖b − A·x‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞), with |re| + |im| for complex, written out here
      const Ax = matvec(A, r0.x);
      const abs = (v: ArrayLike<number>, i: number) => { let s = 0; for (let t = 0; t < c; t++) s += Math.abs(v[c * i + t]); return s; };
      let rn = 0, xn = 0, bn = 0, an = 0;
      for (let i = 0; i < A.rows; i++) {
        let row = 0;
        for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) row += abs(A.values, k);
        an = Math.max(an, row);
        let ri = 0;
        for (let t = 0; t < c; t++) ri += Math.abs(b[c * i + t] - Ax[c * i + t]);
        rn = Math.max(rn, ri);
        xn = Math.max(xn, abs(r0.x, i));
        bn = Math.max(bn, abs(b, i));
      }
      const eta = rn / (an * xn + bn);
      const r1 = await F.solve(b);
      if (eta <= 2 ** -49) {
        skipped++;
        expect(r1.refinements).toBe(0);
        expect([...r1.x]).toEqual([...r0.x]);
      } else {
        refined++;
        expect(r1.relativeResidual).toBeLessThan(r0.relativeResidual);
        expect(r1.refinements).toBe(1);
      }
    }
    // both branches were exercised
    expect(skipped).toBeGreaterThan(0);
    expect(refined).toBeGreaterThan(0);
  });

  it('0×0 and 1×1 matrices, every kind', async () => {
    const E = new CSRMatrix(0, 0, 'f64', new Int32Array(1), new Int32Array(0), new Float64Array(0));
    const F0 = await rt.factor(E);
    expect(Array.from((await F0.solve(new Float64Array(0))).x)).toEqual([]);
    const one = new CSRMatrix(1, 1, 'f64', Int32Array.from([0, 1]), Int32Array.from([0]), Float64Array.from([4]));
    for (const kind of ['auto', 'cholesky', 'ldlt', 'lu'] as FactorKind[]) {
      const F = await rt.factor(one, { kind });
      expect(Array.from((await F.solve(Float64Array.from([2, 8]))).x)).toEqual([0.5, 2]);
    }
  });
});

describe('errors', () => {
  it('bad input gets typed errors, nothing else', async () => {
    await expect(rt.factor(loadShared('ash219'))).rejects.toBeInstanceOf(ShapeError);
    await expect(rt.factor(poisson2D(3), { kind: 'qr' as never })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(rt.factor(poisson2D(3), { ordering: 'metis' as never })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(rt.factor(poisson2D(3), { kinds: 'lu' } as never)).rejects.toSatisfy((e: unknown) => e instanceof OptionError && e.suggestion === 'kind');
    await expect(rt.factor(loadShared('west0479'), { kind: 'cholesky' })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(rt.factor(loadShared('young1c'), { kind: 'ldlt' })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(rt.factor(poisson2D(3), { pivotTolerance: 2 })).rejects.toBeInstanceOf(RangeError);
    const F = await rt.factor(poisson2D(4));
    await expect(F.solve(new Float64Array(15))).rejects.toBeInstanceOf(ShapeError);
    await expect(F.solve(new Float64Array(16), { refine: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(F.refactor(poisson2D(5))).rejects.toBeInstanceOf(ShapeError);
    await expect(F.refactor(randomMatrix({ rows: 16, meanRowLength: 5, seed: 1 }))).rejects.toBeInstanceOf(ShapeError);
    // a solve called before dispose() (a factor held in JavaScript) answers; one called after rejects
    const before = F.solve(new Float64Array(16).fill(1));
    F.dispose();
    expect((await before).x.length).toBe(16);
    await expect(F.solve(new Float64Array(16))).rejects.toBeInstanceOf(DisposedError);
    // the factor's memory is checked before the numeric phase (2 MiB: the ordering's block of the
    // runtime's memory fits, the factor's 6 MiB do not)
    const small = await createRuntime({ maxMemoryMB: 2, workers: 1 });
    await expect(small.factor(poisson2D(120))).rejects.toSatisfy((e: unknown) => e instanceof MemoryLimitError && e.requestedBytes > 2 ** 20);
    // the banded LU's band and factor too (a nonsymmetric tridiagonal of 40 000 rows: about 5 MB)
    const m = 40000;
    const tr = { r: [] as number[], c: [] as number[], v: [] as number[] };
    for (let i = 0; i < m; i++) {
      tr.r.push(i), tr.c.push(i), tr.v.push(4);
      if (i + 1 < m) tr.r.push(i, i + 1), tr.c.push(i + 1, i), tr.v.push(-1, -2);
    }
    const band = CSRMatrix.fromTriplets(m, m, 'f64', Int32Array.from(tr.r), Int32Array.from(tr.c), Float64Array.from(tr.v));
    await expect(small.factor(band)).rejects.toSatisfy((e: unknown) => e instanceof MemoryLimitError && e.requestedBytes > 2 ** 20);
    expect((await rt.factor(band)).info.method).toBe('banded');
    small.dispose();
    await expect(small.factor(poisson2D(3))).rejects.toBeInstanceOf(DisposedError);
  });
});

function rowsOf(A: CSRMatrix): number[] {
  const r: number[] = [];
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) r.push(i);
  return r;
}
