// rt.solve's Krylov driver: a method run to a true residual (refinement on the path or on the host,
// the f64 head of an f32 solve, b scaled out of range). A chunk of its own with the Krylov methods,
// imported by the first iterative solve (src/runtime/krylov-solvers.ts), so a page that only
// multiplies or factorizes does not download it.
/** How the driver reaches vectors of the path (upload in the path's dtype, read back). */
export interface HostIO<V> {
  upload(values: Float64Array): V;
  read(v: V): Promise<ValueArray>;
}

import type { CSRMatrix } from '../formats/csr.js';
import { accurateResidualNorm, hostNorm, hostResidual, hostResidualNorm, RHS_RANGE, rhsExponentOf, scaleBy } from '../host-spmv.js';
import { InputRangeError, SimdglError } from '../errors.js';
import { largestComponent, noteLargestComponent } from '../largest-component.js';
import type { ValueArray } from '../dtype.js';
import { bicgstab } from './krylov/bicgstab.js';
import { cg, stalled as stalledAt, type CgDirection, type ResidualReplacement } from './krylov/cg.js';
import { gmres, type GmresOptions } from './krylov/gmres.js';
import { minres } from './krylov/minres.js';
import { DEFAULT_TOL, maxIterOf, type PathRefinement, type SolveResult, type SolverOps, type StopReason } from './ops.js';
import { directResidualBound, f64ResidualBound, flushedWithin, residualRounding, rowSumBound, rowSumResidualBound, type KrylovMethod, type SolveMethod } from './solve.js';

/** The iterative methods by name. */
export const KRYLOV: Record<SolveMethod, KrylovMethod<unknown>> = { cg, bicgstab, gmres, minres };

/**
 * What a solve's answer satisfies (solveWithTrueResidual): x accumulated in f64 and the residuals
 * ‖b − A·x‖ recomputed in f64 from it at the end, whatever the matrix's precision.
 */
export interface TrueSolveResult {
  /** the solution in f64 (a Float64Array, c128-interleaved for complex): the last iterate, whatever the reason — but a correction solve that raised the true residual is taken back */
  x: Float64Array;
  /** iterations run, over every correction solve */
  iterations: number;
  /** the true ‖b − A·x‖₂, in f64 */
  residualNorm: number;
  /** the true ‖b − A·x‖₂ / ‖b‖₂, in f64 */
  relativeResidual: number;
  /** the last relative residual the method's recurrence tracked (may be smaller than the true one: drift) */
  recurrenceResidual: number;
  /** whether the true relativeResidual ≤ tol */
  converged: boolean;
  /** why the solve ended */
  reason: StopReason;
  /** the recurrence's relative residual before the first iteration (entry 0) and after each one */
  history: number[];
  /** correction solves after the first (iterative refinement; an f32 matrix solved to an f64 tolerance), or f32 CG's residual replacements (reliableCg) */
  refinements: number;
}

/** The result of a solve whose true residual is rnorm: 'stagnated' where the recurrence met tol and the true residual did not. */
function trueResult(x: Float64Array, iterations: number, rnorm: number, scale: number, target: number, recurrence: number, reason: StopReason, history: number[], refinements: number): TrueSolveResult {
  if (reason === 'converged' && !(rnorm <= target)) reason = 'stagnated';
  // an unknown whose column holds no entry is in no product A·x, so b − A·x meets tol whatever it is:
  // a tiny ILU(0) pivot sent such an x[0] to ±Inf or NaN and the solve said 'converged'
  // (max |xᵢ| tells, and certified's bound reads it again: one pass, or none where the path measured it)
  if (reason === 'converged' && !allFinite(x)) reason = 'nan';
  return { x, iterations, residualNorm: rnorm, relativeResidual: rnorm / scale, recurrenceResidual: recurrence, converged: reason === 'converged', reason, history, refinements };
}

/** Whether every xᵢ is finite, from max |xᵢ| (largestComponent: kept for x, so the certificate's bound reads it again; only for a solve's answer or a fresh copy of it). */
function allFinite(x: Float64Array): boolean {
  return largestComponent(x) < Infinity;
}

/** The tightest relative tolerance an inner solve in f32/c64 is asked for (its recurrence drifts below). */
export const SINGLE_INNER_TOL = 1e-5;
/**
 * f32 CG to an f64 tol on a path that offers a head in f64 (PathRefinement.wide) runs its iterations in
 * f64 until the recurrence's relative residual is WIDE_HEAD_GAIN·tol, then in f32. An f32 step rounds
 * r, q and p by ε₃₂ of their size; that error stays in the true residual, which the replacements then
 * expose and CG must resolve again over the whole spectrum — the first steps, at ‖r‖ ≈ ‖b‖, cost the
 * most: poisson3D(64) with Jacobi to a true 1e-10 took 255 f32 iterations against f64's 182, and 255
 * again with the vectors made f64 from the 66th iteration on, but 182 (77 in f64, 105 in f32) with
 * f32 from 1e-2 on (a plain-JS emulation of the kernels' roundings, which gives 255 and 182 as they
 * do). Measured in that emulation, the largest head-to-tail switch keeping f64's count: 5e-2 for
 * tol 1e-10 (1e-1: 197), 1e-3 for 1e-12 (1e-2: 245); 1e8·tol gives f64's count at tol 1e-9, 1e-10,
 * 1e-11 and on poisson3D(32). From tol 1e-8 up (a switch at ‖b‖ or above) there is no head.
 */
