/**
 * The CPU path's Krylov solves of A·c for c far from 1 (the tenth attack pass). Their dot products of
 * squares (‖A·s‖², pᴴA·p, rᴴr of a scaled residual) over- or underflow in f64 from max |aᵢⱼ| ≈ 2^±500:
 * 494_bus·2^1000 with CG ended 'nan' after 19 iterations (A itself: 'maxIter' at 300), BiCGSTAB + SSOR
 * 'maxIter' at a relative residual of 2e-2 on 494_bus·2^±520 where A converges in 264, west0479·2^1000
 * CG and BiCGSTAB 'nan' after one. A GPU path already solved a copy scaled by a power of two; the CPU path
 * now does so where max |aᵢⱼ| leaves 2^±128 (exact in binary: A·2^700 and A·2^1000 run the same copy,
 * so the same iterations and x·2^k to the bit), and the result and explain('solve') say so
 * (`matrixExponent`). Checked against plain-JS exact residuals (exact-residual.ts), every method and
 * preconditioner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { loadShared } from './matrices.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

/** A with every value times 2^k (exact: the test's k keep every entry normal) */
function times2(A: CSRMatrix, k: number): CSRMatrix {
  const v = Float64Array.from(A.values, (a) => a * 2 ** k);
  for (let i = 0; i < v.length; i++) if (v[i] * 2 ** -k !== A.values[i]) throw new Error(`2^${k} is not exact on this matrix`);
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, v);
}

const METHODS = ['cg', 'bicgstab', 'gmres', 'minres'] as const;
const PRECONDITIONERS = ['none', 'jacobi', 'block-jacobi', 'ssor', 'ic0', 'ilu0', 'amg', 'chebyshev'] as const;

