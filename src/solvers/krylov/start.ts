import { sequence, type SolverOps, type SolverStep } from '../ops.js';

/**
 * The start every method shares: x ← x0 (x stays zero without one), r ← b − A·x; returns the scale
 * residuals are relative to (‖b‖, or 1 for b = 0) and ‖r‖.
 */
export async function startResidual<V>(ops: SolverOps<V>, b: V, x: V, r: V, x0: V | undefined): Promise<{ scale: number; rnorm: number }> {
  const steps: SolverStep<V>[] = [['copy', b, r]];
  if (x0) steps.push(['copy', x0, x], ['spmv', x, r, -1, 1]);
  steps.push(['nrm2', b], ['nrm2', r]);
  const [[bnorm], [rnorm]] = await sequence(ops, steps);
  return { scale: bnorm > 0 ? bnorm : 1, rnorm };
}
