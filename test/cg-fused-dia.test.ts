/**
 * The CPU's f32 CG kernels over DIA matrices (assembly/cg_fused.ts): the direction step and product in
 * one pass (cgDirectionProduct, cg_dia_f32) and the pool's iterative refinement (src/cpu/refine.ts),
 * each against plain f64 JavaScript written here, at edge sizes (0, 1, rows not a multiple of the SIMD
 * block or of the chunks) on 1, 2 and 3 threads with every operation on the pool; and CG's iteration
 * counts with the fused step against the same ops without it; and the f64 SpMV + direction step in one
 * call (cgProductDirection, cg_dia_direction_f64) against the two calls it replaces and f64 JavaScript;
 * the Jacobi update with one value for all of D⁻¹ (cg_update_jacobi_scalar_f64) against f64 JavaScript,
 * with one diagonal entry that differs (the vector kernel then) first, last or in the middle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { cpuRefinement } from '../src/cpu/refine.js';
import { refinesOnPool } from '../src/cpu/solver-ops.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { cg } from '../src/solvers/krylov/cg.js';
import { matvec, referencePcg, relDiff, trueResidual } from './solve-reference.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { bandedMatrix } from './banded.js';

const THREADS = [1, 2, 3];
const backends = new Map<number, CpuBackend>();
beforeAll(async () => {
  for (const t of THREADS) backends.set(t, await CpuBackend.create({ threads: t, inlineThreshold: 0 }));
});
afterAll(() => {
  for (const b of backends.values()) b.dispose();
});

function random(n: number, seed: number): Float32Array {
  const g = new Prng(seed);
  return Float32Array.from({ length: n }, () => g.next() * 2 - 1);
}

/** An f32 banded matrix of n rows on the diagonals `offsets` (those that fit), random values, one diagonal with a zero run. */
function banded(n: number, offsets: number[], seed: number): CSRMatrix {
  const g = new Prng(seed);
  return bandedMatrix(n, offsets, 'f32', (i, o) => (o === 2 && i % 5 === 0 ? undefined : o === 0 ? 4 + g.next() : g.next() - 0.5));
}

const SIZES = [0, 1, 5, 17, 33, 1000, 4099];
const OFFSETS = [-70, -3, -1, 0, 1, 2, 50];

