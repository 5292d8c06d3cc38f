import { lazyModule } from '../lazy-module.js';
import type * as SolveRun from './solve-run.js';

/**
 * rt.solve's driver after its checks and reads (solve-run.ts: the factorization's verdict, the Krylov
 * candidates and their preconditioners), imported once, by the first solve while it checks its
 * arguments, plans and reads b: a chunk of its own in a page's bundle (docs/bundlers.md). What answers
 * synchronously (explain('solve'), rt.preconditioner) stays eager. Once loaded, a solve goes on without
 * an await, so it keeps its place among the operations started after it.
 */
export const solveRun = lazyModule<typeof SolveRun>(() => import('./solve-run.js'), "rt.solve's driver");
