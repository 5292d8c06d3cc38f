/**
 * CG with a Chebyshev polynomial preconditioner resident on the GPU (src/webgpu/cg.ts,
 * residentChebyshevCg; Dawn + SwiftShader in Node), against a textbook f64 PCG with an independently
 * written Chebyshev iteration (Saad, Iterative Methods, Alg. 12.1, its residual taken as r − A·z).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { DIAMatrix } from '../src/formats/index.js';
import { CSRMatrix as CSRMatrixClass, type CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import type { WebGpuBackend } from '../src/webgpu/backend.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { wgslLoaded } from '../src/webgpu/shader-source.js';
import { matvec, referencePcg, relDiff, trueResidual } from './solve-reference.js';
import { lanczosBounds, pathLanczosBounds, tridiagonalEigen } from '../src/solvers/precond/chebyshev.js';
import { GPU_CHEBYSHEV_MIN_N } from '../src/solvers/solve.js';
import { F32_STEPS_MIN_TOL } from '../src/webgpu/cg.js';

pointDawnAtSwiftShader();

let rt: Runtime;
let be: WebGpuBackend;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
  // not prepared: the first test's solve is this runtime's first operation on the path
  be = (rt.pathById('webgpu') as WebGpuPath).backend;
});
afterAll(() => rt?.dispose());

function rhs(n: number, seed: number): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() - 0.3);
}

/** z = p(D⁻¹A)·D⁻¹·r: `degree` Chebyshev steps for A·z = r from z = 0 on [lo, hi] of D⁻¹A, in f64. */
function referenceChebyshev(A: CSRMatrix, dinv: Float64Array, lo: number, hi: number, degree: number): (r: Float64Array) => Float64Array {
  const theta = (hi + lo) / 2;
  const delta = (hi - lo) / 2;
  const sigma = theta / delta;
  return (r) => {
    const z = new Float64Array(r.length);
    const d = Float64Array.from(r, (v, i) => (dinv[i] * v) / theta);
    let rho = 1 / sigma;
    for (let k = 0; k < degree; k++) {
      for (let i = 0; i < z.length; i++) z[i] += d[i];
      if (k === degree - 1) break;
      const az = matvec(A, z);
      const next = 1 / (2 * sigma - rho);
      for (let i = 0; i < d.length; i++) d[i] = next * rho * d[i] + ((2 * next) / delta) * dinv[i] * (r[i] - az[i]);
      rho = next;
    }
    return z;
  };
}

/** A·A of a symmetric A (symmetric positive definite for an SPD A; not diagonally dominant for a Laplacian), by rows. */
function squared(A: CSRMatrix): CSRMatrix {
  const ri: number[] = [];
  const ci: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    const row = new Map<number, number>();
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      for (let q = A.rowPtr[j]; q < A.rowPtr[j + 1]; q++) row.set(A.colIdx[q], (row.get(A.colIdx[q]) ?? 0) + A.values[k] * A.values[q]);
    }
    for (const [j, a] of [...row].sort((x, y) => x[0] - y[0])) (ri.push(i), ci.push(j), v.push(a));
  }
  return CSRMatrixClass.fromTriplets(A.rows, A.cols, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

function inverseDiagonal(A: CSRMatrix): Float64Array {
  const d = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) d[i] = 1 / A.values[k];
  return d;
}

describe('a first solve', () => {
  it('uploads an f64 matrix before the shader sources are loaded (the host splits its values then) and solves', async () => {
    expect(wgslLoaded()).toBe(false);
    const A = poisson2D(40); // 7840 values: long enough for the GPU's split once the shaders are there
    const b = rhs(A.rows, 1);
    const h = rt.upload(A);
    // explain uploads A to the path it names, before any kernel ran there
    expect(rt.explain('solve', h, { method: 'cg', path: 'webgpu' }).path).toBe('webgpu');
    expect(wgslLoaded()).toBe(false);
    const r = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-9 });
    expect([r.path, r.converged]).toEqual(['webgpu', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
    expect(wgslLoaded()).toBe(true);
  });
});