export const WIDE_HEAD_GAIN = 1e8;
/**
 * The replacements' RELIABLE_DELTA after such a head: f32 steps begun that close to tol drift little,
 * so fewer replacements do (each ≈ 2 ms CPU on poisson3D(64)). In the emulation: 182 iterations with
 * 3 replacements (the head's included) at 1e-4 against 6 at 1e-2; 1e-5: 188.
 */
const HEADED_DELTA = 1e-4;
/** Correction solves before the solve is declared stagnated. */
const MAX_REFINEMENTS = 30;

/**
 * Runs a Krylov method and reports what the answer satisfies (DESIGN.md: the true residual at the end):
 * x accumulates in f64, the residual b − A·x is recomputed in f64 after each solve — on the path where
 * it refines (SolverOps.refinement: the CPU pool's f64, WebGPU's double-single; refineOnPath), else
 * x on the host and r as r − A·d on the path for f64 storage, on the host for f32, and once more on
 * the host at the end unless one solve from x = 0 made it exactly b − A·x —
 * and while it misses the tolerance the method solves again for the correction (A·d = r, x += d) —
 * iterative refinement, which takes an f32 matrix to an f64 tolerance (each inner solve asked for at
 * most SINGLE_INNER_TOL), and restarts an f64 recurrence that drifted. It ends 'stagnated' when a
 * correction gains less than a factor of two, or after MAX_REFINEMENTS corrections; the method's own
 * reason ('maxIter', 'breakdown', 'nan', 'aborted') when it ends short; 'converged' only when the true
 * relative residual meets tol.
 */
export async function solveWithTrueResidual<V>(
  ops: SolverOps<V>,
  io: HostIO<V>,
  A: CSRMatrix,
  b: Float64Array,
  run: KrylovMethod<V>,
  o: TrueSolveOptions<V>,
): Promise<TrueSolveResult> {
  const ea = o.matrixExponent ?? 0;
  if (ea !== 0) {
    // A is 2^-ea times the caller's: the answer y of A·y = b is 2^ea·x, so x0 goes in as 2^ea·x0 and y
    // comes back as 2^-ea·y; b − A·y is the caller's b − A·x exactly (each product aᵢⱼ·yⱼ is the same
    // number), so the residuals need no scaling
    const r = await solveWithTrueResidual(ops, io, A, b, run, { ...o, matrixExponent: 0, x0: o.x0 && scaledStart(o.x0, ea) });
    return scaledBack(r, -ea, 0, A, b, o.tol ?? DEFAULT_TOL);
  }
  // the methods' dot products over- or underflow for ‖b‖ far from 1 (f64 from 1e±154, f32 from 1e±19:
  // 'nan', 'breakdown' or divergence on a problem whose answer is representable): b and x0 are scaled by
  // a power of two, exactly, and x and the residual norm scaled back. Where the path refines, its ‖b‖,
  // measured as b goes up, says whether b is in range: no host pass over b (2 M entries: ≈ 10 ms of the
  // H100 machine's host before the GPU had any work); the host's only where the path's is out of range
  let R: PathRefinement<V> | undefined;
  if (refinesOnPath(o)) [R, o] = await refinementOf(ops, b, o, RHS_RANGE);
  if (R) return certified(await solveScaled(ops, io, A, b, run, o, R), A, b, o.tol, R.bnorm);
  const bnorm = hostNorm(b);
  const e = rhsExponentOf(b, bnorm);
  if (e === 0) return certified(await solveScaled(ops, io, A, b, run, o), A, b, o.tol, bnorm);
  const bs = scaleBy(Float64Array.from(b), -e);
  const r = await solveScaled(ops, io, A, bs, run, { ...o, x0: o.x0 && scaledStart(o.x0, -e) });
  return scaledBack(r, e, e, A, bs, o.tol ?? DEFAULT_TOL, scaleBy(Float64Array.of(bnorm), -e)[0]);
}

/**
 * x0 scaled by 2^e for a scaled system; where that overflows (x0 some 2^1024 times b's scale, e.g. x0 ≈ 1
 * for b ≈ 1e-310: x0 was ±Inf and the solve ended 'nan' on finite data), it is no start — its residual
 * alone is that many times ‖b‖, beyond what a solve from it could reduce in f64 — and the solve starts from 0.
 */
function scaledStart(x0: Float64Array, e: number): Float64Array | undefined {
  const x = scaleBy(Float64Array.from(x0), e);
  return x.some((v, i) => !Number.isFinite(v) && Number.isFinite(x0[i])) ? undefined : x;
}

/**
 * The answer of a scaled system (A·y = bs) taken back to the caller's: x = 2^shift·y, the residual norm
 * 2^residualShift times the scaled one (the relative residual is the same). `bsNorm`: ‖bs‖ where known.
 */