describe('CPU path: A·2^k solves as A does', () => {
  for (const name of ['494_bus', 'west0479'] as const) {
    it(`${name}·2^±1000 and 2^±700: every method and preconditioner, the same solve at each scale`, { timeout: 60000 }, async () => {
      const A = loadShared(name);
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1));
      for (const sign of [1, -1]) {
        const [k1, k2] = [700 * sign, 1000 * sign];
        const A1 = times2(A, k1);
        const A2 = times2(A, k2);
        const [h1, h2] = [rt.upload(A1), rt.upload(A2)];
        for (const method of METHODS) {
          for (const preconditioner of PRECONDITIONERS) {
            const what = `${name}·2^${k2} ${method} + ${preconditioner}`;
            let r1, r2;
            try {
              r1 = await rt.solve(h1, b, { method, preconditioner, tol: 1e-8, maxIter: 300 });
            } catch (e) {
              // a setup A refuses (IC(0) of a nonsymmetric A) is refused at both scales alike
              await expect(rt.solve(h2, b, { method, preconditioner, tol: 1e-8, maxIter: 300 }), what).rejects.toThrow((e as Error).constructor as ErrorConstructor);
              continue;
            }
            r2 = await rt.solve(h2, b, { method, preconditioner, tol: 1e-8, maxIter: 300 });
            expect(`${r2.reason} after ${r2.iterations}`, what).toBe(`${r1.reason} after ${r1.iterations}`);
            expect(r1.matrixExponent, what).toBe(r2.matrixExponent! + (k2 - k1));
            // x·2^k the same to the bit (x2 = 2^(k1−k2)·x1; both normal here)
            const drift = r1.x.findIndex((v, i) => v * 2 ** (k1 - k2) !== r2.x[i] && Math.abs(v) > 2 ** -900);
            expect(drift, what).toBe(-1);
            if (r2.converged) expect(exactRelativeResidual(A2, r2.x, b), what).toBeLessThanOrEqual(1e-8);
            else expect(r2.reason, what).not.toBe('nan');
          }
        }
        h1.dispose();
        h2.dispose();
      }
    });
  }

  it("494_bus·2^±520: BiCGSTAB + SSOR converges where A does (it ended 'maxIter' at 2e-2)", async () => {
    const A = loadShared('494_bus');
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1));
    const ref = await rt.solve(rt.upload(A), b, { method: 'bicgstab', preconditioner: 'ssor', tol: 1e-8, maxIter: 400 });
    expect(ref.reason).toBe('converged');
    for (const k of [520, -520, 900]) {
      const Ak = times2(A, k);
      const r = await rt.solve(rt.upload(Ak), b, { method: 'bicgstab', preconditioner: 'ssor', tol: 1e-8, maxIter: 400 });
      expect(r.reason, `2^${k}`).toBe('converged');
      expect(exactRelativeResidual(Ak, r.x, b), `2^${k}`).toBeLessThanOrEqual(1e-8);
    }
  });

  it('a matrix of ordinary scale runs as it is: no matrixExponent, in the result or in explain', async () => {
    for (const c of [1, 1e30, 1e-30]) {
      const h = rt.upload(times2(poisson2D(6), Math.round(Math.log2(c))));
      const r = await rt.cg(h, new Float64Array(36).fill(1));
      expect(r.matrixExponent).toBeUndefined();
      expect(rt.explain('solve', h, { method: 'cg' }).matrixExponent).toBeUndefined();
    }
  });

  it("the result and explain('solve') say when the solve ran a scaled copy, and by what power", async () => {
    const A = times2(poisson2D(6), 1000); // max |aᵢⱼ| = 4·2^1000 = 2^1002
    const h = rt.upload(A);
    const b = new Float64Array(36).fill(1);
    const ex = rt.explain('solve', h, { method: 'cg', preconditioner: 'jacobi' });
    expect(ex.matrixExponent).toBe(-1002);
    expect(ex.text).toMatch(/runs A·2\^-1002 \(exact\)/);
    for (const solve of [() => rt.cg(h, b), () => rt.solve(h, b, { method: 'gmres' }), () => rt.minres(h, b), () => rt.bicgstab(h, b)]) {
      const r = await solve();
      expect(r.matrixExponent).toBe(-1002);
      expect(r.reason).toBe('converged');
      expect(exactRelativeResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    }
    // a factorization scales nothing of A (its own b scaling): no matrixExponent
    const d = await rt.solve(h, b);
    expect(d.method).toBe('direct');
    expect(d.matrixExponent).toBeUndefined();
    expect(rt.explain('solve', h).matrixExponent).toBeUndefined();
  });

  it('a preconditioner handle of A·2^-1000 is set up again on the scaled copy and solves as the kinds do', async () => {
    const A = times2(loadShared('494_bus'), -1000);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(i));
    for (const kind of ['ic0', 'amg', 'ssor'] as const) {
      const M = rt.preconditioner(h, { kind });
      const r = await rt.solve(h, b, { method: 'cg', preconditioner: M, tol: 1e-8, maxIter: 1000 });
      const byKind = await rt.solve(h, b, { method: 'cg', preconditioner: kind, tol: 1e-8, maxIter: 1000 });
      expect(`${r.reason} ${r.iterations}`, kind).toBe(`${byKind.reason} ${byKind.iterations}`);
      expect(r.reason, kind).toBe('converged');
      expect(exactRelativeResidual(A, r.x, b), kind).toBeLessThanOrEqual(1e-8);
      M.dispose();
    }
  });
});

describe('WebGPU path (Dawn + SwiftShader): the scaled copy is reported', () => {
  let gpu: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => gpu?.dispose());

  it("A·2^40 (past the GPU path's 2^±16): matrixExponent −42 in the result and explain('solve'); A itself none", { timeout: 120000 }, async () => {
    const P = poisson2D(6); // max |aᵢⱼ| = 4
    const b = new Float64Array(36).fill(1);
    const h = gpu.upload(times2(P, 40));
    const ex = gpu.explain('solve', h, { path: 'webgpu', method: 'cg' });
    expect(ex.matrixExponent).toBe(-42);
    expect(ex.text).toMatch(/runs A·2\^-42 \(exact\)/);
    const r = await gpu.cg(h, b, { path: 'webgpu' });
    expect([r.path, r.reason, r.matrixExponent]).toEqual(['webgpu', 'converged', -42]);
    expect(exactRelativeResidual(times2(P, 40), r.x, b)).toBeLessThanOrEqual(1e-8);
    const plain = await gpu.cg(gpu.upload(P), b, { path: 'webgpu' });
    expect(plain.matrixExponent).toBeUndefined();
  });
});