describe('CG with a Chebyshev polynomial, resident on the GPU', () => {
  it('takes the reference PCG iterations and reaches its x, degrees 1, 2 and 5, from 0 and from an x0', async () => {
    // D⁻¹A of poisson2D(m) has its eigenvalues in [1 − cos(π/(m+1)), 1 + cos(π/(m+1))]
    const m = 10;
    const A = poisson2D(m);
    const c = Math.cos(Math.PI / (m + 1));
    const [lo, hi] = [1 - c, 1 + c];
    const dinv = inverseDiagonal(A);
    const b = rhs(A.rows, 3);
    const gA = be.upload(A, {});
    const D = be.upload(new DIAMatrix(A.rows, A.cols, 'f64', new Int32Array([0]), A.rows, dinv), {});
    const gb = be.vector('f64', b);
    const tol = 1e-10;
    try {
      for (const degree of [1, 2, 5]) {
        const ref = new Float64Array(A.rows);
        const refIt = referencePcg(A, b, referenceChebyshev(A, dinv, lo, hi, degree), tol, 1000, ref);
        const r = await be.cgChebyshevResident(gA, D, gb, { tol, checkEvery: 4 }, { degree, lo, hi });
        const x = Float64Array.from(await be.read(r.x));
        be.recycle(r.x);
        expect([r.converged, r.reason], `degree ${degree}`).toEqual([true, 'converged']);
        expect(Math.abs(r.iterations - refIt), `degree ${degree}: ${r.iterations} against ${refIt}`).toBeLessThanOrEqual(1);
        expect(r.history.length).toBe(r.iterations + 1);
        expect(trueResidual(A, x, b)).toBeLessThanOrEqual(1.5 * tol);
        expect(relDiff(x, ref)).toBeLessThanOrEqual(1e-8);
        // fewer iterations as the degree grows (the polynomial is a better inverse)
        if (degree === 5) expect(r.iterations).toBeLessThan(refIt + 1);
      }
      // from x0: the same answer; maxIter is exact
      const x0 = be.vector('f64', rhs(A.rows, 5));
      const r0 = await be.cgChebyshevResident(gA, D, gb, { tol, checkEvery: 4, x0 }, { degree: 3, lo, hi });
      expect(trueResidual(A, Float64Array.from(await be.read(r0.x)), b)).toBeLessThanOrEqual(1.5 * tol);
      be.recycle(r0.x);
      x0.dispose();
      const r3 = await be.cgChebyshevResident(gA, D, gb, { tol, checkEvery: 4, maxIter: 3 }, { degree: 3, lo, hi });
      expect([r3.reason, r3.iterations]).toEqual(['maxIter', 3]);
      be.recycle(r3.x);
    } finally {
      gA.dispose();
      D.dispose();
      gb.dispose();
    }
  });

  it('fused with the SpMV on a DIA matrix: the reference PCG iterations and x, degrees 1–5 with a constant D⁻¹ given as one value, 2–3 with D⁻¹ per row; in f32 where the values are (wgsl/cheb32.wgsl), else double-single', async () => {
    await (rt.pathById('webgpu') as WebGpuPath).prepare();
    const P = poisson2D(9);
    // a variable diagonal too (still diagonally dominant: D⁻¹A within (0, 2)), so D⁻¹ per row is read
    const g = new Prng(21);
    const shifted = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] === i) shifted[k] += 2 * g.next();
    const V = new CSRMatrixClass(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, shifted);
    // the same with every value exactly f32 (and not all small integers): stored as f32, steps in f32
    const V32 = new CSRMatrixClass(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, shifted.map(Math.fround));
    // 1e-10: every step in double-single; F32_STEPS_MIN_TOL, the tightest tolerance at which they run in f32
    const tols = [1e-10, F32_STEPS_MIN_TOL];
    const [lo, hi] = [0.02, 2];
    // the kernel of the polynomial's steps: bytes / f32 values in f32 from degree 2 on, else double-single
    const dispatch = vi.spyOn((be as unknown as { engine: { dispatch: (name: string, ...rest: unknown[]) => void } }).engine, 'dispatch');
    const stepKernels = () => new Set(dispatch.mock.calls.filter((c) => String(c[0]).endsWith('cheb32') || c[6] === 'cheb_main' || c[0] === 'chebyshev').map((c) => `${c[0]}:${c[6] ?? 'main'}`));
    for (const [what, A, constant, degrees, single, kernel] of [
      ['poisson2D, one D⁻¹ value', P, true, [1, 2, 3, 4, 5], 'dia_i8_cheb32', 'dia_i8'],
      ['a variable diagonal, D⁻¹ per row', V, false, [2, 3], null, 'dia'],
      ['a variable diagonal of f32 values, D⁻¹ per row', V32, false, [2, 3], 'dia_compact_cheb32', 'dia_compact'],
    ] as const) {
      const dinv = inverseDiagonal(A);
      const b = rhs(A.rows, 4);
      const gA = be.upload(DIAMatrix.fromCSR(A), {});
      const pitch = Math.ceil(A.rows / 4) * 4;
      const padded = new Float64Array(pitch);
      padded.set(dinv);
      const D = be.upload(new DIAMatrix(A.rows, A.cols, 'f64', new Int32Array([0]), pitch, padded), {});
      const gb = be.vector('f64', b);
      try {
        for (const degree of degrees) for (const tol of tols) {
          const ref = new Float64Array(A.rows);
          const refIt = referencePcg(A, b, referenceChebyshev(A, dinv, lo, hi, degree), tol, 1000, ref);
          const poly = { degree, lo, hi, ...(constant ? { dinv: dinv[0] } : {}) };
          dispatch.mockClear();
          const r = await be.cgChebyshevResident(gA, D, gb, { tol, checkEvery: 4 }, poly);
          const kernels = [...stepKernels()].sort();
          if (single && degree > 1 && tol >= F32_STEPS_MIN_TOL) expect(kernels, `${what}, degree ${degree}, tol ${tol}`).toEqual([`${single}:first_main`, `${single}:last_main`, ...(degree > 2 ? [`${single}:step_main`] : [])]);
          else expect(kernels, `${what}, degree ${degree}, tol ${tol}`).toEqual(['chebyshev:first_main', ...(degree > 1 ? [`${kernel}:cheb_main`] : [])]);
          // per iteration: spmv+dot, 2 scalar steps, the update, aypx and `degree` passes of the polynomial
          // (the unfused steps: 2·degree − 1), from the dispatches of 8 and of 16 iterations (tol unreachable)
          const dispatchesOf = async (maxIter: number) => {
            const before = be.stats.dispatches;
            be.recycle((await be.cgChebyshevResident(gA, D, gb, { tol: 1e-30, maxIter, checkEvery: 4 }, poly)).x);
            return be.stats.dispatches - before;
          };
          const x = Float64Array.from(await be.read(r.x));
          be.recycle(r.x);
          const why = `${what}, degree ${degree}, tol ${tol}: ${r.iterations} iterations against ${refIt}`;
          expect([r.converged, r.reason], why).toEqual([true, 'converged']);
          expect(Math.abs(r.iterations - refIt), why).toBeLessThanOrEqual(1);
          expect(trueResidual(A, x, b), why).toBeLessThanOrEqual(1.5 * tol);
          expect(relDiff(x, ref), why).toBeLessThanOrEqual(100 * tol);
          if ((degree === 1 || degree === 3) && tol === tols[0]) expect(((await dispatchesOf(16)) - (await dispatchesOf(8))) / 8, why).toBe(5 + degree);
        }
      } finally {
        gA.dispose();
        D.dispose();
        gb.dispose();
      }
    }
    dispatch.mockRestore();
  });

  it("rt.cg with 'chebyshev' runs it resident (one read-back per block), with the host loop's iterations and a true residual under tol; c128 too", async () => {
    const A = poisson3D(5);
    const b = rhs(A.rows, 7);
    const h = rt.upload(A);
    const M = rt.preconditioner(h, { kind: 'chebyshev', degree: 4 });
    const reads = be.stats.readbacks;
    const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-9 });
    const residentReads = be.stats.readbacks - reads;
    const host = await rt.cg(h, b, { preconditioner: M, tol: 1e-9, checkEvery: 1 });
    expect([r.path, r.converged, host.converged]).toEqual(['webgpu', true, true]);
    expect(r.preconditionerDetail).toMatch(/resident on the device/);
    expect(Math.abs(r.iterations - host.iterations)).toBeLessThanOrEqual(1);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
    expect(relDiff(r.x, host.x)).toBeLessThanOrEqual(1e-6);
    // blocks of 16 (and a speculative short one), ‖b‖, rᴴz, x and the true residual's scalars: not one per iteration
    expect(residentReads).toBeLessThanOrEqual(Math.ceil(r.iterations / 16) + 8);
    M.dispose();
    h.dispose();
    const C = poisson2D(5).astype('c128');
    const bc = rhs(2 * C.rows, 8);
    const rc = await rt.cg(rt.upload(C), bc, { preconditioner: 'chebyshev', tol: 1e-9 });
    expect(rc.converged).toBe(true);
    expect(trueResidual(C, rc.x, bc)).toBeLessThanOrEqual(1e-9);
  });
});

