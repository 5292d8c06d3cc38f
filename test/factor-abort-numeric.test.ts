/**
 * An abort during rt.factor's numeric phase: with a signal, the sparse LU's and LDLᵀ's kernels run as
 * ranges of steps (src/cpu/lu.ts, ldl.ts) and the event loop gets a turn every few milliseconds
 * (solvers/direct/steps.ts). How late an abort is seen is measured by
 * bench/factor-abort-numeric-probe.mjs (docs/direct.md), not here: these tests check that an abort
 * fired between two ranges ends the call there (the kernel's later ranges never run), that it frees
 * what it held, that the runtime then factorizes the same matrix as a fresh runtime does, and that a
 * factorization run in ranges (a signal that never fires) is bit for bit the one run in one call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { directKernels, factorize } from '../src/runtime/direct.js';
import type { DirectKernels } from '../src/solvers/direct/factor.js';
import type { Steps } from '../src/solvers/direct/steps.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { loadShared } from './matrices.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** poisson3D(k) with a flow along each axis (central differences): nonsymmetric, the same pattern. */
function convection(k: number, beta = 0.4): CSRMatrix {
  const A = poisson3D(k);
  const v = A.values as Float64Array;
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) v[p] += A.colIdx[p] > i ? beta : A.colIdx[p] < i ? -beta : 0;
  return A;
}

/** poisson3D(k) − σI: symmetric indefinite (σ inside the spectrum). */
function shifted(k: number, sigma = 1.5): CSRMatrix {
  const A = poisson3D(k);
  const v = A.values as Float64Array;
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) if (A.colIdx[p] === i) v[p] -= sigma;
  return A;
}

function rhs(n: number): Float64Array {
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.sin(i + 1);
  return b;
}

/**
 * The CPU path's kernels, the sparse LU's and LDLᵀ's steps wrapped: `onYield(count)` runs at each of
 * their yields (between two ranges of the kernel), and the yields are counted.
 */
function watched(onYield: (count: number) => void): { kernels: DirectKernels; yields: () => number } {
  const k = directKernels(rt.cpu.backend);
  let yields = 0;
  function* watch<T>(steps: Steps<T>): Steps<T> {
    let done = false;
    try {
      for (;;) {
        const r = steps.next();
        if (r.done) {
          done = true;
          return r.value;
        }
        onYield(++yields);
        yield;
      }
    } finally {
      // closed at a yield (an abort): the close reaches the kernel's steps, which free their memory
      if (!done) steps.return(undefined as T);
    }
  }
  const lu = { ...k.lu, sparseSteps: (...a: Parameters<NonNullable<typeof k.lu.sparseSteps>>) => watch(k.lu.sparseSteps!(...a)) };
  const ldl = { ...k.ldl, sparseSteps: (...a: Parameters<NonNullable<typeof k.ldl.sparseSteps>>) => watch(k.ldl.sparseSteps!(...a)) };
  return { kernels: { ...k, lu, ldl }, yields: () => yields };
}

describe('an abort during the numeric phase', () => {
  for (const [kind, name, make] of [
    ['lu', 'a 3-D convection matrix (poisson3D(18)\'s pattern)', () => convection(18)],
    ['ldlt', 'poisson3D(22) − 1.5·I (indefinite)', () => shifted(22)],
  ] as const) {
    it(`${kind}, ${name}: an abort fired between two of the kernel's ranges rejects with the reason there, frees what it held, and the runtime then factorizes as a fresh one`, async () => {
      const A = make();
      const before = rt.memoryInUse;
      // the whole phase's ranges (a signal that never fires)
      const whole = watched(() => {});
      const W = await factorize(A, { kind, signal: new AbortController().signal }, undefined, whole.kernels);
      W.dispose();
      const ranges = whole.yields();
      expect(ranges).toBeGreaterThan(40);

      const why = new Error('user left the page');
      const stop = new AbortController();
      // fired at the first yield (the phase's first millisecond or so of many): the abort is seen at the
      // event loop's turn after it, a slice (≈ 8 ms) later at most
      const part = watched((count) => {
        if (count === 1) stop.abort(why);
      });
      const err = await factorize(A, { kind, signal: stop.signal }, undefined, part.kernels).then(() => null, (e: unknown) => e);
      expect(err).toBe(why);
      // before: the kernel ran to its end however the signal stood
      expect(part.yields()).toBeLessThan(ranges);
      expect(rt.memoryInUse).toBe(before);

      // the same runtime then factorizes the matrix as a fresh runtime does, bit for bit
      const F = await rt.factor(A, { kind });
      const rt2 = await createRuntime({ workers: 1, backend: 'cpu' });
      try {
        const G = await rt2.factor(A, { kind });
        const b = rhs(A.rows);
        const { x } = await F.solve(b);
        const { x: y } = await G.solve(b);
        expect(Array.from(x)).toEqual(Array.from(y));
        expect(trueResidual(A, x, b)).toBeLessThan(1e-10);
        G.dispose();
      } finally {
        rt2.dispose();
        F.dispose();
      }
    }, 60_000);
  }

  it('an abort from a timer during the LU\'s numeric phase rejects with the reason and frees what it held', async () => {
    const A = convection(16);
    const before = rt.memoryInUse;
    const why = new Error('stop');
    const stop = new AbortController();
    // fired at the kernel's second range: from a timer, as a page's would be
    const { kernels } = watched((count) => {
      if (count === 2) setTimeout(() => stop.abort(why), 0);
    });
    await expect(factorize(A, { kind: 'lu', signal: stop.signal }, undefined, kernels)).rejects.toBe(why);
    expect(rt.memoryInUse).toBe(before);
  }, 60_000);
});

describe('a factorization run in ranges (a signal that never fires) is the one run in one call, bit for bit', () => {
  const cases: [string, 'lu' | 'ldlt' | 'cholesky', () => CSRMatrix][] = [
    ['west0479', 'lu', () => loadShared('west0479')],
    ['olm1000', 'lu', () => loadShared('olm1000')],
    ['convection(12)', 'lu', () => convection(12)],
    ['494_bus', 'ldlt', () => loadShared('494_bus')],
    ['bcsstk13', 'ldlt', () => loadShared('bcsstk13')],
    ['shifted poisson3D(12)', 'ldlt', () => shifted(12)],
    ['bcsstk13', 'cholesky', () => loadShared('bcsstk13')],
    ['poisson2D(50)', 'cholesky', () => poisson2D(50)],
  ];
  for (const [name, kind, make] of cases) {
    it(`${name}, kind '${kind}'`, async () => {
      const A = make();
      const { kernels, yields } = watched(() => {});
      const F = await factorize(A, { kind, signal: new AbortController().signal }, undefined, kernels);
      const G = await rt.factor(A, { kind });
      try {
        for (const key of ['kind', 'method', 'ordering', 'fillNnz', 'flops', 'offDiagonalPivots', 'denseColumns'] as const) expect(F.info[key]).toEqual(G.info[key]);
        // the paused run did pause (more than one range) where the kernel is the sparse one and the matrix not small
        if ((F.info.method === 'left-looking' || F.info.method === 'up-looking') && A.rows >= 1000) expect(yields()).toBeGreaterThan(0);
        const b = rhs(A.rows);
        const { x } = await F.solve(b);
        const { x: y } = await G.solve(b);
        expect(Array.from(x)).toEqual(Array.from(y));
        expect(Number.isFinite(trueResidual(A, x, b))).toBe(true);
      } finally {
        F.dispose();
        G.dispose();
      }
    }, 60_000);
  }
});
