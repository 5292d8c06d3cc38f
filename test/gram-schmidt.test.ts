/**
 * SolverOps.gramSchmidt on the CPU pool (assembly/gram_schmidt.ts, CpuBackend.runWideReduction): GMRES's
 * classical Gram–Schmidt pass over V and w in one call. Against an axpy per vector (w bit for bit) and dots
 * written here in f64, in f64, f32, c128 and c64, on 1–3 threads and the plain build, with blocks cut by a chunk's
 * end; none below the pool's floor; and GMRES with it against GMRES without it on a nonsymmetric system:
 * the same iterations and answers to the solves' rounding.
 */
import { describe, expect, it } from 'vitest';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import type { CpuVector } from '../src/cpu/resident.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { gmres } from '../src/solvers/krylov/gmres.js';
import { cpuBackends, key, SETUPS } from './cpu-setups.js';
import { mulberry32 } from './random.js';
import { POOL_FLOOR } from '../src/cpu/dispatch.js';

const backends = cpuBackends();

/** An n-row tridiagonal-plus-band matrix with an upwind convection term: nonsymmetric, diagonally dominant. */
function convection(n: number, dtype: 'f64' | 'f32'): CSRMatrix {
  const rowPtr = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [j, v] of [[i - 40, -1], [i - 1, -1.75], [i, 4.5], [i + 1, -0.25], [i + 40, -1]] as const) {
      if (j >= 0 && j < n) {
        cols.push(j);
        vals.push(v);
      }
    }
    rowPtr.push(cols.length);
  }
  return new CSRMatrix(n, n, dtype, Int32Array.from(rowPtr), Int32Array.from(cols), dtype === 'f32' ? Float32Array.from(vals) : Float64Array.from(vals));
}

