/**
 * The sparse direct solvers' numeric phases with the CPU path's kernels they run on: the one module
 * behind `directSolvers` (direct-solvers.ts), imported on first use (rt.factor, or a solve that
 * factorizes), so that a bundler makes it a chunk a page loads only then.
 */
import type { CpuBackend } from '../cpu/backend.js';
import { cpuSupernodalNumeric } from '../cpu/cholesky.js';
import { cpuLuKernels } from '../cpu/lu.js';
import { holdResidual } from '../cpu/held-residual.js';
import type { DirectKernels } from '../solvers/direct/factor.js';
// the set-up chunk's kernels through its forwarders (it is in before this chunk is imported): imported
// here as well, esbuild's split put them in a chunk of their own that createRuntime waited for
import { cpuLdlKernels, cpuSymbolicKernels } from './solver-setup-chunk.js';

export { factorize } from '../solvers/direct/factor.js';

/** Each backend's kernels, made once: stateless closures over it (made each call, ≈ 1.5 KB of a small solve's garbage). */
const made = new WeakMap<CpuBackend, DirectKernels>();

/** The CPU path's kernels the direct solvers run on. */
export function directKernels(B: CpuBackend): DirectKernels {
  let k = made.get(B);
  if (!k) made.set(B, (k = { supernodal: cpuSupernodalNumeric(B), lu: cpuLuKernels(B), ldl: cpuLdlKernels(B), symbolic: cpuSymbolicKernels(B), residual: (At) => holdResidual(B, At) }));
  return k;
}
