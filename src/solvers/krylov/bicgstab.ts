import { DEFAULT_TOL, maxIterOf, sequence, sequenceNow, type SolveOptions, type SolveResult, type SolverOps, type SolverStep, type StopReason } from '../ops.js';
import { div, mul, neg, type C } from './complex.js';
import { startResidual } from './start.js';

const isZero = (a: C): boolean => a[0] === 0 && a[1] === 0;
const isNaNc = (a: C): boolean => Number.isNaN(a[0]) || Number.isNaN(a[1]);

/**
 * Right-preconditioned BiCGSTAB (van der Vorst) for general square A, real or complex. Breakdowns
 * (ρ = 0, r̂ᴴv = 0, tᴴt = 0) and NaN end the solve with converged: false and the reason.
 */
export async function bicgstab<V>(ops: SolverOps<V>, b: V, options: SolveOptions<V> = {}): Promise<SolveResult<V>> {
  const checkEvery = options.checkEvery ?? ops.checkEvery ?? 1;
  if (checkEvery > 1 && ops.bicgstabResident) return ops.bicgstabResident(b, { ...options, checkEvery });
  const { tol = DEFAULT_TOL, onIteration, signal } = options;
  const maxIter = maxIterOf(options.maxIter, ops.n);
  const x = ops.vector();
  const [r, rhat, p, v, s, t, y, z] = Array.from({ length: 8 }, () => ops.vector());
  // each iteration's operations run one way, measured as one (SolverOps.step): ended before onIteration
  let endStep: (() => void) | undefined;
  try {
    const start = await startResidual(ops, b, x, r, options.x0);
    await ops.copy(r, rhat);
    const scale = start.scale;
    let rnorm = start.rnorm;
    const history = [rnorm / scale];
    let reason: StopReason = rnorm / scale <= tol ? 'converged' : 'maxIter';
    let it = 0;
    let rho: C = [1, 0];
    let alpha: C = [1, 0];
    let omega: C = [1, 0];
    // r̂ᴴr of the residual the last iteration made, taken in its sequence (a dot more where it is the last)
    let rhoOfR: C | undefined;
    while (reason === 'maxIter' && it < maxIter) {
      if (signal?.aborted) {
        reason = 'aborted';
        break;
      }
      endStep = ops.step?.('bicgstab');
      const rhoNext = rhoOfR ?? (await ops.dot(rhat, r));
      if (isNaNc(rhoNext)) {
        reason = 'nan';
        break;
      }
      if (isZero(rhoNext)) {
        reason = 'breakdown';
        break;
      }
      const beta = mul(div(rhoNext, rho), div(alpha, omega));
      rho = rhoNext;
      // p ← r + β·(p − ω·v), v ← A·M⁻¹·p
      const py = ops.precondition ? y : p;
      const direction: SolverStep<V>[] = [
        ['axpy', neg(omega), v, p],
        ['aypx', beta, r, p],
      ];
      if (ops.precondition) direction.push(['precondition', p, y]);
      direction.push(['spmv', py, v, 1, 0], ['dot', rhat, v]);
      const [rv] = sequenceNow(ops, direction) ?? (await sequence(ops, direction));
      if (isZero(rv) || isNaNc(rv)) {
        reason = isNaNc(rv) ? 'nan' : 'breakdown';
        break;
      }
      alpha = div(rho, rv);
      // s ← r − α·v
      const sSteps: SolverStep<V>[] = [
        ['copy', r, s],
        ['axpy', neg(alpha), v, s],
        ['nrm2', s],
      ];
      const [[snorm]] = sequenceNow(ops, sSteps) ?? (await sequence(ops, sSteps));
      if (snorm / scale <= tol) {
        await ops.axpy(alpha, py, x);
        it++;
        rnorm = snorm;
        history.push(snorm / scale);
        endStep?.();
        if (onIteration) await onIteration(it, snorm / scale);
        reason = 'converged';
        break;
      }
      const sz = ops.precondition ? z : s;
      const product: SolverStep<V>[] = ops.precondition ? [['precondition', s, z]] : [];
      product.push(['spmv', sz, t, 1, 0], ['dot', t, t], ['dot', t, s]);
      const [[tt], ts] = sequenceNow(ops, product) ?? (await sequence(ops, product));
      // ω = tᴴs / tᴴt; where tᴴt leaves the range of its squares (A beyond 1e±154: 'nan' at the first
      // iteration of A·1e160, 'breakdown' at once for A·1e-200) divided by the overflow-safe ‖t‖ twice
      // (not always: young1c's c128 iterations follow the rounding, 656 against the WebGPU path's 738)
      const inRange = tt > 1e-290 && tt < 1e290;
      const tn = inRange ? Math.sqrt(tt) : await ops.nrm2(t);
      if (!(tn > 0)) {
        reason = Number.isNaN(tn) ? 'nan' : 'breakdown';
        break;
      }
      omega = inRange ? div(ts, [tt, 0]) : div([ts[0] / tn, ts[1] / tn], [tn, 0]);
      // x ← x + α·M⁻¹p + ω·M⁻¹s, r ← s − ω·t
      const update: SolverStep<V>[] = [
        ['axpy', alpha, py, x],
        ['axpy', omega, sz, x],
        ['copy', s, r],
        ['axpy', neg(omega), t, r],
        ['nrm2', r],
        ['dot', rhat, r],
      ];
      [[rnorm], rhoOfR] = sequenceNow(ops, update) ?? (await sequence(ops, update));
      // an iteration counts once it has updated x (a breakdown before that leaves x and the count as they were)
      it++;
      history.push(rnorm / scale);
      endStep?.();
      if (onIteration) await onIteration(it, rnorm / scale);
      if (Number.isNaN(rnorm)) reason = 'nan';
      else if (rnorm / scale <= tol) reason = 'converged';
      else if (isZero(omega)) reason = 'breakdown';
    }
    return { x, iterations: it, residualNorm: rnorm, relativeResidual: rnorm / scale, converged: reason === 'converged', reason, history };
  } catch (e) {
    ops.release(x);
    throw e;
  } finally {
    // a step the loop left by a break (or an error) ends here
    endStep?.();
    for (const w of [r, rhat, p, v, s, t, y, z]) ops.release(w);
  }
}
