/**
 * f32 Jacobi-CG's update with one value for all of D⁻¹ (cg_update_jacobi_scalar_f32, as f64's
 * cg_update_jacobi_scalar_f64): against f32 arithmetic written in JavaScript (Math.fround, sums in f64)
 * on 1–3 threads and the plain build, CSR and DIA, with one diagonal entry that differs (the vector
 * kernel then) first, last or in the middle; CG's iterates with it against CG with the vector kernel,
 * bit for bit, with and without residual replacements (the pool's f64 refinement, as rt.solve's mixed
 * precision runs it); and which CG steps the CPU ops offer per dtype.
 */
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { cpuRefinement } from '../src/cpu/refine.js';
import { sumPartials } from '../src/cpu/blas1.js';
import type { CpuVector } from '../src/cpu/resident.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { Prng } from '../src/generators/prng.js';
import { cg, type ResidualReplacement } from '../src/solvers/krylov/cg.js';
import { trueResidual } from './solve-reference.js';
import { bandedMatrix } from './banded.js';
import { kernelsOf } from './kernels-of.js';
import { cpuBackends, key, SETUPS } from './cpu-setups.js';

const backends = cpuBackends();

const f = Math.fround;

function random(n: number, seed: number): Float32Array {
  const g = new Prng(seed);
  return Float32Array.from({ length: n }, () => g.next() * 2 - 1);
}

/** An f32 symmetric, diagonally dominant banded n×n matrix whose diagonal is diag(i) (≥ 2.5). */
function banded(n: number, diag: (i: number) => number, offsets = [-40, -3, -1, 0, 1, 3, 40]): CSRMatrix {
  // off-diagonals in [-0.35, -0.1], a function of the pair {i, i + o}: symmetric
  return bandedMatrix(n, offsets, 'f32', (i, o) => (o === 0 ? diag(i) : -0.1 - (0.25 * ((Math.min(i, i + o) * 7919 + Math.abs(o) * 31) % 101)) / 101));
}

const UNIFORM = (): number => 6; // 1/6 rounds in f32: the uniform kernel must multiply by f32(1/6)
const VARYING = (i: number): number => 2.5 + (i % 3);

