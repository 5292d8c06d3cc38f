/**
 * Fifth adversarial pass, rt.upload(A, { format: 'csr' }) (or 'keep' of a CSR): the validated private
 * copy, when canonical, is marked private canonical as an 'auto' upload's CSR is (it was not: each
 * toCSR() of it validated and tested sortedness again, the CPU layout read its columns to learn what
 * the copy's validation had found); a copy that is not canonical (a row unsorted, a duplicate) stays
 * unmarked, and products and solves on either are the plain f64 reference's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix, isPrivateCanonical } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { matvec, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

describe("upload { format: 'csr' }", () => {
  it('a canonical CSR is kept private canonical (f64 and converted to f32, csr and keep); the caller’s is not marked', async () => {
    const A = poisson2D(12);
    for (const options of [{ format: 'csr' }, { format: 'keep' }, { format: 'csr', dtype: 'f32' }] as const) {
      const h = rt.upload(A, options);
      expect(h.host.format).toBe('csr');
      expect(isPrivateCanonical(h.host as CSRMatrix), JSON.stringify(options)).toBe(true);
      expect(h.host).not.toBe(A);
      h.dispose();
    }
    expect(isPrivateCanonical(A)).toBe(false);
    const h = rt.upload(A, { format: 'csr' });
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1));
    const s = await rt.solve(h, b, { tol: 1e-10, method: 'cg' });
    expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-10);
    // the caller's arrays changed after the upload reach nothing
    A.values.fill(7);
    const y = await rt.spmv(h, b);
    expect(Array.from(y)).toEqual(Array.from(matvec(poisson2D(12), b)).map((v) => expect.closeTo(v, 12)));
    h.dispose();
  });

  it('an unsorted row whose middle entry lies beyond ±32767 of the diagonal, among uniform stencil groups: not marked, the product exact', async () => {
    // poisson2D(64)'s pattern (uniform 4-row groups: the grouped layout) widened to 40 000 columns, row 1
    // holding columns [0, 39 000, 2] (its first and last bound nothing): i16 offsets would wrap 39 000
    const P = poisson2D(64);
    const ptr = [0];
    const cols: number[] = [];
    const vals: number[] = [];
    for (let i = 0; i < P.rows; i++) {
      const row = i === 1 ? [0, 39_000, 2] : Array.from(P.colIdx.subarray(P.rowPtr[i], P.rowPtr[i + 1]));
      for (const j of row) cols.push(j), vals.push(j === i ? 4 : j === 39_000 ? 3 : -1);
      ptr.push(cols.length);
    }
    const A = new CSRMatrix(P.rows, 40_000, 'f64', Int32Array.from(ptr), Int32Array.from(cols), Float64Array.from(vals));
    expect(A.isCanonical()).toBe(false);
    const h = rt.upload(A, { format: 'csr' });
    expect(isPrivateCanonical(h.host as CSRMatrix)).toBe(false);
    const x = Float64Array.from({ length: 40_000 }, (_, j) => (j % 11) - 5);
    expect(Array.from(await rt.spmv(h, x))).toEqual(Array.from(matvec(A, x)));
    h.dispose();
  });

  it('property: any CSR (rows unsorted, duplicates, empty rows), uploaded as csr: marked exactly when canonical, products the reference’s', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 1e6 }), fc.boolean(), async (rows, cols, seed, shuffle) => {
        let s = seed;
        const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const ptr = [0];
        const idx: number[] = [];
        const val: number[] = [];
        for (let i = 0; i < rows; i++) {
          const row: number[] = [];
          for (let j = 0; j < cols; j++) if (rnd() < 0.3) row.push(j);
          if (shuffle && row.length > 1 && rnd() < 0.3) row.reverse();
          if (shuffle && row.length > 0 && rnd() < 0.1) row.push(row[0]);
          for (const j of row) {
            idx.push(j);
            val.push(Math.round(rnd() * 16 - 8) || 1);
          }
          ptr.push(idx.length);
        }
        const A = new CSRMatrix(rows, cols, 'f64', Int32Array.from(ptr), Int32Array.from(idx), Float64Array.from(val));
        const h = rt.upload(A, { format: 'csr' });
        expect(isPrivateCanonical(h.host as CSRMatrix)).toBe(A.isCanonical());
        // integers: every sum exact, whatever its order
        const x = Float64Array.from({ length: cols }, (_, j) => j - 13);
        expect(Array.from(await rt.spmv(h, x))).toEqual(Array.from(matvec(A, x)));
        h.dispose();
      }),
      { seed: 55, numRuns: 200 },
    );
  });
});
