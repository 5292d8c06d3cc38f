import { DEFAULT_TOL, maxIterOf, stopOnRho, type SolveOptions, type SolveResult, type SolverOps, type StopReason } from '../ops.js';
import { startResidual } from './start.js';

/**
 * Reliable updates of one CG recurrence (van der Vorst & Ye 2000; Sleijpen & van der Vorst's group-wise
 * update) run in a precision lower than the answer's: at chosen iterations x is folded into the answer
 * kept elsewhere (in f64) and r is replaced by the true residual b − A·x computed there, while p and
 * the Krylov space go on, where restarting refinement would build them anew for each correction.
 */
export interface ResidualReplacement<V> {
  /** the absolute ‖r‖ the true residual must reach (it also ends the recurrence's own test) */
  readonly target: number;
  /** a replacement falls due when ‖r‖ drops below this part of its peak (default RELIABLE_DELTA) */
  readonly delta?: number;
  /** folds x into the answer and zeroes it, sets r to the answer's true residual; returns ‖r‖, NaN (the answer kept) when x is not finite */
  replace(x: V, r: V): Promise<number>;
  /** iterations the solve ran before this recurrence (an f64 head's): they count in STALL_WINDOW's measure */
  readonly before?: number;
}

/**
 * A replacement falls due when the recurrence's ‖r‖ has dropped below this part of its largest value
 * since the last one: the drift of a recurrence in f32 grows with that largest value (ε₃₂·‖A‖·‖x‖), so
 * it stays a small part of the current residual. Each replacement costs a host product in f64 (≈ 10 ms
 * for poisson3D(64)); measured there to a true 1e-10 (process CPU time, 2 threads, load 9): 0.1 takes
 * 245 iterations + 11 replacements, 359–418 ms; 0.03 254 + 7, 293–301 ms; 0.01 255 + 6, 287–298 ms;
 * 0.001 266 + 4, 275–288 ms (f64: 182 iterations, 290–334 ms). QUDA's default for single is 0.1.
 */
export const RELIABLE_DELTA = 0.01;
/** Replacements in a row that fail to halve the best true residual before the solve is declared stagnated. */
const MAX_STALLS = 3;
/**
 * With replacements, the recurrence ends 'stagnated' where its ‖r‖ has not fallen below half its lowest
 * value for twice as many iterations as the solve had run when it last did (at least STALL_WINDOW): an f32
 * recurrence on a matrix of condition ≈ 1/ε₃₂ (a Laplacian shifted by 1e-6, κ ≈ 10⁷) levels off at
 * ≈ 10⁻⁹ of ‖b‖ after ≈ 450 iterations, no replacement falls due, and it ran to maxIter (20 000) where
 * f64 CG needs 366 — rt.solve then goes on in f64 (precisionFallback). CG's ‖r‖ plateaus in exact
 * arithmetic too: Jacobi-CG on 494_bus (κ ≈ 10⁶, f32 resolves it) goes 119 and 178 iterations without
 * halving, after 13 and 132; a false alarm costs f64 iterations, never the answer.
 */
export const STALL_WINDOW = 300;
/** Whether a recurrence that last halved its lowest ‖r‖ at iteration `lowAt` (after `before` others) has stalled by iteration `it` (STALL_WINDOW). */
export function stalled(it: number, lowAt: number, before: number): boolean {
  return it - lowAt > Math.max(STALL_WINDOW, 2 * (before + lowAt));
}

/**
 * A CG recurrence handed from one solve to another (a head in f64 to the f32 iterations, solve.ts
 * reliableCg): p the last search direction, rho the ρ = rᴴM⁻¹r its step used. A solve resumed from it
 * takes β = ρ/rho at its first step, ρ of its own start residual, as after a residual replacement.
 */
export interface CgDirection<V> {
  p: V;
  rho: number;
}

/**
 * Preconditioned Conjugate Gradient (seed 001's solver, with an optional preconditioner) for
 * Hermitian positive definite A. Ends with converged: false and a reason — never a hang — on
 * maxIter, a non-positive curvature pᴴAp (A is not positive definite), NaN, or an abort. `resume`
 * continues a direction handed on by an earlier solve's `keepDirection` (its `direction`, which the
 * caller then releases).
 */
