import type { MinimumDegreeKernel } from '../solvers/direct/amd.js';
import type { CpuBackend } from './backend.js';

/**
 * The minimum degree orderings' elimination on the CPU path (assembly/amd.ts), on the calling
 * thread's instance: the block is a region of the runtime's memory, zeroed, filled by the ordering,
 * run over, read back and freed.
 */
export function cpuMinimumDegree(B: Pick<CpuBackend, 'heap' | 'kernels'>): MinimumDegreeKernel {
  return (words, n, fill) => {
    const region = B.heap.alloc(4 * words);
    try {
      const all = region.view('i32', words);
      all.fill(0);
      const a = fill(all);
      const status = B.kernels.amd_eliminate(region.ptr, n, a.m, a.size, a.cnz, a.dense, region.ptr + 4 * a.denseBy);
      if (status !== 0) throw new Error(`internal: the minimum degree elimination ran out of pivots (n = ${n})`);
      return region.view('i32', n).slice();
    } finally {
      region.dispose();
    }
  };
}
