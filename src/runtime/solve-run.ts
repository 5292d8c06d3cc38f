/**
 * rt.solve's driver after its arguments are checked and b and x0 read (runtime.ts runSolve): the
 * factorization or the Krylov candidates with their preconditioners. A chunk of its own (solve-chunk.ts),
 * imported by the first solve while it checks, plans and reads: a page that only multiplies never
 * fetches it.
 */
import { accurateResidualNorm, F64_RHS_RANGE, hostNorm, hostResidual, rhsExponentOf, scaleBy } from '../host-spmv.js';
import { componentBytes, isComplex } from '../dtype.js';
import { DisposedError, InputRangeError, MemoryLimitError, NotPositiveDefiniteError, ShapeError, SimdglError, SingularMatrixError, UnsupportedError } from '../errors.js';
import { diagonalSums, type CSRMatrix } from '../formats/csr.js';
import type { Path, PathVector } from '../path.js';
import type { AutoSolveOptions, SolveOutcome } from './options.js';
import type { PreconditionerHandle } from './preconditioner.js';
import type { MatrixHandle } from './handles.js';
import type { KrylovMethod, SolveCandidate, SolveMethod } from '../solvers/solve.js';
import type { PreconditionerOperator } from '../solvers/operator.js';
import type { PreconditionerKind, PreconditionerPlan } from '../solvers/precond/index.js';
import { inverseDiagonal } from '../solvers/precond/jacobi.js';
import type { SolveStructure } from '../solvers/structure.js';
import { DEFAULT_TOL, maxIterOf, type SolverOps } from '../solvers/ops.js';
import { autoChooses, DIRECT_MAX_N } from '../solvers/solve-methods.js';
import type { TrueSolveResult } from '../solvers/true-residual.js';
import type { Factorization as KeptFactor } from '../solvers/direct/factor.js';
import { directSolvers } from './direct-solvers.js';
import { krylovSolvers } from './krylov-solvers.js';
import { solverSetup } from './solver-setup-chunk.js';
import { KEPT_WORDS, drop, keep, keptSetups, type KeptSetup } from './kept-setup.js';
import { CHEBYSHEV_RATIO, GPU_CHEBYSHEV_DEGREE, JACOBI_AS_NONE, type DirectPlan, type Runtime, type SolveAnalysis } from './runtime.js';

/**
 * The set-up chunk's functions (solver-setup.ts), in by the time a solve runs (createRuntime waited for
 * it): read there, not imported, so that a page's bundle puts no module in two of its chunks (esbuild's
 * split fetched nine such chunks after the set-up's entry, a round trip more: docs/bundlers.md).
 */
const setup = () => solverSetup.get();

/** What runSolve checked and read before the driver runs: its arguments, A's analysis, the direct plan, b and x0 in f64. */
export interface SolveStart {
  where: string;
  h: MatrixHandle;
  o: AutoSolveOptions;
  method: SolveMethod | undefined;
  handle: PreconditionerHandle | null;
  pre: PreconditionerKind | 'auto';
  asked: Path | null;
  analysis: SolveAnalysis;
  csr: CSRMatrix;
  d: DirectPlan | null;
  b64: Float64Array;
  x0: Float64Array | undefined;
}

/** A true relative residual at f64's rounding (64 ε): a Krylov solve stopped there is not helped by a factorization. */
const ROUNDING_FLOOR = 64 * Number.EPSILON;

