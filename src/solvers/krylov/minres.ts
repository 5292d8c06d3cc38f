import { DEFAULT_TOL, maxIterOf, sequence, sequenceNow, type SolveOptions, type SolveResult, type SolverOps, type SolverStep, type StopReason } from '../ops.js';
import { startResidual } from './start.js';

/** ‖A·r‖/(‖A‖·‖r‖) at which MINRES stops with 'stagnated': r is then in A's null space (to rounding). */
const LEAST_SQUARES = 1e-12;

/**
 * Preconditioned MINRES (Paige & Saunders; the recurrences of SciPy's minres) for Hermitian A, definite
 * or not; the preconditioner must be Hermitian positive definite. It minimises the residual in the
 * M⁻¹-norm, which the recurrence tracks as φ̄ (reported relative to b's); a preconditioner found
 * indefinite (rᴴM⁻¹r < 0) ends the solve with 'breakdown', NaN with 'nan'.
 */
export async function minres<V>(ops: SolverOps<V>, b: V, options: SolveOptions<V> = {}): Promise<SolveResult<V>> {
  const { tol = DEFAULT_TOL, onIteration, signal } = options;
  const maxIter = maxIterOf(options.maxIter, ops.n);
  const x = ops.vector();
  let [r1, r2, y, v, w, w1, w2] = Array.from({ length: 7 }, () => ops.vector());
  // each iteration's operations run one way, measured as one (SolverOps.step): ended before onIteration
  let endStep: (() => void) | undefined;
  try {
    const { scale, rnorm: r0 } = await startResidual(ops, b, x, r1, options.x0);
    const history = [r0 / scale];
    let reason: StopReason = r0 / scale <= tol ? 'converged' : 'maxIter';
    if (Number.isNaN(r0)) reason = 'nan';
    // β = √(rᴴM⁻¹r) from bb = rᴴM⁻¹r, −1 where that is negative (M not definite); without a
    // preconditioner, where rᴴr leaves the range of its squares, the overflow-safe ‖r‖₂ (A beyond
    // 1e±154: 'nan' at once for A·1e160; β = 0 read as an exhausted Krylov space for A·1e-200, a true residual of 1.22)
    const betaOf = async (bb: number, r: V): Promise<number> => {
      if (!ops.precondition && !(bb > 1e-290 && bb < 1e290) && !Number.isNaN(bb)) return ops.nrm2(r);
      return bb < 0 ? -1 : Math.sqrt(bb);
    };
    const [[bb1]] = await sequence(ops, [
      ['precondition', r1, y],
      ['dot', r1, y],
      ['copy', r1, r2],
    ]);
    const beta1 = await betaOf(bb1, r1);
    if (reason === 'maxIter' && !(beta1 > 0)) reason = Number.isNaN(beta1) ? 'nan' : 'breakdown';
    // φ̄ relative to b: the M⁻¹-norm ratio carried onto ‖r0‖/‖b‖
    const rel = (phibar: number): number => (phibar / beta1) * (r0 / scale);
    let oldb = 0;
    let beta = beta1;
    let dbar = 0;
    let epsln = 0;
    let phibar = beta1;
    let cs = -1;
    let sn = 0;
    let it = 0;
    let relRes = r0 / scale;
    // the largest (α, β) of the Lanczos tridiagonal so far, a scale of ‖A‖ (β₁ is b's, not A's)
    let tnorm = 0;
    // the last iteration's update of w and x, run at the head of the next product's sequence (or after
    // the loop): the same operations in the same order, one sequence an iteration fewer
    let update: SolverStep<V>[] = [];
    while (reason === 'maxIter' && it < maxIter) {
      if (signal?.aborted) {
        reason = 'aborted';
        break;
      }
      endStep = ops.step?.('minres');
      // v ← y/β in y's own storage (the product overwrites y): the bits of a copy and a scal, one step fewer
      [v, y] = [y, v];
      const lanczos = update;
      update = [];
      lanczos.push(['scal', [1 / beta, 0], v], ['spmv', v, y, 1, 0]);
      if (it >= 1) lanczos.push(['axpy', [-beta / oldb, 0], r1, y]);
      lanczos.push(['dot', v, y]);
      const alfa = (sequenceNow(ops, lanczos) ?? (await sequence(ops, lanczos)))[0][0];
      // y ← y − (α/β)·r₂, then (r₁, r₂, y) ← (r₂, y, r₁) and y ← M⁻¹·r₂
      [r1, r2, y] = [r2, y, r1];
      const residual: SolverStep<V>[] = [
        ['axpy', [-alfa / beta, 0], r1, r2],
        ['precondition', r2, y],
        ['dot', r2, y],
      ];
      const [[bb]] = sequenceNow(ops, residual) ?? (await sequence(ops, residual));
      oldb = beta;
      const nextBeta = await betaOf(bb, r2);
      // an iteration counts once it has updated x: a NaN or breakdown here leaves x and the count as they were
      if (Number.isNaN(nextBeta) || Number.isNaN(alfa)) {
        reason = 'nan';
        break;
      }
      if (nextBeta < 0) {
        reason = 'breakdown';
        break;
      }
      beta = nextBeta;
      const oldeps = epsln;
      const delta = cs * dbar + sn * alfa;
      const gbar = sn * dbar - cs * alfa;
      epsln = sn * beta;
      dbar = -cs * beta;
      // γ kept from 0 relative to the Lanczos matrix's size (SciPy's absolute ε stopped A·1e-20 after one iteration)
      tnorm = Math.max(tnorm, Math.hypot(alfa, beta));
      const gamma = Math.max(Math.hypot(gbar, beta), Number.EPSILON * tnorm) || Number.EPSILON;
      cs = gbar / gamma;
      sn = beta / gamma;
      const phi = cs * phibar;
      phibar = sn * phibar;
      // w ← (v − ε·w₁ − δ·w₂)/γ with (w₁, w₂) ← (w₂, w), in v's storage (v is made anew each iteration;
      // w₁'s becomes v's): the bits of a copy into w₁'s storage and the same updates, one call fewer
      const free = w1;
      [w1, w2] = [w2, w];
      update = [
        ['axpy', [-oldeps, 0], w1, v],
        ['axpy', [-delta, 0], w2, v],
        ['scal', [1 / gamma, 0], v],
        ['axpy', [phi, 0], v, x],
      ];
      w = v;
      v = free;
      it++;
      relRes = rel(phibar);
      history.push(relRes);
      endStep?.();
      // awaited only when given: an await of undefined still costs a microtask turn an iteration
      if (onIteration) await onIteration(it, relRes);
      if (relRes <= tol) reason = 'converged';
      // β = 0: the Krylov space is exhausted, x is the minimiser
      else if (beta === 0) reason = 'converged';
      // ‖A·r‖ ≈ φ̄·‖(γ̄, δ̄)‖ (SciPy's Arnorm): relative to ‖A‖·‖r‖ at rounding level, r is A's null
      // space — x solves the least-squares problem and b is not in A's range (SciPy's istop 2). Without
      // this a singular A ran all maxIter iterations (30000 rows with one entry: 10·n, minutes) while
      // the recurrence sat still; nonsingular matrices stay above 2e-4 (bcsstk13, 494_bus, dwt_992)
      else if (Math.hypot(gbar, dbar) <= LEAST_SQUARES * tnorm) reason = 'stagnated';
    }
    // a step the loop left by a break ends here
    endStep?.();
    if (update.length > 0) await sequence(ops, update);
    return { x, iterations: it, residualNorm: relRes * scale, relativeResidual: relRes, converged: reason === 'converged', reason, history };
  } catch (e) {
    ops.release(x);
    throw e;
  } finally {
    endStep?.();
    for (const u of [r1, r2, y, v, w, w1, w2]) ops.release(u);
  }
}
