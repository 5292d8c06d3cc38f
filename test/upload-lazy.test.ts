/**
 * rt.upload with the default format keeps the canonical CSR and makes the copy in the chosen format
 * when an operation first needs it: the answers must be those of an upload converted at once to that
 * format (bit for bit: the same kernels on the same arrays), and right against a plain f64 product
 * written here; a solve that factorizes makes no resident copy at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { convert, type SparseMatrix } from '../src/formats/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { FormatError } from '../src/errors.js';
import { ownedCopyCanonical } from '../src/formats/owned.js';
import { loadShared } from './matrices.js';
import { matvec, relDiff, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

/** A CSR with its rows' entries reversed and the first entry of each nonempty row split in two: non-canonical input. */
function scrambled(A: CSRMatrix): CSRMatrix {
  const rowPtr = new Int32Array(A.rows + 1);
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i + 1] - 1; k >= A.rowPtr[i]; k--) {
      const split = k === A.rowPtr[i];
      col.push(A.colIdx[k]);
      val.push(split ? A.values[k] / 2 : A.values[k]);
      if (split) {
        col.push(A.colIdx[k]);
        val.push(A.values[k] - A.values[k] / 2);
      }
    }
    rowPtr[i + 1] = col.length;
  }
  return new CSRMatrix(A.rows, A.cols, A.dtype, rowPtr, Int32Array.from(col), Float64Array.from(val));
}

const cases: [string, () => SparseMatrix][] = [
  ['poisson2D(12) (DIA)', () => poisson2D(12)],
  ['poisson3D(5) as COO', () => convert(poisson3D(5), 'coo')],
  ['bcsstk01', () => loadShared('bcsstk01')],
  ['494_bus', () => loadShared('494_bus')],
  ['west0479 (nonsymmetric)', () => loadShared('west0479')],
  ['olm1000, rows scrambled and split', () => scrambled(loadShared('olm1000'))],
];

describe("rt.upload's default format, made on first use", () => {
  it.each(cases)('%s: products, solves and factors equal those of the upload converted at once', async (_name, make) => {
    const A = make();
    const csr = A.toCSR();
    const x = Float64Array.from({ length: A.cols }, (_, i) => Math.sin(i + 1));
    const b = new Float64Array(A.rows).fill(1);

    const lazy = rt.upload(A);
    const inUse = rt.memoryInUse;
    // a factorizing solve reads the CSR: no copy in the runtime's memory (nor, with reuse: false, its factor kept)
    const direct = await rt.solve(lazy, b, { tol: 1e-10, reuse: false });
    expect(direct.method).toBe('direct');
    expect(lazy.copies.size).toBe(0);
    expect(rt.memoryInUse).toBe(inUse);
    expect(trueResidual(csr, direct.x, b)).toBeLessThanOrEqual(1e-10);

    const eager = rt.upload(A, { format: lazy.format });
    try {
      expect([lazy.format, lazy.nnz, lazy.storageBytes, lazy.rows, lazy.cols, lazy.dtype]).toEqual([eager.format, eager.nnz, eager.storageBytes, eager.rows, eager.cols, eager.dtype]);
      expect(Array.from((await rt.solve(eager, b, { tol: 1e-10 })).x)).toEqual(Array.from(direct.x));

      const yLazy = await rt.spmv(lazy, x);
      expect(lazy.copies.size).toBe(1);
      expect(Array.from(yLazy)).toEqual(Array.from(await rt.spmv(eager, x)));
      expect(relDiff(yLazy, matvec(csr, x))).toBeLessThan(1e-14);
      const tLazy = await rt.spmv(lazy, x, { op: 'T' });
      expect(Array.from(tLazy)).toEqual(Array.from(await rt.spmv(eager, x, { op: 'T' })));
      expect(relDiff(tLazy, matvec(csr.transpose(), x))).toBeLessThan(1e-14);

      // a Krylov solve on the resident copy, and the factor of the handle
      const o = { method: 'gmres' as const, preconditioner: 'ilu0' as const, tol: 1e-8, maxIter: 3000 };
      const [kl, ke] = [await rt.solve(lazy, b, o), await rt.solve(eager, b, o)];
      expect([kl.iterations, kl.converged, Array.from(kl.x)]).toEqual([ke.iterations, ke.converged, Array.from(ke.x)]);
      if (kl.converged) expect(trueResidual(csr, kl.x, b)).toBeLessThanOrEqual(1e-8);
      const [Fl, Fe] = [await rt.factor(lazy), await rt.factor(eager)];
      expect(Array.from((await Fl.solve(b)).x)).toEqual(Array.from((await Fe.solve(b)).x));
      Fl.dispose();
      Fe.dispose();
      expect(rt.explain('spmv', lazy).features).toEqual(rt.explain('spmv', eager).features);
    } finally {
      lazy.dispose();
      eager.dispose();
    }
  });

  it('later changes to the matrix given cannot reach the copy made on first use', async () => {
    const A = poisson2D(6);
    const y0 = matvec(A, new Float64Array(36).fill(1));
    const h = rt.upload(A);
    A.values.fill(7);
    A.colIdx.fill(0); // rows now repeat column 0…
    A.colIdx[1] = -1; // …and one column is out of range
    expect(Array.from(await rt.spmv(h, new Float64Array(36).fill(1)))).toEqual(Array.from(y0));
    h.dispose();
    // the caller's matrix is not taken as checked: its toCSR() still validates it
    expect(() => A.toCSR()).toThrow(FormatError);
  });
});

