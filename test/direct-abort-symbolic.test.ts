/**
 * An abort fired during rt.factor's symbolic phase (the ordering, tree and counts: seconds on large
 * 3-D meshes) is seen within it: the phase gives the event loop a turn every few milliseconds when a
 * signal is given (solvers/direct/steps.ts). How late it is seen is measured by
 * bench/factor-abort-probe.mjs (docs/direct.md), not here: these tests check that the abort is seen
 * before the phase ends, that it frees what it held, that a paused phase plans what an unpaused one
 * plans, and that the same handle factorizes afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { directKernels, factorize } from '../src/runtime/direct.js';
import type { DirectKernels } from '../src/solvers/direct/factor.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** The CPU path's kernels, the tree and counts' call counted (the last step of the symbolic phase, after the ordering). */
function countingTree(): { kernels: DirectKernels; trees: () => number } {
  const k = directKernels(rt.cpu.backend);
  let trees = 0;
  const symbolic = { ...k.symbolic, graphTree: (...a: Parameters<typeof k.symbolic.graphTree>) => (trees++, k.symbolic.graphTree(...a)) };
  return { kernels: { ...k, symbolic }, trees: () => trees };
}

describe('an abort during the symbolic phase', () => {
  it('poisson3D(64) (nested dissection of 262 144 unknowns): a timer that fires at 0 ms is seen during the ordering, before the tree and counts', async () => {
    const A = poisson3D(64);
    const before = rt.memoryInUse;
    const { kernels, trees } = countingTree();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 0);
    const err = await factorize(A, { signal: stop.signal }, undefined, kernels).then(() => null, (e: unknown) => e);
    expect(err).toBe(stop.signal.reason);
    expect((err as DOMException).name).toBe('AbortError');
    // before: the whole ordering ran before the signal was read (it then was, at the numeric phase's start)
    expect(trees()).toBe(0);
    expect(rt.memoryInUse).toBe(before);
    // the counter counts: the same kernels' whole phase calls the tree once
    const F = await factorize(poisson3D(10), {}, undefined, kernels);
    expect(trees()).toBe(1);
    F.dispose();
  });

  it('rt.factor on a handle: rejects with the reason given, frees what it held, and the same handle then factorizes as it would have', async () => {
    const A = poisson3D(32);
    const h = rt.upload(A);
    const before = rt.memoryInUse;
    const why = new Error('user left the page');
    const stop = new AbortController();
    setTimeout(() => stop.abort(why), 0);
    await expect(rt.factor(h, { signal: stop.signal })).rejects.toBe(why);
    expect(rt.memoryInUse).toBe(before);

    // a signal that never fires: the paused symbolic phase plans what the unpaused one does
    const F = await rt.factor(h, { signal: new AbortController().signal });
    const G = await rt.factor(h);
    for (const key of ['kind', 'ordering', 'fillNnz', 'flops', 'supernodes', 'largestSupernode'] as const) expect(F.info[key]).toEqual(G.info[key]);
    expect(F.info.ordering).toBe('nd');
    const b = new Float64Array(A.rows);
    for (let i = 0; i < b.length; i++) b[i] = Math.sin(i + 1);
    const { x } = await F.solve(b);
    expect(trueResidual(A, x, b)).toBeLessThan(1e-12);
    F.dispose();
    G.dispose();
    h.dispose();
  }, 60_000);

  it('an abort timer that fell due while rt.factor started in a timer callback is seen before the numeric phase', async () => {
    const A = poisson2D(40);
    const before = rt.memoryInUse;
    const why = new Error('stop');
    const stop = new AbortController();
    const started = await new Promise<{ factor: Promise<unknown> }>((resolve) =>
      setTimeout(() => {
        setTimeout(() => stop.abort(why), 0);
        // the abort timer falls due while this callback runs: Node runs it at the next timers phase,
        // after this iteration's check phase, where a single setImmediate hop would have looked
        const t = performance.now();
        while (performance.now() - t < 5);
        resolve({ factor: rt.factor(A, { kind: 'ldlt', signal: stop.signal }) });
      }, 0),
    );
    // before: the checkpoint's one hop found the signal not yet fired, and the factorization succeeded
    await expect(started.factor).rejects.toBe(why);
    expect(rt.memoryInUse).toBe(before);
  });

  it('the runtime disposed while the symbolic phase is paused: a typed rejection, nothing else breaks', async () => {
    const rt2 = await createRuntime({ workers: 1, backend: 'cpu' });
    const pending = rt2.factor(poisson3D(48), { signal: new AbortController().signal });
    rt2.dispose();
    const err = await pending.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('DisposedError');
  });
});
