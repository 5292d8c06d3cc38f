import type { DenseInverseKernel } from '../solvers/amg/coarse.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { balancedBounds } from './partition.js';

/**
 * The AMG coarsest level's dense (pseudo-)inverse on the CPU path (assembly/coarse_inverse.ts): the
 * Cholesky factor on this thread, the inverse's columns, four at a time, on the pool; the bits of
 * src/solvers/amg/coarse.ts denseInverse (its JavaScript took ≈ 65 ms of each poisson3D(128) setup on
 * the H100 host, 314 rows).
 */
export function cpuDenseInverse(backend: CpuBackend): DenseInverseKernel {
  return (L, n, dmax) => {
    const heap = backend.heap;
    const threads = backend.threads;
    const blocks = Math.ceil(n / 4);
    const regions: Region[] = [];
    const alloc = (bytes: number) => {
      const r = heap.alloc(bytes || 8);
      regions.push(r);
      return r;
    };
    try {
      const [l, inv, dropped, out, slots] = [8 * n * n, 8 * n * n, n, 16, 16 * threads].map(alloc);
      const slotView = slots.view('i32');
      for (let c = 0; c < threads; c++) slotView[4 * c] = alloc(32 * n).ptr;
      l.view('f64', n * n).set(L);
      const j = backend.kernel('coarse_cholesky')(l.ptr, dropped.ptr, n, dmax, out.ptr);
      if (j >= 0) return { pivot: out.view('f64', 1)[0] };
      // a block of four columns from c costs ≈ (n − c)²/2 forward and n²/2 backward
      const prefix = new Float64Array(blocks + 1);
      for (let b = 0; b < blocks; b++) prefix[b + 1] = prefix[b] + (n - 4 * b) ** 2 / 2 + (n * n) / 2;
      const bounds = threads === 1 || blocks < 2 ? Int32Array.of(0, blocks) : balancedBounds(blocks, threads, (b) => prefix[b], 1);
      backend.runChunksSync('coarse_inverse_columns', [l.ptr, dropped.ptr, n, inv.ptr, slots.ptr], bounds, 4);
      return { inverse: inv.view('f64', n * n).slice() };
    } finally {
      for (const r of regions) r.dispose();
    }
  };
}