describe("rt.upload's private copy: validation and the canonical test in one pass", () => {
  /** validate() then isCanonical(), the two passes the fused one replaces: the error message, else the verdict */
  const twoPasses = (A: CSRMatrix): string | boolean => {
    try {
      return A.validate().isCanonical();
    } catch (e) {
      return (e as Error).message;
    }
  };
  const fused = (A: CSRMatrix): string | boolean => {
    try {
      return ownedCopyCanonical(A).canonical;
    } catch (e) {
      return (e as Error).message;
    }
  };
  it('the same verdict, or the same first error, as validate() and isCanonical() one after the other', () => {
    const P = poisson2D(5);
    const variants: [string, (c: Int32Array, p: Int32Array) => void][] = [
      ['as it is', () => {}],
      ['two columns swapped in a row', (c) => ([c[5], c[6]] = [c[6], c[5]])],
      ['a duplicate column', (c) => (c[6] = c[5])],
      ['a column out of range', (c) => (c[7] = 25)],
      ['a negative column after an unsorted pair', (c) => ([c[2], c[3], c[40]] = [c[3], c[2], -1])],
      ['two out of range: the first named', (c) => ([c[9], c[30]] = [99, -4])],
      ['decreasing row pointers', (_, p) => (p[3] = p[2] - 1)],
      ['the last row pointer short', (_, p) => (p[p.length - 1] -= 1)],
    ];
    const verdicts = new Set<string | boolean>();
    for (const [what, change] of variants) {
      const c = P.colIdx.slice();
      const p = P.rowPtr.slice();
      change(c, p);
      const A = new CSRMatrix(P.rows, P.cols, 'f64', p, c, P.values.slice());
      const want = twoPasses(A);
      expect(fused(A), what).toEqual(want);
      verdicts.add(want);
    }
    expect(verdicts.has(true) && verdicts.has(false) && verdicts.size >= 6).toBe(true);
    expect(ownedCopyCanonical(scrambled(loadShared('olm1000'))).canonical).toBe(false);
    expect(ownedCopyCanonical(convert(poisson3D(4), 'coo')).canonical).toBe(false); // not a CSR: converted by toCSR
  });

  it('a scrambled CSR uploaded gives the products of its canonical form', async () => {
    const A = loadShared('olm1000');
    const x = Float64Array.from({ length: A.cols }, (_, i) => Math.sin(i));
    const h = rt.upload(scrambled(A));
    expect(relDiff(await rt.spmv(h, x), matvec(A, x))).toBeLessThanOrEqual(1e-14);
    h.dispose();
  });
});
