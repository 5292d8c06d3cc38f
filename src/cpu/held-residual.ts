import type { HeldResidual } from '../solvers/direct/factor.js';
import type { Csc } from '../solvers/direct/pattern.js';
import type { CpuBackend } from './backend.js';
import { DisposedError } from '../errors.js';
import { held, f64Views } from './held-solve.js';
import { Layout, putF64, putI32 } from './memory.js';

/**
 * A's rows (`At`: the columns of Aᵀ) held in the runtime's memory with b, x, r and w, for the solve's
 * residual (assembly/residual.ts direct_residual): b and x copied in, r, the row sums w (where asked for) and the five sums out;
 * and ‖A‖∞ from the rows copied in (direct_row_abs_max).
 */
export function holdResidual(B: Pick<CpuBackend, 'heap' | 'kernels'>, At: Csc): HeldResidual {
  const { n, colPtr, rowIdx, values } = At;
  const c = At.complex ? 2 : 1;
  const nnz = colPtr[n];
  const m = c * n;
  // b, x, r, out, w (f64); values (f64), rowPtr, colIdx (i32)
  const { at, bytes } = Layout.of([8 * m, 8 * m, 8 * m, 8 * 5, 8 * n, 8 * c * nnz, 4 * (n + 1), 4 * nnz]);
  const put = (ptr: number): void => {
    putF64(B.heap, ptr + at[5], values.subarray(0, c * nnz));
    putI32(B.heap, ptr + at[6], colPtr.subarray(0, n + 1));
    putI32(B.heap, ptr + at[7], rowIdx.subarray(0, nnz));
  };
  return held(B.heap, bytes, put, (R) => {
    const p = at.map((a) => R.ptr + a);
    const views = f64Views(B.heap, [[p[3], 5], [p[0], m], [p[1], m], [p[2], m], [p[4], n]]);
    return {
      // from the rows just copied in (as JavaScript, 5 µs of west0479's first solve)
      normInf: B.kernels.direct_row_abs_max(n, c, p[6], p[5]),
      residual: (b: Float64Array, x: Float64Array, r: Float64Array, w: Float64Array | null) => {
        if (R.isDisposed) throw new DisposedError(B.heap.closed ? 'runtime' : 'held matrix');
        const [out, bv, xv, rv, wv] = views();
        bv.set(b);
        xv.set(x);
        B.kernels.direct_residual(n, c, p[6], p[7], p[5], p[0], p[1], p[2], w ? p[4] : 0, p[3]);
        r.set(rv);
        w?.set(wv);
        return out;
      },
    };
  });
}
