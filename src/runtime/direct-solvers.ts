import { lazyModule } from '../lazy-module.js';
import type * as Direct from './direct.js';
import { solverSetup } from './solver-setup-chunk.js';

/**
 * The direct solvers' numeric phases (direct.ts), imported once, by the first rt.factor or solve that
 * factorizes: a chunk of their own in a page's bundle (docs/bundlers.md). Their symbolic phase, which
 * explain('solve') and estimateFactorCost answer from synchronously, is in the solver set-up's chunk
 * (solvers/direct/plan.ts; solver-setup-chunk.ts), which createRuntime waits for; this chunk builds on it
 * and is imported from there. Once loaded, callers take the module without an await, so an operation
 * keeps its place among those started after it.
 */
export const directSolvers = lazyModule<typeof Direct>(() => solverSetup.load().then(() => solverSetup.get().importDirect()), 'the sparse direct solvers');
