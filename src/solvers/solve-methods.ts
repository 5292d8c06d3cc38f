/**
 * rt.solve's vocabulary, in a module of its own: the option checks read it at once, while solve.ts (the
 * choice itself) sits in the solver set-up's chunk (src/runtime/solver-setup-chunk.ts).
 */

/** The iterative methods. */
export type SolveMethod = 'cg' | 'bicgstab' | 'gmres' | 'minres';
export const SOLVE_METHODS: readonly SolveMethod[] = ['cg', 'bicgstab', 'gmres', 'minres'];

/**
 * Above this many unknowns 'auto' plans a factorization only where its Krylov candidate is CG with a
 * one-level preconditioner that cannot keep its iterations from growing (factorizeAboveCap in solve.ts),
 * or after its Krylov candidates did not answer: elsewhere the orderings (on the calling thread) cost
 * more than the Krylov solve they would replace — AMG's or Jacobi's on a Laplacian-like or diagonally
 * dominant matrix: poisson2D(512)'s ordering and symbolic phase take 305 ms on 2 threads
 * (bench/device/results-2026-11-29-twenty-third/cpu2/factor-threads.log), its whole 'auto' solve with
 * AMG 139 ms (reuse: false; …/results-2026-11-29-twenty-second/cpu2/repeat.log).
 */
export const DIRECT_MAX_N = 20000;

/**
 * From this many unknowns 'auto' runs MINRES with the 'saddle' preconditioner on a symmetric saddle point
 * (zero diagonal entries) instead of factorizing it: stokes2D, 2 threads, LU under the transversal's
 * ordering against MINRES + saddle, 2 639 unknowns 8 against 30 ms, 4 719 18 against 20, 7 399 38 against
 * 26, 10 679 52 against 38, 19 039 189 against 58 (bench/saddle-probe.mjs,
 * bench/device/results-2026-11-29-twenty-fourth/cpu2/saddle-probe.log).
 */
export const SADDLE_KRYLOV_MIN_N = 6000;

/** Whether rt.solve chooses for itself — no method and no preconditioner given (or 'auto' for either): 'auto''s choices, the factorization's included. */
export function autoChooses(method: unknown, preconditioner: unknown): boolean {
  return (method === undefined || method === 'auto') && (preconditioner === undefined || preconditioner === 'auto');
}
