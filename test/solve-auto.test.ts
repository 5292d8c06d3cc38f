/**
 * rt.solve's 'auto' between a sparse direct factorization and the Krylov candidates: on every square
 * shared matrix the choice follows the rule (chooseDirect on rt.estimateFactorCost's estimate) and a
 * factorized answer meets tol by a true residual recomputed here; a large poisson3D stays Krylov; a
 * singular factor falls back to Krylov in 'auto' and is a typed error for an explicit 'direct'; a
 * caller's method or preconditioner wins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { GpuUnavailableError, SingularMatrixError, UnsupportedError } from '../src/errors.js';
import { AMG_MIN_DIAMETER, AMG_MIN_DIAMETER_GPU, chooseDirect, chooseSolve, DIRECT_MAX_N, f64ResidualBound, GPU_CHEBYSHEV_MIN_N, seedSymmetricAbsNorms } from '../src/solvers/solve.js';
import { solveStructure } from '../src/solvers/structure.js';
import type { Factorization as KeptFactor } from '../src/solvers/direct/factor.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

/** Whether A equals Aᵀ entry for entry (real matrices), written here from the CSR arrays. */
function exactlySymmetric(A: CSRMatrix): boolean {
  if (A.dtype === 'c64' || A.dtype === 'c128') return false;
  const at = new Map<number, number>();
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) at.set(i * A.cols + A.colIdx[p], (at.get(i * A.cols + A.colIdx[p]) ?? 0) + A.values[p]);
  for (const [k, v] of at) if ((at.get((k % A.cols) * A.cols + Math.floor(k / A.cols)) ?? 0) !== v) return false;
  return true;
}

const BUDGET = 2048 * 1048576;