describe('fuzz: generated systems at scales 2^k from 2^-1000 to 2^1000 (CPU path)', () => {
  // A·2^k for |k| past the CPU path's range runs one copy, the same for every such k: the same reason,
  // iterations and x·2^k to the bit; a 'converged' is true of x in exact arithmetic (exact-residual.ts)
  it('120 cases: every method, real and complex, the same solve at two far scales, honest convergence', { timeout: 120000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 30 }),
        fc.constantFrom('cg', 'bicgstab', 'gmres', 'minres' as const),
        fc.constantFrom('none', 'jacobi', 'ilu0', 'ssor' as const),
        fc.constantFrom('spd', 'gen' as const),
        fc.boolean(),
        fc.integer({ min: 200, max: 1000 }),
        fc.integer({ min: 200, max: 1000 }),
        fc.boolean(),
        fc.nat(),
        async (n, method, preconditioner, shape, complex, k1, k2, small, seed) => {
          const g = mulberry32(seed);
          const c = complex ? 2 : 1;
          const d = Array.from({ length: n }, () => new Float64Array(c * n));
          for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i === j || g() < 0.25) for (let p = 0; p < c; p++) d[i][c * j + p] = g() - 0.5;
          if (shape === 'spd') {
            for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) for (let p = 0; p < c; p++) d[i][c * j + p] = (p ? -1 : 1) * d[j][c * i + p];
            for (let i = 0; i < n; i++) {
              d[i][c * i] = 1 + d[i].reduce((a, v) => a + Math.abs(v), 0);
              if (complex) d[i][c * i + 1] = 0;
            }
          } else for (let i = 0; i < n; i++) d[i][c * i] += 2 * Math.sign(d[i][c * i] || 1) * n * 0.5;
          const rowPtr = new Int32Array(n + 1);
          const cols: number[] = [];
          const vals: number[] = [];
          for (let i = 0; i < n; i++) {
            for (let j = 0; j < n; j++) {
              if (i !== j && d[i].slice(c * j, c * j + c).every((v) => v === 0)) continue;
              cols.push(j);
              for (let p = 0; p < c; p++) vals.push(d[i][c * j + p]);
            }
            rowPtr[i + 1] = cols.length;
          }
          const A = new CSRMatrix(n, n, complex ? 'c128' : 'f64', rowPtr, Int32Array.from(cols), Float64Array.from(vals));
          const b = Float64Array.from({ length: c * n }, () => g() - 0.5);
          const sign = small ? -1 : 1;
          const [A1, A2] = [times2(A, sign * k1), times2(A, sign * k2)];
          const o = { method, preconditioner, tol: 1e-9, maxIter: 400 };
          const what = `n ${n} ${shape}${complex ? ' c128' : ''} ${method} + ${preconditioner}, 2^${sign * k1} / 2^${sign * k2}`;
          let r1, r2;
          try {
            r1 = await rt.solve(rt.upload(A1), b, o);
          } catch (e) {
            // a setup the matrix refuses (IC-type of a nonsymmetric A, SSOR of a complex one): refused at both scales
            await expect(rt.solve(rt.upload(A2), b, o), what).rejects.toThrow((e as Error).constructor as ErrorConstructor);
            return;
          }
          r2 = await rt.solve(rt.upload(A2), b, o);
          expect(`${r2.reason} ${r2.iterations}`, what).toBe(`${r1.reason} ${r1.iterations}`);
          expect(r1.matrixExponent! - r2.matrixExponent!, what).toBe(sign * (k2 - k1) || 0);
          const off = r1.x.findIndex((v, i) => v * 2 ** (sign * (k1 - k2)) !== r2.x[i] && Math.abs(v) > 2 ** -1000 && Math.abs(r2.x[i]) > 2 ** -1000);
          expect(off, what).toBe(-1);
          for (const [Ak, r] of [[A1, r1], [A2, r2]] as const) if (r.converged) expect(exactRelativeResidual(Ak, r.x, b), what).toBeLessThanOrEqual(1e-9 * (1 + 1e-6));
        },
      ),
      { numRuns: 120, seed: 20261128 },
    );
  });
});