/** Plain f64 Lanczos on D^-½·A·D^-½ from lanczosBounds' start (written for this test): [min, max] Ritz values. */
function referenceLanczos(A: CSRMatrix, steps: number): [number, number] {
  const n = A.rows;
  const s = Float64Array.from(inverseDiagonal(A), Math.sqrt);
  let v = new Float64Array(n);
  for (let i = 0, h = 0x2545f491; i < n; i++) {
    h = (Math.imul(h, 1664525) + 1013904223) | 0;
    v[i] = 0.5 + (h >>> 8) / 16777216;
  }
  const nv = Math.hypot(...v);
  v = v.map((x) => x / nv);
  let prev = new Float64Array(n);
  const alpha: number[] = [];
  const beta: number[] = [];
  let b = 0;
  for (let j = 0; j < steps; j++) {
    const Av = matvec(A, v.map((x, i) => x * s[i]));
    const w = Av.map((x, i) => x * s[i] - b * prev[i]);
    const a = w.reduce((acc, x, i) => acc + x * v[i], 0);
    for (let i = 0; i < n; i++) w[i] -= a * v[i];
    alpha.push(a);
    b = Math.hypot(...w);
    beta.push(b);
    prev = v;
    v = w.map((x) => x / b);
  }
  beta.pop();
  return [tridiagonalEigen(alpha, beta, 'min'), tridiagonalEigen(alpha, beta, 'max')];
}