describe("rt.solve 'auto': a direct factorization where the rule says so", () => {
  it('every square shared matrix: the rule decides, and a factorized answer meets tol', async () => {
    const chosen: Record<string, string> = {};
    for (const name of sharedMatrixNames()) {
      const A = loadShared(name);
      if (A.rows !== A.cols) continue;
      const complex = A.dtype === 'c64' || A.dtype === 'c128';
      const est = rt.estimateFactorCost(A, exactlySymmetric(A) ? 'cholesky' : 'lu');
      const expected = A.rows <= DIRECT_MAX_N && chooseDirect(est, A.rows, A.nnz, complex, BUDGET).direct;
      const h = rt.upload(A);
      const e = rt.explain('solve', h);
      expect(e.method === 'direct', name).toBe(expected);
      expect(e.direct, name).toMatchObject({ fillNnz: est.fillNnz, flops: est.flops, ordering: est.ordering });
      expect(e.reasons.join(' '), name).toMatch(expected ? /method direct \(a sparse factorization on the host CPU/ : /no direct factorization/);
      const b = new Float64Array(A.rows * (complex ? 2 : 1));
      for (let i = 0; i < A.rows; i++) b[(complex ? 2 : 1) * i] = 1;
      const r = await rt.solve(h, b, { tol: 1e-8, maxIter: 2000 });
      const t = trueResidual(A, r.x, b);
      expect(r.relativeResidual, name).toBeCloseTo(t, 10);
      if (r.method === 'direct') {
        expect(expected, name).toBe(true);
        expect([r.converged, r.iterations, r.preconditioner, r.path], name).toEqual([true, 0, 'none', 'cpu']);
        expect(t, name).toBeLessThanOrEqual(1e-8);
        expect(r.factor!.n, name).toBe(A.rows);
      } else if (expected) {
        // the factorization failed (singular) or missed tol: the outcome says why
        expect(r.directFallback, name).toMatch(/SingularMatrixError|NotPositiveDefiniteError|above tol/);
      }
      chosen[name] = r.method + (r.directFallback ? ' after a failed factorization' : '');
      h.dispose();
    }
    // the small matrices where SciPy's spsolve beat our Krylov default 10–100× are factorized
    for (const name of ['494_bus', 'olm1000', 'young1c', 'west0479', 'bcsstk13', 'bcsstk01', 'qc324', 't1']) expect(chosen[name], name).toBe('direct');
    // dwt_992 and rajat01 are singular: Krylov after the factorization says so
    for (const name of ['dwt_992', 'rajat01']) expect(chosen[name], name).toMatch(/after a failed factorization$/);
  });

  it('a large poisson3D stays Krylov: too many unknowns to plan, or too many flops', async () => {
    const big = rt.explain('solve', rt.upload(poisson3D(32)));
    expect(big.method).toBe('cg');
    expect(big.direct).toBeUndefined();
    expect(big.reasons.join(' ')).toMatch(/32768 unknowns > 20000/);
    const A = poisson3D(24);
    const h = rt.upload(A);
    const e = rt.explain('solve', h);
    expect(e.method).toBe('cg');
    expect(e.reasons.join(' ')).toMatch(/no direct factorization: fill \d+ entries .* flops/);
    expect(chooseDirect(e.direct!, A.rows, A.nnz, false, BUDGET).direct).toBe(false);
    const b = new Float64Array(A.rows).fill(1);
    const r = await rt.solve(h, b, { tol: 1e-6 });
    expect([r.method, r.converged]).toEqual(['cg', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-6);
  });

  it("a singular matrix: 'auto' falls back to Krylov and says so, explicit 'direct' is a SingularMatrixError", async () => {
    // rank one, symmetric with a positive diagonal: Cholesky, LDLᵀ and LU all find the zero pivot
    const A = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 2, 4), Int32Array.of(0, 1, 0, 1), Float64Array.of(1, 2, 2, 4));
    const h = rt.upload(A);
    expect(rt.explain('solve', h).method).toBe('direct');
    const b = Float64Array.of(1, 2);
    const r = await rt.solve(h, b);
    expect(r.method).not.toBe('direct');
    expect(r.directFallback).toMatch(/SingularMatrixError.*Krylov/);
    expect(r.relativeResidual).toBeCloseTo(trueResidual(A, r.x, b), 12);
    await expect(rt.solve(h, b, { method: 'direct' })).rejects.toThrow(SingularMatrixError);
  });

  it("the caller's method wins: a Krylov method, a preconditioner, or 'direct' whatever it costs", async () => {
    const A = poisson2D(12);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i));
    expect((await rt.solve(h, b)).method).toBe('direct');
    expect((await rt.solve(h, b, { method: 'cg' })).method).toBe('cg');
    expect((await rt.solve(h, b, { preconditioner: 'jacobi' })).method).toBe('cg');
    // explicit 'direct' on a matrix the rule leaves to Krylov (f32 storage: factorized in f64)
    const P = poisson3D(24).astype('f32');
    const d = await rt.solve(rt.upload(P), new Float64Array(P.rows).fill(1), { method: 'direct', tol: 1e-10 });
    expect([d.method, d.factor!.kind, d.converged]).toEqual(['direct', 'cholesky', true]);
    expect(trueResidual(P, d.x, new Float64Array(P.rows).fill(1))).toBeLessThanOrEqual(1e-10);
    await expect(rt.solve(h, b, { method: 'direct', preconditioner: 'ic0' })).rejects.toThrow(UnsupportedError);
    // an AbortSignal aborted before the call: nothing runs
    const ac = new AbortController();
    ac.abort();
    expect((await rt.solve(h, b, { signal: ac.signal })).reason).toBe('aborted');
  });

  it("a factorization that meets tol: explain's method, the answer of a fresh runtime and of forced 'direct', the same handle twice; a path asked for still checked first", async () => {
    // the path race and the solver ops wait until a Krylov solve runs (runSolve)
    const fresh = await createRuntime({ workers: 2 });
    try {
      for (const [name, A] of [['poisson2D(10)', poisson2D(10)], ['west0479', loadShared('west0479')], ['young1c', loadShared('young1c')]] as const) {
        const c = A.dtype === 'c128' ? 2 : 1;
        const b = Float64Array.from({ length: A.rows * c }, (_, i) => Math.sin(i + 1));
        const h = rt.upload(A);
        expect(rt.explain('solve', h).method, name).toBe('direct');
        const [r1, r2, forced] = [await rt.solve(h, b), await rt.solve(h, b), await rt.solve(h, b, { method: 'direct' })];
        const other = await fresh.solve(fresh.upload(A), b);
        expect([r1.method, r2.method, other.method, r1.path, r1.converged], name).toEqual(['direct', 'direct', 'direct', 'cpu', true]);
        expect(trueResidual(A, r1.x, b), name).toBeLessThanOrEqual(1e-8);
        const scale = Math.max(...Array.from(r1.x, Math.abs));
        for (const r of [r2, forced, other]) {
          expect(r.x.length, name).toBe(r1.x.length);
          let diff = 0;
          for (let i = 0; i < r.x.length; i++) diff = Math.max(diff, Math.abs(r.x[i] - r1.x[i]));
          expect(diff, name).toBeLessThanOrEqual(1e-10 * scale);
        }
        await expect(rt.solve(h, b, { path: 'gpu' }), name).rejects.toThrow(GpuUnavailableError);
        h.dispose();
      }
    } finally {
      fresh.dispose();
    }
  });

  it("the answer's factor info holds plain values (no accessors: V8 kept each solve's factor through its young-generation collections)", async () => {
    for (const name of ['t1', 'west0479', '494_bus']) {
      const A = loadShared(name);
      const h = rt.upload(A);
      const r = await rt.solve(h, new Float64Array(A.rows).fill(1));
      h.dispose();
      const info = r.factor!;
      for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(info))) expect(d.get, `${name} ${k}`).toBeUndefined();
      expect(JSON.parse(JSON.stringify(info)).flops, name).toBe(info.flops);
      expect(r.relativeResidual, name).toBeLessThanOrEqual(1e-8);
    }
  });

  it('the CSR an upload keeps for its solves: the same structure and answer in every format, unchanged by later writes to the input', async () => {
    // unsorted, with a duplicate (summed: 2 + 2) and an explicit zero, nonsymmetric: 6×6
    const rowPtr = Int32Array.of(0, 3, 6, 8, 11, 13, 16);
    const colIdx = Int32Array.of(1, 0, 0, 1, 3, 0, 2, 4, 3, 5, 2, 4, 1, 5, 3, 4);
    const values = Float64Array.of(1, 2, 2, 5, 0, -1, 6, 1, 7, -2, 1, 8, 1, 9, 2, -1);
    const A = new CSRMatrix(6, 6, 'f64', rowPtr, colIdx, values);
    const canonical = A.toCSR();
    const b = Float64Array.from({ length: 6 }, (_, i) => i + 1);
    const ref = await rt.solve(rt.upload(A, { format: 'csr' }), b);
    expect(trueResidual(canonical, ref.x, b)).toBeLessThanOrEqual(1e-12);
    for (const format of ['auto', 'sell', 'ell', 'csr'] as const) {
      const h = rt.upload(A, { format });
      values.fill(3); // the handle is a copy: nothing of its structure or answer may follow the input
      const e = rt.explain('solve', h);
      const r = await rt.solve(h, b);
      values.set([1, 2, 2, 5, 0, -1, 6, 1, 7, -2, 1, 8, 1, 9, 2, -1]);
      expect([r.method, e.method, e.structure], format).toEqual([ref.method, 'direct', rt.explain('solve', rt.upload(canonical, { format: 'csr' })).structure]);
      expect(trueResidual(canonical, r.x, b), format).toBeLessThanOrEqual(1e-12);
      for (let i = 0; i < 6; i++) expect(r.x[i], `${format} x[${i}]`).toBeCloseTo(ref.x[i], 12);
      h.dispose();
    }
  });
});

