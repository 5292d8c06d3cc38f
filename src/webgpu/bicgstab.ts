/**
 * BiCGSTAB resident on the GPU: the recurrence of src/solvers/bicgstab.ts (right-preconditioned, real
 * or complex) with ρ, α, ω and β computed on the GPU in complex double-single
 * (wgsl/bicgstab_scalars.wgsl), the same tests in the same order (ρ = 0, r̂ᴴv = 0, tᴴt ≤ 0, NaN,
 * convergence on s or on r, ω = 0), and the host reading the state every `checkEvery` iterations
 * through the block loop of cg.ts (see there: x is exact at the reported iteration; history and
 * onIteration cover every iteration).
 */
import type { SolveOptions, SolveResult, StopReason } from '../solvers/ops.js';
import type { WebGpuMatrix, WebGpuVector } from './resident.js';
import { initialState, result, runBlocks, type CgRecorder, type Progress } from './cg.js';

/** State slots (wgsl/bicgstab_scalars.wgsl). */
const [RHO, ALPHA, OMEGA, RR_HAT, RV, TT, TS] = [0, 1, 2, 3, 4, 5, 6];
const [SS, RR, NEG_OMEGA, BETA, NEG_ALPHA, POS_ALPHA, POS_OMEGA, RING] = [9, 10, 11, 12, 13, 14, 15, 16];

export async function residentBicgstab(
  G: CgRecorder,
  A: WebGpuMatrix,
  D: WebGpuMatrix | null,
  b: WebGpuVector,
  options: SolveOptions<WebGpuVector> & { checkEvery: number },
): Promise<SolveResult<WebGpuVector>> {
  const B = G.backend;
  const { tol = 1e-8, checkEvery: k } = options;
  const n = b.length;
  const dt = b.dtype;
  const maxIter = options.maxIter ?? Math.max(100, 10 * n);
  const x = B.vector(dt, n);
  const [r, rhat, p, v, s, t, y, z] = Array.from({ length: 8 }, () => B.vector(dt, n));
  let S: GPUBuffer | null = null;
  try {
    B.copy(b, r);
    if (options.x0) {
      B.copy(options.x0, x);
      B.spmv(A, x, r, { alpha: -1, beta: 1 });
    }
    B.copy(r, rhat);
    const bnorm = await B.nrm2(b);
    const scale = bnorm > 0 ? bnorm : 1;
    const rnorm = await B.nrm2(r);
    const at: Progress = { iterations: 0, rnorm, history: [rnorm / scale] };
    let reason: StopReason = 'converged';
    if (!(rnorm / scale <= tol)) {
      const state = (S = G.state(initialState(RING, k, (tol * scale) ** 2, { [RHO]: [1, 0], [ALPHA]: [1, 0], [OMEGA]: [1, 0] })));
      const phase = (m: number) => G.scalars('bicgstab_scalars', dt, state, m, k, false);
      const py = D ? y : p;
      const sz = D ? z : s;
      const iteration = () => {
        G.dot(rhat, r, state, RR_HAT);
        phase(0);
        // p ← r + β·(p − ω·v)
        G.blas1('axpy', v, p, state, NEG_OMEGA);
        G.blas1('aypx', r, p, state, BETA);
        if (D) B.spmv(D, p, y);
        B.spmv(A, py, v);
        G.dot(rhat, v, state, RV);
        phase(1);
        // s ← r − α·v
        B.copy(r, s);
        G.blas1('axpy', v, s, state, NEG_ALPHA);
        G.dot(s, s, state, SS);
        phase(2);
        if (D) B.spmv(D, s, z);
        B.spmv(A, sz, t);
        G.dot(t, t, state, TT);
        G.dot(t, s, state, TS);
        phase(3);
        // x ← x + α·py (also when s converged) + ω·sz; r ← s − ω·t
        G.blas1('axpy', py, x, state, POS_ALPHA, true);
        G.blas1('axpy', sz, x, state, POS_OMEGA);
        B.copy(s, r);
        G.blas1('axpy', t, r, state, NEG_OMEGA);
        G.dot(r, r, state, RR);
        phase(4);
      };
      reason = await runBlocks(
        G,
        state,
        RING,
        (m) => {
          for (let j = 0; j < m; j++) iteration();
        },
        at,
        { ...options, scale, maxIter, checkEvery: k },
      );
    }
    return result(x, at, scale, reason);
  } catch (e) {
    x.dispose();
    throw e;
  } finally {
    for (const w of [r, rhat, p, v, s, t, y, z]) w.dispose();
    if (S) G.release(S);
  }
}
