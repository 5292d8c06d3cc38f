/**
 * Compact storage of f64 DIA values on the CPU path (src/cpu/spmv-plan.ts, src/formats/dia.ts exactlyF32):
 * where every value is exactly an f32 the values are kept as f32 and widened on load (dia_f64f32,
 * cg_dia_direction(_x)_f64f32). Checked against the f64-storage upload of the same matrix bit for bit (the
 * SpMV with α, β; CG's iterates, history and x with Jacobi, converged and at maxIter) and against a plain
 * f64 JavaScript product written in the kernels' order, at edge sizes on 1–3 threads and the plain build;
 * one value that is not an f32 (0.1, NaN, 1e-300, 1e300) anywhere keeps f64 storage; rt.explain says it.
 */
import { describe, expect, it, vi } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { compactUniform, uploadMatrix } from '../src/cpu/spmv-plan.js';
import type { CpuMatrix } from '../src/cpu/resident.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix, exactlyF32 } from '../src/formats/dia.js';
import { convert } from '../src/formats/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { cg } from '../src/solvers/krylov/cg.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { trueResidual } from './solve-reference.js';
import { bandedMatrix } from './banded.js';
import { kernelsOf } from './kernels-of.js';
import { cpuBackends, key, SETUPS } from './cpu-setups.js';

const backends = cpuBackends();

/** An f64 banded n×n matrix on `offsets` whose values are eighths in [−8, 8] (exact in f32), or value(i, o). */
function banded(n: number, offsets: number[], seed: number, value?: (i: number, o: number) => number): CSRMatrix {
  const g = new Prng(seed);
  return bandedMatrix(n, offsets, 'f64', (i, o) => (value ? value(i, o) : Math.round(g.next() * 128 - 64) / 8 || 0.5));
}

/** The upload with f64 storage: the path that keeps the values as they are. */
const f64Upload = (B: CpuBackend, H: DIAMatrix): CpuMatrix => uploadMatrix(B.heap, H, B.threads, 'auto', false);

/** y = α·A·x + β·y in f64 JavaScript in the DIA kernels' order: per row, 0 + Σ over ascending diagonals, then α·s + β·y. */
function diaProduct(H: DIAMatrix, x: Float64Array, y: Float64Array, alpha: number, beta: number): Float64Array {
  const out = new Float64Array(H.rows);
  for (let i = 0; i < H.rows; i++) {
    let s = 0;
    for (let d = 0; d < H.offsets.length; d++) {
      const j = i + H.offsets[d];
      if (j >= 0 && j < H.cols) s += H.data[d * H.pitch + i] * x[j];
    }
    out[i] = beta === 0 ? alpha * s : alpha * s + beta * y[i];
  }
  return out;
}

const random64 = (n: number, seed: number) => {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, (_, i) => g.next() * 2 - 1 + i * 1e-9);
};

