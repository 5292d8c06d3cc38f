/**
 * F.solve's row-wise rounding bound from the row sums its residual pass leaves (factor.ts's JavaScript
 * loop below RESIDUAL_KERNEL_MIN entries, assembly/residual.ts from it) against the bound's formula as a
 * separate pass (directResidualBound as of d3126d0, test/rowwise-bound.ts), bit for bit: real and complex, below
 * and above 1000 entries, rows whose u·wᵢ is subnormal included. rt.solve's directResidualBound, the same;
 * and F.solve's answer the same whether its passes summed the rows or the bound made its own pass; the
 * bound rt.solve's direct answer takes from F.solve's sums (Factorization.rowwiseBound), the formula's.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import type { COOMatrix } from '../src/formats/coo.js';
import { Prng } from '../src/generators/prng.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { directResidualBound, rowwiseResidualBound } from '../src/solvers/solve.js';
import type { Factorization } from '../src/solvers/direct/factor.js';
import { randomRows, rowwiseBoundFormula } from './rowwise-bound.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { holdResidual } from '../src/cpu/held-residual.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** A diagonally strong random matrix (rows of 1..per entries, values of mixed magnitudes and signs). */
function randomMatrix(n: number, per: number, complex: boolean, g: Prng): CSRMatrix {
  return randomRows(n, per, complex, g, (i, j) => (j === i ? 100 * per : (g.next() - 0.5) * 10 ** Math.floor(g.next() * 6 - 3)));
}

describe("F.solve's fused row sums", () => {
  for (const complex of [false, true]) {
    for (const [n, per, kernel] of [[60, 8, false], [400, 8, true]] as const) {
      it(`${complex ? 'complex' : 'real'}, ${kernel ? 'above' : 'below'} 1000 entries (${kernel ? 'wasm kernel' : 'JavaScript loop'}): the separate pass's bound bit for bit`, async () => {
        const c = complex ? 2 : 1;
        const g = new Prng(n + (complex ? 1 : 0));
        const A = randomMatrix(n, per, complex, g);
        expect(A.rowPtr[n] >= 1000).toBe(kernel);
        const F = (await rt.factor(A, { kind: 'lu' })) as unknown as Factorization;
        expect(F['heldA'] !== null).toBe(kernel);
        const rowPtr = F['At'].colPtr;
        let checked = 0;
        for (const scale of [1, 1e-150, 1e150, 1e-300, 1e-310]) {
          for (let t = 0; t < 3; t++) {
            const x = Float64Array.from({ length: c * n }, () => (g.next() - 0.5) * scale * 10 ** Math.floor(g.next() * 16 - 8));
            const b = Float64Array.from({ length: c * n }, () => (g.next() - 0.5) * scale);
            const r = new Float64Array(c * n);
            const w = new Float64Array(n).fill(NaN);
            const rn = F['residual'](b, x, r, w);
            // without the sums (a pass whose bound is not needed): the same r and norms
            const r0 = new Float64Array(c * n);
            expect(F['residual'](b, x, r0, null)).toBe(rn);
            expect(Array.from(r0)).toEqual(Array.from(r));
            const want = rowwiseBoundFormula(A, x, b);
            expect(want).toBeGreaterThan(0);
            expect(rowwiseResidualBound(rowPtr, w, complex), `scale ${scale}`).toBe(want);
            expect(directResidualBound(A, x, b, 1, 0), `scale ${scale}`).toBe(want);
            checked++;
          }
        }
        expect(checked).toBe(15);
        // F.solve itself reports a residual within rounding, and the bound rt.solve takes from its sums is the formula's
        const rhs = Float64Array.from({ length: c * n }, (_, k) => Math.sin(k));
        const s = await F.solve(rhs);
        expect(s.relativeResidual).toBeLessThan(1e-12);
        expect(F.rowwiseBound()).toBe(rowwiseBoundFormula(A, s.x, rhs));
        // two right-hand sides: none kept
        await F.solve(Float64Array.from({ length: 2 * c * n }, (_, k) => Math.cos(k)));
        expect(F.rowwiseBound()).toBeUndefined();
        (F as unknown as { dispose(): void }).dispose();
      });
    }
  }

  it("west0479 (b = 1 needs the row-wise bound): the same residuals whether the passes summed the rows or the bound made its own pass", async () => {
    const A = (parseMatrixMarket(readFileSync('data/matrices/west0479.mtx', 'utf8'), { dtype: 'f64' }).matrix as COOMatrix).toCSR();
    const F = (await rt.factor(A)) as unknown as Factorization;
    const b = new Float64Array(A.rows).fill(1);
    const fused = await F.solve(b);
    expect(F['rowSums']).toBe(true);
    expect(F.rowwiseBound()).toBe(rowwiseBoundFormula(A, fused.x, b));
    F['rowSums'] = false;
    const own = await F.solve(b);
    // the bound was needed, so the next solve sums again
    expect(F['rowSums']).toBe(true);
    expect(F.rowwiseBound()).toBe(rowwiseBoundFormula(A, own.x, b));
    expect(own.residuals).toEqual(fused.residuals);
    expect(Array.from(own.x)).toEqual(Array.from(fused.x));
    (F as unknown as { dispose(): void }).dispose();
  });
});

describe("the held rows' ‖A‖∞ (assembly/residual.ts direct_row_abs_max)", () => {
  it('real and complex, rows of NaN and ±Inf, subnormal and huge entries: each row summed in order here, the largest kept (a NaN row skipped), bit for bit', async () => {
    const B = await CpuBackend.create();
    try {
      const g = new Prng(11);
      let infinite = 0;
      let nanRows = 0;
      for (const complex of [false, true]) {
        for (let t = 0; t < 16; t++) {
          const n = 1 + Math.floor(g.next() * 300);
          const A = randomRows(n, 6, complex, g, () => {
            const u = g.next();
            if (u < 0.01) return NaN;
            if (u < 0.02 && t % 4 === 3) return g.next() < 0.5 ? Infinity : -Infinity;
            return (g.next() - 0.5) * 10 ** Math.floor(g.next() * 40 - 20) * (u < 0.1 ? 1e-300 : u < 0.15 && t % 2 ? 1e290 : 1);
          });
          const c = complex ? 2 : 1;
          let want = 0;
          for (let i = 0; i < n; i++) {
            let s = 0;
            for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) s += c === 1 ? Math.abs(A.values[p]) : Math.abs(A.values[2 * p]) + Math.abs(A.values[2 * p + 1]);
            if (Number.isNaN(s)) nanRows++;
            if (s > want) want = s;
          }
          if (want === Infinity) infinite++;
          const h = holdResidual(B, { n, colPtr: A.rowPtr, rowIdx: A.colIdx, values: A.values as Float64Array, complex });
          expect(Object.is(h.normInf, want), `${complex ? 'complex' : 'real'} n = ${n}: ${h.normInf} against ${want}`).toBe(true);
          h.dispose();
        }
      }
      expect(infinite).toBeGreaterThan(0);
      expect(nanRows).toBeGreaterThan(0);
    } finally {
      B.dispose();
    }
  });
});