describe("rt.solve 'direct': the residual bound's norms of a symmetric A seeded from the factor", () => {
  it("the factor's ‖A‖∞ gives the bound the pass over A gives, bit for bit (f64 and f32, mixed signs and magnitudes)", async () => {
    const cases = [loadShared('494_bus'), loadShared('bcsstk01'), poisson2D(9)];
    const P = poisson2D(12);
    // mixed magnitudes and signs, symmetric: aᵢⱼ scaled by sᵢ·sⱼ
    const sc = Float64Array.from({ length: P.rows }, (_, i) => (i % 3 === 0 ? -1 : 1) * 10 ** ((i % 7) - 3));
    const mixed = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) mixed[k] *= sc[i] * sc[P.colIdx[k]];
    cases.push(new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, mixed), loadShared('494_bus').astype('f32'));
    for (const A of cases) {
      const F = await rt.factor(A, { kind: 'ldlt' });
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(i));
      const { x } = await F.solve(b);
      const copy = () => new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, A.values);
      const plain = f64ResidualBound(copy(), x, 1.5);
      const seeded = copy();
      seedSymmetricAbsNorms(seeded, (F as KeptFactor).rowAbsSumMax!);
      expect(f64ResidualBound(seeded, x, 1.5)).toBe(plain);
      expect(plain).toBeGreaterThan(0);
      F.dispose();
    }
  });
});

