/**
 * SolverOps.sequence (src/solvers/ops.ts): the CPU path runs a chain of a solver's operations at once
 * on the calling thread for a small system (src/cpu/blas1.ts cpuSequence). Its values are the
 * operations' own, bit for bit; the solvers give the same bits with it as without it; it waits for an
 * operation in flight, and takes the solver's preconditioner where that is not the path's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import type { CpuVector } from '../src/cpu/resident.js';
import * as blas from '../src/cpu/blas1.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { convert } from '../src/formats/index.js';
import { oneByOne, sequence, sequenceNow, type SolverOps, type SolverStep } from '../src/solvers/ops.js';
import { minres } from '../src/solvers/krylov/minres.js';
import { gmres } from '../src/solvers/krylov/gmres.js';
import { bicgstab } from '../src/solvers/krylov/bicgstab.js';
import { mulberry32 } from './random.js';

let B: CpuBackend;
beforeAll(async () => {
  // a pool, and a fixed threshold: 300 rows run inline, 100 000 elements on the pool
  B = await CpuBackend.create({ threads: 2, inlineThreshold: 20_000 });
});
afterAll(() => B.dispose());

/** A random n×n matrix, Hermitian when asked, ~6 entries a row plus a diagonal, complex as c128. */
function randomMatrix(n: number, seed: number, symmetric: boolean, complex = false): CSRMatrix {
  const rnd = mulberry32(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  const put = (i: number, j: number, re: number, im: number) => {
    rows.push(i);
    cols.push(j);
    vals.push(re);
    if (complex) vals.push(im);
  };
  for (let i = 0; i < n; i++) {
    // a positive diagonal (Jacobi is then definite, as MINRES needs), off-diagonals large enough for an indefinite A
    put(i, i, 2 + rnd(), 0);
    for (let k = 0; k < 3; k++) {
      const j = Math.floor(rnd() * n);
      if (j === i) continue;
      const re = 3 * (rnd() - 0.5);
      const im = complex ? rnd() - 0.5 : 0;
      put(i, j, re, im);
      if (symmetric) put(j, i, re, -im);
      else put(j, i, rnd() - 0.5, im);
    }
  }
  const values = Float64Array.from(vals);
  return CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(rows), Int32Array.from(cols), values);
}

function vectorOf(ops: SolverOps<CpuVector>, values: ArrayLike<number>): CpuVector {
  const v = ops.vector();
  v.view().set(values);
  return v;
}

const bits = (a: ArrayLike<number>): string => Buffer.from(Float64Array.from(a).buffer).toString('hex');