describe('cgUpdatePrecondition in f32 with a uniform D⁻¹ (cg_update_jacobi_scalar_f32)', () => {
  for (const s of SETUPS) {
    it(`x, r, z bit for bit as f32 JavaScript, ‖r‖² and rᵀz; one odd diagonal entry anywhere takes the vector kernel; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      for (const n of [1, 5, 17, 1001]) {
        for (const odd of [null, 0, n >> 1, n - 1]) {
          const diag = (i: number) => (i === odd ? 6.5 : 6);
          const A = banded(n, diag, [-3, -1, 0, 1, 3]);
          for (const H of [A, DIAMatrix.fromCSR(A)]) {
            const M = B.upload(H);
            const ops = cpuSolverOps(B, M, 'jacobi');
            const init = [1, 2, 3, 4].map((k) => random(n, 7 * n + k));
            const vs = init.map((v) => {
              const h = ops.vector();
              h.view().set(v);
              return h;
            });
            const z = ops.vector();
            const [x, r, p, q] = vs;
            try {
              const alpha = 0.29;
              const { value: [rr, rz], kernels } = await kernelsOf(B, () => ops.cgUpdatePrecondition!(alpha, p, q, x, r, z));
              expect([...kernels]).toEqual([odd === null || n === 1 ? 'cg_update_jacobi_scalar_f32' : 'cg_update_jacobi_f32']);
              const xRef = Float32Array.from(init[0], (v, i) => f(v + f(f(alpha) * init[2][i])));
              const rRef = Float32Array.from(init[1], (v, i) => f(v - f(f(alpha) * init[3][i])));
              const zRef = Float32Array.from(rRef, (v, i) => f(f(1 / diag(i)) * v));
              expect(Array.from(x.view() as Float32Array)).toEqual(Array.from(xRef));
              expect(Array.from(r.view() as Float32Array)).toEqual(Array.from(rRef));
              expect(Array.from(z.view() as Float32Array), `odd ${odd}`).toEqual(Array.from(zRef));
              const rrRef = rRef.reduce((acc, v) => acc + v * v, 0);
              const rzRef = rRef.reduce((acc, v, i) => acc + v * zRef[i], 0);
              expect(Math.abs(rr - rrRef)).toBeLessThanOrEqual(1e-13 * rrRef);
              expect(Math.abs(rz - rzRef)).toBeLessThanOrEqual(1e-13 * rzRef);
            } finally {
              for (const v of [...vs, z]) ops.release(v);
              ops.dispose();
              M.dispose();
            }
          }
        }
      }
    });
  }
});

describe('f32 CG with the uniform update', () => {
  /** ops whose Jacobi update reads D⁻¹ as a vector (cg_update_jacobi_f32), the kernel before the uniform one */
  const withVectorUpdate = (B: CpuBackend, ops: ReturnType<typeof cpuSolverOps>, diag: (i: number) => number, n: number) => {
    const d = B.vector('f32', n);
    d.view().set(Float32Array.from({ length: n }, (_, i) => 1 / diag(i)));
    const v: typeof ops = {
      ...ops,
      cgUpdatePrecondition: async (alpha, p, q, x, r, z) => sumPartials(await B.runReduction('cg_update_jacobi_f32', () => [x.ptr, r.ptr, p.ptr, q.ptr, d.ptr, z.ptr, alpha], n)) as [number, number],
    };
    return { ops: v, dispose: () => d.dispose() };
  };

  for (const s of [SETUPS[1], SETUPS[3]]) {
    it(`the vector kernel's CG bit for bit: converged, at maxIter; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      const A = banded(3000, UNIFORM);
      const M = B.upload(DIAMatrix.fromCSR(A));
      const ops = cpuSolverOps(B, M, 'jacobi');
      const V = withVectorUpdate(B, ops, UNIFORM, A.rows);
      const b = ops.vector();
      b.view().set(random(A.rows, 5));
      try {
        for (const [o, reason] of [[{ tol: 1e-5 }, 'converged'], [{ tol: 1e-7, maxIter: 7 }, 'maxIter']] as const) {
          const { value: u, kernels } = await kernelsOf(B, () => cg(ops, b, o));
          expect(kernels.has('cg_update_jacobi_scalar_f32') && !kernels.has('cg_update_jacobi_f32')).toBe(true);
          const v = await cg(V.ops, b, o);
          expect([u.reason, u.iterations]).toEqual([reason, v.iterations]);
          expect(u.history).toEqual(v.history);
          expect(Array.from(u.x.view())).toEqual(Array.from(v.x.view()));
          if (reason === 'converged') expect(trueResidual(A, u.x.view() as Float32Array, b.view() as Float32Array)).toBeLessThan(1e-4);
          ops.release(u.x);
          ops.release(v.x);
        }
      } finally {
        ops.release(b);
        V.dispose();
        ops.dispose();
        M.dispose();
      }
    });
  }

  it("with residual replacements (the pool's f64 refinement): the vector kernel's replacements, history and f64 answer bit for bit, to a true 1e-10", async () => {
    const B = backends.get('2 thread(s)')!;
    const A = banded(3000, UNIFORM);
    const M = B.upload(DIAMatrix.fromCSR(A));
    const ops = cpuSolverOps(B, M, 'jacobi');
    const V = withVectorUpdate(B, ops, UNIFORM, A.rows);
    const b = Float64Array.from(random(A.rows, 9), (v, i) => v + i * 1e-9);
    try {
      // as src/solvers/solve.ts's reliableCg: x folded into R's f64 answer, r ← its f64 residual in f32
      const run = async (o: typeof ops) => {
        const R = await cpuRefinement(B, M, b, undefined);
        let count = 0;
        const replacement: ResidualReplacement<CpuVector> = {
          target: 1e-10 * R.bnorm,
          replace: async (xv, rv) => {
            count++;
            const t = await R.correct(xv);
            await o.scal([0, 0], xv);
            await o.copy(R.rhs(), rv);
            return t;
          },
        };
        try {
          const res = await cg(o, R.rhs(), { tol: 1e-10, replacement });
          o.release(res.x);
          return { ...res, x: await R.read(), count };
        } finally {
          R.dispose();
        }
      };
      const u = await run(ops);
      const v = await run(V.ops);
      expect(u.reason).toBe('converged');
      expect(u.count).toBeGreaterThanOrEqual(2);
      expect([u.iterations, u.count, u.residualNorm]).toEqual([v.iterations, v.count, v.residualNorm]);
      expect(u.history).toEqual(v.history);
      expect(Array.from(u.x)).toEqual(Array.from(v.x));
      // an independent f64 product of the f32 values
      expect(trueResidual(A, u.x, b)).toBeLessThanOrEqual(1e-10 * (1 + 1e-6));
    } finally {
      V.dispose();
      ops.dispose();
      M.dispose();
    }
  });

  it('the CPU ops offer the DIA steps per dtype: f32 direction + product (two buffers), f64 product + direction and the deferred x step (with Jacobi or none)', () => {
    const B = backends.get('2 thread(s)')!;
    const A = banded(60, VARYING);
    const cases = [
      [DIAMatrix.fromCSR(A), 'jacobi', [true, false, false]],
      [DIAMatrix.fromCSR(A.astype('f64')), 'jacobi', [false, true, true]],
      [DIAMatrix.fromCSR(A.astype('f64')), 'none', [false, true, true]],
      [A, 'jacobi', [false, false, false]],
      [DIAMatrix.fromCSR(A.astype('c64')), 'jacobi', [false, false, false]],
    ] as const;
    for (const [H, pre, has] of cases) {
      const M = B.upload(H);
      const ops = cpuSolverOps(B, M, pre);
      expect([ops.cgDirectionProduct, ops.cgProductDirection, ops.cgDeferredX].map((f) => f !== undefined), `${H.format} ${H.dtype} ${pre}`).toEqual(has);
      ops.dispose();
      M.dispose();
    }
  });
});
