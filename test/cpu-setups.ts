/**
 * The CPU backends the kernel tests run on: 1–3 threads with SIMD and the plain build, each created
 * once for the file (beforeAll) and disposed after it. `backends.get(key(s))` gives setup s's backend.
 */
import { afterAll, beforeAll } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';

export const SETUPS = [
  { threads: 1, simd: true },
  { threads: 2, simd: true },
  { threads: 3, simd: true },
  { threads: 2, simd: false },
] as const;

export const key = (s: (typeof SETUPS)[number]) => `${s.threads} thread(s)${s.simd ? '' : ', plain build'}`;

/** Registers the file's beforeAll/afterAll and returns the map they fill. */
export function cpuBackends(): Map<string, CpuBackend> {
  const backends = new Map<string, CpuBackend>();
  beforeAll(async () => {
    for (const s of SETUPS) backends.set(key(s), await CpuBackend.create({ threads: s.threads, simd: s.simd, inlineThreshold: 0 }));
  });
  afterAll(() => {
    for (const b of backends.values()) b.dispose();
  });
  return backends;
}

/**
 * Runtimes with these worker counts, made before the enclosing suite's tests (handed to `set`, which
 * keeps them in the suite's variables) and disposed after it.
 */
export function withRuntimes(workers: number[], set: (runtimes: Runtime[]) => void): void {
  let made: Runtime[] = [];
  beforeAll(async () => {
    made = [];
    for (const w of workers) made.push(await createRuntime({ workers: w }));
    set(made);
  });
  afterAll(() => {
    for (const r of made) r.dispose();
  });
}