describe("rt.solve 'auto': the preconditioner of a Krylov solve", () => {
  /** |aᵢᵢ| ≥ Σⱼ≠ᵢ |aᵢⱼ| for every row, from a dense copy (real) or moduli (complex), written here. */
  function dominant(A: CSRMatrix): boolean {
    const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
    for (let i = 0; i < A.rows; i++) {
      const row = new Map<number, [number, number]>();
      for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) {
        const [re, im] = row.get(A.colIdx[p]) ?? [0, 0];
        row.set(A.colIdx[p], [re + A.values[c * p], im + (c === 2 ? A.values[c * p + 1] : 0)]);
      }
      let off = 0;
      for (const [j, [re, im]] of row) if (j !== i) off += Math.hypot(re, im);
      const [dr, di] = row.get(i) ?? [0, 0];
      if (Math.hypot(dr, di) < off * (1 - 1e-12)) return false;
    }
    return true;
  }

  it('Jacobi for a diagonally dominant SPD matrix, IC(0) otherwise; the structure check matches a plain one', async () => {
    for (const name of sharedMatrixNames()) {
      const A = loadShared(name);
      if (A.rows !== A.cols) continue;
      const e = rt.explain('solve', rt.upload(A), { method: 'auto', preconditioner: 'auto' });
      expect(e.structure.diagonallyDominant, name).toBe(dominant(A));
    }
    const P = poisson3D(12);
    const e = rt.explain('solve', rt.upload(P), { method: 'cg' });
    expect([e.structure.diagonallyDominant, e.preconditioner]).toEqual([true, 'jacobi']);
    expect(e.reasons.join(' ')).toMatch(/diagonally dominant/);
    // a 2×2 symmetric, not dominant, positive definite
    const N = rt.upload(new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 2, 4), Int32Array.of(0, 1, 0, 1), Float64Array.of(1, 1.2, 1.2, 2)));
    expect(rt.explain('solve', N, { method: 'cg' }).preconditioner).toBe('ic0');
    // the pseudo-diameter of a grid is exact (d·(m − 1)); a large Laplacian-like matrix of small
    // diameter gets Jacobi, not AMG (Jacobi-CG's iterations grow with the diameter)
    expect(e.structure.diameter).toBe(3 * 11);
    expect(rt.explain('solve', rt.upload(poisson2D(20)), { method: 'cg' }).structure.diameter).toBe(38);
    const wide = rt.explain('solve', rt.upload(poisson3D(40)));
    expect([wide.structure.diameter! < AMG_MIN_DIAMETER, wide.preconditioner]).toEqual([true, 'jacobi']);
    expect(wide.reasons.join(' ')).toMatch(/jacobi, not amg: the graph's pseudo-diameter 117/);
    // the fused Jacobi CG meets tol by the true residual
    const b = new Float64Array(P.rows).fill(1);
    const r = await rt.solve(rt.upload(P), b, { tol: 1e-10, method: 'cg' });
    expect([r.method, r.preconditioner, r.converged]).toEqual(['cg', 'jacobi', true]);
    expect(trueResidual(P, r.x, b)).toBeLessThanOrEqual(1e-10);
    expect(r.relativeResidual).toBeCloseTo(trueResidual(P, r.x, b), 12);
  });

  it('a GPU path whose resident Chebyshev-CG fuses its steps into the SpMV: chebyshev from GPU_CHEBYSHEV_MIN_N rows of a diagonally dominant HPD matrix, else jacobi; the CPU path keeps jacobi', () => {
    // poisson3D(8)'s structure (diagonally dominant, SPD) with n set and a diameter under both AMG thresholds
    const base = { ...solveStructure(poisson3D(8)), diameter: Math.min(AMG_MIN_DIAMETER, AMG_MIN_DIAMETER_GPU) - 1 };
    const cpu = { label: 'CPU', triangular: true, gpu: false };
    const fused = { label: 'WebGPU', triangular: true, gpu: true, chebyshevFused: true };
    const unfused = { ...fused, chebyshevFused: false };
    for (const n of [GPU_CHEBYSHEV_MIN_N - 1, GPU_CHEBYSHEV_MIN_N, 4 * GPU_CHEBYSHEV_MIN_N]) {
      const s = { ...base, n };
      const g = chooseSolve(s, fused, {});
      const want = n >= GPU_CHEBYSHEV_MIN_N ? 'chebyshev' : 'jacobi';
      expect(g.candidates.map((c) => c.preconditioner), `n = ${n}`).toEqual([want, 'jacobi']);
      expect(g.reasons.join(' ')).toMatch(want === 'chebyshev' ? /preconditioner chebyshev: A is diagonally dominant .* each of its steps fused into A's SpMV/ : new RegExp(`chebyshev from ${GPU_CHEBYSHEV_MIN_N} rows`));
      expect(chooseSolve(s, unfused, {}).candidates[0].preconditioner).toBe('jacobi');
      expect(chooseSolve(s, cpu, {}).candidates[0].preconditioner).toBe('jacobi');
      // not diagonally dominant: not this rule (IC(0) where the path solves triangular systems)
      expect(chooseSolve({ ...s, diagonallyDominant: false }, fused, {}).candidates[0].preconditioner).toBe('ic0');
    }
  });

  it("AMG from the path's diameter threshold: the CPU's, and a GPU path's (Jacobi resident there)", () => {
    // poisson3D(8)'s structure (Laplacian-like, SPD) with n and the diameter set: the rule alone
    const s = { ...solveStructure(poisson3D(8)), n: 118 ** 3 };
    const cpu = { label: 'CPU', triangular: true, gpu: false };
    const gpu = { label: 'WebGPU', triangular: true, gpu: true };
    for (const d of [AMG_MIN_DIAMETER - 1, AMG_MIN_DIAMETER, AMG_MIN_DIAMETER_GPU - 1, AMG_MIN_DIAMETER_GPU]) {
      const c = chooseSolve({ ...s, diameter: d }, cpu, {});
      expect(c.candidates[0].preconditioner, `CPU, diameter ${d}`).toBe(d >= AMG_MIN_DIAMETER ? 'amg' : 'jacobi');
      const g = chooseSolve({ ...s, diameter: d }, gpu, {});
      expect(g.candidates[0].preconditioner, `GPU, diameter ${d}`).toBe(d >= AMG_MIN_DIAMETER_GPU ? 'amg' : 'jacobi');
      expect(g.reasons.join(' ')).toMatch(d >= AMG_MIN_DIAMETER_GPU ? /WebGPU path's threshold/ : /jacobi, not amg: .* the WebGPU path's threshold/);
    }
  });
});