function scaledBack(r: TrueSolveResult, shift: number, residualShift: number, A: CSRMatrix, bs: Float64Array, tol: number, bsNorm?: number): TrueSolveResult {
  // (r.x itself unchanged: what a path noted of it, largestComponent, stays true)
  const xs = r.x;
  const x = scaleBy(r.x.slice(), shift);
  // a finite x scaled back past the largest f64: the solution is not representable (it ended
  // 'stagnated' with x = ±Inf and a NaN residual), as F.solve says
  const over = x.findIndex((v, i) => !Number.isFinite(v) && Number.isFinite(xs[i]));
  if (over >= 0) throw new InputRangeError(`solve: x[${Math.floor((over * A.rows) / bs.length)}] is ${x[over]}: the solution leaves the f64 range (|x| past 1.8e308; b is finite, A nearly singular or b too large): scale b down`);
  const out = { ...r, x, residualNorm: scaleBy(Float64Array.of(r.residualNorm), residualShift)[0] };
  // x scaled back into subnormals (or past the largest f64) lost bits: b = 5e-321 with an f32 A said
  // 'converged' at 4e-13 for an x whose true residual is 9e-4. The residual reported is the returned x's
  // (taken back to the scaled system, exactly, to compute it)
  const back = scaleBy(x.slice(), -shift);
  if (back.some((v, i) => v !== xs[i])) {
    const rel = hostNorm(hostResidual(A, back, bs)) / hostNorm(bs);
    out.relativeResidual = rel;
    out.residualNorm = scaleBy(Float64Array.of(rel * hostNorm(bs)), residualShift)[0];
    if (!(rel <= tol) && out.reason === 'converged') out.reason = 'stagnated';
    out.converged = out.reason === 'converged';
  }
  // certified as the unscaled solves are (the returned x's residual, in the scaled system's numbers)
  const c = certified({ ...out, x: back }, A, bs, tol, bsNorm);
  if (c.relativeResidual !== out.relativeResidual) Object.assign(out, { relativeResidual: c.relativeResidual, residualNorm: scaleBy(Float64Array.of(c.residualNorm), residualShift)[0], reason: c.reason, converged: c.converged });
  return out;
}

/** Below this tol a converged answer's f64 residual is certified with A's exact norms or a pass over A (see certified). */
const CERTIFY_BELOW_TOL = 2 ** -40;

/**
 * A converged answer at a tol near f64's rounding unit, checked against the rounding of its own
 * residual: ‖b − A·x‖ computed in f64 is off by up to (k + 2)·u·‖|b| + |A|·|x|‖ (directResidualBound),
 * so at tol 1e-16 or 0 it said 'converged' for exact residuals of 1.3e-16 or 5.9e-17 (random 2-40 row
 * systems, every method). Where the computed residual plus that bound passes the target, the residual
 * is recomputed with its sums' rounding errors carried (accurateResidualNorm, as rt.solve's factorization
 * is certified) and that is what is reported and judged. From CERTIFY_BELOW_TOL up the bound from A's
 * largest row sum and max |xⱼ| comes first (rowSumResidualBound: no pass over A), and only where it
 * passes the target does the row-wise one: at ordinary scales it is far below the target (on
 * poisson3D(128) ≈ 1e-11 of ‖b‖), and a pass over A costs a large GPU solve's time.
 */
function certified(r: TrueSolveResult, A: CSRMatrix, b: Float64Array, tol = DEFAULT_TOL, knownBnorm?: number): TrueSolveResult {
  if (!r.converged) return measured(r, A, b, knownBnorm);
  // from CERTIFY_BELOW_TOL up, first a bound that makes no pass over A, nor over b where ‖b‖ is known
  // (`knownBnorm`: the path's refinement measured it as b went up; its rounding is far inside the 2^-20
  // kept from tol): at ordinary scales it is far below the target; where x or A spans many orders of
  // magnitude it is not, and the residual may be rounding (3×3, entries 1e-285 … 2e-8, b ≈ 2e-125, x ≈
  // 4e159: GMRES said 'converged' at 1.3e-16 for a true 7e68, cancellation of 1e-40 in a row whose bᵢ is 0)
  if (!(tol < CERTIFY_BELOW_TOL)) {
    const bn = knownBnorm ?? hostNorm(b);
    if (r.relativeResidual + rowSumResidualBound(A, r.x, bn, largestComponent) / (bn > 0 ? bn : 1) <= tol * (1 - 2 ** -20)) return r;
  }
  const bnorm = hostNorm(b);
  const scale = bnorm > 0 ? bnorm : 1;
  const target = tol * scale;
  const computed = r.relativeResidual * scale;
  // (a bound past the largest f64: b out of range on a path that scales it itself; nothing certifies)
  const bound = directResidualBound(A, r.x, b, bnorm, target - computed);
  if (computed + bound <= target || !Number.isFinite(bound)) return r;
  const rnorm = accurateResidualNorm(A, r.x, b);
  const reason = rnorm <= target ? r.reason : 'stagnated';
  return { ...r, residualNorm: rnorm, relativeResidual: rnorm / scale, reason, converged: reason === 'converged' };
}

/**
 * An answer that missed tol, its residual as reported measured to within MEASURED_WITHIN of itself: where
 * the rounding of ‖b − A·x‖ in f64 may pass that (rowSumResidualBound first, no pass over A; then the
 * row-wise bound), recomputed with its sums' rounding errors carried. A and x spanning many orders of
 * magnitude left the f64 residual rounding: GMRES 'breakdown' reported 1 for an exact 6e32, BiCGSTAB on
 * a complex 3×3 system 9.8e-41 for an exact 3.6e10 (test/attack13-residual-report).
 */
function measured(r: TrueSolveResult, A: CSRMatrix, b: Float64Array, knownBnorm?: number): TrueSolveResult {
  if (!Number.isFinite(r.relativeResidual) || !allFinite(r.x)) return r;
  const bn = knownBnorm ?? hostNorm(b);
  const e = rhsExponentOf(b, bn);
  if (e !== 0) {
    // b out of range (a path that scales b itself): measured in the system scaled by 2^-e, b and x
    // exactly, as the solve ran it (‖b‖ of subnormals is a few bits short), where x scales exactly
    const x = scaleBy(r.x.slice(), -e);
    if (!allFinite(x) || scaleBy(x.slice(), e).some((v, i) => v !== r.x[i])) return r;
    const m = measured({ ...r, x }, A, scaleBy(Float64Array.from(b), -e));
    return m.relativeResidual === r.relativeResidual ? r : { ...r, relativeResidual: m.relativeResidual, residualNorm: scaleBy(Float64Array.of(m.residualNorm), e)[0] };
  }
  const within = MEASURED_WITHIN * r.relativeResidual * (bn > 0 ? bn : 1);
  if (rowSumResidualBound(A, r.x, bn, largestComponent) <= within || directResidualBound(A, r.x, b, bn, within) <= within) return r;
  const rnorm = accurateResidualNorm(A, r.x, b);
  // ‖b‖ on the host (a path's, or one scaled from subnormals, is a few bits short)
  const bnorm = hostNorm(b);
  return { ...r, residualNorm: rnorm, relativeResidual: rnorm / (bnorm > 0 ? bnorm : 1) };
}

