import { lazyModule } from '../../lazy-module.js';
import type * as Cycle from './cycle.js';

/**
 * The AMG cycle (cycle.ts), imported by the first solve an AMG preconditioner serves: a chunk of its
 * own in a page's bundle (docs/bundlers.md). The set-up is in the solver set-up's chunk, which
 * createRuntime waits for (src/runtime/solver-setup-chunk.ts) — rt.amg and rt.preconditioner are
 * synchronous — while the cycle is only ever built inside an asynchronous solve, which loads it first.
 */
export const amgCycleChunk = lazyModule<typeof Cycle>(() => import('./cycle.js'), 'the AMG cycle');
