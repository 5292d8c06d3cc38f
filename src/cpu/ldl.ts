import type { DenseLdlKernel, LdlFactor, LdlKernels, LdlNumericSteps } from '../solvers/direct/ldl.js';
import { finish, nextPiece } from '../solvers/direct/steps.js';
import { holdSolve, solveOnce, type SolveLayout } from './held-solve.js';
import { copyF64, freeTemporary, Layout, putF64, putI32 } from './memory.js';
import type { CpuBackend } from './backend.js';

type Kernels = Pick<CpuBackend, 'heap' | 'kernels'>;

/** The LDLᵀ kernels of the CPU path (assembly/ldl.ts), run at once on the calling thread's instance. */
export function cpuLdlKernels(B: Kernels): LdlKernels {
  const steps = cpuLdlNumeric(B);
  return {
    sparse: (...a) => finish(steps(...a)), sparseSteps: steps, dense: cpuDenseLdl(B),
    solve: (f, perm, b, x) => solveOnce(B.heap, ldlLayout(B, f, perm), b, x), hold: (f, perm) => holdSolve(B.heap, ldlLayout(B, f, perm)),
  };
}

/**
 * The kept factor's solve on the CPU path (assembly/ldl.ts ldl_solve): the factor, perm and the work
 * vectors b, x, y in one region of the runtime's memory, written once (held) or for one call.
 */
function ldlLayout(B: Kernels, f: LdlFactor, perm: Int32Array): SolveLayout {
  const n = f.D.length;
  const lnz = f.dense ? n * n : f.Lp[n];
  // b, x, y, Lx, D (f64); then perm, and Lp, Li unless dense (i32)
  const { at, bytes } = Layout.of([8 * n, 8 * n, 8 * n, 8 * lnz, 8 * n, 4 * n, f.dense ? 0 : 4 * (n + 1), f.dense ? 0 : 4 * lnz]);
  return {
    bytes,
    put: (ptr) => {
      const h = B.heap;
      putF64(h, ptr + at[3], f.Lx.subarray(0, lnz));
      putF64(h, ptr + at[4], f.D);
      putI32(h, ptr + at[5], perm);
      if (!f.dense) {
        putI32(h, ptr + at[6], f.Lp);
        putI32(h, ptr + at[7], f.Li.subarray(0, lnz));
      }
    },
    m: n,
    b: at[0],
    x: at[1],
    run: (ptr) => {
      B.kernels.ldl_solve(n, ptr + at[6], ptr + at[7], ptr + at[3], ptr + at[4], ptr + at[5], ptr + at[0], ptr + at[1], ptr + at[2], f.dense ? 1 : 0);
    },
  };
}

/**
 * The dense LDLᵀ on the CPU path (assembly/ldl.ts ldl_dense): A's columns copied into a region of the
 * runtime's memory, where the kernel scatters them into the n×n array and eliminates; the array and D
 * copied out (the region freed and given back to the operation's memory budget). No loop over the
 * entries in JavaScript: bcsstk01's factorization spent more time there than in the kernel.
 */
function cpuDenseLdl(B: Kernels): DenseLdlKernel {
  return (n, Ap, Ai, Ax, positive) => {
    const nnz = Ap[n];
    // W, D, Ax (f64); Ap, Ai (i32)
    const { at, bytes } = Layout.of([8 * n * n, 8 * n, 8 * nnz, 4 * (n + 1), 4 * nnz]);
    return B.heap.temporary(bytes, (region) => {
      const P = at.map((a) => region.ptr + a);
      const h = B.heap;
      putF64(h, P[2], Ax.subarray(0, nnz));
      putI32(h, P[3], Ap.subarray(0, n + 1));
      putI32(h, P[4], Ai.subarray(0, nnz));
      const k = B.kernels.ldl_dense(n, P[3], P[4], P[2], P[0], P[1], positive ? 1 : 0);
      if (k >= 0) return k;
      return { W: copyF64(h, P[0], n * n), D: copyF64(h, P[1], n) };
    });
  };
}

/**
 * The up-looking LDLᵀ's numeric phase on the CPU path (assembly/ldl.ts), on the calling thread's
 * instance: A, the ordering, the tree and L's pointers are copied into one region of the runtime's
 * memory, the kernel runs, and L and D are copied out into the factor's arrays (the region freed and
 * given back to the operation's memory budget).
 */
function cpuLdlNumeric(B: Kernels): LdlNumericSteps {
  return function* (A, pinv, parent, f, positive, paused = false) {
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
      let at = base;
      // the region's pieces: byte addresses (views made when copying: a paused run's memory may grow between calls)
      const put = (bytes: number): number => ((at += bytes), at - bytes);
      // the f64 arrays first (8-byte aligned from the region's start)
      const Ax = put(8 * nnz);
      const Lx = put(8 * lnz);
      const D = put(8 * n);
      const Ap = put(4 * (n + 1));
      const Ai = put(4 * nnz);
      const pv = put(4 * n);
      const pa = put(4 * n);
      const Lp = put(4 * (n + 1));
      const Li = put(4 * lnz);
      const h = B.heap;
      putF64(h, Ax, values.subarray(0, nnz));
      putI32(h, Ap, colPtr.subarray(0, n + 1));
      putI32(h, Ai, rowIdx.subarray(0, nnz));
      putI32(h, pv, pinv);
      putI32(h, pa, parent);
      putI32(h, Lp, f.Lp);
      const work = (at + 7) & ~7;
      const p = positive ? 1 : 0;
      // paused: ranges bounded by the entries of L they read (scaled toward PIECE_MS a call), a yield
      // after each — the same operations in the same order; else one call (budget 0: no pause)
      let budget = paused ? 1 << 16 : 0;
      let k: number;
      for (let k0 = 0; ; ) {
        const t0 = performance.now();
        k = B.kernels.ldl_factor(n, Ap, Ai, Ax, pv, pa, Lp, Li, Lx, D, work, p, k0, n, budget);
        if (k > -2) break;
        k0 = -2 - k;
        budget = Math.min(1 << 30, nextPiece(budget, performance.now() - t0));
        yield;
      }
      if (k < 0) {
        const { i32: I, f64: F } = h.words;
        f.Li.set(I.subarray(Li >> 2, (Li >> 2) + lnz));
        f.Lx.set(F.subarray(Lx >> 3, (Lx >> 3) + lnz));
        f.D.set(F.subarray(D >> 3, (D >> 3) + n));
      }
      return k;
    } finally {
      freeTemporary(region);
    }
  };
}