/** How close to the true residual a reported one is kept where the solve missed tol (measured). */
const MEASURED_WITHIN = 2 ** -10;

/** A true-residual solve's options: the method's, x0 on the host in f64, and whether the matrix is f32. */
type TrueSolveOptions<V> = Omit<GmresOptions<V>, 'x0'> & {
  x0?: Float64Array;
  single: boolean;
  /**
   * A (the CSR and the ops' matrix) is the caller's matrix times 2^-matrixExponent (a GPU path's copy
   * scaled into its f32 exponent range): x0 and x are taken between the two scales here.
   */
  matrixExponent?: number;
};

/** Whether a solve refines on its path where the path can: f64, and f32 where the tolerance needs refinement at all. */
function refinesOnPath(o: { single: boolean; tol?: number }): boolean {
  return !o.single || (o.tol ?? DEFAULT_TOL) < SINGLE_INNER_TOL;
}

/**
 * The path's refinement of b from o.x0, and the options it ran with. A path's refusal of x0's values (a
 * GPU path's f32 exponent: x0 ≈ 1e40 for b ≈ 1 was a WebGpuLimitError "the value 1e+40 is outside the
 * f32 range", where the CPU path's noStart drops such a start) makes x0 no start, as one whose residual
 * passes ‖b‖ by 2^52 is: the refinement from 0, and o without x0.
 */
async function refinementOf<V, O extends { x0?: Float64Array }>(ops: SolverOps<V>, b: Float64Array, o: O, range?: number): Promise<[PathRefinement<V> | undefined, O]> {
  try {
    return [await ops.refinement?.(b, o.x0, range), o];
  } catch (e) {
    if (o.x0 === undefined || !(e instanceof SimdglError && e.code === 'E_GPU_LIMIT')) throw e;
    return [await ops.refinement?.(b, undefined, range), { ...o, x0: undefined }];
  }
}

/** solveWithTrueResidual for b in range; `made`: the path's refinement of this b, already set up. */
async function solveScaled<V>(
  ops: SolverOps<V>,
  io: HostIO<V>,
  A: CSRMatrix,
  b: Float64Array,
  run: KrylovMethod<V>,
  o: TrueSolveOptions<V>,
  made?: PathRefinement<V>,
): Promise<TrueSolveResult> {
  const tol = o.tol ?? DEFAULT_TOL;
  let onPath = made;
  if (!onPath && refinesOnPath(o)) [onPath, o] = await refinementOf(ops, b, o);
  if (onPath && o.x0 && noStart(onPath.rnorm, onPath.bnorm, o.single)) {
    onPath.dispose();
    o = { ...o, x0: undefined };
    onPath = await ops.refinement!(b, undefined);
  }
  // f32 CG below what f32 reaches: one recurrence with reliable updates, where the host loop runs the
  // iterations anyway (not a path's resident CG, whose blocks of iterations a replacement would cut)
  if (o.single && tol < SINGLE_INNER_TOL && run === (cg as KrylovMethod<V>) && !(ops.cgResident && (o.checkEvery ?? ops.checkEvery ?? 1) > 1)) {
    let R = onPath ?? hostRefinement(ops, io, A, b, o.x0);
    if (o.x0 && noStart(R.rnorm, R.bnorm, o.single)) {
      R.dispose();
      o = { ...o, x0: undefined };
      R = hostRefinement(ops, io, A, b, undefined);
    }
    return reliableCg(ops, R, A, b, o);
  }
  if (onPath) return refineOnPath(ops, onPath, A, b, run, o);
  const maxIter = maxIterOf(o.maxIter, ops.n);
  const x = o.x0 ? new Float64Array(o.x0) : new Float64Array(b.length);
  let r = o.x0 ? hostResidual(A, x, b) : new Float64Array(b);
  const bnorm = hostNorm(b);
  const scale = bnorm > 0 ? bnorm : 1;
  let rnorm = hostNorm(r);
  if (o.x0 && noStart(rnorm, bnorm, o.single)) {
    o = { ...o, x0: undefined };
    x.fill(0);
    r = new Float64Array(b);
    rnorm = bnorm;
  }
  const history = [rnorm / scale];
  let iterations = 0;
  let refinements = -1;
  let recurrence = rnorm / scale;
  let reason: StopReason = 'maxIter';
  let solves = 0;
  const target = tol * scale;
  for (;;) {
    const stop = beforeSolve(rnorm, target, o.signal, iterations, maxIter, ++refinements);
    if (stop) {
      reason = stop;
      break;
    }
    // a correction after the first solve aims under the target by CERTIFY_MARGIN, as refineOnPath's do:
    // one asked for just target/rnorm ≈ 1 (MINRES's M⁻¹-norm estimate met it while ‖b − A·x‖ stayed at
    // 1.03–1.08·target) gained less than the halving afterSolve requires and ended 'stagnated'
    const innerTol = innerTolerance(o.single, solves > 0 ? CERTIFY_MARGIN * target : target, rnorm);
    const rv = io.upload(r);
    const done = iterations;
    const ratio = rnorm / scale;
    let res: SolveResult<V>;
    let d: ValueArray;
    let again = false;
    let pathNorm: number | undefined;
    const watch = watchedInner(o, done, ratio);
    try {
      res = await run(ops, rv, {
        tol: innerTol,
        maxIter: maxIter - iterations,
        signal: watch.signal,
        checkEvery: o.checkEvery,
        restart: o.restart,
        onIteration: watch.onIteration,
      });
      if (watch.stalled()) res = { ...res, reason: 'stagnated' };
      try {
        d = await io.read(res.x);
        // f64 storage: the new residual r − A·d on the path, in its f64 (the CPU's f64, WebGPU's
        // double-single), and its norm there: one SpMV and a scalar instead of a host product (≈ 200 ms
        // for 2 M rows) and a vector read-back
        if (!o.single) {
          await ops.spmv(res.x, rv, -1, 1);
          pathNorm = await ops.nrm2(rv);
          // another correction solve needs b − A·x itself: r − A·d carries the rounding of r and A·d,
          // which is far above the new residual after a large correction (x0 = 1e8 off on poisson2D(10):
          // 'stagnated' at 5e-8), so it is recomputed from x on the host below
          again = pathNorm > target && refinable(res.reason) && pathNorm < 0.5 * rnorm;
        }
      } finally {
        ops.release(res.x);
      }
    } finally {
      watch.dispose();
      ops.release(rv);
    }
    iterations += res.iterations;
    for (let k = 1; k < res.history.length; k++) history.push(res.history[k] * ratio);
    recurrence = res.relativeResidual * ratio;
    let finite = true;
    for (let i = 0; i < d.length && finite; i++) finite = Number.isFinite(d[i]);
    if (!finite) {
      // a diverged correction is not applied: x stays the last finite iterate
      reason = res.reason === 'converged' ? 'nan' : res.reason;
      break;
    }
    const xPrev = x.slice();
    const rPrev = r;
    for (let i = 0; i < x.length; i++) x[i] += d[i];
    solves++;
    if (again) {
      r = hostResidual(A, x, b);
      pathNorm = hostNorm(r);
    } else if (pathNorm === undefined) r = hostResidual(A, x, b);
    const before = rnorm;
    rnorm = pathNorm ?? hostNorm(r);
    // a correction that raised the true residual is taken back, as in refineOnPath (f32 BiCGSTAB on
    // west0479 left a residual 2.7e16 times b's)
    if (rnorm > before) {
      x.set(xPrev);
      r = rPrev;
      rnorm = before;
    }
    const end = afterSolve(rnorm, before, target, res.reason);
    if (end) {
      reason = end;
      break;
    }
  }
  // what is reported is b − A·x itself: the path's residual is that only for one solve from x = 0
  // (r − A·d with r = b); after corrections or from an x0 it is recomputed once on the host in f64
  if (!o.single && (solves > 1 || (solves === 1 && o.x0))) rnorm = hostNorm(hostResidual(A, x, b));
  return trueResult(x, iterations, rnorm, scale, target, recurrence, reason, history, Math.max(0, refinements));
}