/** The rest of runSolve: the factorization where planned, else (or after it) the Krylov candidates in turn. */
export async function solveAfterReads(rt: Runtime, start: SolveStart): Promise<SolveOutcome> {
  const { where, h, o, method, handle, pre, asked, analysis, csr, d, b64 } = start;
  let x0 = start.x0;
  let directFallback: string | undefined;
  // the factorization proved A singular or not positive definite: CG's premise is false
  let notDefinite = false;
  // a factorization ran (or could not): 'auto' does not try it again after the Krylov candidates
  let factorTried = false;
  // a factorization before the Krylov candidates: its answer, else why it left A to them (and where from)
  const factorize = async (plan: DirectPlan): Promise<SolveOutcome | null> => {
    factorTried = true;
    const f = await factorSolve(rt, start, plan, x0);
    if ('out' in f) return f.out;
    directFallback = f.fallback;
    notDefinite = f.notDefinite;
    if (f.x0) x0 = f.x0;
    return null;
  };
  if (d && (d.direct || o.method === 'direct')) {
    const out = await factorize(d);
    if (out) return out;
  }
  const p = asked ?? rt.solvePath(h, undefined);
  // 'auto' (no method, preconditioner or handle given): where its candidate would be CG + IC(0), whose
  // iterations grow with the mesh, A's factorization is weighed above the cap too, from A's structure
  const autoChoice = !method && autoChooses(o.method, o.preconditioner);
  const aboveCap = async (): Promise<SolveOutcome | null> => {
    if (!autoChoice || factorTried || o.signal?.aborted) return null;
    const above = rt.directAboveCap(h, csr, analysis.structureIn(), p.cost.kind === 'gpu', o.spd);
    return above?.direct ? factorize(above) : null;
  };
  // before A's copy on the path (a WebGPU upload the factorization does not use: ≈ 200 ms of
  // elasticity2D(200)'s solve on the H200 machine, bench/device/results-2026-11-29-twenty-third/gpu) where
  // a sample of A's rows says it may be one; else after it, as the structure pass of a Laplacian-like or
  // diagonally dominant A reads that copy's uniform diagonals (poisson3D(64)'s 'auto' solve on 2 threads
  // 114–121 → 128–134 ms with the pass first)
  const early = autoChoice && csr.rows > DIRECT_MAX_N && setup().sampledRowNotDominant(csr);
  const before = early ? await aboveCap() : null;
  if (before) return before;
  // the path ready before pathSolveInfo uploads A there: a WebGPU upload then splits f64 values on the GPU
  await rt.ready(p);
  // the runtime or A disposed since the call (while b was read or A factorized): said as that, and A
  // not copied to the path again (a copy made after dispose() was never freed)
  const gone = () => (rt.live(), new DisposedError(`${where}: A (disposed during the solve)`));
  if (h.disposed) throw gone();
  // A scaled by a power of two into the path's range (solveMatrixOn), x scaled back
  const s = rt.solveMatrixOn(h, p);
  const pc = handle && s.e !== 0 ? scaledPreconditioner(rt, handle, s.h) : handle;
  // A's copy on the path first: on the CPU path of one thread, a DIA copy then gives the structure its faster pass
  const info = rt.pathSolveInfo(p, h);
  const after = early ? null : await aboveCap();
  if (after) return after;
  const structure = analysis.structureIn();
  const choice = setup().chooseSolve(structure, info, { method: method ?? (o.method === 'direct' ? 'auto' : o.method), preconditioner: pre, spd: o.spd });
  const io = { upload: (v: Float64Array) => p.vector(h.dtype, v), read: async (v: PathVector) => (await p.read(v)).slice() };
  // CG on a matrix the factorization found singular or indefinite would only break down (dwt_992:
  // after 1 iteration, its IC(0) set up for nothing): the next candidate (MINRES) runs first
  let first = 0;
  while (notDefinite && choice.candidates[first].method === 'cg' && first + 1 < choice.candidates.length) first++;
  // a preconditioner 'auto' chose whose arithmetic overflowed on finite A and b (ILU(0)'s pivot of a zero
  // diagonal shifted to 1e-3 of a 4.7e-232 row: GMRES ended 'nan', plain GMRES converges in 1): the same
  // method again without it, once
  const autoPre = !handle && (o.preconditioner === undefined || o.preconditioner === 'auto');
  let nanFallback: string | undefined;
  // BiCGSTAB's solve that stagnated, whose x the next candidate goes on from
  let stalledRun: (TrueSolveResult & { precisionFallback?: string }) | undefined;
  let methodFallback: string | undefined;
  // a candidate's own iteration bound (SolveCandidate.maxIter) spent, with no factorization to answer: it goes on without it
  let uncapped = false;
  for (let c = first; ; c++) {
    let cand: SolveCandidate = nanFallback ? { ...choice.candidates[c], preconditioner: 'none' } : choice.candidates[c];
    let prepared;
    try {
      prepared = await preconditionedOps(rt, p, s.h, s.csr, structure, cand, pc, o.reuse !== false, o.tol);
    } catch (thrown) {
      const e = cand.preconditioner === 'jacobi' ? jacobiRefusalOfA(thrown, csr, s.e, p) : thrown;
      // a preconditioner 'auto' chose whose setup A refuses — Jacobi of a diagonal whose inverse
      // overflows (A near 1e-310), IC(0) that no shift repairs: the candidate runs without one, where
      // rt.solve(A, b) threw the setup's error telling the caller to ask for 'none'
      if (!autoPre || cand.preconditioner === 'none' || !(e instanceof ShapeError || e instanceof UnsupportedError)) throw e;
      cand = { ...cand, preconditioner: 'none' };
      const none = await preconditionedOps(rt, p, s.h, s.csr, structure, cand, null, false, o.tol);
      prepared = { ...none, description: `none (${choice.candidates[c].preconditioner} could not be set up: ${e.message})` };
    } finally {
      // the GPU path's host copy of A served the structure and the diagonal: not kept through the solve
      analysis.pathCopy = undefined;
    }
    const { ops, description, dispose, reused } = prepared;
    // the runtime, A or the preconditioner disposed during the solve: said as that, not as one of
    // their freed parts ('csr matrix was used after dispose()', a path's vector)
    const disposedAs = (e: unknown): unknown => {
      if (e instanceof DisposedError) {
        if (h.disposed) return gone();
        rt.live();
        handle?.live();
      }
      return e;
    };
    let r: TrueSolveResult & { precisionFallback?: string };
    const cap = o.maxIter === undefined && !uncapped ? cand.maxIter : undefined;
    try {
      await krylovSolvers.load();
      const { solveWithTrueResidual, KRYLOV } = krylovSolvers.get();
      r = await solveWithTrueResidual(ops, io, s.csr, b64, KRYLOV[cand.method] as KrylovMethod<PathVector>, {
        ...o,
        x0,
        single: componentBytes(h.dtype) === 4,
        matrixExponent: s.e,
        ...(cap ? { maxIter: cap } : {}),
        ...(stalledRun ? budgetAfter(stalledRun, o, h.rows) : {}),
      });
      if (stalledRun) {
        // an f32 BiCGSTAB that went on in f64 before it stagnated keeps saying so
        const widened = stalledRun.precisionFallback;
        r = { ...continuedFrom(stalledRun, r), ...(widened ? { precisionFallback: widened } : {}) };
      }
    } catch (e) {
      throw disposedAs(e);
    } finally {
      dispose();
    }
    // an f32 CG that broke down on a matrix taken as definite: f32's rounding may make pᴴAp ≤ 0 there
    // (A + 1e-7·I, a Laplacian's: after 589 iterations on WebGPU, where f64 CG converges in 176)
    const precisionLimited = r.reason === 'stagnated' || (r.reason === 'breakdown' && cand.method === 'cg' && (o.spd === true || (structure.hermitian && structure.positiveDiagonal)));
    if (precisionLimited && componentBytes(h.dtype) === 4 && !handle && !o.signal?.aborted && r.iterations < maxIterOf(o.maxIter, h.rows)) {
      try {
        r = await wideFallback(rt, p, h, s, structure, cand, b64, o, r);
      } catch (e) {
        throw disposedAs(e);
      }
    }
    if (r.reason === 'nan' && autoPre && !nanFallback && cand.preconditioner !== 'none' && structure.finite && setup().firstNonFinite(b64) < 0) {
      nanFallback = `after ${description} ended ${cand.method} 'nan' at iteration ${r.iterations} on finite A and b`;
      c--;
      continue;
    }
    // a breakdown (CG on a matrix that is not definite) moves rt.solve's choice to its next candidate, and
    // so does BiCGSTAB's recurrence meeting tol where its true residual did not: GMRES goes on from its x
    const stalled = r.reason === 'stagnated' && cand.method === 'bicgstab' && !o.signal?.aborted;
    if ((r.reason !== 'breakdown' && !stalled) || c + 1 === choice.candidates.length) {
      // 'auto''s last candidate ended without an answer: A's factorization, once per matrix, where it fits
      // (not where its residual is at f64's rounding already: a tol below that, 1e-17, no factor meets either)
      const unanswered = (r.reason === 'stagnated' || r.reason === 'breakdown' || (r.reason === 'maxIter' && o.maxIter === undefined)) && !(r.relativeResidual <= ROUNDING_FLOOR);
      const fd = autoChoice && unanswered && !factorTried && !o.signal?.aborted && !h.disposed ? rt.directAfterKrylov(h, csr) : null;
      if (fd) {
        const why = `${cand.method} + ${cand.preconditioner} ended '${r.reason}' at a true relative residual of ${r.relativeResidual.toExponential(2)} after ${r.iterations} iterations`;
        // (its outcome's words are methodFallback's: directFallback says why a factorization before the Krylov candidates left A to them)
        const f = await factorSolve(rt, start, fd, x0);
        const failed = 'out' in f ? null : (f.failed ?? 'no answer');
        if (!fd.afterKrylov) rt.directSettled(h, fd, failed, why);
        if ('out' in f) {
          const { out } = f;
          // A's choice from now on: the Krylov set-up kept with it is freed
          const slots = keptSetups(h);
          if (slots) drop(slots, 'preconditioner');
          return { ...out, methodFallback: `${why}: A's factorization answered instead${out.reused ? '' : ' (its factor kept with A: the next solve of A starts with it)'}` };
        }
        methodFallback = `${methodFallback ? `${methodFallback}; ` : ''}${why}; A's factorization after it did not answer either (${failed})`;
      }
      // (not after a factorization that failed: A singular, where more iterations would not answer either)
      if (cap && r.reason === 'maxIter' && !fd && !o.signal?.aborted && !h.disposed) {
        methodFallback = `${methodFallback ? `${methodFallback}; ` : ''}${cand.method} + ${cand.preconditioner} went on from its iterate after 'auto''s ${cap} iterations (no factorization of A to take over)`;
        uncapped = true;
        stalledRun = r;
        x0 = r.x;
        c--;
        continue;
      }
      rt.keepHostCopy(b64);
      const detail = nanFallback ? `none (${nanFallback})` : description;
      return {
        ...r,
        method: cand.method,
        preconditioner: cand.preconditioner,
        preconditionerDetail: detail,
        path: p.id,
        ...(reused ? { reused: 'preconditioner' as const } : {}),
        ...(directFallback ? { directFallback } : {}),
        ...(methodFallback ? { methodFallback } : {}),
        ...(s.e ? { matrixExponent: -s.e } : {}),
      };
    }
    nanFallback = undefined;
    if (stalled) {
      methodFallback = `bicgstab's recurrence met tol where its true relative residual, ${r.relativeResidual.toExponential(2)}, did not (it stagnated) after ${r.iterations} iterations: ${choice.candidates[c + 1].method} went on from that iterate`;
      stalledRun = r;
      x0 = r.x;
    }
  }
}