describe('gramSchmidt: one pass over w and V', () => {
  for (const s of SETUPS) {
    it(`w as an axpy per vector makes it, bit for bit, and the dots (or Σ|w|²) of the new w to f64 rounding; f64, f32, c128, c64; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      const rnd = mulberry32(7);
      for (const dtype of ['f64', 'f32', 'c128', 'c64'] as const) {
        const complex = dtype === 'c128' || dtype === 'c64';
        const real = dtype === 'c128' ? 'f64' : dtype === 'c64' ? 'f32' : dtype;
        // the entries of a vector's view: two a complex
        const c = complex ? 2 : 1;
        for (const n of [POOL_FLOOR, POOL_FLOOR + 3, 70_001]) {
          const M = B.upload(complex ? convection(n, real).astype(dtype) : convection(n, dtype));
          const ops = cpuSolverOps(B, M, 'none');
          for (const nv of [1, 7, 31]) {
            const made: CpuVector[] = [];
            const vec = (f: () => number) => {
              const v = B.vector(dtype, n);
              const view = v.view();
              for (let i = 0; i < c * n; i++) view[i] = f();
              made.push(v);
              return v;
            };
            const V = Array.from({ length: nv }, () => vec(() => rnd() * 2 - 1));
            const w0 = Array.from({ length: c * n }, () => rnd() * 2 - 1);
            const w = vec(() => 0);
            const ref = vec(() => 0);
            // coefficients with zeros (skipped, as axpy skips them) and one too small for f32 (0 there)
            const coeffs = V.map((_, i): [number, number] => (i % 3 === 1 ? [0, 0] : i % 5 === 4 ? [1e-50, 0] : [rnd() - 0.5, complex ? rnd() - 0.5 : 0]));
            // conj(v)ᴴx in f64, and the sum of the terms' sizes (the rounding's scale)
            const dotsOf = (x: Float32Array | Float64Array) => V.map((v) => {
              const vv = v.view();
              let [re, im, a] = [0, 0, 0];
              for (let i = 0; i < n; i++) {
                const [vr, vi, xr, xi] = complex ? [vv[2 * i], -vv[2 * i + 1], x[2 * i], x[2 * i + 1]] : [vv[i], 0, x[i], 0];
                re += vr * xr - vi * xi;
                im += vr * xi + vi * xr;
                a += Math.abs(vr * xr) + Math.abs(vi * xi) + Math.abs(vr * xi) + Math.abs(vi * xr);
              }
              return [re, im, a];
            });
            for (const withCoeffs of [false, true]) {
              for (const then of ['dots', 'squares', 'none'] as const) {
                w.view().set(w0);
                ref.view().set(w0);
                const got = await ops.gramSchmidt!(V, w, withCoeffs ? coeffs : null, then);
                if (withCoeffs) for (let i = 0; i < nv; i++) await ops.axpy([-coeffs[i][0], -coeffs[i][1]], V[i], ref);
                const name = `${dtype} n ${n} nv ${nv} coeffs ${withCoeffs} then ${then}`;
                expect(Array.from(w.view()), name).toEqual(Array.from(ref.view()));
                if (then === 'none') {
                  expect(got, name).toEqual([]);
                  continue;
                }
                if (then === 'squares') {
                  let ss = 0;
                  for (const v of ref.view()) ss += v * v;
                  expect(got.length, name).toBe(1);
                  expect(Math.abs(got[0][0] - ss), name).toBeLessThanOrEqual(1e-13 * ss);
                  continue;
                }
                const want = dotsOf(ref.view());
                expect(got.length, name).toBe(nv);
                for (let i = 0; i < nv; i++) {
                  expect(Math.abs(got[i][0] - want[i][0]), `${name} dot ${i}`).toBeLessThanOrEqual(1e-13 * want[i][2] + 1e-300);
                  if (!complex) expect(got[i][1], name).toBe(0);
                  else expect(Math.abs(got[i][1] - want[i][1]), `${name} dot ${i} (im)`).toBeLessThanOrEqual(1e-13 * want[i][2] + 1e-300);
                }
              }
            }
            for (const v of made) v.dispose();
          }
          ops.dispose();
          M.dispose();
        }
      }
    });
  }
});

describe('gramSchmidt where it is offered', () => {
  it("not below the pool's floor (a sequence of dots and axpys runs at once there); from it for every dtype", () => {
    const B = backends.get(key(SETUPS[1]))!;
    for (const [n, dtype, offered] of [[POOL_FLOOR - 1, 'f64', false], [POOL_FLOOR, 'f64', true], [POOL_FLOOR, 'f32', true]] as const) {
      const M = B.upload(convection(n, dtype));
      const ops = cpuSolverOps(B, M, 'none');
      expect(ops.gramSchmidt !== undefined, `${n} ${dtype}`).toBe(offered);
      ops.dispose();
      M.dispose();
    }
    for (const dtype of ['c128', 'c64'] as const) {
      const C = B.upload(convection(POOL_FLOOR, 'f64').astype(dtype));
      const ops = cpuSolverOps(B, C, 'none');
      expect(ops.gramSchmidt, dtype).toBeDefined();
      ops.dispose();
      C.dispose();
    }
  });
});

describe('GMRES with gramSchmidt', () => {
  it('takes the iterations GMRES takes with a dot and an axpy per vector, to the same answers (f64, f32, and (1 + i/2)·A in c128, c64; 2 threads, the pool)', async () => {
    const B = backends.get(key(SETUPS[1]))!;
    for (const dtype of ['f64', 'f32', 'c128', 'c64'] as const) {
      const n = 20_000;
      const complex = dtype === 'c128' || dtype === 'c64';
      const A = convection(n, 'f64');
      // (1 + i/2)·A: complex values, the same conditioning
      const Ac = new CSRMatrix(n, n, 'c128', A.rowPtr, A.colIdx, Float64Array.from({ length: 2 * A.nnz }, (_, k) => (k % 2 ? 0.5 : 1) * A.values[k >> 1]));
      const M = B.upload(complex ? Ac.astype(dtype) : convection(n, dtype));
      const ops = cpuSolverOps(B, M, 'jacobi');
      let calls = 0;
      const counted = { ...ops, gramSchmidt: (...a: Parameters<NonNullable<typeof ops.gramSchmidt>>) => (calls++, ops.gramSchmidt!(...a)) };
      const b = ops.vector();
      b.view().set(Float64Array.from({ length: b.view().length }, (_, i) => Math.sin(i + 1)));
      const tol = dtype === 'f64' || dtype === 'c128' ? 1e-10 : 1e-5;
      const fused = await gmres(counted, b, { tol, restart: 8 });
      const plain = await gmres({ ...ops, gramSchmidt: undefined }, b, { tol, restart: 8 });
      expect(calls, dtype).toBeGreaterThanOrEqual(3 * fused.iterations);
      expect(fused.reason, dtype).toBe('converged');
      expect(plain.reason, dtype).toBe('converged');
      expect(fused.iterations, dtype).toBeGreaterThan(8);
      expect(Math.abs(fused.iterations - plain.iterations), dtype).toBeLessThanOrEqual(1);
      const [xf, xp] = [fused.x.view(), plain.x.view()];
      let diff = 0;
      let norm = 0;
      for (let i = 0; i < xp.length; i++) (diff = Math.max(diff, Math.abs(xf[i] - xp[i]))), (norm = Math.max(norm, Math.abs(xp[i])));
      expect(diff, dtype).toBeLessThanOrEqual((tol < 1e-8 ? 1e-8 : 1e-3) * norm);
      for (const v of [b, fused.x, plain.x]) ops.release(v);
      ops.dispose();
      M.dispose();
    }
  });
});