/**
 * Whether an x0 whose residual is `rnorm` is no start for b (‖b‖ = `bnorm`): x = 0 leaves a residual more
 * than 1/ε of the inner solves' precision smaller — one correction solve gains about that much, so such
 * a start costs more than it saves — and from far enough the inner solves' dot products of its residual
 * overflow: poisson2D(8) with b ≈ 1 and x0 ≈ 1e160 ended CG and BiCGSTAB 'nan' after 0 iterations
 * (1e100: every method 'maxIter' at a residual of 1e7 and more), in f32 from 1e20 (BiCGSTAB), every
 * method from 1e160 with a NaN residual, where each converges from 0. The solve then starts from 0.
 */
function noStart(rnorm: number, bnorm: number, single: boolean): boolean {
  // (b = 0: x = 0 is the answer, but an x0 there asks for another one, as on a singular A)
  return bnorm > 0 && !(rnorm <= (single ? 2 ** 24 : 2 ** 52) * bnorm);
}

/** Why the refinement loop stops before another correction solve, or undefined to solve (again). */
function beforeSolve(rnorm: number, target: number, signal: AbortSignal | undefined, iterations: number, maxIter: number, refinements: number): StopReason | undefined {
  if (Number.isNaN(rnorm)) return 'nan';
  if (rnorm <= target) return 'converged';
  if (signal?.aborted) return 'aborted';
  if (iterations >= maxIter) return 'maxIter';
  if (refinements > MAX_REFINEMENTS) return 'stagnated';
  return undefined;
}

/**
 * Whether a correction solve that ended so may be followed by another: converged, or stagnated at its
 * attainable accuracy — GMRES's own true residual b − A·d cannot go below ≈ ε·‖A‖·‖d‖, which for a
 * correction as large as an x0 far from the answer (1e8 on poisson2D(10)) is over the target: it ended
 * 'stagnated' at 1.9e-8 for tol 1e-8, 0.2 from x0 = 1e15, where a further correction reaches tol.
 */
function refinable(inner: StopReason): boolean {
  return inner === 'converged' || inner === 'stagnated';
}

/**
 * Why the refinement loop stops after a correction solve that moved the residual norm from `before`
 * to `rnorm`, or undefined to go on: met, the inner solve's own stop, or less than halved (stagnated).
 */
function afterSolve(rnorm: number, before: number, target: number, inner: StopReason): StopReason | undefined {
  if (rnorm <= target) return 'converged';
  if (!refinable(inner)) return inner;
  if (!(rnorm < 0.5 * before)) return 'stagnated';
  return undefined;
}