/**
 * A solve by A's factorization (`d`'s plan), on the host whatever the path: its outcome where it answers
 * (or where method 'direct' was asked for, whatever it gives), else why 'auto' leaves A to the Krylov
 * candidates — and the factor's answer to start them from, or that A proved singular or not definite.
 */
async function factorSolve(rt: Runtime, start: SolveStart, d: DirectPlan, x0: Float64Array | undefined): Promise<{ out: SolveOutcome } | { fallback?: string; failed?: string; x0?: Float64Array; notDefinite: boolean }> {
  const { h, o, csr, b64 } = start;
  // a NaN or ±Inf in A spoils the factorization (it would read as singular), one in b its solve (F.solve
  // refuses it): method 'direct' ends 'nan' as the Krylov methods do, 'auto' leaves the system to them
  const badRhs = () => {
    const i = setup().firstNonFinite(b64);
    return i < 0 ? null : `b[${i}] is ${b64[i]}`;
  };
  const bad = setup().nonFiniteEntry(d.plan!.C) ?? badRhs();
  // nothing factorized (NaN in A, or the signal fired before or during the factorization): x is x0 (or
  // 0) as a Krylov method aborted before its first iteration gives it
  const notFactorized = (): { out: SolveOutcome } => {
    const x = x0 ?? new Float64Array(b64.length);
    const bnorm = hostNorm(b64);
    const rnorm = bad ? NaN : x0 ? hostNorm(hostResidual(csr, x, b64)) : bnorm;
    const rel = bnorm > 0 ? rnorm / bnorm : rnorm;
    if (bad) x.fill(NaN);
    const reason = bad ? 'nan' : rnorm <= (o.tol ?? DEFAULT_TOL) * bnorm ? 'converged' : 'aborted';
    rt.keepHostCopy(b64);
    return {
      out: {
        x, iterations: 0, residualNorm: rnorm, relativeResidual: rel, recurrenceResidual: rel, converged: reason === 'converged', reason, history: [bnorm > 0 ? 1 : 0, rel], refinements: 0,
        method: 'direct', preconditioner: 'none', preconditionerDetail: `none: no factorization ran (${bad ?? 'the signal fired'})`, path: 'cpu',
      },
    };
  };
  if (o.method === 'direct' && (bad || o.signal?.aborted)) return notFactorized();
  if (bad) return { fallback: `the factorization cannot run (${bad}): the Krylov candidates instead`, failed: `it cannot run (${bad})`, notDefinite: false };
  // (the signal fired before: the Krylov candidates end 'aborted' as they start)
  if (o.signal?.aborted) return { notDefinite: false };
  // the factorization runs on the host, whatever the path; x0 is not needed
  const tol = o.tol ?? DEFAULT_TOL;
  let F: KeptFactor | null = null;
  // the factor's solution past the largest f64 (F.solve's InputRangeError): A nearly singular (a
  // rounding-level pivot of a singular A at 1e-300 made x = ±Inf) or b too large
  let solving = false;
  // the factor an earlier solve of A kept (kept-setup.ts), else the one made here, kept for the next:
  // used by one solve at a time until `done`
  let done: (() => void) | undefined;
  let reusedFactor = false;
  try {
    const slots = o.reuse === false ? null : keptSetups(h);
    if (slots?.factor) {
      const k = slots.factor;
      done = await k.exclusive();
      F = k.value;
      reusedFactor = true;
    } else {
      if (!directSolvers.loaded()) await directSolvers.load();
      const direct = directSolvers.get();
      F = await direct.factorize(csr, { signal: o.signal }, rt.cpu.memoryBudgetMB, direct.directKernels(rt.cpu.backend), d.plan!, true);
      // (not on A disposed meanwhile: nothing would free it)
      if (slots && !h.disposed) done = await keep(slots, 'factor', 'direct', F).exclusive();
    }
    solving = true;
    const s = await F.solve(b64);
    solving = false;
    // a symmetric A's norms for the bound below are the factor's ‖A‖∞ (its solve computed it): no pass over A
    if (d.plan!.sym && F.rowAbsSumMax !== undefined) setup().seedSymmetricAbsNorms(csr, F.rowAbsSumMax);
    const bnorm = hostNorm(b64);
    let rel = s.relativeResidual;
    // f64's b − A·x rounds by up to its bound: where the residual plus that is above the target, it is
    // recomputed with its sums' rounding errors carried (a singular A factorized with a rounding-level
    // pivot gave x ≈ 1e16 and a plain residual of 0: 'converged', for a true residual of 0.38). Both at
    // the scale F.solve measured (b beyond 2^±900 scaled, x with it, exactly): products of subnormal size
    // carry no error terms (A·1e-160, b·1e-320: 'converged' at 0 for a true 1.8e-16 over tol 1.7e-16)
    // ‖b‖₂ past the largest f64 (entries near 2^1023): the exponent from max |bᵢ|, and always scaled
    // (an x entry below 2 that loses bits to it moves the residual by 2^-1074 of ‖b‖: else NaN, and CG)
    const overflows = bnorm === Infinity;
    const e = rhsExponentOf(b64, bnorm, F64_RHS_RANGE);
    const xs = e === 0 ? s.x : scaleBy(Float64Array.from(s.x), -e);
    const exact = e === 0 || overflows || scaleBy(xs.slice(), e).every((v, i) => v === s.x[i]);
    const [xc, bc] = exact && e !== 0 ? [xs, scaleBy(Float64Array.from(b64), -e)] : [s.x, b64];
    const bn = bc === b64 ? bnorm : hostNorm(bc);
    const target = tol * bn;
    // the row-wise bound from the sums F.solve's pass left (the same rows, x and b where nothing was rescaled)
    const kept = F;
    const bound = setup().directResidualBound(csr, xc, bc, bn, Math.max(0, target - rel * bn), e === 0 ? () => kept.rowwiseBound() : undefined);
    if (rel <= tol && !(rel * bn + bound <= target) && bn > 0) rel = accurateResidualNorm(csr, xc, bc) / bn;
    const converged = rel <= tol;
    if (converged || o.method === 'direct') {
      // the factor bought for a matrix 'auto' kept solving replaces its Krylov set-up: that is freed
      if (d.again) {
        const slots = keptSetups(h);
        if (slots) drop(slots, 'preconditioner');
      }
      rt.keepHostCopy(b64);
      const info = F.info;
      const out: SolveOutcome = {
        x: s.x, iterations: 0, residualNorm: overflows ? scaleBy(Float64Array.of(rel * bn), e)[0] : bnorm > 0 ? rel * bnorm : rel, relativeResidual: rel, recurrenceResidual: rel, converged,
        reason: converged ? 'converged' : Number.isNaN(rel) ? 'nan' : 'stagnated', history: [bnorm > 0 ? 1 : 0, rel], refinements: s.refinements,
        method: 'direct', factor: info, preconditioner: 'none', preconditionerDetail: `none: a direct ${info.kind} factorization (${info.ordering} ordering) on the host CPU${reusedFactor ? `, ${KEPT_WORDS}` : ''}`, path: 'cpu',
        ...(reusedFactor ? { reused: 'factor' as const } : {}),
      };
      return { out };
    }
    // an ill-conditioned factor: its answer is the Krylov candidates' starting point
    // its answer starts the Krylov candidates where its residual is more than rounding: one made of a
    // rounding-level pivot (x ≈ 1e16) started CG at a residual 400 times that of x = 0
    const fromIt = bound < rel * bnorm;
    const fallback = `the factorization's true relative residual ${rel.toExponential(2)} is above tol ${tol}: Krylov from ${fromIt ? 'its answer' : x0 ? 'x0 (the answer is made of rounding)' : '0 (the answer is made of rounding)'}`;
    return { fallback, failed: `its true relative residual ${rel.toExponential(2)} is above tol ${tol}`, notDefinite: false, ...(fromIt ? { x0: Float64Array.from(s.x) } : {}) };
  } catch (e) {
    // the signal fired during the factorization (which freed what it held): 'aborted', as a Krylov method ends
    if (o.signal?.aborted && e === (o.signal.reason ?? e)) return notFactorized();
    // the direct solvers' module failed to load (a page's chunk lost to the network; the next call
    // imports it again): 'auto' has the Krylov candidates, as for a factor past the memory budget
    if (!directSolvers.loaded() && o.method !== 'direct') {
      return { fallback: `the direct solvers' module failed to load (${String(e)}): the Krylov candidates instead`, failed: `the direct solvers' module failed to load (${String(e)})`, notDefinite: false };
    } else if (solving && e instanceof InputRangeError && o.method !== 'direct') {
      // 'auto': as a factor whose residual misses tol — the Krylov candidates, whose own solution
      // past f64 is the same InputRangeError where b is what takes x there
      return { fallback: `the factorization's solution leaves the f64 range (${e.message}): the Krylov candidates instead`, failed: `its solution leaves the f64 range (${e.message})`, notDefinite: false };
    }
    if (o.method === 'direct' || !(e instanceof SingularMatrixError || e instanceof NotPositiveDefiniteError || e instanceof MemoryLimitError)) throw e;
    const notDefinite = !o.spd && (e instanceof SingularMatrixError || e instanceof NotPositiveDefiniteError);
    return { fallback: `the factorization failed (${e.name}: ${e.message}): the Krylov candidates instead${notDefinite ? ', from the first after CG (A is singular or not positive definite)' : ''}`, failed: `${e.name}: ${e.message}`, notDefinite };
  } finally {
    if (done) done();
    else F?.dispose();
  }
}

