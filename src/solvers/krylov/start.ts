import type { SolverOps } from '../ops.js';

/**
 * The start every method shares: x ← x0 (x stays zero without one), r ← b − A·x; returns the scale
 * residuals are relative to (‖b‖, or 1 for b = 0) and ‖r‖.
 */
export async function startResidual<V>(ops: SolverOps<V>, b: V, x: V, r: V, x0: V | undefined): Promise<{ scale: number; rnorm: number }> {
  await ops.copy(b, r);
  if (x0) {
    await ops.copy(x0, x);
    await ops.spmv(x, r, -1, 1);
  }
  const bnorm = await ops.nrm2(b);
  return { scale: bnorm > 0 ? bnorm : 1, rnorm: await ops.nrm2(r) };
}