describe("Chebyshev's Lanczos bounds on the GPU (pathLanczosBounds)", () => {
  it('are the f64 reference\'s and the host estimate\'s: 1e-9 relative in f64 (double-single), 1e-4 in f32; inside the known spectrum', async () => {
    const path = rt.pathById('webgpu') as WebGpuPath;
    for (const [A, tol] of [
      [poisson2D(30), 1e-9],
      [poisson3D(12), 1e-9],
      [poisson2D(30).astype('f32'), 1e-4],
    ] as [CSRMatrix, number][]) {
      const A64 = A.astype('f64');
      const [rmin, rmax] = referenceLanczos(A64, 20);
      const host = lanczosBounds(A64, 20);
      const gA = be.upload(A, {});
      const ops = path.solverOps(gA, A, 'none');
      try {
        const est = await pathLanczosBounds(ops, (v) => path.vector(A.dtype, v), inverseDiagonal(A64));
        const what = `${A.rows} rows ${A.dtype}: [${est.min}, ${est.max}] against [${rmin}, ${rmax}]`;
        expect(Math.abs(est.max - rmax) / rmax, what).toBeLessThanOrEqual(tol);
        expect(Math.abs(est.min - rmin) / rmin, what).toBeLessThanOrEqual(tol * 100);
        expect(Math.abs(host.max - rmax) / rmax, what).toBeLessThanOrEqual(1e-12);
        expect(Math.abs(est.max - host.max) / host.max, what).toBeLessThanOrEqual(tol);
        // the Ritz values lie inside D⁻¹A's spectrum: for the Laplacian stencils within (0, 2)
        expect(est.min).toBeGreaterThan(0);
        expect(est.max).toBeLessThan(2);
      } finally {
        ops.dispose();
        gA.dispose();
      }
    }
  });

  it("rt.solve's chebyshev plan on the WebGPU path takes them there for a matrix that is not diagonally dominant, and the solve converges", async () => {
    const A = squared(poisson2D(16));
    const b = rhs(A.rows, 11);
    const r = await rt.solve(rt.upload(A), b, { method: 'cg', preconditioner: 'chebyshev', tol: 1e-9 });
    expect([r.path, r.converged]).toEqual(['webgpu', true]);
    expect(r.preconditionerDetail).toMatch(/degree 6 in D⁻¹A on .* from 20 Lanczos steps on the WebGPU path, λmin at least λmax\/100/);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
  });

  it("rt.solve's chebyshev plan of a diagonally dominant matrix: [0.02, 2] from Gershgorin's discs, no product; the reference PCG's iterations with that polynomial", async () => {
    for (const A of [poisson2D(24), poisson3D(9)]) {
      const b = rhs(A.rows, 13);
      const h = rt.upload(A);
      const r = await rt.solve(h, b, { method: 'cg', preconditioner: 'chebyshev', tol: 1e-9 });
      expect([r.path, r.converged, r.preconditioner]).toEqual(['webgpu', true, 'chebyshev']);
      // the degree: the path's figures' where A runs as DIA in f64 (the fused steps), else 6
      const p = rt.pathById('webgpu')!;
      const d = rt.fusedChebyshevOn(h, p) ? rt.chebyshevDegreeOn(h, p).degree : 6;
      expect(r.preconditionerDetail).toMatch(new RegExp(`degree ${d} in D⁻¹A on \\[0\\.0200, 2\\.00\\] from Gershgorin's discs \\(A is diagonally dominant`));
      const ref = new Float64Array(A.rows);
      const refIt = referencePcg(A, b, referenceChebyshev(A, inverseDiagonal(A), 0.02, 2, d), 1e-9, 1000, ref);
      expect(Math.abs(r.iterations - refIt), `${A.rows} rows: ${r.iterations} against ${refIt}`).toBeLessThanOrEqual(1);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
      expect(relDiff(r.x, ref)).toBeLessThanOrEqual(1e-7);
      h.dispose();
    }
  });

  it("rt.explain('solve') on the WebGPU path: a DIA matrix in f64 runs Chebyshev fused there (chebyshev from GPU_CHEBYSHEV_MIN_N rows, jacobi below)", () => {
    const A = poisson3D(10);
    const dia = rt.upload(DIAMatrix.fromCSR(A));
    const e = rt.explain('solve', dia, { method: 'cg', path: 'webgpu' });
    expect(e.preconditioner).toBe('jacobi');
    expect(e.reasons.join(' ')).toMatch(new RegExp(`chebyshev from ${GPU_CHEBYSHEV_MIN_N} rows`));
    // f32: not measured, so not taken (the reason says where it would be)
    const f32 = rt.upload(DIAMatrix.fromCSR(A.astype('f32')));
    expect(rt.explain('solve', f32, { method: 'cg', path: 'webgpu' }).reasons.join(' ')).toMatch(/chebyshev is taken where A runs as DIA in f64 there/);
    dia.dispose();
    f32.dispose();
  });

  it('a matrix held as DIA: the resident solve takes D⁻¹ from the canonical CSR, converting nothing back (once the structure is known)', async () => {
    const A = poisson2D(10);
    const b = rhs(A.rows, 12);
    const h = rt.upload(DIAMatrix.fromCSR(A));
    // the structure (its canonical CSR, one conversion) made by a first solve
    await rt.solve(h, b, { method: 'cg', preconditioner: 'none', tol: 1e-6 });
    const toCSR = vi.spyOn(DIAMatrix.prototype, 'toCSR');
    try {
      const r = await rt.solve(h, b, { method: 'cg', preconditioner: 'chebyshev', tol: 1e-9 });
      expect([r.path, r.converged]).toEqual(['webgpu', true]);
      expect(r.preconditionerDetail).toMatch(/resident on the device/);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
      expect(toCSR).not.toHaveBeenCalled();
    } finally {
      toCSR.mockRestore();
      h.dispose();
    }
  });
});