/**
 * rt.solve of an f32 / c64 matrix whose f32 corrections stagnated (r, 'stagnated': A's condition beyond
 * what they resolve — a Laplacian shifted by 1e-6, κ ≈ 10⁷, ran f32 CG to maxIter where f64 CG converges
 * in 366), or whose f32 CG broke down on a matrix taken as definite: the same candidate on A's f64 twin (Runtime.solveMatrixWide: the values widened, exactly) from
 * r's x, within what is left of maxIter and under the same signal. Iterations, history and refinements
 * are both solves'; the answer is the twin's unless its true residual is above r's (an abort or maxIter
 * early in it), where r's x stays with the twin's reason.
 */
async function wideFallback(
  rt: Runtime,
  p: Path,
  h: MatrixHandle,
  s: { h: MatrixHandle; csr: CSRMatrix; e: number },
  structure: SolveStructure,
  cand: SolveCandidate,
  b64: Float64Array,
  o: AutoSolveOptions,
  r: TrueSolveResult,
): Promise<TrueSolveResult & { precisionFallback: string }> {
  const w = rt.solveMatrixWide(h, s);
  const { ops, dispose } = await preconditionedOps(rt, p, w.h, w.csr, structure, cand, null, o.reuse !== false, o.tol);
  let f: TrueSolveResult;
  try {
    const { solveWithTrueResidual, KRYLOV } = krylovSolvers.get();
    f = await solveWithTrueResidual(ops, { upload: (v) => p.vector(w.h.dtype, v), read: async (v) => (await p.read(v)).slice() }, w.csr, b64, KRYLOV[cand.method] as KrylovMethod<PathVector>, {
      ...o,
      x0: r.x,
      single: false,
      matrixExponent: s.e,
      ...budgetAfter(r, o, h.rows),
    });
  } finally {
    dispose();
  }
  const precisionFallback = `${h.dtype} ${r.reason === 'breakdown' ? 'CG broke down (pᴴAp ≤ 0 in its rounding)' : 'corrections stagnated'} at a true relative residual of ${r.relativeResidual.toExponential(2)} after ${r.iterations} iterations (A's condition is beyond what they resolve): ${cand.method} went on in ${isComplex(h.dtype) ? 'c128' : 'f64'} from that iterate, A's values widened once (exact)`;
  return { ...continuedFrom(r, f), precisionFallback };
}

