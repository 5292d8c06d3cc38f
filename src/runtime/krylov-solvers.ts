import { lazyModule } from '../lazy-module.js';
import type * as Krylov from '../solvers/true-residual.js';
import { solverSetup } from './solver-setup-chunk.js';

/**
 * The Krylov methods and rt.solve's true-residual driver (solvers/true-residual.ts), imported once, by
 * the first iterative solve: a chunk of their own in a page's bundle (docs/bundlers.md), as the direct
 * solvers' numeric phases are. What decides a solve synchronously (chooseSolve, explain) is in the solver
 * set-up's chunk (solver-setup-chunk.ts), which createRuntime waits for; this one builds on it and is
 * imported from there.
 */
export const krylovSolvers = lazyModule<typeof Krylov>(() => solverSetup.load().then(() => solverSetup.get().importKrylov()), 'the Krylov solvers');
