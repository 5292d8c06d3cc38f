/** Spying on the CPU backend's pool reductions: which kernels an operation ran (tests of kernel choice). */
import type { CpuBackend } from '../src/cpu/backend.js';

/** The names of the kernels B runs (runReduction) while `run` does, and run's value. */
export async function kernelsOf<T>(B: CpuBackend, run: () => Promise<T>): Promise<{ value: T; kernels: Set<string> }> {
  const kernels = new Set<string>();
  const original = B.runReduction;
  B.runReduction = ((name: string, ...rest: unknown[]) => {
    kernels.add(name);
    return (original as (...a: unknown[]) => unknown).call(B, name, ...rest);
  }) as typeof B.runReduction;
  try {
    return { value: await run(), kernels };
  } finally {
    B.runReduction = original;
  }
}
