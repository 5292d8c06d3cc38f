/**
 * Second adversarial pass over the direct solvers (rt.factor, F.solve, F.refactor, rt.solve 'direct'):
 * a signal that fires while a factorization runs, and inputs at the edges of the API. Each outcome must
 * say what happened (docs/direct.md, docs/errors.md), and what the factorization held must be freed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** A nonsymmetric matrix of poisson's pattern (LU, sequential numeric phase). */
function convection(P: CSRMatrix): CSRMatrix {
  const v = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] !== i) v[k] *= P.colIdx[k] > i ? 0.5 : 1.5;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
}

/** An AbortSignal-like object (the solvers accept any object with a boolean `aborted`) that fires at its `at`-th reading. */
function firesAtRead(at: number): { aborted: boolean; reads: number } {
  return {
    reads: 0,
    get aborted() {
      return ++this.reads >= at;
    },
  };
}

describe('a signal that fires while a factorization runs', () => {
  // before, rt.factor took no signal (an OptionError) and rt.solve 'direct' read it only before starting:
  // an abort during the seconds a large factorization takes was ignored and the solve returned 'converged'
  const cases: [string, () => CSRMatrix, 'auto' | 'lu' | 'ldlt'][] = [
    ['poisson3D(16), supernodal Cholesky', () => poisson3D(16), 'auto'],
    ['poisson2D(40), LU', () => convection(poisson2D(40)), 'lu'],
    ['poisson2D(40), LDLᵀ', () => poisson2D(40), 'ldlt'],
  ];
  for (const [what, make, kind] of cases) {
    it(`${what}: rt.factor rejects with the signal's reason and frees what it held; rt.solve 'direct' ends 'aborted'`, async () => {
      const A = make();
      const before = rt.memoryInUse;
      const stop = new AbortController();
      const pending = rt.factor(A, { kind, signal: stop.signal });
      stop.abort();
      const err = await pending.then(() => null, (e: unknown) => e);
      expect(err).toBe(stop.signal.reason);
      expect((err as DOMException).name).toBe('AbortError');
      expect(rt.memoryInUse).toBe(before);
      const why = new Error('user left the page');
      const stop2 = new AbortController();
      const pending2 = rt.factor(A, { kind, signal: stop2.signal });
      stop2.abort(why);
      await expect(pending2).rejects.toBe(why);

      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      const stop3 = new AbortController();
      const solving = rt.solve(h, b, { method: 'direct', signal: stop3.signal });
      stop3.abort();
      const r = await solving;
      expect(r.method).toBe('direct');
      expect(r.reason).toBe('aborted');
      expect(r.converged).toBe(false);
      expect(r.relativeResidual).toBe(1);
      h.dispose();
      // and without an abort the same calls factorize
      const F = await rt.factor(A, { kind, signal: new AbortController().signal });
      expect((await F.solve(b)).relativeResidual).toBeLessThan(1e-12);
      F.dispose();
      expect(rt.memoryInUse).toBe(before);
    });
  }

  it('between the supernodal Cholesky steps on the pool: rejects, the factor region freed', async () => {
    const A = poisson3D(16);
    const before = rt.memoryInUse;
    // readings: the option check, the start, the numeric phase's checkpoint, the first pool step; the
    // fifth (before the next step) fires
    const signal = firesAtRead(5);
    const err = await rt.factor(A, { signal: signal as unknown as AbortSignal }).then(() => null, (e: unknown) => e);
    expect((err as DOMException).name).toBe('AbortError');
    expect(signal.reads).toBe(5);
    expect(rt.memoryInUse).toBe(before);
  });

  it('a signal that is not one is a typed error', async () => {
    await expect(rt.factor(poisson2D(4), { signal: 'stop' as unknown as AbortSignal })).rejects.toThrow(/signal must be an AbortSignal/);
  });
});

/** A complex matrix of `P`'s pattern times s: real parts P's, imaginary parts 0.3 off the diagonal (symmetric: the same both sides, not Hermitian) and 0.1 on it. */
function complexScaled(P: CSRMatrix, s: number, symmetric: boolean): CSRMatrix {
  const v = new Float64Array(2 * P.nnz);
  for (let i = 0; i < P.rows; i++) {
    for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) {
      const j = P.colIdx[k];
      v[2 * k] = P.values[k] * s;
      v[2 * k + 1] = (i === j ? 0.1 : symmetric || j > i ? 0.3 : -0.2) * s;
    }
  }
  return new CSRMatrix(P.rows, P.cols, 'c128', P.rowPtr, P.colIdx, v);
}

/** The tridiagonal [-1, 4, -1] of n rows. */
function tridiagonal(n: number): CSRMatrix {
  const rowPtr = new Int32Array(n + 1);
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const j of [i - 1, i, i + 1]) {
      if (j < 0 || j >= n) continue;
      colIdx.push(j);
      values.push(j === i ? 4 : -1);
    }
    rowPtr[i + 1] = colIdx.length;
  }
  return new CSRMatrix(n, n, 'f64', rowPtr, Int32Array.from(colIdx), Float64Array.from(values));
}

