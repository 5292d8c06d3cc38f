/**
 * A WebGPU solve does not depend on the scale of A. The path's dot products have f32's exponent
 * (double-single, subnormals flushed): A·1e-30 or A·1e30 ended 'breakdown', 'nan' or 'stagnated' there
 * while the CPU path solved it (docs/special-values.md). rt.solve and the Krylov methods now solve a
 * copy of A scaled by a power of two into range and scale x back. Checked with Dawn + SwiftShader on
 * poisson2D(8) and a nonsymmetric convection matrix times c = 1e-30 … 1e30, every method and every
 * preconditioner the path runs, against an f64 reference written here (dense LU of A·c itself, and
 * ‖b − A·x‖ in plain f64); b scaled apart from A; f32 storage refined to an f64 tolerance; and an
 * exact power of two (2^40) giving the unscaled solve's iterations and x to the bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { COOMatrix } from '../src/formats/coo.js';
import { poisson2D } from '../src/generators/poisson.js';
import { denseSolve, relDiff, toDense, trueResidual } from './solve-reference.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => rt?.dispose());

/** A with every value times c (in f64: c·aᵢⱼ rounded once, as a user's assembly would) */
function times(A: CSRMatrix, c: number): CSRMatrix {
  return new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr.slice(), A.colIdx.slice(), Float64Array.from(A.values, (v) => v * c));
}

/** poisson2D(m) plus a convection term 0.6 on the superdiagonal: nonsymmetric, nonsingular */
function convection(m: number): CSRMatrix {
  const P = poisson2D(m);
  const coo = COOMatrix.fromCSR(P);
  const rows = [...coo.rowIdx];
  const cols = [...coo.colIdx];
  const vals = [...coo.values];
  for (let i = 0; i + 1 < P.rows; i++) {
    rows.push(i);
    cols.push(i + 1);
    vals.push(0.6);
  }
  return new COOMatrix(P.rows, P.cols, 'f64', new Int32Array(rows), new Int32Array(cols), new Float64Array(vals)).toCSR();
}

const SCALES = [1e-30, 1e-12, 1, 1e12, 1e30];
const TOL = 1e-9;
const spd = poisson2D(8);
const nonsym = convection(8);
const n = spd.rows;
const rhs = Float64Array.from({ length: n }, (_, i) => Math.sin(0.7 * i + 1) + 0.3);

/** x against A⁻¹·b by dense LU in f64, and the true residual in f64, for a converged solve */
function expectSolved(A: CSRMatrix, b: Float64Array, r: { x: Float64Array; converged: boolean; reason: string; relativeResidual: number; residualNorm: number }, tol: number, what: string): void {
  expect(r.reason, what).toBe('converged');
  const rel = trueResidual(A, r.x, b);
  expect(rel, what).toBeLessThanOrEqual(tol * 1.001);
  // what is reported is what x satisfies (relative residual and its norm in the caller's scale)
  expect(Math.abs(r.relativeResidual - rel), what).toBeLessThanOrEqual(1e-3 * tol + 1e-16);
  const bnorm = Math.hypot(...b);
  expect(Math.abs(r.residualNorm / bnorm - rel), what).toBeLessThanOrEqual(1e-3 * tol + 1e-16);
  // κ(poisson2D(8)) ≈ 32, the convection matrix's about the same
  expect(relDiff(r.x, denseSolve(toDense(A).a, b)), what).toBeLessThanOrEqual(1e3 * tol);
}

