import { lazyModule } from '../../lazy-module.js';
import type * as Cycle from './cycle.js';

/**
 * The AMG cycle (cycle.ts), imported by the first solve an AMG preconditioner serves: a chunk of its
 * own in a page's bundle (docs/bundlers.md). The set-up stays eager — rt.amg and rt.preconditioner are
 * synchronous — while the cycle is only ever built inside an asynchronous solve, which loads it first.
 */
export const amgCycleChunk = lazyModule<typeof Cycle>(() => import('./cycle.js'), 'the AMG cycle');