describe('cgDirectionProduct (cg_dia_f32)', () => {
  for (const threads of THREADS) {
    it(`pn = z + β·po bit for bit, q = A·pn (f64 reference; bit for bit the SpMV of pn) and pnᵀq as in f64, ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const n of SIZES) {
        const A = banded(n, OFFSETS, n + 1);
        const M = B.upload(DIAMatrix.fromCSR(A));
        const ops = cpuSolverOps(B, M, 'none');
        const [z0, po0] = [random(n, 2 * n + 3), random(n, 3 * n + 5)];
        const vec = (v: Float32Array) => {
          const h = ops.vector();
          h.view().set(v);
          return h;
        };
        const [z, po, pn, q] = [vec(z0), vec(po0), ops.vector(), vec(random(n, 9))];
        try {
          const beta = 0.37;
          const f = Math.fround;
          const pq = await ops.cgDirectionProduct!(beta, z, po, pn, q);
          const pRef = Float32Array.from(z0, (zi, i) => f(zi + f(f(beta) * po0[i])));
          expect(Array.from(pn.view() as Float32Array)).toEqual(Array.from(pRef));
          // q in f32 sums: within a few f32 roundings of the f64 product of the same pn
          const qRef = matvec(A, pRef);
          const qv = q.view() as Float32Array;
          for (let i = 0; i < n; i++) expect(Math.abs(qv[i] - qRef[i])).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(qRef[i])) * 8);
          let pqRef = 0;
          for (let i = 0; i < n; i++) pqRef += pRef[i] * qv[i];
          expect(Math.abs(pq - pqRef)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(pqRef)));
          expect(Array.from(po.view() as Float32Array)).toEqual(Array.from(po0)); // read only
          // and bit for bit the DIA SpMV of the stored pn (the same sums in the same order)
          const q2 = ops.vector();
          await ops.spmv(pn, q2, 1, 0);
          expect(Array.from(qv)).toEqual(Array.from(q2.view() as Float32Array));
          ops.release(q2);
        } finally {
          for (const v of [z, po, pn, q]) ops.release(v);
          ops.dispose();
          M.dispose();
        }
      }
    });
  }

  it('offered for f32 DIA only', () => {
    const B = backends.get(2)!;
    const A = banded(40, OFFSETS, 1);
    for (const [H, has] of [[DIAMatrix.fromCSR(A), true], [A, false], [DIAMatrix.fromCSR(A.astype('f64')), false]] as const) {
      const M = B.upload(H);
      const ops = cpuSolverOps(B, M, 'jacobi');
      expect(ops.cgDirectionProduct !== undefined).toBe(has);
      expect(refinesOnPool(M)).toBe(has);
      ops.dispose();
      M.dispose();
    }
  });

  it('CG takes the iterations of the unfused f32 ops and of the textbook PCG in f64 (tol 1e-5, Jacobi)', async () => {
    const A = poisson3D(14).astype('f32');
    const d = new Float64Array(A.rows);
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) d[i] = A.values[k];
    const b0 = Float64Array.from(random(A.rows, 11));
    const ref = referencePcg(A, b0, (r) => r.map((ri, i) => ri / d[i]), 1e-5, 1000);
    for (const threads of THREADS) {
      const B = backends.get(threads)!;
      const M = B.upload(DIAMatrix.fromCSR(A));
      const ops = cpuSolverOps(B, M, 'jacobi');
      const b = ops.vector();
      b.view().set(b0);
      try {
        const fused = await cg(ops, b, { tol: 1e-5 });
        const plain = await cg({ ...ops, cgDirectionProduct: undefined }, b, { tol: 1e-5 });
        expect(fused.converged && plain.converged).toBe(true);
        expect(fused.iterations).toBe(plain.iterations);
        expect(Math.abs(fused.iterations - ref)).toBeLessThanOrEqual(1);
        expect(relDiff(fused.x.view() as Float32Array, plain.x.view() as Float32Array)).toBeLessThan(1e-5);
        ops.release(fused.x);
        ops.release(plain.x);
      } finally {
        ops.release(b);
        ops.dispose();
        M.dispose();
      }
    }
  });
});

describe('cgProductDirection (cg_dia_direction_f64)', () => {
  const random64 = (n: number, seed: number) => Float64Array.from(random(n, seed), (v, i) => v + i * 1e-9);
  for (const threads of THREADS) {
    it(`q ← A·z + β·q, p ← z + β·p and pᵀq: the SpMV + cgDirection pair's bits, and the f64 reference's values; ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const n of [...SIZES, 2050, 5001]) {
        const A = banded(n, OFFSETS, n + 1).astype('f64');
        const M = B.upload(DIAMatrix.fromCSR(A));
        const ops = cpuSolverOps(B, M, 'none');
        const vec = (v: Float64Array) => {
          const h = ops.vector();
          h.view().set(v);
          return h;
        };
        const [z0, p0, q0] = [random64(n, 2 * n + 3), random64(n, 3 * n + 5), random64(n, 5 * n + 1)];
        const vs = [vec(z0), vec(p0), vec(q0), vec(p0), vec(q0)];
        const [z, p, q, p2, q2] = vs;
        try {
          for (const beta of [0.37, 0]) {
            if (beta === 0) {
              // β = 0 (CG's first step): q is not read, as the SpMV's β = 0 does not read y
              (q.view() as Float64Array).fill(NaN);
              (q2.view() as Float64Array).fill(NaN);
            }
            const qIn = Float64Array.from(q.view() as Float64Array);
            const pIn = Float64Array.from(p.view() as Float64Array);
            const pq = await ops.cgProductDirection!(beta, z, p, q);
            await ops.spmv(z, q2, 1, beta);
            const pq2 = await ops.cgDirection!(beta, z, p2, q2);
            expect(Array.from(q.view() as Float64Array)).toEqual(Array.from(q2.view() as Float64Array));
            expect(Array.from(p.view() as Float64Array)).toEqual(Array.from(p2.view() as Float64Array));
            expect(pq).toBe(pq2);
            // against plain f64 JavaScript
            const az = matvec(A, z0);
            const qRef = Float64Array.from(az, (v, i) => (beta === 0 ? v : v + beta * qIn[i]));
            const pRef = Float64Array.from(z0, (v, i) => v + beta * pIn[i]);
            if (n > 0) expect(relDiff(q.view() as Float64Array, qRef)).toBeLessThan(1e-14);
            expect(Array.from(p.view() as Float64Array)).toEqual(Array.from(pRef));
            const pqRef = pRef.reduce((s, v, i) => s + v * qRef[i], 0);
            expect(Math.abs(pq - pqRef)).toBeLessThanOrEqual(1e-12 * (1 + pRef.reduce((s, v, i) => s + Math.abs(v * qRef[i]), 0)));
            expect(Array.from(z.view() as Float64Array)).toEqual(Array.from(z0)); // read only
          }
        } finally {
          for (const v of vs) ops.release(v);
          ops.dispose();
          M.dispose();
        }
      }
    });
  }

  it('offered for square f64 DIA only', () => {
    const B = backends.get(2)!;
    const A = banded(40, OFFSETS, 1);
    const rect = new CSRMatrix(3, 4, 'f64', Int32Array.from([0, 1, 2, 3]), Int32Array.from([1, 2, 3]), Float64Array.from([1, 2, 3]));
    for (const [H, has] of [[DIAMatrix.fromCSR(A.astype('f64')), true], [DIAMatrix.fromCSR(A), false], [A.astype('f64'), false], [DIAMatrix.fromCSR(rect), false]] as const) {
      const M = B.upload(H);
      const ops = cpuSolverOps(B, M, 'none');
      expect(ops.cgProductDirection !== undefined).toBe(has);
      ops.dispose();
      M.dispose();
    }
  });

  it('CG with it gives the bits of CG without it, and the textbook PCG\'s iterations (f64, Jacobi, tol 1e-8)', async () => {
    const A = poisson3D(14);
    const d = new Float64Array(A.rows);
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) d[i] = A.values[k];
    const b0 = Float64Array.from(random(A.rows, 11));
    const ref = referencePcg(A, b0, (r) => r.map((ri, i) => ri / d[i]), 1e-8, 1000);
    for (const threads of THREADS) {
      const B = backends.get(threads)!;
      const M = B.upload(DIAMatrix.fromCSR(A));
      const ops = cpuSolverOps(B, M, 'jacobi');
      const b = ops.vector();
      b.view().set(b0);
      try {
        const fused = await cg(ops, b, { tol: 1e-8 });
        const pair = await cg({ ...ops, cgProductDirection: undefined }, b, { tol: 1e-8 });
        expect(fused.converged && pair.converged).toBe(true);
        expect(fused.iterations).toBe(pair.iterations);
        expect(fused.history).toEqual(pair.history);
        expect(Array.from(fused.x.view() as Float64Array)).toEqual(Array.from(pair.x.view() as Float64Array));
        expect(Math.abs(fused.iterations - ref)).toBeLessThanOrEqual(1);
        expect(trueResidual(A, fused.x.view() as Float64Array, b0)).toBeLessThan(1e-7);
        ops.release(fused.x);
        ops.release(pair.x);
      } finally {
        ops.release(b);
        ops.dispose();
        M.dispose();
      }
    }
  });
});

