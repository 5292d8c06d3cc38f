/**
 * An f32 matrix too ill-conditioned for f32 corrections (κ ≈ 1.7·10⁷: a grid Laplacian shifted by 2^-21,
 * every value exact in f32) solved below what f32 reaches: the f32 recurrence levels off, rt.solve says
 * so (precisionFallback) and goes on in f64 from that iterate — where it ran CG to maxIter (20 000
 * iterations) before. Checked against plain f64 JavaScript written here: a dense Cholesky solve of the
 * matrix's own (f32) values, and the residual of an independent product; maxIter, an abort during the
 * f64 part, NaN and a well-conditioned matrix (no fallback) too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { matvec, relDiff as relErr, trueResidual } from './solve-reference.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

/** The m×m grid's graph Laplacian (4-neighbour, unit weights) plus shift·I, in f32 (exact for shift = 2^-21). */
function shiftedLaplacian(m: number, shift: number): CSRMatrix {
  const n = m * m;
  const rowPtr = new Int32Array(n + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let y = 0; y < m; y++) {
    for (let x = 0; x < m; x++) {
      const i = y * m + x;
      const nb = [i - m, i - 1, i + 1, i + m].filter((j, k) => (k === 0 ? y > 0 : k === 1 ? x > 0 : k === 2 ? x + 1 < m : y + 1 < m));
      for (const j of [...nb, i].sort((a, b) => a - b)) {
        cols.push(j);
        vals.push(j === i ? nb.length + shift : -1);
      }
      rowPtr[i + 1] = cols.length;
    }
  }
  const values = Float32Array.from(vals);
  // the test's premise: the shift survives in f32 (else A is the singular Laplacian)
  for (let k = 0; k < vals.length; k++) if (values[k] !== vals[k]) throw new Error(`shift ${shift} is not exact in f32`);
  return new CSRMatrix(n, n, 'f32', rowPtr, Int32Array.from(cols), values);
}

/** x = A⁻¹·b by a dense Cholesky factorization in f64 of A's values (A symmetric positive definite). */
function choleskySolve(A: CSRMatrix, b: Float64Array): Float64Array {
  const n = A.rows;
  const L = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) L[i][A.colIdx[k]] = A.values[k];
  for (let j = 0; j < n; j++) {
    let d = L[j][j];
    for (let k = 0; k < j; k++) d -= L[j][k] * L[j][k];
    if (!(d > 0)) throw new Error(`not positive definite at ${j}`);
    L[j][j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let s = L[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = s / L[j][j];
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= L[i][k] * y[k];
    y[i] = s / L[i][i];
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < n; k++) s -= L[k][i] * x[k];
    x[i] = s / L[i][i];
  }
  return x;
}

const SHIFT = 2 ** -21;
const TOL = 1e-10;
const A = shiftedLaplacian(16, SHIFT);
// b = A·x for a random x: every mode present, the smallest eigenvalue's too
const g = new Prng(9);
const b = matvec(A, Float64Array.from({ length: A.rows }, () => g.next() - 0.5));
const reference = choleskySolve(A, b);

/** What the answer must satisfy, by the test's own arithmetic: the residual reported is the true one, and x is the reference's to within what the residual allows (κ·tol). */
function expectTrue(r: { x: Float64Array; relativeResidual: number }, within = 2 ** -9): number {
  const rel = trueResidual(A, r.x, b);
  expect(Math.abs(r.relativeResidual - rel)).toBeLessThanOrEqual(within * rel + 1e-15);
  return rel;
}

/**
 * A's gauge-transformed Hermitian copy in c64, A_c = D·A·Dᴴ with D = diag(i^kⱼ): A's spectrum (κ ≈ 1.7e7),
 * entries ±1, ±i and the diagonal, all exact in c64; with b_c = A_c·x for a random complex x and the
 * reference A_c⁻¹·b_c = D·A⁻¹·(Dᴴ·b_c), A⁻¹ by the real Cholesky on the real and imaginary parts.
 */
function gaugeCopy(seed: number): { Ac: CSRMatrix; bc: Float64Array; ref: Float64Array } {
  const ph = new Prng(seed);
  const k = Int32Array.from({ length: A.rows }, () => Math.floor(ph.next() * 4));
  const unit = (q: number): [number, number] => [[1, 0], [0, 1], [-1, 0], [0, -1]][((q % 4) + 4) % 4] as [number, number];
  const values = new Float32Array(2 * A.values.length);
  for (let i = 0; i < A.rows; i++) {
    for (let e = A.rowPtr[i]; e < A.rowPtr[i + 1]; e++) {
      const [re, im] = unit(k[i] - k[A.colIdx[e]]);
      values[2 * e] = A.values[e] * re;
      values[2 * e + 1] = A.values[e] * im;
    }
  }
  const Ac = new CSRMatrix(A.rows, A.cols, 'c64', A.rowPtr, A.colIdx, values);
  const bc = matvec(Ac, Float64Array.from({ length: 2 * A.rows }, () => ph.next() - 0.5));
  const re = new Float64Array(A.rows);
  const im = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) {
    const [c, s] = unit(-k[i]);
    re[i] = c * bc[2 * i] - s * bc[2 * i + 1];
    im[i] = c * bc[2 * i + 1] + s * bc[2 * i];
  }
  const [yr, yi] = [choleskySolve(A, re), choleskySolve(A, im)];
  const ref = new Float64Array(2 * A.rows);
  for (let i = 0; i < A.rows; i++) {
    const [c, s] = unit(k[i]);
    ref[2 * i] = c * yr[i] - s * yi[i];
    ref[2 * i + 1] = c * yi[i] + s * yr[i];
  }
  return { Ac, bc, ref };
}