describe("rt.solve 'auto': the method of a nonsymmetric Krylov solve", () => {
  /** poisson2D(m) plus c times an upwind x derivative: diagonal 4 + c, left neighbour −1 − c (nonsymmetric, diagonally dominant, positive diagonal) */
  function upwind(m: number, c: number): CSRMatrix {
    const P = poisson2D(m);
    const values = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) values[k] += P.colIdx[k] === i ? c : P.colIdx[k] === i - 1 ? -c : 0;
    return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
  }
  const cpu = { label: 'CPU', triangular: true, gpu: false };
  const gpu = { label: 'WebGPU', triangular: false, gpu: true };

  it('BiCGSTAB first where A is diagonally dominant with a positive diagonal, GMRES(30) first otherwise (west0479, rajat01: zero diagonals)', () => {
    const s = solveStructure(upwind(12, 1));
    expect([s.hermitian, s.positiveDiagonal, s.diagonallyDominant, s.finite]).toEqual([false, true, true, true]);
    for (const path of [cpu, gpu]) {
      const c = chooseSolve(s, path, {});
      expect(c.candidates.map((k) => k.method), path.label).toEqual(['bicgstab', 'gmres']);
      expect(c.candidates[0].preconditioner).toBe(path.triangular ? 'ilu0' : 'jacobi');
      expect(c.reasons.join(' ')).toMatch(/method bicgstab: not Hermitian, with a positive diagonal and diagonally dominant rows .*; gmres\(30\) if it breaks down or stagnates/);
      for (const other of [{ diagonallyDominant: false }, { positiveDiagonal: false }, { finite: false }]) {
        expect(chooseSolve({ ...s, ...other }, path, {}).candidates.map((k) => k.method), JSON.stringify(other)).toEqual(['gmres', 'bicgstab']);
      }
      // the caller's method is kept
      expect(chooseSolve(s, path, { method: 'gmres' }).candidates.map((k) => k.method)).toEqual(['gmres']);
    }
    for (const name of ['west0479', 'rajat01']) {
      const A = loadShared(name);
      const t = solveStructure(A);
      expect([t.hermitian, t.zeroDiagonals > 0], name).toEqual([false, true]);
      expect(chooseSolve(t, cpu, {}).candidates[0].method, name).toBe('gmres');
    }
  });

  it('an upwind convection–diffusion past the direct threshold: BiCGSTAB + ILU(0) meets tol by the true residual', async () => {
    const A = upwind(150, 1);
    expect(A.rows).toBeGreaterThan(DIRECT_MAX_N);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i));
    expect(rt.explain('solve', h).method).toBe('bicgstab');
    const r = await rt.solve(h, b, { tol: 1e-10 });
    expect([r.method, r.preconditioner, r.converged, r.methodFallback]).toEqual(['bicgstab', 'ilu0', true, undefined]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-10);
    h.dispose();
  });

  it("BiCGSTAB that stagnates (tol below what f64 resolves): GMRES goes on from its x within the same maxIter, counted as one solve", async () => {
    const A = upwind(150, 1);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i));
    const alone = await rt.solve(h, b, { tol: 1e-17, method: 'bicgstab' });
    expect(alone.reason).toBe('stagnated');
    const seen: number[] = [];
    const r = await rt.solve(h, b, { tol: 1e-17, onIteration: (it) => void seen.push(it) });
    expect([r.method, r.reason, r.converged]).toEqual(['gmres', 'stagnated', false]);
    expect(r.methodFallback).toMatch(new RegExp(`^bicgstab's recurrence met tol where its true relative residual, .*, did not \\(it stagnated\\) after ${alone.iterations} iterations: gmres went on from that iterate$`));
    expect(r.iterations).toBeGreaterThan(alone.iterations);
    expect(r.history).toHaveLength(r.iterations + 1);
    expect(seen).toEqual(Array.from({ length: r.iterations }, (_, k) => k + 1));
    // the answer at f64's floor by the reference's residual (its rounding and ours differ there by tens of
    // per cent), and no worse than BiCGSTAB's by the one reported
    expect(trueResidual(A, r.x, b)).toBeLessThan(1e-14);
    expect(r.relativeResidual).toBeLessThan(1e-14);
    expect(r.relativeResidual).toBeLessThanOrEqual(alone.relativeResidual);
    // maxIter bounds both solves together
    const capped = await rt.solve(h, b, { tol: 1e-17, maxIter: alone.iterations + 2 });
    expect(capped.iterations).toBeLessThanOrEqual(alone.iterations + 2);
    expect(capped.method).toBe('gmres');
    h.dispose();
  });
});