export async function cg<V>(
  ops: SolverOps<V>,
  b: V,
  options: SolveOptions<V> & { replacement?: ResidualReplacement<V>; resume?: CgDirection<V>; keepDirection?: boolean } = {},
): Promise<SolveResult<V> & { direction?: CgDirection<V> }> {
  const R = options.replacement;
  const checkEvery = options.checkEvery ?? ops.checkEvery ?? 1;
  if (checkEvery > 1 && ops.cgResident && !R && !options.resume && !options.keepDirection) return ops.cgResident(b, { ...options, checkEvery });
  const { tol = DEFAULT_TOL, onIteration, signal } = options;
  const maxIter = maxIterOf(options.maxIter, ops.n);
  const x = ops.vector();
  const r = ops.vector();
  const z = ops.vector();
  let p = ops.vector();
  const q = ops.vector();
  // the second direction buffer of ops.cgDirectionProduct
  let pNext = ops.cgDirectionProduct ? ops.vector() : null;
  // ρ of the last step, and the direction handed on (options.keepDirection): not released here
  let rho = 0;
  let kept: V | null = null;
  let endStep: (() => void) | undefined;
  try {
    // r = b − A·x0
    const start = await startResidual(ops, b, x, r, options.x0);
    const scale = start.scale;
    let rnorm = start.rnorm;
    const history = [rnorm / scale];
    let reason: StopReason = 'maxIter';
    let it = 0;
    // with replacements: the absolute goal, the recurrence's largest ‖r‖ since the last one, the best
    // true ‖r‖ so far, replacements in a row that did not halve it, and the iteration of the last one and its true ‖r‖
    const goal = R ? R.target : tol * scale;
    let peak = rnorm;
    let best = rnorm;
    let stalls = 0;
    let replaced = 0;
    let replacedNorm = Infinity;
    let pending = 0;
    // STALL_WINDOW's measure: the lowest ‖r‖ that was a halving, and the iteration that reached it
    let low = rnorm;
    let lowAt = 0;
    if (rnorm <= goal) reason = 'converged';
    else {
      // without a preconditioner z is r itself: no copy, and ρ = ‖r‖²
      const zr = ops.precondition ? z : r;
      if (ops.precondition) await ops.precondition(r, z);
      // fused (ops.cgDirectionProduct, else ops.cgDirection): p and q start at zero and each iteration
      // forms p ← z + β·p and q = A·p (by the product itself, or as q ← A·z + β·q), with β = 0 the
      // first time; otherwise p = z here and p ← z + β·p at the end
      const fused = pNext !== null || ops.cgDirection !== undefined || ops.cgProductDirection !== undefined;
      // x ← x + α·p made by the next product call (ops.cgDeferredX, with cgProductDirection), not the
      // update: `pending` is that α
      const deferred = !R && (ops.precondition ? ops.cgUpdatePrecondition : true) && ops.cgProductDirection ? ops.cgDeferredX : undefined;
      let beta = 0;
      rho = ops.precondition ? (await ops.dot(r, z))[0] : rnorm * rnorm;
      const resume = options.resume;
      if (resume) {
        beta = rho / resume.rho;
        await ops.copy(resume.p, p);
        // p ← z + β·p here, or by the first fused step; q ← A·z + β·q needs q = A·p
        if (!fused) await ops.aypx([beta, 0], zr, p);
        else if (!pNext) await ops.spmv(p, q, 1, 0);
      } else if (!fused) await ops.copy(zr, p);
      // ρ ≤ 0 is a breakdown, caught before β = ρₙₑₓₜ/ρ = 0/0 makes it a NaN
      reason = stopOnRho(rho) ?? reason;
      for (; reason === 'maxIter' && it < maxIter; ) {
        if (signal?.aborted) {
          reason = 'aborted';
          break;
        }
        let pq: number;
        // the step's operations run one way, measured as one (SolverOps.step): ended after the update
        endStep = ops.step?.('cg');
        if (deferred) {
          pq = await deferred.product(beta, zr, p, q, x, pending, r);
          pending = 0;
        } else if (pNext) {
          pq = await ops.cgDirectionProduct!(beta, zr, p, pNext, q);
          [p, pNext] = [pNext, p];
        } else if (ops.cgProductDirection) {
          pq = await ops.cgProductDirection(beta, zr, p, q);
        } else if (fused) {
          await ops.spmv(zr, q, 1, beta);
          pq = await ops.cgDirection!(beta, zr, p, q);
        } else {
          await ops.spmv(p, q, 1, 0);
          pq = (await ops.dot(p, q))[0];
        }
        if (Number.isNaN(pq) || Number.isNaN(rho)) {
          reason = 'nan';
          break;
        }
        if (!(pq > 0)) {
          reason = 'breakdown';
          break;
        }
        const alpha = rho / pq;
        let rr: number;
        let rhoNext: number | undefined;
        if (deferred) {
          [rr, rhoNext] = await deferred.update(alpha, q, r, z);
          pending = alpha;
        } else if (ops.precondition && ops.cgUpdatePrecondition) [rr, rhoNext] = await ops.cgUpdatePrecondition(alpha, p, q, x, r, z);
        else if (ops.cgUpdate) rr = await ops.cgUpdate(alpha, p, q, x, r);
        else {
          await ops.axpy([alpha, 0], p, x);
          await ops.axpy([-alpha, 0], q, r);
          // not (await …) ** 2: Next.js's minifier (SWC, Next 16) drops those parentheses, and
          // `await x ** 2` is a syntax error that breaks the whole chunk in the browser
          const rn = await ops.nrm2(r);
          rr = rn * rn;
        }
        endStep?.();
        rnorm = Math.sqrt(rr);
        it++;
        history.push(rnorm / scale);
        await onIteration?.(it, rnorm / scale);
        if (Number.isNaN(rnorm)) {
          reason = 'nan';
          break;
        }
        if (R) {
          peak = Math.max(peak, rnorm);
          if (rnorm <= goal || rnorm < (R.delta ?? RELIABLE_DELTA) * peak) {
            const t = await R.replace(x, r);
            replaced = it;
            replacedNorm = t;
            if (Number.isNaN(t)) {
              reason = 'nan';
              break;
            }
            rnorm = peak = t;
            if (t <= goal) {
              reason = 'converged';
              break;
            }
            if (t < 0.5 * best) [best, stalls] = [t, 0];
            else if (++stalls >= MAX_STALLS) {
              reason = 'stagnated';
              break;
            }
            // z and ρ of the new r; p goes on (β = ρₙₑₓₜ/ρ as after any step)
            rhoNext = undefined;
            rr = t * t;
          }
          if (rnorm < 0.5 * low) [low, lowAt] = [rnorm, it];
          else if (stalled(it, lowAt, R.before ?? 0)) {
            reason = 'stagnated';
            break;
          }
        } else if (rnorm <= goal) {
          reason = 'converged';
          break;
        }
        if (rhoNext === undefined && ops.precondition) {
          await ops.precondition(r, z);
          rhoNext = (await ops.dot(r, z))[0];
        }
        rhoNext ??= rr;
        const stop = stopOnRho(rhoNext);
        if (stop) {
          reason = stop;
          break;
        }
        beta = rhoNext / rho;
        // p ← z + β·p (fused: at the next iteration's start)
        if (!fused) await ops.aypx([beta, 0], zr, p);
        rho = rhoNext;
      }
      // a step the loop left by a break (NaN, breakdown) ends here, not after what follows
      endStep?.();
      if (pending !== 0) await ops.axpy([pending, 0], p, x);
    }
    // the iterations since the last replacement folded in too: the answer and its true residual are then the whole solve's
    // — unless the recurrence ended above the last replacement's true ‖r‖ (or overflowed): that answer
    // stands (f32 CG asked for 1e-16 reached 1.1e-16 by a replacement, then diverged to 1e31 or ±Inf,
    // and folding in that x took the answer back to x = 0: 'maxIter' or 'nan' at a residual of 1)
    if (R && replaced > 0 && replaced < it && !(rnorm <= replacedNorm)) {
      if (reason === 'nan') reason = 'stagnated';
    } else if (R && replaced < it) {
      const t = await R.replace(x, r);
      if (Number.isNaN(t)) reason = reason === 'maxIter' || reason === 'aborted' ? 'nan' : reason;
      else {
        rnorm = t;
        if ((reason === 'maxIter' || reason === 'stagnated') && t <= goal) reason = 'converged';
      }
    }
    // the direction after a step (p is zero before the first)
    const direction = options.keepDirection && it > 0 ? { p: (kept = p), rho } : undefined;
    return { x, iterations: it, residualNorm: rnorm, relativeResidual: rnorm / scale, converged: reason === 'converged', reason, history, direction };
  } catch (e) {
    ops.release(x);
    throw e;
  } finally {
    endStep?.();
    for (const v of [r, z, p, q, pNext]) if (v && v !== kept) ops.release(v);
  }
}
