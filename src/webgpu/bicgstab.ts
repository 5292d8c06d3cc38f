/**
 * BiCGSTAB resident on the GPU: the recurrence of src/solvers/bicgstab.ts (right-preconditioned, real
 * or complex) with ρ, α, ω and β computed on the GPU in complex double-single
 * (wgsl/bicgstab_scalars.wgsl), the same tests in the same order (ρ = 0, r̂ᴴv = 0, tᴴt ≤ 0, NaN,
 * convergence on s or on r, ω = 0), and the host reading the state every `checkEvery` iterations
 * through the block loop of cg.ts (see there: x is exact at the reported iteration; history and
 * onIteration cover every iteration).
 */
import { initialState, residentSolve, type ResidentSolver } from './cg.js';

/** State slots (wgsl/bicgstab_scalars.wgsl). */
const [RHO, ALPHA, OMEGA, RR_HAT, RV, TT, TS] = [0, 1, 2, 3, 4, 5, 6];
const [SS, RR, NEG_OMEGA, BETA, NEG_ALPHA, POS_ALPHA, POS_OMEGA, RING] = [9, 10, 11, 12, 13, 14, 15, 16];

export const residentBicgstab: ResidentSolver = (G, A, D, b, options) => {
  const B = G.backend;
  const dt = b.dtype;
  const k = options.checkEvery;
  return residentSolve(G, A, b, options, 7, ({ x, r, work: [rhat, p, v, s, t, y, z], threshold, state: newState, blocks }) => {
    B.copy(r, rhat);
    const state = newState(initialState(RING, k, threshold, { [RHO]: [1, 0], [ALPHA]: [1, 0], [OMEGA]: [1, 0] }));
    const phase = (m: number) => G.scalars('bicgstab_scalars', dt, state, m, k, false);
    const py = D ? y : p;
    const sz = D ? z : s;
    return blocks(state, RING, () => {
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
    });
  });
};