/** What a solve going on from r's iterate may still spend: the rest of maxIter, its iterations counted on from r's. */
function budgetAfter(r: TrueSolveResult, o: AutoSolveOptions, n: number): { maxIter: number; onIteration: AutoSolveOptions['onIteration'] } {
  const on = o.onIteration;
  return { maxIter: maxIterOf(o.maxIter, n) - r.iterations, onIteration: on && ((it, rel) => on(r.iterations + it, rel)) };
}

/**
 * r's solve continued by f from r's x: f's answer unless its true residual is above r's (an abort or
 * maxIter early in f), where r's x stays with f's reason; iterations, history and refinements are both solves'.
 */
function continuedFrom(r: TrueSolveResult, f: TrueSolveResult): TrueSolveResult {
  const kept = f.converged || f.relativeResidual <= r.relativeResidual ? f : { ...f, x: r.x, residualNorm: r.residualNorm, relativeResidual: r.relativeResidual };
  return { ...kept, iterations: r.iterations + f.iterations, history: [...r.history, ...f.history.slice(1)], refinements: r.refinements + f.refinements };
}

/**
 * Jacobi's refusal said in A's values, as the ShapeError Jacobi refuses with (which 'auto' answers with
 * 'none'): the entry of the copy 2^-e·A a solve runs (solveMatrixOn: 7.5e-311 for A's 1e-10, on a GPU
 * path that scales to max ≈ 1) or its inverse past double-single's range on the GPU (a WebGpuLimitError
 * naming 1.3e60 for A's 1e-30, or 1e45 for an unscaled 1e-45, which 'auto' threw) is no value the caller
 * gave. A's own refusal where its diagonal has one (a zero); else its entry of smallest modulus, whose
 * inverse is the one past the range.
 */