/** A c64 solve of gaugeCopy's system: at tol by its true residual, the reference's answer, and a fallback (where one ran) said as c128. */
async function expectComplexSolved(rt: Runtime, method: 'cg' | 'minres'): Promise<string | undefined> {
  const { Ac, bc, ref } = gaugeCopy(31);
  expect(trueResidual(Ac, ref, bc)).toBeLessThan(1e-12);
  const h = rt.upload(Ac);
  const r = await rt.solve(h, bc, { tol: TOL, method, preconditioner: 'jacobi', maxIter: 20000 });
  h.dispose();
  expect(r.reason).toBe('converged');
  const rel = trueResidual(Ac, r.x, bc);
  expect(rel).toBeLessThanOrEqual(TOL);
  expect(Math.abs(r.relativeResidual - rel)).toBeLessThanOrEqual(2 ** -9 * rel + 1e-15);
  expect(relErr(r.x, ref)).toBeLessThan((8 / SHIFT) * TOL);
  expect(r.iterations).toBeLessThan(2000);
  if (r.precisionFallback !== undefined) expect(r.precisionFallback).toMatch(/^c64 .* went on in c128/);
  return r.precisionFallback;
}

describe('f32 refinement falls back to f64 (CPU)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ backend: 'cpu', workers: 2 });
  });
  afterAll(() => rt?.dispose());

  it('reaches tol on κ ≈ 1.7e7 in f32 storage where f32 corrections alone stall (the reference: dense Cholesky)', async () => {
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    expect(r.reason).toBe('converged');
    expect(r.precisionFallback).toMatch(/f32 corrections stagnated .* went on in f64/);
    expect(expectTrue(r)).toBeLessThanOrEqual(TOL);
    // κ·tol: the error a residual of tol allows
    expect(relErr(r.x, reference)).toBeLessThan(8 / SHIFT * TOL);
    // f64 CG from 0 takes ≈ 180 iterations; before, f32 ran to maxIter (20 000)
    expect(r.iterations).toBeLessThan(2000);
    expect(r.history.length).toBe(r.iterations + 1);
    // a repeated solve: the same answer (the f64 twin made once, kept with A)
    const again = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    expect(again.iterations).toBe(r.iterations);
    expect(relErr(again.x, r.x)).toBe(0);
    h.dispose();
  });

  it("'auto' and other preconditioners take the fallback too, and say it", async () => {
    const h = rt.upload(A);
    for (const preconditioner of ['none', 'ic0', 'auto'] as const) {
      const r = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner, maxIter: 20000 });
      const rel = expectTrue(r);
      if (r.converged) expect(rel).toBeLessThanOrEqual(TOL);
      expect(r.reason === 'converged' || r.precisionFallback !== undefined).toBe(true);
      expect(r.iterations).toBeLessThan(4000);
    }
    expect(rt.explain('solve', h, { method: 'cg' }).text).toMatch(/stagnate.*f64/);
    h.dispose();
  });

  it('an inner f32 solve that cannot reach its tolerance (BiCGSTAB, restarted refinement) is stopped and the solve goes on in f64', async () => {
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: TOL, method: 'bicgstab', preconditioner: 'jacobi', maxIter: 5000 });
    expect(r.precisionFallback).toMatch(/f32 corrections stagnated .* bicgstab went on in f64/);
    expect(r.reason).toBe('converged');
    expect(expectTrue(r)).toBeLessThanOrEqual(TOL);
    expect(relErr(r.x, reference)).toBeLessThan((8 / SHIFT) * TOL);
    // before: the inner f32 solve ran to maxIter (5 000) at a true 5.9e-6
    expect(r.iterations).toBeLessThan(1500);
    h.dispose();
  });

  it('stays within maxIter: the f64 part gets what the f32 part left', async () => {
    const h = rt.upload(A);
    const full = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    const f32Part = Number(/after (\d+) iterations/.exec(full.precisionFallback ?? '')?.[1]);
    expect(f32Part).toBeGreaterThan(0);
    const r = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: f32Part + 5 });
    expect(r.iterations).toBeLessThanOrEqual(f32Part + 5);
    expect(r.reason).toBe('maxIter');
    expect(r.precisionFallback).toBeDefined();
    expectTrue(r);
    h.dispose();
  });

  it('an abort during the f64 part ends it aborted, with the true residual of the answer it returns', async () => {
    const h = rt.upload(A);
    const full = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    const f32Part = Number(/after (\d+) iterations/.exec(full.precisionFallback ?? '')?.[1]);
    const ac = new AbortController();
    const r = await rt.solve(h, b, {
      tol: TOL,
      method: 'cg',
      preconditioner: 'jacobi',
      maxIter: 20000,
      signal: ac.signal,
      onIteration: (it) => {
        if (it >= f32Part + 3) ac.abort();
      },
    });
    expect(r.reason).toBe('aborted');
    expect(r.precisionFallback).toBeDefined();
    expect(r.iterations).toBeLessThan(f32Part + 10);
    expect(r.x.every(Number.isFinite)).toBe(true);
    expectTrue(r);
    // aborted before it starts: no fallback (nothing ran)
    const r0 = await rt.solve(h, b, { tol: TOL, method: 'cg', signal: AbortSignal.abort() });
    expect(r0.reason).toBe('aborted');
    expect(r0.precisionFallback).toBeUndefined();
    h.dispose();
  });

  it("with a preconditioner handle (the f32 matrix's) no fallback: the stalled f32 recurrence ends 'stagnated' early, its true residual reported", async () => {
    const h = rt.upload(A);
    const P = rt.preconditioner(h, { kind: 'jacobi' });
    const r = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: P, maxIter: 20000 });
    expect(r.precisionFallback).toBeUndefined();
    expect(r.reason).toBe('stagnated');
    expect(r.iterations).toBeLessThan(2000);
    expect(expectTrue(r)).toBeGreaterThan(TOL);
    P.dispose();
    h.dispose();
  });

  it('NaN in b or A ends nan, with no fallback', async () => {
    const h = rt.upload(A);
    const bad = Float64Array.from(b);
    bad[7] = NaN;
    const r = await rt.solve(h, bad, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    expect(r.reason).toBe('nan');
    expect(r.precisionFallback).toBeUndefined();
    const values = Float32Array.from(A.values);
    values[A.rowPtr[5]] = NaN;
    const hn = rt.upload(new CSRMatrix(A.rows, A.cols, 'f32', A.rowPtr, A.colIdx, values));
    const rn = await rt.solve(hn, b, { tol: TOL, method: 'cg', maxIter: 20000 });
    expect(rn.reason).toBe('nan');
    expect(rn.precisionFallback).toBeUndefined();
    h.dispose();
    hn.dispose();
  });

  it('c64 on κ ≈ 1.7e7 (a Hermitian gauge copy of the matrix): at tol, the reference answer', async () => {
    // CPU CG on c64 runs reliable updates (x and the replaced residuals in f64): here it reaches tol
    // without a fallback (≈ 190 iterations); either way the answer is held to the reference
    await expectComplexSolved(rt, 'cg');
  });

  it('a well-conditioned f32 matrix refines in f32 alone (no fallback)', async () => {
    const P = poisson2D(40).astype('f32');
    const bp = new Float64Array(P.rows).fill(1);
    const h = rt.upload(P);
    const r = await rt.solve(h, bp, { tol: TOL, method: 'cg', preconditioner: 'jacobi' });
    expect(r.reason).toBe('converged');
    expect(r.precisionFallback).toBeUndefined();
    expect(trueResidual(P, r.x, bp)).toBeLessThanOrEqual(TOL);
    h.dispose();
  });
});

