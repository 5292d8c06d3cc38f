import { lazyModule } from '../lazy-module.js';
import type * as SolveRun from './solve-run.js';
import { solverSetup } from './solver-setup-chunk.js';

/**
 * rt.solve's driver after its checks and reads (solve-run.ts: the factorization's verdict, the Krylov
 * candidates and their preconditioners), imported once, by createRuntime without waiting (else by the
 * first solve while it checks its arguments, plans and reads b): a chunk of its own in a page's bundle
 * (docs/bundlers.md), built on the solver set-up's chunk (solver-setup-chunk.ts: what answers
 * synchronously, explain('solve') and rt.preconditioner) and imported from there. Once loaded, a solve
 * goes on without an await, so it keeps its place among the operations started after it.
 */
export const solveRun = lazyModule<typeof SolveRun>(() => solverSetup.load().then(() => solverSetup.get().importSolveRun()), "rt.solve's driver");