describe('cgDeferredX (cg_dia_direction_x_f64, cg_residual_jacobi_f64; uniform D⁻¹: the _scaled products and cg_residual_jacobi_scalar_f64)', () => {
  /** An f64 banded matrix whose diagonal is `diag(i)`, random off-diagonals. */
  const withDiagonal = (n: number, diag: (i: number) => number) => {
    const g = new Prng(n + 77);
    const ptr = [0];
    const col: number[] = [];
    const val: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const o of [-40, -1, 0, 1, 40]) {
        if (i + o < 0 || i + o >= n) continue;
        col.push(i + o);
        val.push(o === 0 ? diag(i) : -0.25 - 0.5 * g.next());
      }
      ptr.push(col.length);
    }
    return new CSRMatrix(n, n, 'f64', Int32Array.from(ptr), Int32Array.from(col), Float64Array.from(val));
  };
  for (const threads of THREADS) {
    it(`product: x ← x + α·p then the product's values; update: r, z (uniform: left to the product, which scales r), ‖r‖², rᵀz without x and p — the undeferred calls' bits; ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const n of [1, 5, 17, 2050, 5001]) {
        // a uniform D⁻¹ of 1/3 (not a power of two: c·r rounds) and a varying one
        for (const diag of [() => 3, (i: number) => 4 + (i % 3)]) {
          // one row: the varying diagonal is uniform too
          const uniform = Array.from({ length: n }, (_, i) => diag(i)).every((v) => v === diag(0));
          const M = B.upload(DIAMatrix.fromCSR(withDiagonal(n, diag)));
          const ops = cpuSolverOps(B, M, 'jacobi');
          const init = [1, 2, 3, 4, 5, 6].map((k) => Float64Array.from(random(n, 11 * n + k), (v, i) => v + i * 1e-9));
          const vec = (v: Float64Array) => {
            const h = ops.vector();
            h.view().set(v);
            return h;
          };
          const [z, p, q, x, r, zz] = init.map(vec);
          const [z2, p2, q2, x2, r2, zz2] = init.map(vec);
          const all = [z, p, q, x, r, zz, z2, p2, q2, x2, r2, zz2];
          const same = (a: { view(): ArrayLike<number> }, b: { view(): ArrayLike<number> }, what: string) =>
            expect(Array.from(a.view()), `${what} n ${n}`).toEqual(Array.from(b.view()));
          try {
            // z = D⁻¹·r, as cg() makes it before the iterations
            await ops.precondition!(r, z);
            await ops.precondition!(r2, z2);
            for (const alpha of [0.31, 0]) {
              const pq = await ops.cgDeferredX!.product(0.43, z, p, q, x, alpha, r);
              await ops.axpy([alpha, 0], p2, x2);
              const pq2 = await ops.cgProductDirection!(0.43, z2, p2, q2);
              expect(pq).toBe(pq2);
              for (const [a, b, w] of [[x, x2, 'x'], [p, p2, 'p'], [q, q2, 'q'], [z, z2, 'z']] as const) same(a, b, w);
            }
            const xBefore = Array.from(x.view());
            const pBefore = Array.from(p.view());
            const zBefore = Array.from(zz.view());
            const [rr, rz] = await ops.cgDeferredX!.update(0.29, q, r, zz);
            const [rr2, rz2] = await ops.cgUpdatePrecondition!(0.29, p2, q2, x2, r2, zz2);
            expect([rr, rz]).toEqual([rr2, rz2]);
            same(r, r2, 'r');
            if (uniform) {
              // not stored: the product reads c·r, whose bits are the stored z's
              expect(Array.from(zz.view())).toEqual(zBefore);
              await ops.precondition!(r, zz);
            }
            same(zz, zz2, 'z ← D⁻¹r');
            expect(Array.from(x.view())).toEqual(xBefore);
            expect(Array.from(p.view())).toEqual(pBefore);
          } finally {
            for (const v of all) ops.release(v);
            ops.dispose();
            M.dispose();
          }
        }
      }
    });
  }

  it("CG with it: the undeferred CG's bits, when it converges, stops at maxIter or is aborted (uniform and varying D, and without a preconditioner: c = 1)", async () => {
    const B = backends.get(2)!;
    for (const [diag, pre] of [[() => 3.5, 'jacobi'], [(i: number) => 2.5 + (i % 3), 'jacobi'], [(i: number) => 2.5 + (i % 3), 'none']] as const) {
      const A = withDiagonal(3000, diag);
      const M = B.upload(DIAMatrix.fromCSR(A));
      const ops = cpuSolverOps(B, M, pre);
      expect(ops.cgDeferredX, pre).toBeDefined();
      const b = ops.vector();
      b.view().set(Float64Array.from(random(A.rows, 5)));
      try {
        for (const [mode, reason] of [['converge', 'converged'], ['maxIter', 'maxIter'], ['abort', 'aborted']] as const) {
          const run = (o: typeof ops) => {
            const ac = new AbortController();
            const abort = { tol: 1e-12, signal: ac.signal, onIteration: (it: number) => void (it === 5 && ac.abort()) };
            return cg(o, b, mode === 'converge' ? { tol: 1e-10 } : mode === 'maxIter' ? { tol: 1e-12, maxIter: 7 } : abort);
          };
          const d = await run(ops);
          const u = await run({ ...ops, cgDeferredX: undefined });
          expect(u.reason).toBe(reason);
          if (pre === 'jacobi') {
            expect([d.reason, d.iterations]).toEqual([reason, u.iterations]);
            expect(d.history).toEqual(u.history);
            expect(Array.from(d.x.view())).toEqual(Array.from(u.x.view()));
          } else {
            // without a preconditioner the undeferred update (cg_update_f64) sums ‖r‖² in another
            // order: the same iterations, to rounding
            expect([d.reason, d.iterations]).toEqual([reason, u.iterations]);
            d.history.forEach((h, i) => expect(Math.abs(h - u.history[i]), `${mode} history ${i}`).toBeLessThanOrEqual(1e-9 * u.history[i]));
            const ux = u.x.view();
            const big = Math.max(...Array.from(ux, Math.abs));
            d.x.view().forEach((v, i) => expect(Math.abs(v - ux[i]), `${mode} x ${i}`).toBeLessThanOrEqual(1e-9 * big));
          }
          if (mode === 'converge') expect(trueResidual(A, d.x.view() as Float64Array, b.view() as Float64Array)).toBeLessThan(1e-9);
          ops.release(d.x);
          ops.release(u.x);
        }
      } finally {
        ops.release(b);
        ops.dispose();
        M.dispose();
      }
    }
  });
});

describe('cgUpdatePrecondition with a uniform D⁻¹ (cg_update_jacobi_scalar_f64)', () => {
  /** An f64 banded n×n matrix whose diagonal is 4 but `odd` (a row whose entry is 4.5), in CSR or DIA. */
  const stencil = (n: number, odd: number | null) => {
    const g = new Prng(n + 31);
    const ptr = [0];
    const col: number[] = [];
    const val: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const o of [-3, -1, 0, 1, 3]) {
        if (i + o < 0 || i + o >= n) continue;
        col.push(i + o);
        val.push(o === 0 ? (i === odd ? 4.5 : 4) : g.next() - 0.5);
      }
      ptr.push(col.length);
    }
    return new CSRMatrix(n, n, 'f64', Int32Array.from(ptr), Int32Array.from(col), Float64Array.from(val));
  };
  for (const threads of THREADS) {
    it(`x ← x + α·p, r ← r − α·q, z ← D⁻¹·r bit for bit as f64 JavaScript, ‖r‖² and rᵀz; one odd diagonal entry anywhere; ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const n of [1, 5, 17, 1001]) {
        for (const odd of [null, 0, n >> 1, n - 1]) {
          const A = stencil(n, odd);
          for (const H of [A, DIAMatrix.fromCSR(A)]) {
            const M = B.upload(H);
            const ops = cpuSolverOps(B, M, 'jacobi');
            const init = [1, 2, 3, 4].map((k) => Float64Array.from(random(n, 7 * n + k), (v, i) => v + i * 1e-9));
            const vs = init.map((v) => {
              const h = ops.vector();
              h.view().set(v);
              return h;
            });
            const z = ops.vector();
            const [x, r, p, q] = vs;
            try {
              const alpha = 0.29;
              const [rr, rz] = await ops.cgUpdatePrecondition!(alpha, p, q, x, r, z);
              const xRef = Float64Array.from(init[0], (v, i) => v + alpha * init[2][i]);
              const rRef = Float64Array.from(init[1], (v, i) => v - alpha * init[3][i]);
              const zRef = Float64Array.from(rRef, (v, i) => (1 / (i === odd ? 4.5 : 4)) * v);
              expect(Array.from(x.view() as Float64Array)).toEqual(Array.from(xRef));
              expect(Array.from(r.view() as Float64Array)).toEqual(Array.from(rRef));
              expect(Array.from(z.view() as Float64Array), `odd ${odd}`).toEqual(Array.from(zRef));
              const rrRef = rRef.reduce((s, v) => s + v * v, 0);
              const rzRef = rRef.reduce((s, v, i) => s + v * zRef[i], 0);
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

describe('cpuRefinement (refine_residual_dia_f32, refine_add_f32)', () => {
  for (const threads of THREADS) {
    it(`‖b‖, b − A·x in f64 and its f32 rounding, corrections, a NaN correction not applied; ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const n of SIZES) {
        const A = banded(n, OFFSETS, n + 7);
        const M = B.upload(DIAMatrix.fromCSR(A));
        const b = Float64Array.from(random(n, 13), (v, i) => v + i * 1e-9);
        const x0 = Float64Array.from(random(n, 17), (v) => v / 3);
        const R = await cpuRefinement(B, M, b, x0);
        const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, e) => s + e * e, 0));
        const residual = (x: Float64Array) => {
          const ax = matvec(A, x);
          return Float64Array.from(b, (bi, i) => bi - ax[i]);
        };
        const rel = (a: number, e: number) => Math.abs(a - e) <= 1e-13 * (1 + e);
        try {
          expect(rel(R.bnorm, norm(b))).toBe(true);
          let r = residual(x0);
          expect(rel(R.rnorm, norm(r))).toBe(true);
          const rhs = () => Array.from(R.rhs().view() as Float32Array);
          const close32 = (got: number[], want: Float64Array) => got.every((g, i) => Math.abs(g - want[i]) <= 2 ** -23 * Math.abs(want[i]) + 1e-300);
          expect(close32(rhs(), r)).toBe(true);
          // a finite correction: x ← x0 + d
          const d0 = random(n, 19);
          const d = B.vector('f32', n);
          d.view().set(d0);
          const x1 = Float64Array.from(x0, (xi, i) => xi + d0[i]);
          const t = await R.correct(d);
          r = residual(x1);
          expect(rel(t, norm(r))).toBe(true);
          expect(Array.from(await R.read())).toEqual(Array.from(x1));
          expect(close32(rhs(), r)).toBe(true);
          // Inf or NaN in d: NaN, x and rhs as they were
          if (n > 0) {
            (d.view() as Float32Array)[n - 1] = NaN;
            expect(await R.correct(d)).toBeNaN();
            expect(Array.from(await R.read())).toEqual(Array.from(x1));
            expect(close32(rhs(), r)).toBe(true);
          }
          d.dispose();
        } finally {
          R.dispose();
          M.dispose();
        }
      }
    });
  }
});

describe('rt.solve of an f32 stencil (DIA) below f32\'s reach, refined on the pool', () => {
  it('every method reaches a true 1e-10 (independent f64 product of the f32 values)', async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      const A = poisson3D(12).astype('f32');
      const h = rt.upload(A, { format: 'dia' });
      const b = Float64Array.from(random(A.rows, 23));
      for (const method of ['cg', 'minres', 'gmres', 'bicgstab'] as const) {
        const r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: 1e-10 });
        expect(r.reason, method).toBe('converged');
        expect(r.relativeResidual).toBeLessThanOrEqual(1e-10);
        expect(trueResidual(A, r.x, b), method).toBeLessThanOrEqual(1e-10 * (1 + 1e-6));
        expect(r.refinements, method).toBeGreaterThanOrEqual(1);
      }
      h.dispose();
    } finally {
      rt.dispose();
    }
  });
});
