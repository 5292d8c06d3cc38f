/**
 * The symbolic phase as steps: its long loops are generators that yield between bounded pieces of
 * work (a nested-dissection part, a search of its levels, an ordering candidate), so that rt.factor
 * with a signal gives the event loop a turn every few milliseconds — a timer or event that aborts then
 * runs, and the abort is seen there — while explain, estimateFactorCost and a factorization without a
 * signal run them through at once, as one synchronous call.
 */
import { nextTask, throwIfAborted } from '../../next-task.js';

/** Work that may pause wherever it yields, and returns T. */
export type Steps<T> = Generator<void, T, void>;

/**
 * A turn of the event loop in which the timers that are due run: two task hops. In Node one hop
 * (setImmediate) taken from the poll or timers phase runs in the same loop iteration's check phase,
 * before the next timers phase — an abort timer that fell due during the synchronous work before it
 * was not run, and a factorization went on into its numeric phase (up to 34 s more for poisson3D(64));
 * the second hop, taken from the check phase, runs after the next timers phase.
 */
export async function timersTurn(): Promise<void> {
  await nextTask();
  await nextTask();
}

/** Runs the steps to their end without pausing. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The run of steps between two turns of the event loop, at most (ms), past which the next yield
 * pauses: measured against poisson3D(64)'s nested dissection, see docs/direct.md (a single kernel
 * call between two yields, such as AMD's elimination of a large graph, still runs to its end).
 */
const SLICE_MS = 8;

/**
 * Runs the steps, giving the event loop a turn at the first yield after each SLICE_MS and then
 * rejecting with the signal's reason when it has fired (the steps closed). Each run between two turns
 * is one call of `scope` (the operation's memory budget: withMemoryBudget's scope lasts one
 * synchronous call).
 */
export async function finishPausing<T>(steps: Steps<T>, signal: { aborted: boolean; reason?: unknown }, scope: <R>(run: () => R) => R): Promise<T> {
  for (;;) {
    const r = scope(() => {
      const t0 = performance.now();
      let s: IteratorResult<void, T>;
      do s = steps.next();
      while (!s.done && performance.now() - t0 < SLICE_MS);
      return s;
    });
    if (r.done) return r.value;
    await timersTurn();
    try {
      throwIfAborted(signal);
    } catch (e) {
      steps.return(undefined as T);
      throw e;
    }
  }
}

/**
 * A numeric phase's kernel call between two yields, aimed at (ms): the LU and LDLᵀ kernels run as
 * ranges of steps when paused (src/cpu/lu.ts, ldl.ts), the range after each call scaled toward it
 * (finishPausing's SLICE_MS then gathers several such calls between two turns of the event loop).
 */
export const PIECE_MS = 1;

/**
 * The next range's length in steps after `steps` took `ms`: scaled toward PIECE_MS, grown by a quarter
 * at most (a step's cost can jump fifty-fold where the elimination reaches a separator), at least 1.
 */
export function nextPiece(steps: number, ms: number): number {
  const most = Math.ceil(1.25 * steps);
  return Math.max(1, Math.min(most, ms > 0 ? Math.floor((steps * PIECE_MS) / ms) : most));
}
