/**
 * Third adversarial pass over the direct solvers and the readers (rt.factor, F.solve, Matrix Market):
 * a factor disposed while its solve runs, the column ordering under kind 'auto'. Each outcome a typed
 * error or a right answer (docs/direct.md, docs/errors.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { DisposedError, UnsupportedError } from '../src/errors.js';
import { trueResidual } from './solve-reference.js';
import { parseMatrixMarket } from '../src/io/matrix-market-read.js';
import { setMemoryBudget } from '../src/memory-budget.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { pivotingTriplets } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

describe('a factor disposed while F.solve runs', () => {
  // the supernodal factor's solve waits on the pool: disposed between its right-hand sides, the next
  // one read the freed work vectors (TypeError: Cannot read properties of null (reading 'y'))
  it('supernodal Cholesky, two right-hand sides, disposed after 0–40 microtasks: DisposedError or the right answer', async () => {
    const A = poisson3D(16);
    const b = Float64Array.from({ length: 2 * A.rows }, (_, i) => Math.cos(i));
    const seen = new Set<string>();
    for (let ticks = 0; ticks <= 40; ticks += 2) {
      const F = await rt.factor(A);
      expect(F.info.method).toBe('supernodal');
      const pending = F.solve(b);
      for (let t = 0; t < ticks; t++) await Promise.resolve();
      F.dispose();
      const out = await pending.then((r) => r, (e: unknown) => e);
      if (out instanceof Error) {
        expect(out, `${ticks} ticks: ${String(out)}`).toBeInstanceOf(DisposedError);
        seen.add('disposed');
      } else {
        const { x } = out as { x: Float64Array };
        expect(trueResidual(A, Array.from(x.subarray(0, A.rows)), b.subarray(0, A.rows))).toBeLessThan(1e-12);
        expect(trueResidual(A, Array.from(x.subarray(A.rows)), b.subarray(A.rows))).toBeLessThan(1e-12);
        seen.add('answered');
      }
      await expect(F.solve(b)).rejects.toBeInstanceOf(DisposedError);
    }
    // the loop reached the solve in flight (at 0 ticks it had not started: DisposedError)
    expect(seen.has('disposed')).toBe(true);
  });
});

describe("ordering 'amd-ata' with kind 'auto'", () => {
  // the column ordering is LU's: 'auto' of a symmetric A was an UnsupportedError while 'auto' of a
  // nonsymmetric one took it; now 'auto' factorizes LU with it and says why
  for (const m of [3, 10, 30]) {
    it(`poisson2D(${m}) (symmetric): LU under 'amd-ata', a true residual below 1e-12`, async () => {
      const A = poisson2D(m);
      const F = await rt.factor(A, { ordering: 'amd-ata' });
      expect([F.info.kind, F.info.ordering]).toEqual(['lu', 'amd-ata']);
      expect(F.info.kindReason).toMatch(/'amd-ata'.*LU/);
      const b = Float64Array.from({ length: A.rows }, (_, i) => 1 + (i % 3));
      const r = await F.solve(b);
      expect(trueResidual(A, Array.from(r.x), b)).toBeLessThan(1e-12);
      F.dispose();
    });
  }
  it("kinds 'cholesky' and 'ldlt' with it: an UnsupportedError naming the orderings they take", async () => {
    for (const kind of ['cholesky', 'ldlt'] as const) {
      const err = await rt.factor(poisson2D(5), { kind, ordering: 'amd-ata' }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedError);
      expect(String(err)).toMatch(new RegExp(`is for LU; kind '${kind}' takes 'amd', 'nd'`));
    }
  });
});

describe('a tiny Matrix Market file declaring 10⁷ rows', () => {
  // parsing allocates by the bytes read (nothing here); the CSR needs its 40 MB of row pointers, but
  // COO → CSR (and a transpose) also held a second array of row cursors as large: twice the memory,
  // a MemoryLimitError under a budget that holds the matrix
  it('toCSR and transpose fit a budget of 1.5× the row pointers, and give the right matrix', () => {
    const n = 10_000_000;
    const text = `%%MatrixMarket matrix coordinate real general\n${n} ${n} 3\n${n} 1 2\n1 ${n} 3\n${n} 1 5\n`;
    expect(text.length).toBeLessThan(110);
    setMemoryBudget(60); // MiB: row pointers of 10⁷ rows are 38 MiB
    try {
      const { matrix } = parseMatrixMarket(text);
      const A = matrix.toCSR();
      expect([A.rowPtr[0], A.rowPtr[1], A.rowPtr[n - 1], A.rowPtr[n]]).toEqual([0, 1, 1, 2]);
      expect([...A.colIdx, ...A.values]).toEqual([n - 1, 0, 3, 7]);
      const T = A.transpose();
      expect([T.rowPtr[0], T.rowPtr[1], T.rowPtr[n - 1], T.rowPtr[n]]).toEqual([0, 1, 1, 2]);
      expect([...T.colIdx, ...T.values]).toEqual([n - 1, 0, 7, 3]);
    } finally {
      setMemoryBudget(undefined);
    }
  });
});

/** pivotingTriplets (test/random.ts) as a CSR matrix. */
function pivoting(n: number, seed: number): CSRMatrix {
  const t = pivotingTriplets(n, seed);
  return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(t.rows), Int32Array.from(t.cols), Float64Array.from(t.values));
}

describe('the sparse LU near its memory budget', () => {
  // the trailing dense block was counted twice: asked of `grow` and again as part of the kernel's
  // region (amd: 2 MiB of 15 refused over; amd-ata: 3.2 of 21.4)
  for (const ordering of ['amd', 'amd-ata'] as const) {
    it(`${ordering}, strict pivoting: a budget 10 % + 1 MiB over what it holds at once (regions at their peak + the factor copied out) factorizes`, async () => {
      const A = pivoting(1200, 3);
      const measure = await createRuntime({ workers: 1, backend: 'cpu' });
      const heap = measure.cpuBackend.heap;
      const start = heap.liveBytes;
      let peak = 0;
      const alloc = heap.alloc.bind(heap);
      heap.alloc = (bytes: number) => {
        const region = alloc(bytes);
        peak = Math.max(peak, heap.liveBytes - start);
        return region;
      };
      const F = await measure.factor(A, { kind: 'lu', ordering, pivotTolerance: 1 });
      const { n, fillNnz, denseColumns } = F.info;
      expect(denseColumns).toBeGreaterThan(400);
      // Li, Lx, Ui, Ux, Lp, Up, pinv, q and U's reciprocal diagonal, in JavaScript
      const copied = 12 * fillNnz + 4 * (2 * n + 2) + 8 * n + 8 * n;
      F.dispose();
      measure.dispose();
      const mb = (1.1 * (peak + copied)) / 2 ** 20 + 1;
      const small = await createRuntime({ workers: 1, backend: 'cpu', maxMemoryMB: mb });
      const G = await small.factor(A, { kind: 'lu', ordering, pivotTolerance: 1 });
      const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i));
      expect(trueResidual(A, Array.from((await G.solve(b)).x), b)).toBeLessThan(1e-9);
      G.dispose();
      small.dispose();
    });
  }
});
