import { lazyModule } from '../lazy-module.js';
import type * as Direct from './direct.js';

/**
 * The direct solvers' numeric phases (direct.ts), imported once, by the first rt.factor or solve that
 * factorizes: a chunk of their own in a page's bundle (docs/bundlers.md). Their symbolic phase, which
 * explain('solve') and estimateFactorCost answer from synchronously, is eager (solvers/direct/plan.ts).
 * Once loaded, callers take the module without an await, so an operation keeps its place among those
 * started after it.
 */
export const directSolvers = lazyModule<typeof Direct>(() => import('./direct.js'), 'the sparse direct solvers');
