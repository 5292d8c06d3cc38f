import { lazyModule } from '../lazy-module.js';
import type * as SolveRun from './solve-run.js';

/**
 * rt.solve's driver after its checks and reads (solve-run.ts: the factorization's verdict, the Krylov
 * candidates and their preconditioners), imported once, by createRuntime without waiting (else by the
 * first solve while it checks its arguments, plans and reads b): a chunk of its own in a page's bundle
 * (docs/bundlers.md). What answers synchronously (explain('solve'), rt.preconditioner) is in the solver
 * set-up's chunk (solver-setup-chunk.ts), which createRuntime waits for. Imported from here, not from
 * that chunk as the direct solvers and Krylov methods are: its fetch starts beside the set-up's, so a
 * first solve called as soon as createRuntime resolves finds it in (imported from there, it waited a
 * round trip more); webpack copies the modules it shares with the set-up into it. Once loaded, a solve
 * goes on without an await, so it keeps its place among the operations started after it.
 */
export const solveRun = lazyModule<typeof SolveRun>(() => import('./solve-run.js'), "rt.solve's driver");
