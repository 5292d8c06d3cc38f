import type { LuFactor } from '../solvers/direct/lu.js';
import type { CpuBackend } from './backend.js';
import type { SolveLayout } from './held-solve.js';
import { Layout } from './memory.js';

/**
 * The solve through a block triangular form's factor (f.blocks: L and U of the diagonal blocks, the
 * entries above them as they stand) on the CPU path (assembly/btf.ts btf_solve): as lu.ts's layout,
 * with the block starts and the entries above the blocks beside the factor.
 */
export function btfLayout(B: Pick<CpuBackend, 'heap' | 'kernels'>, f: LuFactor): SolveLayout {
  const { n, Lp, Up } = f;
  const { starts, Fp, Fi, Fx } = f.blocks!;
  const c = f.complex ? 2 : 1;
  const lnz = Lp[n];
  const unz = Up[n];
  const fnz = Fp[n];
  const nb = starts.length - 1;
  // b, x, y, Lx, Ux, dinv, Fx (f64); Lp, Li, Up, Ui, pinv, q, Fp, Fi, starts (i32)
  const { at, bytes } = Layout.of([8 * c * n, 8 * c * n, 8 * c * n, 8 * c * lnz, 8 * c * unz, 8 * c * n, 8 * c * fnz,
    4 * (n + 1), 4 * lnz, 4 * (n + 1), 4 * unz, 4 * n, 4 * n, 4 * (n + 1), 4 * fnz, 4 * (nb + 1)]);
  return {
    bytes,
    put: (ptr) => {
      const buf = B.heap.memory.buffer;
      const P = at.map((a) => ptr + a);
      new Float64Array(buf, P[3], c * lnz).set(f.Lx.subarray(0, c * lnz));
      new Float64Array(buf, P[4], c * unz).set(f.Ux.subarray(0, c * unz));
      new Float64Array(buf, P[5], c * n).set(f.dinv!);
      new Float64Array(buf, P[6], c * fnz).set(Fx.subarray(0, c * fnz));
      new Int32Array(buf, P[7], n + 1).set(Lp);
      new Int32Array(buf, P[8], lnz).set(f.Li.subarray(0, lnz));
      new Int32Array(buf, P[9], n + 1).set(Up);
      new Int32Array(buf, P[10], unz).set(f.Ui.subarray(0, unz));
      new Int32Array(buf, P[11], n).set(f.pinv);
      new Int32Array(buf, P[12], n).set(f.q);
      new Int32Array(buf, P[13], n + 1).set(Fp);
      new Int32Array(buf, P[14], fnz).set(Fi.subarray(0, fnz));
      new Int32Array(buf, P[15], nb + 1).set(starts);
    },
    m: c * n,
    b: at[0],
    x: at[1],
    run: (ptr) => {
      const P = at.map((a) => ptr + a);
      B.kernels.btf_solve(n, c, nb, P[15], P[7], P[8], P[3], P[9], P[10], P[4], P[5], P[13], P[14], P[6], P[11], P[12], P[0], P[1], P[2]);
    },
  };
}
