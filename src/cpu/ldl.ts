import type { DenseLdlKernel, LdlKernels, LdlNumeric, LdlSolve } from '../solvers/direct/ldl.js';
import type { CpuBackend } from './backend.js';

type Kernels = Pick<CpuBackend, 'heap' | 'kernels'>;

/** The LDLᵀ kernels of the CPU path (assembly/ldl.ts), run at once on the calling thread's instance. */
export function cpuLdlKernels(B: Kernels): LdlKernels {
  return { sparse: cpuLdlNumeric(B), dense: cpuDenseLdl(B), solve: cpuLdlSolve(B) };
}

/**
 * The kept factor's solve on the CPU path (assembly/ldl.ts ldl_solve): the factor, perm and b copied
 * into a region of the runtime's memory (block copies: 20 KB for 494_bus), x copied out, the region
 * freed and given back to the operation's memory budget. The factor stays in JavaScript arrays: no
 * lifetime to manage, and its copy costs less than the interpreted loops of a process's first solves.
 */
function cpuLdlSolve(B: Kernels): LdlSolve {
  return (f, perm, b, x) => {
    const n = f.D.length;
    const lnz = f.Lp[n];
    // Lx, D, b, x, y (f64); then perm, and Lp, Li unless dense (i32)
    const f64 = 8 * (lnz + 4 * n);
    return B.heap.temporary(f64 + 4 * n + (f.dense ? 0 : 4 * (n + 1 + lnz)), (region) => {
      const buf = B.heap.memory.buffer;
      const Lx = region.ptr;
      const D = Lx + 8 * lnz;
      const bAt = D + 8 * n;
      const xAt = bAt + 8 * n;
      const y = xAt + 8 * n;
      const pAt = y + 8 * n;
      const Lp = pAt + 4 * n;
      const Li = Lp + 4 * (n + 1);
      new Float64Array(buf, Lx, lnz).set(f.Lx);
      new Float64Array(buf, D, n).set(f.D);
      new Float64Array(buf, bAt, n).set(b);
      new Int32Array(buf, pAt, n).set(perm);
      if (!f.dense) {
        new Int32Array(buf, Lp, n + 1).set(f.Lp);
        new Int32Array(buf, Li, lnz).set(f.Li);
      }
      B.kernels.ldl_solve(n, Lp, Li, Lx, D, pAt, bAt, xAt, y, f.dense ? 1 : 0);
      x.set(new Float64Array(B.heap.memory.buffer, xAt, n));
    });
  };
}

/**
 * The dense LDLᵀ on the CPU path (assembly/ldl.ts ldl_dense): W and D copied into a region of the
 * runtime's memory and back (the region freed and given back to the operation's memory budget).
 */
function cpuDenseLdl(B: Kernels): DenseLdlKernel {
  return (n, W, D, positive) => {
    return B.heap.temporary(8 * (n * n + n), (region) => {
      const w = region.view('f64', n * n);
      w.set(W);
      const k = B.kernels.ldl_dense(n, region.ptr, region.ptr + 8 * n * n, positive ? 1 : 0);
      W.set(w);
      D.set(new Float64Array(B.heap.memory.buffer, region.ptr + 8 * n * n, n));
      return k;
    });
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
    return B.heap.temporary(f64 + ((i32 + 7) & ~7) + workBytes, (region) => {
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
    });
  };
}