describe('compact f64 DIA storage', () => {
  it('exactlyF32: integers, eighths, ±0, ±Inf and f32 subnormals are; 0.1, NaN, 1e-300, 1e300, 2^-149/2 are not', () => {
    for (const v of [0, -0, 1, -1, 6, 0.125, -3.5, 2 ** 24, 2 ** 100, Infinity, -Infinity, 2 ** -149, 3.4028234663852886e38]) {
      expect(exactlyF32(Float64Array.of(2, v, -1)), String(v)).toBe(true);
      expect(Object.is(Float32Array.of(v)[0], v)).toBe(true); // what the upload's f32 copy holds
    }
    for (const v of [0.1, NaN, 1e-300, 1e300, 2 ** -150, 1 + 2 ** -30]) expect(exactlyF32(Float64Array.of(1, v, 2)), String(v)).toBe(false);
  });

  for (const s of SETUPS) {
    it(`SpMV (dia_f64f32): the f64 storage's bits and f64 JavaScript's, α and β, edge sizes; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      for (const n of [1, 5, 17, 33, 1000, 4099]) {
        const H = DIAMatrix.fromCSR(banded(n, [-70, -3, -1, 0, 1, 2, 50], n + 3));
        const [Mc, Mf] = [B.upload(H), f64Upload(B, H)];
        expect([Mc.params.compact, Mf.params.compact]).toEqual([1, undefined]);
        const x0 = random64(n, 2 * n + 1);
        const y0 = random64(n, 3 * n + 7);
        const vec = (v: Float64Array) => {
          const h = B.vector('f64', n);
          h.view().set(v);
          return h;
        };
        const [x, yc, yf] = [vec(x0), vec(y0), vec(y0)];
        try {
          for (const [alpha, beta] of [[1, 0], [0.7, 0.3], [-1, 1]]) {
            (yc.view() as Float64Array).set(y0);
            (yf.view() as Float64Array).set(y0);
            const sc = { alpha: [alpha, 0] as [number, number], beta: [beta, 0] as [number, number], op: 'N' as const };
            await B.spmv(Mc, x, yc, sc);
            await B.spmv(Mf, x, yf, sc);
            const got = Array.from(yc.view() as Float64Array);
            expect(got, `n ${n}, α ${alpha}, β ${beta}`).toEqual(Array.from(yf.view() as Float64Array));
            expect(got).toEqual(Array.from(diaProduct(H, x0, y0, alpha, beta)));
          }
        } finally {
          for (const v of [x, yc, yf]) v.dispose();
          Mc.dispose();
          Mf.dispose();
        }
      }
    });
  }

  it('one value that is not an f32, first, in the middle or last, keeps f64 storage (and its products)', async () => {
    const B = backends.get('2 thread(s)')!;
    const n = 1001;
    for (const bad of [0.1, NaN, 1e-300, 1e300]) {
      for (const at of [0, n >> 1, n - 1]) {
        const H = DIAMatrix.fromCSR(banded(n, [-3, 0, 5], 9, (i, o) => (i === at && o === 0 ? bad : o === 0 ? 6 : -1)));
        const M = B.upload(H);
        const x = B.vector('f64', n);
        const y = B.vector('f64', n);
        try {
          expect(M.params.compact, `${bad} at ${at}`).toBeUndefined();
          const x0 = random64(n, 5);
          x.view().set(x0);
          await B.spmv(M, x, y, { alpha: [1, 0], beta: [0, 0], op: 'N' });
          expect(Array.from(y.view() as Float64Array)).toEqual(Array.from(diaProduct(H, x0, new Float64Array(n), 1, 0)));
        } finally {
          for (const v of [x, y, M]) v.dispose();
        }
      }
    }
  });

  for (const s of [SETUPS[1], SETUPS[2], SETUPS[3]]) {
    // poisson3D's uniform D⁻¹ (1/6) takes the _scaled products (z = c·r read from r), a varying one the others
    for (const uniform of [true, false]) it(`Jacobi-CG (cg_dia_direction(_x)${uniform ? '_scaled' : ''}_f64f32): the f64 storage's iterates, history and x bit for bit, converged and at maxIter; ${uniform ? 'uniform' : 'varying'} diagonal, ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      const P = poisson3D(14);
      // the varying diagonal: 6, 7 or 8 (exactly f32, so still compact)
      const A = uniform ? P : new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, Float64Array.from(P.values, (v, k) => (v === 6 ? 6 + (k % 3) : v)));
      const H = DIAMatrix.fromCSR(A);
      const [Mc, Mf] = [B.upload(H), f64Upload(B, H)];
      const [oc, of] = [cpuSolverOps(B, Mc, 'jacobi'), cpuSolverOps(B, Mf, 'jacobi')];
      const b = oc.vector();
      b.view().set(random64(A.rows, 11));
      try {
        for (const o of [{ tol: 1e-10 }, { tol: 1e-12, maxIter: 9 }]) {
          const { value: c, kernels } = await kernelsOf(B, () => cg(oc, b, o));
          const scaled = uniform ? '_scaled' : '';
          expect(kernels.has(`cg_dia_direction_x${scaled}_f64f32`) && kernels.has(`cg_dia_direction${scaled}_f64f32`)).toBe(true);
          const f = await cg(of, b, o);
          expect([c.reason, c.iterations]).toEqual([f.reason, f.iterations]);
          expect(c.history).toEqual(f.history);
          expect(Array.from(c.x.view())).toEqual(Array.from(f.x.view()));
          if (o.maxIter === undefined) {
            expect(c.reason).toBe('converged');
            expect(trueResidual(A, c.x.view() as Float64Array, b.view() as Float64Array)).toBeLessThan(1e-9);
          }
          oc.release(c.x);
          of.release(f.x);
        }
      } finally {
        oc.release(b);
        oc.dispose();
        of.dispose();
        Mc.dispose();
        Mf.dispose();
      }
    });
  }

  it("rt.explain's CPU estimate counts a compact DIA's values at 4 bytes, others' at 8, and its time from those bytes", async () => {
    // given figures (1 GB/s, no fixed cost): the estimate is bytes / 1e6 ms, so both read the bytes counted
    const rt = await createRuntime({ backend: 'cpu', workers: 1, calibration: { cpu: { overheadMs: 0, bandwidthGBs: 1, threads: 1 } } });
    try {
      const n = 1000;
      const offsets = [-31, -1, 0, 3, 40];
      const cases: Array<[string, CSRMatrix]> = [
        ['eighths', banded(n, offsets, 5)],
        ['poisson3D(10)', poisson3D(10)],
        ['one 0.1', banded(n, offsets, 5, (i, o) => (i === 500 && o === 0 ? 0.1 : 2))],
        ['thirds', banded(n, offsets, 5, (i, o) => (i + o) / 3)],
      ];
      for (const [name, A] of cases) {
        // the DIA the CPU path runs: its arrays as stored, the values' bytes by this test's own look at them
        const D = convert(A, 'dia') as DIAMatrix;
        let allF32 = true;
        for (const v of D.data) if (Math.fround(v) !== v) allF32 = false;
        expect(allF32, name).toBe(name === 'eighths' || name === 'poisson3D(10)');
        const vectors = (A.rows + A.cols) * 8;
        const dia = rt.explain('spmv', A, { format: 'dia' }).estimates.cpu!;
        expect(dia.bytes, name).toBe(D.offsets.length * 4 + D.data.length * (allF32 ? 4 : 8) + vectors);
        expect(dia.ms, name).toBeCloseTo(dia.bytes / 1e6, 12);
        // CSR keeps f64 values whatever they are
        const csr = rt.explain('spmv', A, { format: 'csr' }).estimates.cpu!;
        expect(csr.bytes, name).toBe(A.values.length * 12 + (A.rows + 1) * 4 + vectors);
      }
    } finally {
      rt.dispose();
    }
  });

  it('rt.spmv with the path left to the runtime reads the values once per matrix, not on every call', async () => {
    const rt = await createRuntime({ workers: 1 }); // backend 'auto': each call chooses its path
    const fround = vi.spyOn(Math, 'fround');
    try {
      const A = poisson3D(12);
      const h = rt.upload(A);
      const x = rt.vector(random64(A.cols, 4));
      const y = rt.vector(A.rows, 'f64');
      await rt.spmv(h, x, { y }); // the first: features, conversion, upload
      fround.mockClear();
      for (let k = 0; k < 5; k++) await rt.spmv(h, x, { y });
      expect(fround.mock.calls.length).toBe(0);
      expect(rt.explain('spmv', h).reasons.join(' | ')).toMatch(/exactly f32/);
      // and the product is A·x
      const want = new Float64Array(A.rows);
      const xs = random64(A.cols, 4);
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) want[i] += A.values[k] * xs[A.colIdx[k]];
      const got = await y.read();
      for (let i = 0; i < A.rows; i++) expect(Math.abs(got[i] - want[i])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(want[i])));
    } finally {
      fround.mockRestore();
      rt.dispose();
    }
  });

  it("rt.explain('spmv') says whether the CPU keeps the values as f32; rt.solve's answer is the f64 reference's", async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      const A = poisson3D(12);
      const say = (M: CSRMatrix) => rt.explain('spmv', rt.upload(M), { format: 'dia' }).reasons.join(' | ');
      expect(say(A)).toMatch(/exactly f32/);
      const B = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values, (v, k) => (k === 7 ? v + 0.1 : v)));
      expect(say(B)).not.toMatch(/exactly f32/);
      const b = random64(A.rows, 3);
      const r = await rt.solve(rt.upload(A), b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-10 });
      expect(r.converged).toBe(true);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-10 * (1 + 1e-9));
    } finally {
      rt.dispose();
    }
  });
});