/**
 * The signal and onIteration of a correction solve (restarted refinement): the caller's, and for an inner
 * solve in f32 / c64 a watch that stops it (`stalled`, which the loop takes as 'stagnated') where its
 * recurrence has not fallen below half its lowest for twice as many iterations as the whole solve had run
 * when it last did (cg's stalled): f32 BiCGSTAB on a grid Laplacian + 2⁻²¹·I (κ ≈ 1.7·10⁷) never
 * reached its 10⁻⁵ and ran to maxIter (5 000 iterations at a true 5.9e-6) — now rt.solve goes on in f64.
 */
function watchedInner<V>(o: TrueSolveOptions<V>, done: number, ratio: number): { signal?: AbortSignal; onIteration?: (it: number, rel: number) => void | Promise<void>; stalled(): boolean; dispose(): void } {
  const user = o.onIteration ? (it: number, rel: number) => o.onIteration!(done + it, rel * ratio) : undefined;
  if (!o.single) return { signal: o.signal, onIteration: user, stalled: () => false, dispose: () => {} };
  const stop = new AbortController();
  const forward = () => stop.abort();
  if (o.signal?.aborted) stop.abort();
  else o.signal?.addEventListener('abort', forward, { once: true });
  let low = Infinity;
  let lowAt = 0;
  let stalled = false;
  return {
    signal: stop.signal,
    onIteration: (it, rel) => {
      if (rel < 0.5 * low) [low, lowAt] = [rel, it];
      else if (!stalled && stalledAt(it, lowAt, done)) {
        stalled = true;
        stop.abort();
      }
      return user?.(it, rel);
    },
    // the caller's abort is its own reason, not a stall
    stalled: () => stalled && !o.signal?.aborted,
    dispose: () => o.signal?.removeEventListener('abort', forward),
  };
}

/** The relative tolerance of the next correction solve: what is left to gain, at most SINGLE_INNER_TOL for f32/c64. */
function innerTolerance(single: boolean, target: number, rnorm: number): number {
  return Math.min(single ? Math.max(target / rnorm, SINGLE_INNER_TOL) : target / rnorm, 1);
}

/**
 * solveWithTrueResidual where the path refines (SolverOps.refinement: the CPU pool, WebGPU): the same loop
 * and stopping rules, but x and r = b − A·x stay on the path in its f64 (double-single), r recomputed
 * from x after every correction, so a solve reads back scalars and x once. After more than one
 * correction solve, or from an x0, the reported residual is the path's where its rounding bound
 * (residualRounding) keeps it under the target, else b − A·x once more on the host in f64.
 */
async function refineOnPath<V>(
  ops: SolverOps<V>,
  R: PathRefinement<V>,
  A: CSRMatrix,
  b: Float64Array,
  run: KrylovMethod<V>,
  o: TrueSolveOptions<V>,
): Promise<TrueSolveResult> {
  const tol = o.tol ?? DEFAULT_TOL;
  const maxIter = maxIterOf(o.maxIter, ops.n);
  const scale = R.bnorm > 0 ? R.bnorm : 1;
  const target = tol * scale;
  let rnorm = R.rnorm;
  const history = [rnorm / scale];
  let iterations = 0;
  let refinements = -1;
  let recurrence = rnorm / scale;
  let reason: StopReason = 'maxIter';
  let solves = 0;
  let x: Float64Array;
  let xnorm: number | undefined;
  try {
    for (;;) {
      const stop = beforeSolve(rnorm, target, o.signal, iterations, maxIter, ++refinements);
      if (stop) {
        reason = stop;
        break;
      }
      const done = iterations;
      const ratio = rnorm / scale;
      // where the answer will need a certificate (more than one solve, or an x0), aim under the target
      // by CERTIFY_MARGIN, so that the path's residual plus its rounding bound stays under it: a few
      // more iterations instead of a host product at the end. A residual in plain f64 (the CPU pool's)
      // has no bound to leave room for: its first solve aims at the target itself, as the host's loop
      // does. A correction after the first aims under it on every path, as there: one asked for
      // target/rnorm ≈ 1 gains less than the halving afterSolve requires (MINRES + Chebyshev on
      // bcsstk01 ended 'stagnated' at 1.03·tol)
      const bounded = R.roundoff > 0 || (R.underflow ?? 0) > 0;
      const aim = (bounded && (o.single || o.x0)) || solves > 0 ? CERTIFY_MARGIN * target : target;
      const watch = watchedInner(o, done, ratio);
      let res: SolveResult<V>;
      try {
        res = await run(ops, R.rhs(), {
          // f64: the inner right-hand side is R's r itself, whose norm R measured on the path
          ...(o.single ? {} : { rhsNorm: rnorm }),
          tol: innerTolerance(o.single, aim, rnorm),
          maxIter: maxIter - iterations,
          signal: watch.signal,
          checkEvery: o.checkEvery,
          restart: o.restart,
          onIteration: watch.onIteration,
        });
      } finally {
        watch.dispose();
      }
      if (watch.stalled()) res = { ...res, reason: 'stagnated' };
      let next: number;
      try {
        next = await R.correct(res.x);
        // a correction that raised the true residual is taken back (x − d: x as it was, to rounding):
        // a diverging inner solve (BiCGSTAB on west0479, 3000 iterations) left an x with a residual
        // 1.7e7 times b's where x = 0 had 1
        if (next > rnorm) {
          await ops.scal([-1, 0], res.x);
          next = await R.correct(res.x);
        }
      } finally {
        ops.release(res.x);
      }
      iterations += res.iterations;
      for (let k = 1; k < res.history.length; k++) history.push(res.history[k] * ratio);
      recurrence = res.relativeResidual * ratio;
      if (Number.isNaN(next)) {
        // a diverged correction is not applied: x stays the last finite iterate
        reason = res.reason === 'converged' ? 'nan' : res.reason;
        break;
      }
      solves++;
      const before = rnorm;
      rnorm = next;
      const end = afterSolve(rnorm, before, target, res.reason);
      if (end) {
        reason = end;
        break;
      }
    }
    [x, xnorm] = await Promise.all([R.read(), R.xnorm?.()]);
  } finally {
    R.dispose();
  }
  // r was recomputed from x, in the path's f64: where its rounding bound keeps it under the target it
  // certifies x as it is; else (and always after a single solve from x0 = 0, as before) the host's f64
  // (a single solve from 0 that says converged is checked against what the path flushes alone: where it
  // flushes tiny values (A·1e-30 on a GPU) its r is far above the target, 'converged' at 7e-15 for a true
  // 4.4e-9; the full rounding bound, pessimistic at normal scales, sent poisson3D(128)'s f64 WebGPU solve
  // through a host product of A every time, ≈ 140 ms on the H100's host where the solve takes 80)
  const fromZero = solves === 1 && !o.x0 && reason === 'converged';
  if (fromZero ? !flushedWithin(A, R, x, rnorm, target, xnorm) : (solves > 1 || (solves === 1 && o.x0)) && !(reason === 'converged' && rnorm + residualRounding(A, R, x, true, xnorm) <= target)) {
    rnorm = hostNorm(hostResidual(A, x, b));
  }
  return trueResult(x, iterations, rnorm, scale, target, recurrence, reason, history, Math.max(0, refinements));
}

