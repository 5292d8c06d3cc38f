/**
 * The JavaScript kept-factor LU solve that assembly/lu.ts lu_solve replaced, kept as the tests'
 * reference: y ← (L·U)⁻¹·y in place (y already permuted by rows: y[pinv[i]] = b[i]); real or
 * interleaved complex, U's diagonal applied as the product with its reciprocal.
 */
import { reciprocalDiagonal, type LuFactor } from '../src/solvers/direct/lu.js';

export function luSolveReference(f: LuFactor, y: Float64Array): void {
  const { n, Lp, Li, Lx, Up, Ui, Ux } = f;
  const dinv = f.dinv ?? reciprocalDiagonal(f);
  if (!f.complex) {
    for (let j = 0; j < n; j++) {
      const yj = y[j];
      if (yj !== 0) for (let p = Lp[j] + 1; p < Lp[j + 1]; p++) y[Li[p]] -= Lx[p] * yj;
    }
    for (let j = n - 1; j >= 0; j--) {
      const d = Up[j + 1] - 1;
      const yj = (y[j] *= dinv[j]);
      if (yj !== 0) for (let p = Up[j]; p < d; p++) y[Ui[p]] -= Ux[p] * yj;
    }
    return;
  }
  for (let j = 0; j < n; j++) {
    const yr = y[2 * j];
    const yi = y[2 * j + 1];
    for (let p = Lp[j] + 1; p < Lp[j + 1]; p++) {
      const i = Li[p];
      const lr = Lx[2 * p];
      const li = Lx[2 * p + 1];
      y[2 * i] -= lr * yr - li * yi;
      y[2 * i + 1] -= lr * yi + li * yr;
    }
  }
  for (let j = n - 1; j >= 0; j--) {
    const d = Up[j + 1] - 1;
    const ir = dinv[2 * j];
    const ii = dinv[2 * j + 1];
    const a = y[2 * j];
    const b = y[2 * j + 1];
    const yr = a * ir - b * ii;
    const yi = a * ii + b * ir;
    y[2 * j] = yr;
    y[2 * j + 1] = yi;
    for (let p = Up[j]; p < d; p++) {
      const i = Ui[p];
      const vr = Ux[2 * p];
      const vi = Ux[2 * p + 1];
      y[2 * i] -= vr * yr - vi * yi;
      y[2 * i + 1] -= vr * yi + vi * yr;
    }
  }
}