function jacobiRefusalOfA(e: unknown, A: CSRMatrix, exponent: number, p: Path): unknown {
  if (!(e instanceof ShapeError || (e instanceof SimdglError && e.code === 'E_GPU_LIMIT'))) return e;
  try {
    inverseDiagonal(A);
  } catch (own) {
    return own;
  }
  // every diagonal entry is nonzero here (inverseDiagonal refused a zero one)
  const complex = isComplex(A.dtype);
  const s = diagonalSums(A);
  let i = 0;
  let min = Infinity;
  for (let r = 0; r < A.rows; r++) {
    const m = complex ? Math.hypot(s[2 * r], s[2 * r + 1]) : Math.abs(s[r]);
    if (m < min) [i, min] = [r, m];
  }
  const v = complex ? `${s[2 * i]} + ${s[2 * i + 1]}i` : `${s[i]}`;
  const where = exponent !== 0 ? ` once A runs scaled by 2^${-exponent} (A's entries span more than the path holds)` : p.cost.kind === 'gpu' ? " (double-single holds f32's exponent)" : '';
  return new ShapeError(`jacobi: the diagonal entry A[${i},${i}] is ${v}, whose inverse leaves the ${p.label} path's range${where}; use preconditioner: 'none'${p.cost.kind === 'gpu' ? " or path: 'cpu'" : ''}`);
}

/** A preconditioner handle's twin for solveMatrixOn's scaled copy hs of its matrix: the same kind and options, set up once on hs. */
function scaledPreconditioner(rt: Runtime, handle: PreconditionerHandle, hs: MatrixHandle): PreconditionerHandle {
  if (!handle.scaled) {
    handle.scaled = rt.preconditioner(hs, { ...handle.options, kind: handle.kind });
    handle.derived.push(handle.scaled);
  }
  return handle.scaled;
}