describe('WebGPU solves of A·c for c from 1e-30 to 1e30', () => {
  // every method and preconditioner at the ends (SwiftShader: ≈ 2 s a solve), the plain methods between
  for (const c of SCALES) {
    const full = c === SCALES[0] || c === SCALES[SCALES.length - 1];
    it(`poisson2D(8)·${c}: cg, minres, bicgstab, gmres${full ? ' with each preconditioner' : ''} converge`, async () => {
      const A = times(spd, c);
      const h = rt.upload(A);
      const runs = full
        ? ([
            ['cg', ['none', 'jacobi', 'chebyshev', 'ic0', 'amg']],
            ['minres', ['none', 'jacobi']],
            ['bicgstab', ['none', 'jacobi']],
            ['gmres', ['none', 'ilu0']],
          ] as const)
        : ([
            ['cg', ['none']],
            ['minres', ['none']],
            ['bicgstab', ['jacobi']],
          ] as const);
      for (const [method, pres] of runs) {
        for (const preconditioner of pres) {
          const r = await rt[method](h, rhs, { preconditioner, tol: TOL, path: 'webgpu' });
          expectSolved(A, rhs, r, TOL, `rt.${method} + ${preconditioner}, c = ${c}`);
          expect(r.path).toBe('webgpu');
        }
      }
      // rt.solve's choice (a preconditioner given: no factorization)
      expectSolved(A, rhs, await rt.solve(h, rhs, { preconditioner: 'jacobi', tol: TOL, path: 'webgpu' }), TOL, `rt.solve, c = ${c}`);
      h.dispose();
    }, 240_000);

    it(`convection(8)·${c}: bicgstab and gmres converge`, async () => {
      const A = times(nonsym, c);
      const h = rt.upload(A);
      for (const [method, pres] of full
        ? ([
            ['bicgstab', ['none', 'jacobi', 'ilu0']],
            ['gmres', ['none', 'ilu0']],
          ] as const)
        : ([
            ['bicgstab', ['none']],
            ['gmres', ['ilu0']],
          ] as const)) {
        for (const preconditioner of pres) {
          const r = await rt[method](h, rhs, { preconditioner, tol: TOL, path: 'webgpu' });
          expectSolved(A, rhs, r, TOL, `rt.${method} + ${preconditioner}, c = ${c}`);
        }
      }
      h.dispose();
    }, 240_000);
  }

  it('rt.cg and rt.minres with a preconditioner handle (IC(0), Chebyshev, AMG) at c = 1e-30 and 1e30', async () => {
    for (const c of [1e-30, 1e30]) {
      const A = times(spd, c);
      const h = rt.upload(A);
      for (const kind of ['ic0', 'chebyshev', 'amg'] as const) {
        const M = rt.preconditioner(h, { kind });
        const a = await rt.cg(h, rhs, { preconditioner: M, tol: TOL, path: 'webgpu' });
        expectSolved(A, rhs, a, TOL, `cg + ${kind} handle, c = ${c}`);
        const b = await rt.minres(h, rhs, { preconditioner: M, tol: TOL, path: 'webgpu' });
        expectSolved(A, rhs, b, TOL, `minres + ${kind} handle, c = ${c}`);
        M.dispose();
      }
      h.dispose();
    }
  }, 240_000);

  it('f32 storage refined to an f64 tolerance (rt.solve, CG and BiCGSTAB) at 1e-30, 1e-12 and 1e30', async () => {
    for (const c of [1e-30, 1e-12, 1e30]) {
      // the f32 matrix's own values are the reference's: A·c rounded to f32
      const A32 = times(spd, c).astype('f32');
      const A = new CSRMatrix(n, n, 'f64', A32.rowPtr, A32.colIdx, Float64Array.from(A32.values));
      const h = rt.upload(A32);
      for (const method of ['cg', 'bicgstab'] as const) {
        const r = await rt.solve(h, rhs, { method, preconditioner: 'jacobi', tol: 1e-11, path: 'webgpu' });
        expectSolved(A, rhs, r, 1e-11, `f32 ${method}, c = ${c}`);
      }
      h.dispose();
    }
  }, 240_000);

  it('b scaled apart from A: A·1e-12 with b·1e12, A·1e25 with b·1e-20, from an x0 too', async () => {
    for (const [c, s] of [
      [1e-12, 1e12],
      [1e25, 1e-20],
    ]) {
      const A = times(spd, c);
      const b = Float64Array.from(rhs, (v) => v * s);
      const h = rt.upload(A);
      const x0 = Float64Array.from({ length: n }, (_, i) => (Math.cos(i) * s) / c);
      for (const method of ['cg', 'bicgstab'] as const) {
        const r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: TOL, path: 'webgpu' });
        expectSolved(A, b, r, TOL, `${method}, A·${c}, b·${s}`);
        const r0 = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: TOL, path: 'webgpu', x0 });
        expectSolved(A, b, r0, TOL, `${method} from x0, A·${c}, b·${s}`);
      }
      h.dispose();
    }
  }, 240_000);

  it('A·1e39 (past f32: refused on a GPU upload): explain, a Chebyshev handle and the solves run on the scaled copy', async () => {
    const A = times(spd, 1e39);
    const h = rt.upload(A);
    expect(rt.explain('solve', h, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' }).path).toBe('webgpu');
    const M = rt.preconditioner(h, { kind: 'chebyshev', path: 'webgpu' });
    expectSolved(A, rhs, await rt.cg(h, rhs, { preconditioner: M, tol: TOL, path: 'webgpu' }), TOL, 'cg + chebyshev handle, c = 1e39');
    expectSolved(A, rhs, await rt.bicgstab(h, rhs, { tol: TOL, path: 'webgpu' }), TOL, 'bicgstab, c = 1e39');
    M.dispose();
    h.dispose();
  }, 240_000);

  it('A·2^40 solves as A: the same iterations, x·2^40 to the bit (the scaling is exact)', async () => {
    const h1 = rt.upload(spd);
    const h2 = rt.upload(times(spd, 2 ** 40));
    for (const [method, preconditioner] of [
      ['cg', 'none'],
      ['cg', 'jacobi'],
      ['bicgstab', 'none'],
      ['minres', 'jacobi'],
    ] as const) {
      const a = await rt.solve(h1, rhs, { method, preconditioner, tol: TOL, path: 'webgpu' });
      const b = await rt.solve(h2, rhs, { method, preconditioner, tol: TOL, path: 'webgpu' });
      const what = `${method} + ${preconditioner}`;
      expect(a.reason, what).toBe('converged');
      expect([b.reason, b.iterations, b.history], what).toEqual([a.reason, a.iterations, a.history]);
      expect(Array.from(b.x, (v) => v * 2 ** 40), what).toEqual(Array.from(a.x));
      expect(b.relativeResidual, what).toBe(a.relativeResidual);
    }
    h1.dispose();
    h2.dispose();
  }, 240_000);
});
