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
 * or after its Krylov candidates did not answer: elsewhere the ordering (AMD and nested dissection, on
 * the host) costs more than the Krylov solve it would replace (AMG's or Jacobi's on a Laplacian-like or
 * diagonally dominant matrix; measured when this was the only rule: 1.6 s for poisson2D(256), 33 s for
 * poisson3D(64), before the orderings' kernels ran on the pool).
 */
export const DIRECT_MAX_N = 20000;
