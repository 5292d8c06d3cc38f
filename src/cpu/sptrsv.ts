import type { CSRMatrix } from '../formats/csr.js';
import { splitTriangle } from '../solvers/precond/levels.js';
import type { TriangularOptions, TriangularSolver } from '../solvers/ops.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { balancedBounds } from './partition.js';
import type { CpuVector } from './resident.js';

/**
 * A triangular factor resident on the CPU path (assembly/sptrsv.ts). Levels whose work (rows +
 * entries) reaches the backend's inline threshold are split over the pool, balanced by entries; runs
 * of smaller levels go inline, one call each, in schedule order. When no level is large enough (or
 * there is one thread) the whole solve is one inline pass in natural row order, which reads memory in
 * order instead of level by level.
 */
export function cpuTriangular(B: CpuBackend, T: CSRMatrix, o: TriangularOptions): TriangularSolver<CpuVector> {
  const n = T.rows;
  const { strict, invDiag } = splitTriangle(T, o.lower, o.unitDiagonal);
  const { levelPtr, rows } = o.levels;
  const depth = levelPtr.length - 1;
  const chunks = B.workerPool?.chunks ?? 1;
  // cost prefix over the schedule's order: rows before k plus their entries
  const cost = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) cost[k + 1] = cost[k] + 1 + strict.rowPtr[rows[k] + 1] - strict.rowPtr[rows[k]];
  const ranges: Int32Array[] = [];
  let parallel = 0;
  if (chunks > 1) {
    let runStart = 0;
    for (let l = 0; l < depth; l++) {
      const s = levelPtr[l];
      const e = levelPtr[l + 1];
      if (cost[e] - cost[s] < B.inlineThreshold) continue;
      if (s > runStart) ranges.push(Int32Array.of(runStart, s));
      const b = balancedBounds(e - s, chunks, (i) => cost[s + i] - cost[s], 1);
      ranges.push(b.map((v) => v + s));
      parallel++;
      runStart = e;
    }
    if (runStart < n) ranges.push(Int32Array.of(runStart, n));
  }
  let order: Int32Array = rows;
  if (parallel === 0) {
    order = new Int32Array(n);
    for (let k = 0; k < n; k++) order[k] = o.lower ? k : n - 1 - k;
    ranges.length = 0;
    ranges.push(Int32Array.of(0, n));
  }
  const regions: Region[] = [];
  try {
    for (const a of [strict.rowPtr, strict.colIdx, strict.values, order, ...(invDiag ? [invDiag] : [])]) regions.push(B.heap.allocCopy(a));
  } catch (e) {
    for (const r of regions) r.dispose();
    throw e;
  }
  const [ptr, idx, val, ord, inv] = regions;
  const kernel = `sptrsv_${T.dtype}`;
  return {
    method:
      parallel === 0
        ? `sequential (${depth} levels, none with the work to split over ${chunks} thread${chunks > 1 ? 's' : ''})`
        : `level-scheduled (${depth} levels, ${parallel} split over ${chunks} threads)`,
    solve: (b, x) => B.runRanges(kernel, () => [ptr.ptr, idx.ptr, val.ptr, inv ? inv.ptr : 0, ord.ptr, b.ptr, x.ptr], ranges),
    dispose: () => {
      for (const r of regions) r.dispose();
    },
  };
}