describe('CPU sequences of solver operations', () => {
  for (const [dtype, pre, format] of [
    ['f64', 'jacobi', 'csr'],
    ['f64', 'none', 'hyb'],
    ['c128', 'jacobi', 'ell'],
  ] as const) {
    it(`give the operations' own values, bit for bit, and the plain f64 reference's within rounding (${dtype}, ${pre}, ${format})`, async () => {
      const n = 300;
      const A = randomMatrix(n, 7, false, dtype === 'c128');
      const M = B.upload(convert(A, format));
      const ops = cpuSolverOps(B, M, pre);
      const c = dtype === 'c128' ? 2 : 1;
      const rnd = mulberry32(11);
      const init = [0, 1, 2].map(() => Float64Array.from({ length: c * n }, () => rnd() - 0.5));
      const make = () => init.map((v) => vectorOf(ops, v));
      const run = async (runner: (s: readonly SolverStep<CpuVector>[]) => Promise<[number, number][]>) => {
        const [x, y, z] = make();
        const steps: SolverStep<CpuVector>[] = [
          ['scal', [0.5, -0.25], x],
          ['spmv', x, y, 1.5, -0.5],
          ['axpy', [-0.75, 0.125], z, y],
          ['dot', x, y],
          ['precondition', y, z],
          ['aypx', [0.3, 0], x, z],
          ['nrm2', z],
          ['copy', z, x],
          ['dot', z, y],
        ];
        const out = await runner(steps);
        const vs = [x, y, z].map((v) => Float64Array.from(v.view()));
        for (const v of [x, y, z]) ops.release(v);
        return { out, vs };
      };
      const together = ops.sequence!;
      let ran = false;
      // a fresh slice of back-to-back operations (the backend hands the event loop a turn after 50 ms)
      await new Promise((r) => setImmediate(r));
      const fused = await run((s) => {
        const p = together(s, ops);
        ran = p !== undefined;
        return p ?? oneByOne(ops, s);
      });
      expect(ran).toBe(true);
      await new Promise((r) => setImmediate(r));
      const now = await run(async (s) => {
        const out = sequenceNow(ops, s);
        expect(out).toBeDefined();
        return out!;
      });
      const apart = await run((s) => oneByOne(ops, s));
      for (const other of [now, apart]) {
        expect(bits(fused.out.flat())).toBe(bits(other.out.flat()));
        for (let k = 0; k < 3; k++) expect(bits(fused.vs[k])).toBe(bits(other.vs[k]));
      }

      // the plain f64 reference of the same steps (complex arithmetic written out)
      const [x, y, z] = init.map((v) => Float64Array.from(v));
      const cm = (a: [number, number], v: Float64Array, i: number): [number, number] =>
        c === 2 ? [a[0] * v[2 * i] - a[1] * v[2 * i + 1], a[0] * v[2 * i + 1] + a[1] * v[2 * i]] : [a[0] * v[i], 0];
      const set = (v: Float64Array, i: number, re: number, im: number) => {
        v[c * i] = re;
        if (c === 2) v[2 * i + 1] = im;
      };
      const get = (v: Float64Array, i: number): [number, number] => (c === 2 ? [v[2 * i], v[2 * i + 1]] : [v[i], 0]);
      for (let i = 0; i < n; i++) set(x, i, ...cm([0.5, dtype === 'c128' ? -0.25 : 0], x, i));
      const Ax = new Float64Array(c * n);
      for (let i = 0; i < n; i++) {
        let re = 0;
        let im = 0;
        for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) {
          const j = A.colIdx[p];
          const [ar, ai] = c === 2 ? [A.values[2 * p], A.values[2 * p + 1]] : [A.values[p], 0];
          const [xr, xi] = get(x, j);
          re += ar * xr - ai * xi;
          im += ar * xi + ai * xr;
        }
        set(Ax, i, re, im);
      }
      for (let i = 0; i < n; i++) {
        const [ar, ai] = get(Ax, i);
        const [yr, yi] = get(y, i);
        const [zr, zi] = cm([-0.75, dtype === 'c128' ? 0.125 : 0], z, i);
        set(y, i, 1.5 * ar - 0.5 * yr + zr, 1.5 * ai - 0.5 * yi + zi);
      }
      const dot = (u: Float64Array, v: Float64Array): [number, number] => {
        let re = 0;
        let im = 0;
        for (let i = 0; i < n; i++) {
          const [ur, ui] = get(u, i);
          const [vr, vi] = get(v, i);
          re += ur * vr + ui * vi;
          im += ur * vi - ui * vr;
        }
        return [re, im];
      };
      const d1 = dot(x, y);
      for (let i = 0; i < n; i++) {
        let d = 1;
        if (pre === 'jacobi') {
          for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) if (A.colIdx[p] === i) d = 1 / A.values[c * p];
        }
        const [yr, yi] = get(y, i);
        set(z, i, d * yr, d * yi);
      }
      for (let i = 0; i < n; i++) {
        const [zr, zi] = get(z, i);
        const [xr, xi] = get(x, i);
        set(z, i, 0.3 * zr + xr, 0.3 * zi + xi);
      }
      const nz = Math.sqrt(dot(z, z)[0]);
      const d2 = dot(z, y);
      const close = (got: number, want: number, scale: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 * scale);
      close(fused.out[0][0], d1[0], Math.sqrt(dot(x, x)[0] * dot(y, y)[0]));
      close(fused.out[0][1], d1[1], Math.sqrt(dot(x, x)[0] * dot(y, y)[0]));
      close(fused.out[1][0], nz, nz);
      expect(fused.out[1][1]).toBe(0);
      close(fused.out[2][0], d2[0], nz * Math.sqrt(dot(y, y)[0]));
      for (let i = 0; i < c * n; i++) {
        close(fused.vs[0][i], z[i], nz);
        close(fused.vs[1][i], y[i], Math.sqrt(dot(y, y)[0]));
      }
      ops.dispose();
      M.dispose();
    });
  }

  it('wait for an operation in flight, and decline where the solver replaced the product', async () => {
    const n = 300;
    const M = B.upload(randomMatrix(n, 3, true));
    const ops = cpuSolverOps(B, M, 'none');
    const big = B.vector('f64', 100_000);
    big.view().fill(1);
    // the first n entries of big, as a vector of the system's length
    const head = { ptr: big.ptr, length: n, dtype: 'f64' } as unknown as CpuVector;
    // the pooled scal is in flight: the sequence must not run before it (9·n, not n)
    const scaled = blas.scal(B, [3, 0], big);
    expect(sequenceNow(ops, [['dot', head, head]])).toBeUndefined();
    const d = sequence(ops, [['dot', head, head]]);
    await scaled;
    expect(await d).toEqual([[9 * n, 0]]);
    expect(ops.sequence!([['dot', head, head]], { ...ops, spmv: async () => {} })).toBeUndefined();
    big.dispose();
    ops.dispose();
    M.dispose();
  });

  it("apply the solver's own preconditioner where it is not the path's", async () => {
    const n = 300;
    const A = randomMatrix(n, 5, false);
    const M = B.upload(A);
    const d = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) if (A.colIdx[p] === i) d[i] = 1 / A.values[p];
    const ops = cpuSolverOps(B, M, 'jacobi');
    const calls: number[] = [];
    // twice the Jacobi preconditioner, through the path's own operations
    const wrapped: SolverOps<CpuVector> = {
      ...ops,
      precondition: async (r, z) => {
        calls.push(1);
        await ops.precondition!(r, z);
        await ops.scal([2, 0], z);
      },
    };
    const rnd = mulberry32(2);
    const r0 = Float64Array.from({ length: n }, () => rnd() - 0.5);
    const [r, z] = [vectorOf(ops, r0), ops.vector()];
    // at once only without the solver's preconditioner among the steps
    expect(sequenceNow(wrapped, [['precondition', r, z]])).toBeUndefined();
    expect(sequenceNow(wrapped, [['nrm2', z]])).toEqual([[0, 0]]);
    const out = await sequence(wrapped, [
      ['scal', [2, 0], r],
      ['precondition', r, z],
      ['dot', r, z],
    ]);
    expect(calls.length).toBe(1);
    const zs = z.view();
    let dot = 0;
    for (let i = 0; i < n; i++) {
      expect(zs[i]).toBe(2 * (d[i] * (2 * r0[i])));
      dot += 2 * r0[i] * zs[i];
    }
    expect(Math.abs(out[0][0] - dot)).toBeLessThanOrEqual(1e-12 * Math.abs(dot) + 1e-300);
    for (const v of [r, z]) ops.release(v);
    ops.dispose();
    M.dispose();
  });

  it('leave MINRES, GMRES and BiCGSTAB bit for bit as they were (with and without the sequences, own and wrapped preconditioners)', async () => {
    const n = 300;
    for (const [method, symmetric] of [
      [minres, true],
      [gmres, false],
      [bicgstab, false],
    ] as const) {
      const M = B.upload(randomMatrix(n, 9, symmetric));
      for (const pre of ['none', 'jacobi'] as const) {
        const ops = cpuSolverOps(B, M, pre);
        const wrapped = pre === 'jacobi' ? { ...ops, precondition: (r: CpuVector, z: CpuVector) => ops.precondition!(r, z) } : ops;
        const b = vectorOf(ops, Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1)));
        const results = [];
        for (const o of [ops, wrapped, { ...ops, sequence: undefined, sequenceNow: undefined }]) {
          const r = await method(o, b, { tol: 1e-10, maxIter: 200 });
          results.push({ it: r.iterations, reason: r.reason, x: bits(r.x.view()), h: bits(r.history) });
          o.release(r.x);
        }
        expect(results[0].it, `${method.name} ${pre}: ${results[0].reason}`).toBeGreaterThan(5);
        expect(results[1]).toEqual(results[0]);
        expect(results[2]).toEqual(results[0]);
        ops.release(b);
        ops.dispose();
      }
      M.dispose();
    }
  });
});