describe("rt.preconditioner(A, { kind: 'chebyshev' }) on the WebGPU path", () => {
  it("takes rt.solve's fused plan where A runs as DIA in f64 and is diagonally dominant (by default the degree from the path's figures, the degree given otherwise): the reference PCG's iterations and x with that polynomial, D⁻¹ one value or per row", async () => {
    const P = poisson2D(20);
    // a variable diagonal (still diagonally dominant), so D⁻¹ is read per row
    const g = new Prng(31);
    const shifted = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] === i) shifted[k] += 3 * g.next();
    const V = new CSRMatrixClass(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, shifted);
    // poisson2D(64): 4,096 rows and ~100 iterations, its steps in f32 (bytes), to 1e-9 like the others
    const L = poisson2D(64);
    for (const [A, degree] of [[P, undefined], [V, undefined], [P, 3], [L, undefined]] as const) {
      const b = rhs(A.rows, 17);
      const h = rt.upload(DIAMatrix.fromCSR(A));
      const M = rt.preconditioner(h, { kind: 'chebyshev', ...(degree ? { degree } : {}) });
      const d = degree ?? rt.chebyshevDegreeOn(h, rt.pathById('webgpu')!).degree;
      const what = `${A === V ? 'variable diagonal' : `poisson2D(${Math.sqrt(A.rows)})`}, degree ${d}`;
      expect(M.description, what).toMatch(new RegExp(`^chebyshev \\(degree ${d} in D⁻¹A on \\[0\\.0200, 2\\.00\\] from Gershgorin's discs .*the WebGPU path's plan for its fused steps${degree ? '' : `; degree ${d}: .*`}\\)$`));
      const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-9 });
      expect([r.path, r.converged], what).toEqual(['webgpu', true]);
      // the steps in f32 where A's values are (poisson2D's: bytes), not for the variable diagonal's
      expect(r.preconditionerDetail, what).toMatch(new RegExp(`\\[CG and the polynomial resident on the device, each step fused into A's SpMV${A === V ? '' : ', the steps in f32'}\\]$`));
      const ref = new Float64Array(A.rows);
      const refIt = referencePcg(A, b, referenceChebyshev(A, inverseDiagonal(A), 0.02, 2, d), 1e-9, 1000, ref);
      expect(Math.abs(r.iterations - refIt), `${what}: ${r.iterations} against ${refIt}`).toBeLessThanOrEqual(1);
      expect(trueResidual(A, r.x, b), what).toBeLessThanOrEqual(1e-9);
      expect(relDiff(r.x, ref), what).toBeLessThanOrEqual(1e-7);
      M.dispose();
      h.dispose();
    }
    // below F32_STEPS_MIN_TOL (a tenth of it) the steps run in double-single: the reference's iterations and x
    const h = rt.upload(DIAMatrix.fromCSR(P));
    const b = rhs(P.rows, 18);
    const r = await rt.solve(h, b, { method: 'cg', preconditioner: 'chebyshev', tol: F32_STEPS_MIN_TOL / 10 });
    expect([r.path, r.converged]).toEqual(['webgpu', true]);
    expect(r.preconditionerDetail).toMatch(/each step fused into A's SpMV\]$/);
    const d = Number(/degree (\d+)/.exec(r.preconditionerDetail ?? '')![1]);
    const ref = new Float64Array(P.rows);
    const refIt = referencePcg(P, b, referenceChebyshev(P, inverseDiagonal(P), 0.02, 2, d), F32_STEPS_MIN_TOL / 10, 1000, ref);
    expect(Math.abs(r.iterations - refIt), `${r.iterations} against ${refIt}`).toBeLessThanOrEqual(1);
    expect(trueResidual(P, r.x, b)).toBeLessThanOrEqual(F32_STEPS_MIN_TOL / 10);
    h.dispose();
  });

  it("keeps the Lanczos plan (degree 4) for a matrix that is not diagonally dominant; explain says when the fused plan is used", async () => {
    const A = squared(poisson2D(12));
    const b = rhs(A.rows, 19);
    const h = rt.upload(DIAMatrix.fromCSR(A));
    const M = rt.preconditioner(h, { kind: 'chebyshev' });
    expect(M.description).toMatch(/^chebyshev \(degree 4 in D⁻¹A on .* from 20 Lanczos steps\)$/);
    const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-9 });
    expect([r.path, r.converged]).toEqual(['webgpu', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
    M.dispose();
    h.dispose();
    const dia = rt.upload(DIAMatrix.fromCSR(poisson3D(6)));
    expect(rt.explain('solve', dia, { method: 'cg', preconditioner: 'chebyshev', path: 'webgpu' }).reasons.join(' ')).toMatch(/preconditioner chebyshev given by the caller: the WebGPU path's fused plan/);
    dia.dispose();
  });
});