/**
 * rt.solve's Chebyshev plan on a GPU path, for a real Hermitian matrix with a positive diagonal: degree
 * GPU_CHEBYSHEV_DEGREE (a diagonally dominant A whose steps run fused: the path's figures choose it) on [λmax/CHEBYSHEV_RATIO, λmax] of D⁻¹A. A diagonally dominant A has every
 * Gershgorin disc of D⁻¹A within [0, 2], so λmax ≤ 2 costs no product; else λmax from Lanczos steps
 * on the path's uploaded A (pathLanczosBounds: 20 SpMVs and 40 scalars read back; ≈ 0.28 s for
 * poisson3D(128) on the H100 machine, bench/device/results-2026-11-27-gpu/call10). λmin is taken as
 * λmax/CHEBYSHEV_RATIO, not the Lanczos estimate: the polynomial then maps D⁻¹A's lower spectrum
 * better for CG (poisson3D(128), degree 3: 108 iterations on [0.02, 2], 124 on [0.0008, 2.19];
 * docs/performance-gpu.md). A constant diagonal's D⁻¹ goes as one value. Elsewhere planPreconditioner's.
 */
async function chebyshevPlan(rt: Runtime, p: Path, ops: SolverOps<PathVector>, h: MatrixHandle, csr: CSRMatrix, structure: SolveStructure): Promise<PreconditionerPlan> {
  const o = { kind: 'chebyshev', degree: GPU_CHEBYSHEV_DEGREE } as const;
  if (isComplex(h.dtype) || !structure.hermitian || !structure.positiveDiagonal) return setup().planPreconditioner(csr, structure, o, rt.sparseKernels);
  const t0 = performance.now();
  // (the degree from the path's figures where the steps run fused: Runtime.chebyshevDegreeOn)
  const free = rt.gershgorinChebyshev(h, csr, structure, undefined, p, t0);
  if (free) return free;
  const dinvValue = rt.inverseDiagonalValue(h, csr) ?? undefined;
  const dinv = inverseDiagonal(csr);
  const est = await setup().pathLanczosBounds(ops, (v) => p.vector(h.dtype, v), dinv);
  // λmax from below: 10% margin (docs/solvers.md)
  const hi = 1.1 * est.max;
  return setup().planPreconditioner(csr, structure, o, rt.sparseKernels, {
    lo: Math.max(est.min, hi / CHEBYSHEV_RATIO),
    hi,
    how: `from 20 Lanczos steps on the ${p.label} path, λmin at least λmax/${CHEBYSHEV_RATIO}`,
    ms: performance.now() - t0,
    dinv,
    dinvValue,
  });
}

/**
 * The path's solver operations with a candidate's preconditioner: Jacobi and none as the path's own
 * (the WebGPU path then keeps its resident CG/BiCGSTAB), the others made resident from their plan
 * (or the caller's handle) and applied through `precondition`.
 */
