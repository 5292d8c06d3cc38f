/**
 * For the tests that hold explain to the call it explains: what a synchronous call throws, and the
 * check that explain('solve') refuses options as rt.solve does — the same error class, the same message
 * after the call's name.
 */
import { expect } from 'vitest';
import type { Runtime } from '../src/runtime/runtime.js';
import type { MatrixHandle } from '../src/runtime/handles.js';
import type { AutoSolveOptions } from '../src/runtime/options.js';

/** the error f throws, or null */
export function thrown(f: () => unknown): Error | null {
  try {
    f();
    return null;
  } catch (e) {
    return e as Error;
  }
}

export async function expectExplainRefusesAsSolve(rt: Runtime, h: MatrixHandle, options: unknown, label: string): Promise<void> {
  const s = await rt.solve(h, new Float64Array(h.rows).fill(1), options as AutoSolveOptions).then(
    () => null,
    (e: Error) => e,
  );
  expect(s, `rt.solve refuses ${label}`).not.toBeNull();
  const e = thrown(() => rt.explain('solve', h, options as never));
  expect(e, `explain refuses ${label}`).not.toBeNull();
  expect(e!.constructor).toBe(s!.constructor);
  expect(e!.message.replace(/^explain: /, '')).toBe(s!.message.replace(/^solve: /, ''));
}
