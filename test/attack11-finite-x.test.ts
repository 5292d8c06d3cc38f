/**
 * A Krylov solve that says 'converged' returns a finite x (the eleventh attack pass). A column with no
 * entries leaves its unknown out of every product A·x, so ‖b − A·x‖ says nothing of it: an ILU(0) whose
 * shifted pivot there is tiny (a row whose only entry is 4.7e-232, the diagonal 0) sent x[0] to ±Inf or
 * NaN while the residual met tol — rt.solve (its 'auto' choice after the factorization found A
 * singular), rt.gmres and rt.bicgstab said 'converged' with x[0] = Infinity / NaN. Checked here
 * against a residual written in plain f64 and x's finiteness, every method and preconditioner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { fromEntries, wideRangeSystem } from './wide-range-systems.js';
import { scaledNorm } from './scaled-residual.js';
import { InputRangeError, SimdglError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

/** ‖b − A·x‖ / ‖b‖ in plain f64 (‖b‖ = 0: the absolute norm), and the rounding slack of that evaluation */
function residual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): { rel: number; slack: number } {
  const r = new Float64Array(A.rows);
  let big = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = b[i];
    let abs = Math.abs(b[i]);
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      s -= A.values[k] * x[A.colIdx[k]];
      abs += Math.abs(A.values[k] * x[A.colIdx[k]]);
    }
    r[i] = s;
    big = Math.max(big, abs);
  }
  const bn = scaledNorm(b) || 1;
  return { rel: scaledNorm(r) / bn, slack: (1e-13 * big * Math.sqrt(A.rows)) / bn };
}


function expectAnswer(A: CSRMatrix, b: Float64Array, r: { converged: boolean; x: Float64Array; reason: string }, tol: number, what: string): void {
  if (!r.converged) return;
  const bad = r.x.findIndex((v) => !Number.isFinite(v));
  expect(bad, `${what}: 'converged' with x[${bad}] = ${r.x[bad]}`).toBe(-1);
  const { rel, slack } = residual(A, r.x, b);
  expect(rel, `${what}: the true relative residual`).toBeLessThanOrEqual(tol + slack);
}

const METHODS = ['cg', 'bicgstab', 'gmres', 'minres'] as const;
const PRECONDITIONERS = ['none', 'jacobi', 'ssor', 'ilu0', 'ic0'] as const;

describe('attack11: a converged x is finite', () => {
  it('a 9×9 matrix with empty columns and a 4.7e-232 row: rt.solve, rt.gmres and rt.bicgstab with ILU(0)', async () => {
    const A = fromEntries(9, [
      [0, 4, 4.70809986662842e-232],
      [4, 3, -2.0780000667822745e-39],
    ]);
    const b = Float64Array.from([0, 0, 0, 1.0903214397903965e-144, 0.9999999999981826, 0, 0, 0, 0]);
    const h = rt.upload(A);
    try {
      expectAnswer(A, b, await rt.solve(h, b, { tol: 1e-10 }), 1e-10, "rt.solve 'auto'");
      const M = rt.preconditioner(h, { kind: 'ilu0' });
      expectAnswer(A, b, await rt.gmres(h, b, { preconditioner: M, tol: 1e-10 }), 1e-10, 'rt.gmres + ILU(0)');
      expectAnswer(A, b, await rt.bicgstab(h, b, { preconditioner: M, tol: 1e-10 }), 1e-10, 'rt.bicgstab + ILU(0)');
      M.dispose();
    } finally {
      h.dispose();
    }
  });

  it('property: random sparse systems with empty rows and columns and entries from 1e-300 to 1e300, every method and preconditioner: converged means a finite x meeting tol', { timeout: 120000 }, async () => {
    const system = wideRangeSystem({
      method: fc.constantFrom(...METHODS),
      preconditioner: fc.constantFrom(...PRECONDITIONERS),
    });
    await fc.assert(
      fc.asyncProperty(system, async ({ n, entries, b, method, preconditioner }) => {
        const A = fromEntries(n, entries);
        const bv = Float64Array.from(b);
        const h = rt.upload(A);
        try {
          let r;
          try {
            r = await rt.solve(h, bv, { method, preconditioner, tol: 1e-10 });
          } catch (e) {
            // a preconditioner A refuses (a zero diagonal, IC(0) of a nonsymmetric A), an x past f64: typed
            expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
            return;
          }
          expectAnswer(A, bv, r, 1e-10, `${method} + ${preconditioner}`);
        } finally {
          h.dispose();
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 1500), seed: Number(process.env.SEED ?? 2), endOnFailure: true },
    );
  });
});
