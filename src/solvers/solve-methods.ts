/**
 * rt.solve's vocabulary, in a module of its own: the option checks read it at once, while solve.ts (the
 * choice itself) sits in the solver set-up's chunk (src/runtime/solver-setup-chunk.ts).
 */

/** The iterative methods. */
export type SolveMethod = 'cg' | 'bicgstab' | 'gmres' | 'minres';
export const SOLVE_METHODS: readonly SolveMethod[] = ['cg', 'bicgstab', 'gmres', 'minres'];

/**
 * Above this many unknowns 'auto' does not even plan a factorization: the ordering (AMD or nested
 * dissection, on the host) then costs seconds by itself (measured: 1.6 s for poisson2D(256), 33 s for
 * poisson3D(64)), more than a preconditioned Krylov solve of such matrices.
 */
export const DIRECT_MAX_N = 20000;
