import type { DenseLdlKernel, LdlKernels, LdlNumeric } from '../solvers/direct/ldl.js';
import type { CpuBackend } from './backend.js';
import { releaseMemory } from '../memory-budget.js';

type Kernels = Pick<CpuBackend, 'heap' | 'kernels'>;

/** The LDLᵀ kernels of the CPU path (assembly/ldl.ts), run at once on the calling thread's instance. */
export function cpuLdlKernels(B: Kernels): LdlKernels {
  return { sparse: cpuLdlNumeric(B), dense: cpuDenseLdl(B) };
}

/**
 * The dense LDLᵀ on the CPU path (assembly/ldl.ts ldl_dense): W and D copied into a region of the
 * runtime's memory and back (the region freed and given back to the operation's memory budget).
 */
function cpuDenseLdl(B: Kernels): DenseLdlKernel {
  return (n, W, D, positive) => {
    const region = B.heap.alloc(8 * (n * n + n));
    try {
      const w = region.view('f64', n * n);
      w.set(W);
      const k = B.kernels.ldl_dense(n, region.ptr, region.ptr + 8 * n * n, positive ? 1 : 0);
      W.set(w);
      D.set(new Float64Array(B.heap.memory.buffer, region.ptr + 8 * n * n, n));
      return k;
    } finally {
      region.dispose();
      releaseMemory(region.bytes);
    }
  };
}

/**
 * The up-looking LDLᵀ's numeric phase on the CPU path (assembly/ldl.ts), on the calling thread's
 * instance: A, the ordering, the tree and L's pointers are copied into one region of the runtime's
 * memory, the kernel runs, and L and D are copied out into the factor's arrays (the region freed and
 * given back to the operation's memory budget).
 */
function cpuLdlNumeric(B: Kernels): LdlNumeric {
  return (A, pinv, parent, f, positive) => {
    const { n, colPtr, rowIdx, values } = A;
    const nnz = colPtr[n];
    const lnz = f.Lp[n];
    // Ap, Ai, pinv, parent, Lp, Li (i32); Ax, Lx, D (f64); the kernel's work
    const i32 = 4 * (n + 1) + 4 * nnz + 8 * n + 4 * (n + 1) + 4 * lnz;
    const f64 = 8 * nnz + 8 * lnz + 8 * n;
    const workBytes = 12 * nnz + 4 * (n + 1) + 8 + 20 * n;
    const region = B.heap.alloc(f64 + ((i32 + 7) & ~7) + workBytes);
    try {
      const base = region.ptr;
      const buf = B.heap.memory.buffer;
      let at = base;
      const put = <T extends Int32Array | Float64Array>(make: (b: ArrayBufferLike, o: number, l: number) => T, length: number, from?: T): [number, T] => {
        const p = at;
        const view = make(buf, p, length);
        if (from) view.set(from.subarray(0, length) as never);
        at += view.byteLength;
        return [p, view];
      };
      const f64s = (b: ArrayBufferLike, o: number, l: number) => new Float64Array(b, o, l);
      const i32s = (b: ArrayBufferLike, o: number, l: number) => new Int32Array(b, o, l);
      // the f64 arrays first (8-byte aligned from the region's start)
      const [Ax] = put(f64s, nnz, values);
      const [Lx, LxView] = put(f64s, lnz);
      const [D, DView] = put(f64s, n);
      const [Ap] = put(i32s, n + 1, colPtr);
      const [Ai] = put(i32s, nnz, rowIdx);
      const [pv] = put(i32s, n, pinv);
      const [pa] = put(i32s, n, parent);
      const [Lp] = put(i32s, n + 1, f.Lp);
      const [Li, LiView] = put(i32s, lnz);
      const work = (at + 7) & ~7;
      const k = B.kernels.ldl_factor(n, Ap, Ai, Ax, pv, pa, Lp, Li, Lx, D, work, positive ? 1 : 0);
      if (k < 0) {
        f.Li.set(LiView);
        f.Lx.set(LxView);
        f.D.set(DView);
      }
      return k;
    } finally {
      region.dispose();
      releaseMemory(region.bytes);
    }
  };
}