/** compactUniform by its definition: a 4-row group is uniform where every diagonal's 4 slots are Object.is its const. */
function uniformReference(D: DIAMatrix, consts: Float64Array): Uint8Array {
  const groups = D.rows >> 2;
  const flags = new Uint8Array(groups + 2);
  for (let g = 0; g < groups; g++) {
    let ok = 1;
    for (let d = 0; d < D.offsets.length; d++) for (let r = 4 * g; r < 4 * g + 4; r++) if (!Object.is(D.data[d * D.pitch + r], consts[d])) ok = 0;
    flags[g] = ok;
  }
  return flags;
}

/** poisson2D(m) with some off-diagonal pairs (i, i ± 1) set to w instead of −1 (symmetric, still diagonally dominant). */
function perturbed(m: number, at: number[], w: number): CSRMatrix {
  const P = poisson2D(m);
  const values = Float64Array.from(P.values);
  for (const i of at) {
    for (const [r, c] of [[i, i + 1], [i + 1, i]]) {
      for (let k = P.rowPtr[r]; k < P.rowPtr[r + 1]; k++) if (P.colIdx[k] === c) values[k] = w;
    }
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe("compact f64 DIA storage: a stencil's uniform 4-row groups (…_f64f32u)", () => {
  it('compactUniform: the f32 copy, each diagonal\'s most frequent value, the groups by definition (±0 apart), null at most half uniform', () => {
    const zeroDiag = (sign: number) => DIAMatrix.fromCSR(banded(400, [-7, -1, 0, 1, 7], 3, (i, o) => (o === 7 ? (i === 201 ? 0 * sign : 0) : o === 0 ? 4 : -1)), { maxFill: Infinity });
    const cases: [string, DIAMatrix, boolean][] = [
      ['poisson2D(40)', DIAMatrix.fromCSR(poisson2D(40)), true],
      ['poisson3D(32)', DIAMatrix.fromCSR(poisson3D(32)), true],
      ['perturbed', DIAMatrix.fromCSR(perturbed(40, [85, 86, 300, 1203, 1599 - 40], -0.5)), true],
      ['a diagonal of stored zeros, one −0', zeroDiag(-1), true],
      ['poisson3D(14): too few', DIAMatrix.fromCSR(poisson3D(14)), false],
      ['eighths', DIAMatrix.fromCSR(banded(999, [-70, -3, -1, 0, 1, 2, 50], 4)), false],
    ];
    for (const [name, D, some] of cases) {
      const to = new Float32Array(D.data.length).fill(NaN);
      const u = compactUniform(D, to);
      expect(Array.from(to), name).toEqual(Array.from(Float32Array.from(D.data)));
      expect(u !== null, name).toBe(some);
      if (!u) continue;
      expect(Array.from(u.flags), name).toEqual(Array.from(uniformReference(D, u.consts)));
      expect(u.flags.reduce((a, b) => a + b, 0), name).toBeGreaterThan((D.rows >> 2) / 2);
      if (name.startsWith('poisson') || name === 'perturbed') expect(Array.from(u.consts), name).toEqual(Array.from(D.offsets, (o) => (o === 0 ? (D.offsets.length === 5 ? 4 : 6) : -1)));
    }
    // the −0 slot's group (rows 200–203) is not uniform; with +0 it is
    const z = compactUniform(zeroDiag(-1), new Float32Array(zeroDiag(-1).data.length))!;
    expect([z.flags[50], z.flags[49], z.flags[51]]).toEqual([0, 1, 1]);
    expect(compactUniform(zeroDiag(1), new Float32Array(zeroDiag(1).data.length))!.flags[50]).toBe(1);
  });

  for (const s of SETUPS) {
    it(`Jacobi-CG and the SpMV: the f64 storage's iterates, history and x bit for bit, uniform groups and others mixed in blocks and across chunks; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      for (const [name, A] of [['poisson2D(40)', poisson2D(40)], ['perturbed', perturbed(40, [85, 86, 300, 1203, 1559], -0.5)], ['poisson3D(32)', poisson3D(32)]] as const) {
        const H = DIAMatrix.fromCSR(A);
        const [Mc, Mf] = [B.upload(H), f64Upload(B, H)];
        expect([Mc.params.uniform, Mf.params.uniform], name).toEqual([1, undefined]);
        const [oc, of] = [cpuSolverOps(B, Mc, 'jacobi'), cpuSolverOps(B, Mf, 'jacobi')];
        const b = oc.vector();
        b.view().set(random64(A.rows, 13));
        try {
          for (const o of [{ tol: 1e-10 }, { tol: 1e-12, maxIter: 7 }]) {
            const { value: c, kernels } = await kernelsOf(B, () => cg(oc, b, o));
            expect(kernels.has('cg_dia_direction_x_scaled_f64f32u') && kernels.has('cg_dia_direction_scaled_f64f32u'), name).toBe(true);
            const f = await cg(of, b, o);
            expect([c.reason, c.iterations], name).toEqual([f.reason, f.iterations]);
            expect(c.history, name).toEqual(f.history);
            expect(Array.from(c.x.view()), name).toEqual(Array.from(f.x.view()));
            if (o.maxIter === undefined) expect(trueResidual(A, c.x.view() as Float64Array, b.view() as Float64Array), name).toBeLessThan(1e-9);
            oc.release(c.x);
            of.release(f.x);
          }
          // the unscaled kernels (a varying D⁻¹ is not what these matrices have: z given) and the SpMV
          const [z, p1, p2, q1, q2] = [0, 1, 2, 3, 4].map((k) => {
            const v = oc.vector();
            v.view().set(random64(A.rows, 20 + k));
            return v;
          });
          try {
            const pf = oc.vector();
            const qf = oc.vector();
            pf.view().set(p1.view());
            qf.view().set(q1.view());
            const got = await oc.cgProductDirection!(0.37, z, p1, q1);
            const want = await of.cgProductDirection!(0.37, z, pf, qf);
            expect(got, name).toBe(want);
            expect(Array.from(q1.view()), name).toEqual(Array.from(qf.view()));
            expect(Array.from(p1.view()), name).toEqual(Array.from(pf.view()));
            await oc.spmv(p2, q2, 1, 0);
            await of.spmv(p2, qf, 1, 0);
            expect(Array.from(q2.view()), name).toEqual(Array.from(qf.view()));
            oc.release(pf);
            oc.release(qf);
          } finally {
            for (const v of [z, p1, p2, q1, q2]) oc.release(v);
          }
        } finally {
          oc.release(b);
          oc.dispose();
          of.dispose();
          Mc.dispose();
          Mf.dispose();
        }
      }
    });
  }
});