/**
 * An f32 / c64 matrix's CG to an f64 tolerance as one recurrence with reliable updates (cg's
 * ResidualReplacement): the iterations in the matrix's precision, x accumulated in f64 and r replaced by
 * b − A·x computed in f64 (by R: the path's refinement, or the host's) whenever the recurrence has
 * gained RELIABLE_DELTA since the last replacement or says it met the target — where restarted
 * refinement throws the Krylov space away at each correction solve. Where R offers a head in f64
 * (R.wide) the first iterations run there, to WIDE_HEAD_GAIN·tol, and hand their direction on. A
 * preconditioner that only scales (a uniform Jacobi D⁻¹) is left out of both (unscaled).
 * `refinements` counts the replacements (the head's answer adopted is one); the reported residual is the last one's (the host's f64, or the path's where its
 * rounding bound keeps it under the target, else the host's once more).
 */
async function reliableCg<V>(
  ops: SolverOps<V>,
  R: PathRefinement<V>,
  A: CSRMatrix,
  b: Float64Array,
  o: Omit<GmresOptions<V>, 'x0'> & { x0?: Float64Array },
): Promise<TrueSolveResult> {
  const tol = o.tol ?? DEFAULT_TOL;
  const maxIter = maxIterOf(o.maxIter, ops.n);
  const scale = R.bnorm > 0 ? R.bnorm : 1;
  const target = tol * scale;
  // the true ‖b − A·x‖ of the answer as it stands: R's at the start, then each replacement's (one that
  // found x not finite left the answer, and so this, as they were)
  let rnorm = R.rnorm;
  let history = [R.rnorm / scale];
  let iterations = 0;
  let replacements = 0;
  let x: Float64Array;
  let xnorm: number | undefined;
  let reason = beforeSolve(rnorm, target, o.signal, 0, maxIter, 0);
  try {
    // the head in f64 (R.wide) down to WIDE_HEAD_GAIN·tol, its answer adopted (one replacement) and its
    // direction handed to the f32 recurrence
    const inner = unscaled(ops);
    const W = !reason && tol * WIDE_HEAD_GAIN < 1 ? await R.wide?.(inner.precondition) : undefined;
    let resume: CgDirection<V> | undefined;
    if (W) {
      const head = await cg(W.ops, W.b, { tol: tol * WIDE_HEAD_GAIN, maxIter, signal: o.signal, onIteration: o.onIteration, x0: W.x0, keepDirection: true });
      iterations = head.iterations;
      history = head.history;
      replacements++;
      const t = await W.adopt(head.x);
      W.ops.release(head.x);
      if (!Number.isNaN(t)) rnorm = t;
      if (head.direction) {
        if (head.reason === 'converged') resume = { p: W.narrow(head.direction.p), rho: head.direction.rho };
        W.ops.release(head.direction.p);
      }
      reason = head.reason === 'converged' ? beforeSolve(rnorm, target, o.signal, iterations, maxIter, 0) : head.reason;
    }
    if (!reason) {
      const replacement: ResidualReplacement<V> = {
        // the path's residual carries its rounding: aim under the target by CERTIFY_MARGIN, as refineOnPath does;
        // a plain f64 one after a head: under it by what certified's first bound needs (certifiedAim)
        target: R.roundoff > 0 ? CERTIFY_MARGIN * target : W && !(rnorm <= target) ? await certifiedAim(A, R, tol, target) : target,
        delta: W ? HEADED_DELTA : undefined,
        before: iterations,
        replace: async (xv, rv) => {
          replacements++;
          const t = await R.correct(xv);
          if (Number.isNaN(t)) return t;
          rnorm = t;
          await ops.scal([0, 0], xv);
          await ops.copy(R.rhs(), rv);
          return t;
        },
      };
      // the recurrence's residuals relative to its start's, rnorm (after a head: the adopted answer's)
      const ratio = rnorm / scale;
      const before = iterations;
      const res = await cg(inner, R.rhs(), {
        tol,
        maxIter: maxIter - before,
        signal: o.signal,
        onIteration: o.onIteration ? (it, rel) => o.onIteration!(before + it, rel * ratio) : undefined,
        replacement,
        resume,
      });
      ops.release(res.x);
      if (resume) ops.release(resume.p);
      iterations += res.iterations;
      history = [...history.slice(0, before), ...res.history.map((h) => h * ratio)];
      reason = res.reason;
      // the replacements aim under the target (certifiedAim's margin): maxIter may stop the recurrence
      // at an answer that meets tol (poisson2D(60) f32, tol 1e-11, maxIter 180: 'maxIter' at a true
      // 8.75e-12), which is converged — certified() checks it as any. (A path's residual with its own
      // rounding is not the true one: that answer keeps its 'maxIter'.)
      if (reason === 'maxIter' && R.roundoff === 0 && rnorm <= target) reason = 'converged';
    }
    let xmax: number | undefined;
    [x, xnorm, xmax] = await Promise.all([R.read(), R.xnorm?.(), R.xmax?.()]);
    // the answer's largest entry from the path: its finiteness test and certificate read no pass over x
    if (xmax !== undefined) noteLargestComponent(x, xmax);
  } finally {
    R.dispose();
  }
  const recurrence = history[history.length - 1];
  if (replacements > 0 && R.roundoff > 0 && !(reason === 'converged' && rnorm + residualRounding(A, R, x, true, xnorm) <= target)) rnorm = hostNorm(hostResidual(A, x, b));
  // an answer worse than the start is taken back, as solveScaled and refineOnPath take back a correction
  // (a singular Laplacian with b = 1: x of 8.2e3–2.9e5 times the start's residual)
  if (rnorm > R.rnorm) {
    x = o.x0 ? Float64Array.from(o.x0) : new Float64Array(b.length);
    rnorm = R.rnorm;
  }
  return trueResult(x, iterations, rnorm, scale, target, recurrence, reason, history, replacements);
}