describe('f32 refinement falls back to f64 (WebGPU, Dawn)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    rt = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => rt?.dispose());

  it('MINRES refined on the GPU: f32 corrections stagnate near 1e-5, the double-single f64 solve reaches tol (the reference: dense Cholesky)', async () => {
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: TOL, method: 'minres', preconditioner: 'jacobi', maxIter: 5000 });
    expect(r.path).toBe('webgpu');
    expect(r.reason).toBe('converged');
    expect(r.precisionFallback).toMatch(/f32 corrections stagnated .* minres went on in f64/);
    expect(expectTrue(r)).toBeLessThanOrEqual(TOL);
    expect(relErr(r.x, reference)).toBeLessThan((8 / SHIFT) * TOL);
    expect(r.iterations).toBeLessThan(1000);
    h.dispose();
  });

  it('c64 MINRES on the GPU: c64 corrections stagnate, the solve goes on in c128 and reaches tol (the reference: the real Cholesky through the gauge)', async () => {
    expect(await expectComplexSolved(rt, 'minres')).toMatch(/^c64 corrections stagnated .* minres went on in c128/);
  });

  it('CG resident on the GPU (restarted refinement) reaches tol on the same matrix, whichever precision ends it', async () => {
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: TOL, method: 'cg', preconditioner: 'jacobi', maxIter: 5000 });
    expect(r.reason).toBe('converged');
    expect(expectTrue(r)).toBeLessThanOrEqual(TOL);
    expect(relErr(r.x, reference)).toBeLessThan((8 / SHIFT) * TOL);
    h.dispose();
  });
});