async function preconditionedOps(
  rt: Runtime,
  p: Path,
  h: MatrixHandle,
  csr: CSRMatrix,
  structure: SolveStructure,
  cand: SolveCandidate,
  handle: PreconditionerHandle | null,
  reuse: boolean,
  tol = DEFAULT_TOL,
): Promise<{ ops: SolverOps<PathVector>; description: string; reused?: boolean; dispose: () => void }> {
  const kind = cand.preconditioner;
  const M = rt.matrixOn(h, p, 'N');
  if (kind === 'none' || kind === 'jacobi') {
    // f64 on a GPU path: Jacobi of a constant diagonal (D⁻¹ = I/c) leaves the iterates as they are, while
    // its z = D⁻¹·r reads D and writes z each iteration (poisson3D(128) f64 on an H100: rt.cg with
    // it 87 ms, without 76; bench/device/results-2026-11-27-fifth/call3): none runs
    const scalar = kind === 'jacobi' && rt.scalarJacobi(h, p, csr);
    // Jacobi's diagonal from the canonical CSR the structure check made, not h.host: a DIA or ELL
    // copy would be converted back to CSR again (poisson3D(64) as DIA: ≈ 80 ms a solve)
    const ops = p.solverOps(M, csr, scalar ? 'none' : kind);
    const description = kind === 'none' ? 'none' : scalar ? JACOBI_AS_NONE : 'jacobi (inverse of the diagonal)';
    return { ops, description: (!scalar && handle?.description) || description, dispose: () => ops.dispose() };
  }
  // the canonical CSR, not h.host, as for Jacobi above: a GPU path's resident Chebyshev-CG takes D⁻¹
  // from it, and a DIA host went back to CSR first (≈ 255 ms of a first Chebyshev solve of
  // poisson3D(128) on the H100 machine's host: bench/device/results-2026-11-27-sixth/gpucg/call2)
  const base = p.solverOps(M, csr, 'none');
  let release: (() => void) | undefined;
  try {
    const analysis = rt.solveStructureOf(h);
    // a plan made here (a factor, AMG's levels in the runtime's memory) is kept with A as a handle of
    // its own, for A's next solves with this kind (kept-setup.ts), its copy on each path made once;
    // Chebyshev's is small (D⁻¹ and two bounds) and costly to make: kept per matrix as a plan
    let kept: KeptSetup<PreconditionerHandle> | undefined;
    let reused = false;
    const slots = !handle && kind !== 'chebyshev' && reuse ? keptSetups(h) : null;
    if (slots) {
      kept = slots.preconditioner?.key === kind ? slots.preconditioner : undefined;
      reused = kept !== undefined;
      kept ??= keep(slots, 'preconditioner', kind, rt.keptPreconditioner(h, setup().planPreconditioner(csr, structure, { kind }, rt.sparseKernels)));
      release = kept.use();
    }
    const made = handle ?? kept?.value;
    const plan =
      made?.plan ??
      (kind !== 'chebyshev'
        ? setup().planPreconditioner(csr, structure, { kind }, rt.sparseKernels)
        : p.cost.kind === 'gpu'
          ? (analysis.chebyshevGpu ??= await chebyshevPlan(rt, p, base, h, csr, structure))
          : (analysis.chebyshev ??= setup().planPreconditioner(csr, structure, { kind }, rt.sparseKernels)));
    // a plan made for this solve alone (reuse: false) goes with it
    const own = made || kind === 'chebyshev' ? undefined : plan;
    let P: PreconditionerOperator<PathVector>;
    try {
      // the AMG cycle is a chunk of its own (amg/cycle-chunk.ts): here, in a solve, before it is built
      if (plan.amg) await setup().amgCycleChunk.load();
      P = made ? made.on(p.id, base) : plan.instantiate(base);
    } catch (e) {
      own?.dispose?.();
      throw e;
    }
    // a Chebyshev polynomial runs resident with CG where the path has that (WebGPU: no host round trip per iteration)
    const poly = P.chebyshev;
    const resident = poly && base.cgChebyshevResident ? (b: PathVector, o: Parameters<NonNullable<SolverOps<PathVector>['cgResident']>>[1]) => base.cgChebyshevResident!(b, o, poly) : undefined;
    const ops: SolverOps<PathVector> = { ...base, precondition: (r, z) => P.apply(r, z), cgResident: resident, bicgstabResident: undefined, checkEvery: resident ? base.checkEvery : undefined };
    // A as DIA on p: a resident Chebyshev-CG's steps are then fused into its SpMV
    const fused = rt.formatFor(h, p) === 'dia';
    const done = release;
    release = undefined;
    return {
      ops,
      description: `${plan.description}${reused ? ` (${KEPT_WORDS})` : ''} [${resident && cand.method === 'cg' ? `CG and the polynomial resident on the device${fused ? ", each step fused into A's SpMV" : ''}${base.chebyshevStepsInF32?.(poly!, tol) ? ', the steps in f32' : ''}` : P.method}]`,
      reused,
      dispose: () => {
        if (!made) P.dispose();
        own?.dispose?.();
        done?.();
        base.dispose();
      },
    };
  } catch (e) {
    release?.();
    base.dispose();
    throw e;
  }
}

/** disposed uploads' buffers kept for reuse (keepSpares): two CSR copies and their DIA copies */
const SPARES_KEPT = 8;
/** the smallest buffer kept for reuse: below it a fresh array's page faults cost little */
const SPARE_MIN_BYTES = 1 << 20;

/**
 * Into `spares` (a runtime's), the buffers of a disposed 'auto' upload that only rt.solve read
 * (MatrixHandle.recyclable): its CSR copy's arrays and its DIA copy's values, each the whole of its
 * buffer and at least SPARE_MIN_BYTES, for the next uploads' copies and conversions of the same sizes
 * (takeSpare). Fresh arrays of that size are pages the system maps and zeroes on first touch:
 * poisson3D(64)'s upload and solve took ≈ 9 000 minor faults a call (≈ 20–30 ms on the 2-core
 * machine) until the collector had freed enough of the earlier calls' arrays for the allocator to
 * reuse, four calls or more (docs/solvers.md, twelfth session). Held weakly: a collection in between
 * frees them as before.
 */
export function keepSpares(spares: WeakRef<ArrayBufferLike>[], h: MatrixHandle): void {
  const made = h.madeHost;
  const arrays: ArrayBufferView[] = [];
  if (h.source.format === 'csr') arrays.push(h.source.rowPtr, h.source.colIdx, h.source.values);
  if (made?.format === 'dia') arrays.push(made.data);
  for (const a of arrays) {
    const b = a.buffer;
    // (once: a buffer listed twice could be handed to two live arrays)
    const listed = spares.some((s) => s.deref() === b);
    if (!listed && a.byteOffset === 0 && a.byteLength === b.byteLength && b.byteLength >= SPARE_MIN_BYTES) spares.push(new WeakRef(b));
  }
  spares.splice(0, Math.max(0, spares.length - SPARES_KEPT));
}

/** A buffer of exactly `bytes` out of `spares` (keepSpares), a SharedArrayBuffer where `shared` (an upload's private CSR: formats/owned.ts), taken out of the list, else null. */
export function takeSpare(spares: WeakRef<ArrayBufferLike>[], bytes: number, shared: boolean): ArrayBufferLike | null {
  for (let k = 0; k < spares.length; k++) {
    const b = spares[k].deref();
    if (b?.byteLength === bytes && (typeof SharedArrayBuffer === 'function' && b instanceof SharedArrayBuffer) === shared) {
      spares.splice(k, 1);
      return b;
    }
  }
  return null;
}
