import { lazyModule } from '../lazy-module.js';
import type * as Krylov from '../solvers/true-residual.js';

/**
 * The Krylov methods and rt.solve's true-residual driver (solvers/true-residual.ts), imported once, by
 * the first iterative solve: a chunk of their own in a page's bundle (docs/bundlers.md), as the direct
 * solvers' numeric phases are. What decides a solve synchronously (chooseSolve, explain) stays eager.
 */
export const krylovSolvers = lazyModule<typeof Krylov>(() => import('../solvers/true-residual.js'), 'the Krylov solvers');