/**
 * The true ‖r‖ an f32 recurrence after a head (reliableCg) aims at where the path's residual is plain f64
 * (R.roundoff 0, nothing flushed): under the target by twice the bound certified() tries first
 * (rowSumResidualBound: no pass over A), with x's largest entry the head's answer's — it moves by far
 * less than that between the head's end and the answer (poisson3D(64), b = 1: the bound is 2.8e-12
 * of ‖b‖). Aiming at the target itself, the answer landed at a true 9.75e-11 for tol 1e-10, inside
 * that bound of it, so certified() made its row-wise pass over A (6.7 ms on the 2-core machine, a
 * third of a refined solve's host work after the iterations) where one more iteration at most does.
 * At tol below CERTIFY_BELOW_TOL certified() makes its pass anyway: the target itself there.
 */
async function certifiedAim<V>(A: CSRMatrix, R: PathRefinement<V>, tol: number, target: number): Promise<number> {
  if ((R.underflow ?? 0) > 0 || tol < CERTIFY_BELOW_TOL) return target;
  // max |xⱼ| on the path where it can (R.xmax: no read of x), else from a read
  const xmax = R.xmax ? await R.xmax() : largestComponent(await R.read());
  const aim = target * (1 - 2 ** -20) - 2 * rowSumBound(A, xmax, R.bnorm);
  // a bound this large certifies nothing at this tol: the target, and certified()'s own checks
  return aim > 0.5 * target ? aim : target;
}

/**
 * ops without a preconditioner that only scales (ops.preconditionScale: z = c·r, c > 0): CG's iterates
 * are the same without it in exact arithmetic — its p is c·p′, ρ c·ρ′, α·p, x and r alike — so the
 * steps skip z, rᴴz and a rounding (the f32 update's pass: x, r and ‖r‖² alone, cg_update_f32), and
 * the f64 head its D⁻¹ vector's set-up. (A direction handed on by a solve with it, p and ρ, would go on
 * as it is: β = rᴴr/ρ on that p is c⁻¹ times the step the preconditioned recurrence takes.)
 */
function unscaled<V>(ops: SolverOps<V>): SolverOps<V> {
  return ops.preconditionScale === undefined ? ops : { ...ops, precondition: undefined, preconditionScale: undefined, cgUpdatePrecondition: undefined, cgDeferredX: undefined };
}

/**
 * PathRefinement kept on the host, for a path without its own: x and r = b − A·x in f64 on the host
 * (r from A's own values, whatever their precision), r uploaded in the path's dtype for the iterations.
 */
function hostRefinement<V>(ops: SolverOps<V>, io: HostIO<V>, A: CSRMatrix, b: Float64Array, x0: Float64Array | undefined): PathRefinement<V> {
  const x = x0 ? new Float64Array(x0) : new Float64Array(b.length);
  const r0 = x0 ? hostResidual(A, x, b) : b;
  let rhs = io.upload(r0);
  return {
    bnorm: hostNorm(b),
    rnorm: hostNorm(r0),
    roundoff: 0,
    rhs: () => rhs,
    correct: async (d) => {
      const dv = await io.read(d);
      for (let i = 0; i < dv.length; i++) if (!Number.isFinite(dv[i])) return NaN;
      for (let i = 0; i < x.length; i++) x[i] += dv[i];
      const { r, norm } = hostResidualNorm(A, x, b);
      ops.release(rhs);
      rhs = io.upload(r);
      return norm;
    },
    read: async () => x,
    dispose: () => ops.release(rhs),
  };
}

/** What a path refinement's correction solves aim at, as a part of the target, where the answer needs a certificate. */
const CERTIFY_MARGIN = 0.5;
