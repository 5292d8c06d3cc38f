import { afterAll, beforeAll } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { RuntimeOptions } from '../src/runtime/options.js';

/** The thread counts a pool test compares: one thread, an even and an odd split, more threads than cores. */
export const THREADS = [1, 2, 3, 7];

/** One runtime per count of THREADS (`workers: t` over `options`), made before the file's tests and disposed after them. */
export function runtimesByThreads(options: Omit<RuntimeOptions, 'workers'>): Map<number, Runtime> {
  const runtimes = new Map<number, Runtime>();
  beforeAll(async () => {
    for (const t of THREADS) runtimes.set(t, await createRuntime({ ...options, workers: t }));
  });
  afterAll(() => {
    for (const rt of runtimes.values()) rt.dispose();
  });
  return runtimes;
}