describe('complex LU with entries beyond 1e±154', () => {
  // 1/pivot as conj(p)/|p|²: |p|² overflowed (L = 0: 'stagnated' with a relative residual of 1 from
  // rt.solve 'direct') or underflowed (SingularMatrixError for a matrix far from singular)
  const shapes: [string, () => CSRMatrix, boolean][] = [
    ['dense kernel (36 unknowns)', () => poisson2D(6), false],
    ['sparse left-looking (144)', () => poisson2D(12), false],
    ['banded (200, tridiagonal)', () => tridiagonal(200), false],
    ['banded complex symmetric, LDLᵀ form (200)', () => tridiagonal(200), true],
  ];
  for (const [what, make, symmetric] of shapes) {
    for (const s of [1e160, 1e300, 1e-200, 1e-300]) {
      it(`${what}·${s}: the factor solves to f64 accuracy`, async () => {
        const A = complexScaled(make(), s, symmetric);
        const b = new Float64Array(2 * A.rows).fill(1);
        const F = await rt.factor(A);
        const r = await F.solve(b);
        // the residual of x against A/s and b/s, x·s: in range whatever s
        const As = new CSRMatrix(A.rows, A.cols, 'c128', A.rowPtr, A.colIdx, A.values.map((v) => v / s) as Float64Array);
        expect(trueResidual(As, Array.from(r.x, (v) => v * s), b)).toBeLessThan(1e-12);
        expect(r.relativeResidual).toBeLessThan(1e-12);
        F.dispose();
      });
    }
  }
});

describe('a singular A whose factorization meets a rounding-level pivot', () => {
  // found by test/attack-fuzz-2's generator: rows/columns 0, 2, 3 are dependent, LDLᵀ's last pivot of
  // them is 2 − 4/3 − 2/3 ≈ 1e-16, not 0, so x ≈ 1e16 and b − A·x in f64 is rounding: rt.solve
  // 'direct' (and 'auto') said 'converged' with a residual of 0 for a true one of 0.38
  const A = new CSRMatrix(5, 5, 'f64', Int32Array.of(0, 2, 3, 5, 8, 9), Int32Array.of(0, 3, 1, 2, 3, 0, 2, 3, 4), Float64Array.of(3, -2, 3, 6, 2, -2, 2, 2, 6));
  const b = Float64Array.of(-1, -2, 2, 4, -3);
  /** ‖b − A·x‖/‖b‖ exactly (A and b integers, x·2^53 integers for this x), in BigInt. */
  function exactRelres(x: Float64Array): number {
    const X = Array.from(x, (v) => BigInt(v * 2 ** 53));
    let ss = 0n;
    for (let i = 0; i < A.rows; i++) {
      let r = BigInt(b[i]) * 2n ** 53n;
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) r -= BigInt(A.values[k]) * X[A.colIdx[k]];
      ss += r * r;
    }
    return Math.sqrt(Number(ss)) / 2 ** 53 / Math.hypot(...b);
  }
  it("rt.solve 'direct' is not converged and reports the exact residual; 'auto' does not say converged", async () => {
    const h = rt.upload(A);
    const d = await rt.solve(h, b, { method: 'direct' });
    for (const v of d.x) expect(Number.isInteger(v * 2 ** 53)).toBe(true);
    const t = exactRelres(d.x);
    expect(t).toBeGreaterThan(0.1);
    expect(d.converged).toBe(false);
    expect(d.reason).toBe('stagnated');
    expect(Math.abs(d.relativeResidual - t)).toBeLessThanOrEqual(1e-6 * t);
    // rt.factor's solve reports the same exact residual (it reported the plain one: 0)
    const F = await rt.factor(A);
    const f = await F.solve(b);
    expect(Math.abs(f.relativeResidual - exactRelres(f.x))).toBeLessThanOrEqual(1e-6 * exactRelres(f.x));
    F.dispose();
    const a = await rt.solve(h, b, { tol: 1e-4 });
    expect(a.converged).toBe(false);
    expect(trueResidual(A, a.x, b)).toBeLessThan(1);
    h.dispose();
  });
});

describe('F.solve with NaN or ±Inf in b', () => {
  it('is an InputRangeError naming the entry (it returned x and the residual NaN), and the factor still solves', async () => {
    const A = poisson2D(6);
    const F = await rt.factor(A);
    const n = A.rows;
    const b = new Float64Array(2 * n).fill(1);
    b[n + 5] = Number.NEGATIVE_INFINITY;
    await expect(F.solve(b)).rejects.toThrow(/^solve: b\[41\] is -Infinity \(right-hand side 1\), expected a finite number/);
    await expect(F.solve([1, NaN, ...new Array(n - 2).fill(1)])).rejects.toThrow(/^solve: b\[1\] is NaN, expected/);
    await expect(F.solve(b.subarray(0, n).map((v, i) => (i === 0 ? NaN : v)))).rejects.toBeInstanceOf(RangeError);
    const r = await F.solve(b.subarray(0, n));
    expect(r.relativeResidual).toBeLessThan(1e-12);
    expect(trueResidual(A, r.x, b.subarray(0, n))).toBeLessThan(1e-12);
    F.dispose();
    // rt.solve ends 'nan' on every method, as the Krylov methods always did ('direct' does not reach F.solve)
    const h = rt.upload(A);
    for (const method of ['direct', 'auto'] as const) {
      const s = await rt.solve(h, b.subarray(n), { method });
      expect(s).toMatchObject({ converged: false, reason: 'nan' });
    }
    h.dispose();
  });
});
