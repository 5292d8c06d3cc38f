/**
 * Conjugate Gradient resident on the GPU (issue 10, fused in issue 20): the same recurrence as
 * src/solvers/cg.ts, but α and β are computed on the GPU (wgsl/cg_scalars.wgsl, double-single) and
 * the vector updates read them there, so an iteration waits for nothing. An iteration is five
 * dispatches: q = A·p fused with the partial sums of pᴴq (the row kernels' dot_main,
 * wgsl/spmv_dot.wgsl), α (one workgroup that also finishes the sum, so no separate reduction pass),
 * x += α·p and r −= α·q with the partials of ‖r‖² (and, for Jacobi, z = D⁻¹·r with those of rᴴz:
 * cg_update.wgsl's jacobi_main), β the same way, and p = z + β·p. The host reads the state back once
 * every `checkEvery` iterations: the iteration count, the stop flag and ‖r‖² of every iteration of the
 * block (a ring), so `iterations`, `history` and `onIteration` are exact (onIteration runs when its
 * block is read).
 *
 * Stopping. The GPU itself tests each iteration (‖r‖² ≤ (tol·‖b‖)², NaN, pᴴAp ≤ 0) and sets a flag;
 * every later update in the block is then a no-op, so x is exactly the iterate at which the solve
 * stopped — no extra iterations leak into the result, only their (wasted) SpMV runs. The test
 * compares in double-single, so at a residual within ~1e-14 (relative) of the threshold the decision
 * can differ from the host's f64 test; the GPU's decision is the one reported.
 *
 * Pipelining. While the host waits for block i's state, block i+1 is already submitted (speculatively:
 * it does nothing if block i stopped), so the queue never drains. The first block is a quarter of
 * checkEvery: the GPU, idle until then, starts once a few iterations are recorded, not 16 (a first
 * block of 16 Chebyshev iterations, 176 dispatches, came back ≈ 2 ms later than the blocks after it in
 * a 2 M-row solve on an H100: bench/device/results-2026-11-27-eighth/gpufix/call1). maxIter is exact (the blocks are cut
 * to it); an abort is seen between blocks (at most 2·checkEvery − 1 iterations later).
 */
import type { DType } from '../dtype.js';
import { DEFAULT_TOL, maxIterOf, type ChebyshevPolynomial, type SolveOptions, type SolveResult, type StopReason } from '../solvers/ops.js';
import type { WebGpuMatrix, WebGpuVector } from './resident.js';
import { joinDS, splitDS } from './encoding.js';
import { chebyshevSteps } from '../solvers/precond/chebyshev.js';

/** What the resident solvers need from the backend (WebGpuBackend.cgRecorder): it records, only read() waits. */
export interface CgRecorder {
  readonly backend: {
    /** a zero work vector from the backend's pool */
    scratchVector(dt: DType, n: number): WebGpuVector;
    /** gives a work vector back to the pool */
    recycle(v: WebGpuVector): void;
    copy(x: WebGpuVector, y: WebGpuVector): void;
    spmv(A: WebGpuMatrix, x: WebGpuVector, y: WebGpuVector, o?: { alpha?: number; beta?: number }): void;
    nrm2(x: WebGpuVector): Promise<number>;
  };
  state(data: Float32Array): GPUBuffer;
  /** a scratch buffer of `count` partial sums (vec4), released with release() */
  partials(count: number): GPUBuffer;
  /** the partials spmvDot(A, …) or update(…) (both sums) write at most */
  partialsFor(A: WebGpuMatrix): number;
  /** q ← A·p and the partial sums of pᴴq into `partials`; returns how many */
  spmvDot(A: WebGpuMatrix, p: WebGpuVector, q: WebGpuVector, partials: GPUBuffer): number;
  /** S[slot] ← xᴴy */
  dot(x: WebGpuVector, y: WebGpuVector, S: GPUBuffer, slot: number): void;
  /** one phase of BiCGSTAB's scalar kernel (wgsl/bicgstab_scalars.wgsl) */
  scalars(kernel: 'bicgstab_scalars', dt: DType, S: GPUBuffer, phase: number, ring: number, jacobi: boolean): void;
  /**
   * one phase of CG's scalar kernel (wgsl/cg_scalars.wgsl), summing `count` partials first (2·count with
   * Jacobi in phase 1; with `second` > 0, the second sum is the `second` partials from `second` on)
   */
  cgScalars(dt: DType, S: GPUBuffer, partials: GPUBuffer, count: number, phase: number, ring: number, jacobi: boolean, second?: number): void;
  /**
   * x += α·p, r −= α·q (α in S[4], −α in S[5]) and the partials of ‖r‖²; with `jacobi`, also
   * z ← D⁻¹·r and the partials of rᴴz after them. Returns how many partials (of each sum).
   */
  update(p: WebGpuVector, q: WebGpuVector, x: WebGpuVector, r: WebGpuVector, S: GPUBuffer, partials: GPUBuffer, jacobi: { D: WebGpuMatrix; z: WebGpuVector } | null): number;
  /**
   * One step of a Chebyshev polynomial preconditioner (wgsl/chebyshev.wgsl): the first (d = c2·D⁻¹·r,
   * z = d, res = r) or a later one (d = c1·d + c2·D⁻¹·res, z += d); with `last`, the partials of rᴴz
   * after update()'s partials of ‖r‖² (cgScalars' phase 1 with jacobi sums both). dinv: D⁻¹ per row.
   */
  chebyshev(first: boolean, last: boolean, r: WebGpuVector, dinv: GPUBuffer, res: WebGpuVector, d: WebGpuVector, z: WebGpuVector, c: readonly [Float32Array, Float32Array], partials: GPUBuffer): void;
  /** z ← c2·D⁻¹·r (chebyshev.wgsl's first_main; dinv null: D⁻¹ folded into c2), the start of the fused steps; `last` as chebyshev's */
  chebyshevFirst(r: WebGpuVector, dinv: GPUBuffer | null, z: WebGpuVector, c2: Float32Array, last: boolean, partials: GPUBuffer): void;
  /**
   * One Chebyshev step fused with its SpMV (wgsl/spmv_cheb.wgsl), where A's kernel has it (fusedChebyshev):
   * zo ← zk + c1·(zk − zo) + c2·D⁻¹·(r − A·zk), zo not read on the first. With `last`, the partials of
   * rᴴz: G of them from G on (G ≥ `after`, the partials before them); returns G (0 without `last`).
   */
  chebyshevStep(A: WebGpuMatrix, zk: WebGpuVector, zo: WebGpuVector, r: WebGpuVector, dinv: GPUBuffer | null, c: readonly [Float32Array, Float32Array], first: boolean, last: boolean, S: GPUBuffer, partials: GPUBuffer, after: number): number;
  /** whether chebyshevStep runs on A */
  fusedChebyshev(A: WebGpuMatrix): boolean;
  /** whether the fused steps can run with the polynomial's vectors in f32 on A (chebyshevFirst32, chebyshevStep32): an f64 DIA of values all exactly f32 (so fusedChebyshev too) */
  fusedChebyshev32(A: WebGpuMatrix): boolean;
  /** z ← c2·D⁻¹·r into an f32 z (wgsl/cheb32.wgsl first_main; dinv null: D⁻¹ folded into c2) */
  chebyshevFirst32(A: WebGpuMatrix, r: WebGpuVector, dinv: GPUBuffer | null, z: WebGpuVector, c2: Float32Array): void;
  /**
   * chebyshevStep with zk and zo in f32 (wgsl/cheb32.wgsl); with `zds` (the last step) the result goes
   * there in double-single, with the partials of rᴴz as chebyshevStep's `last`; returns their count (0 without zds).
   */
  chebyshevStep32(A: WebGpuMatrix, zk: WebGpuVector, zo: WebGpuVector, r: WebGpuVector, dinv: GPUBuffer | null, c: readonly [Float32Array, Float32Array], first: boolean, zds: WebGpuVector | null, S: GPUBuffer, partials: GPUBuffer, after: number): number;
  /** y ← S[slot]·x + y (axpy) or y ← S[slot]·y + x (aypx), skipped once stopped (axpy: except flag 4 when whileConverging) */
  blas1(name: 'axpy' | 'aypx', x: WebGpuVector, y: WebGpuVector, S: GPUBuffer, slot: number, whileConverging?: boolean): void;
  read(S: GPUBuffer, bytes: number): Promise<Float32Array>;
  /** gives S (from state() or partials()) back: kept for a later solve, or destroyed once recorded work no longer needs it */
  release(S: GPUBuffer): void;
  flush(): void;
}

/**
 * D⁻¹ of a Chebyshev preconditioner on the GPU: a value per row, or one value (a constant diagonal's),
 * which the fused steps take folded into their coefficients (no buffer, no read).
 */
export type ChebyshevDinv = { readonly buffer: GPUBuffer } | { readonly value: number };

/** Slots shared by both solvers' state (wgsl/scalars.wgsl). */
export const FLAG = 7;
const COUNT = 8;
const REASONS: Record<number, StopReason> = { 1: 'converged', 2: 'nan', 3: 'breakdown' };

/** The bookkeeping of a resident solve: what the host has seen so far. */
export interface Progress {
  iterations: number;
  rnorm: number;
  history: number[];
}

/**
 * Runs blocks of `checkEvery` iterations (record(m) records m of them) until the GPU's flag stops the
 * solve, maxIter is reached or the signal fires; reads the state after each block while the next one
 * is already queued, and replays the squared residuals of its ring (from slot `ring`) into the
 * history and onIteration.
 */
export async function runBlocks(
  G: CgRecorder,
  S: GPUBuffer,
  ring: number,
  record: (m: number) => void,
  at: Progress,
  o: { scale: number; tol: number; maxIter: number; checkEvery: number; onIteration?: SolveOptions<WebGpuVector>['onIteration']; signal?: AbortSignal },
): Promise<StopReason> {
  const k = o.checkEvery;
  const bytes = (ring + k) * 16;
  const block = (m: number): Promise<Float32Array> => {
    record(m);
    return G.read(S, bytes);
  };
  let recorded = o.signal?.aborted ? 0 : Math.min(Math.ceil(k / 4), o.maxIter);
  let pending = recorded > 0 ? block(recorded) : null;
  let pendingSize = recorded;
  while (pending) {
    // the next block runs while this one's state comes back; where the residual, falling at the rate
    // of the last k iterations seen, meets tol within about this one, the next is most likely wasted
    // (its products run although the GPU has stopped): a short one then. CG's rate keeps rising
    // (poisson2D(30): 16.9 iterations foreseen where 15 came), so a quarter more is taken as within;
    // a short block foreseen wrongly costs a read-back (≈ 0.5 ms), a full one wasted 16 iterations
    const soon = iterationsLeft(at.history, o.tol, k) <= 1.25 * pendingSize;
    const m = o.signal?.aborted ? 0 : Math.min(soon ? Math.ceil(k / 8) : k, o.maxIter - recorded);
    const next = m > 0 ? block(m) : null;
    next?.catch(() => undefined); // awaited below; if this block's read fails first, not an unhandled rejection
    recorded += m;
    G.flush();
    const f = await pending;
    const count = new Uint32Array(f.buffer, COUNT * 16, 1)[0];
    for (; at.iterations < count; at.iterations++) {
      const i = (ring + (at.iterations % k)) * 4;
      at.rnorm = Math.sqrt(Math.max(0, joinDS(f[i], f[i + 1])));
      at.history.push(at.rnorm / o.scale);
      await o.onIteration?.(at.iterations + 1, at.rnorm / o.scale);
    }
    const why = REASONS[f[FLAG * 4]];
    if (why) {
      await next?.catch(() => undefined);
      return why;
    }
    // on an abort the speculative block (if any) still runs and is reported honestly
    pending = next;
    pendingSize = m;
  }
  return o.signal?.aborted && at.iterations < o.maxIter ? 'aborted' : 'maxIter';
}

/**
 * The iterations `history` (relative residuals) needs to reach tol falling at the rate of its last k
 * iterations; Infinity when it did not fall or is shorter than k + 1.
 */
export function iterationsLeft(history: readonly number[], tol: number, k: number): number {
  const n = history.length;
  if (n <= k || !(history[n - 1] > 0)) return Infinity;
  const rate = Math.log(history[n - 1] / history[n - 1 - k]) / k;
  return rate < 0 ? Math.log(tol / history[n - 1]) / rate : Infinity;
}

/** The initial state: the given complex double-single slots, the threshold (tol·scale)² beside the flag. */
export function initialState(ring: number, checkEvery: number, threshold: number, slots: Record<number, [number, number]>): Float32Array {
  const init = new Float32Array((ring + checkEvery) * 4);
  for (const [slot, [re, im]] of Object.entries(slots)) {
    splitDS(re, init, Number(slot) * 4);
    splitDS(im, init, Number(slot) * 4 + 2);
  }
  splitDS(threshold, init, FLAG * 4 + 1);
  return init;
}

/** A solver resident on the GPU: A, the Jacobi D⁻¹ uploaded as a matrix (or null: no preconditioner), b. */
export type ResidentSolver = (
  G: CgRecorder,
  A: WebGpuMatrix,
  D: WebGpuMatrix | null,
  b: WebGpuVector,
  options: SolveOptions<WebGpuVector> & { checkEvery: number },
) => Promise<SolveResult<WebGpuVector>>;

/** CG state slots (wgsl/cg_scalars.wgsl). */
const RHO = 0;
const BETA = 6;
const RING = 9;

export const residentCg: ResidentSolver = (G, A, D, b, options) => {
  const B = G.backend;
  const dt = b.dtype;
  const k = options.checkEvery;
  return residentSolve(G, A, b, options, 3, async ({ x, r, work: [z, p, q], rnorm, threshold, state: newState, scratch, blocks }) => {
    const zr = D ? z : r;
    if (D) B.spmv(D, r, z);
    B.copy(zr, p);
    // with D, ρ₀ = rᴴz goes into the state on the GPU (as residentChebyshevCg's)
    const state = newState(initialState(RING, k, threshold, D ? {} : { [RHO]: [rnorm * rnorm, 0] }));
    if (D) G.dot(r, z, state, RHO);
    // one scratch buffer serves both sums: each is summed (cgScalars) before the next pass writes it
    const partials = scratch(G.partialsFor(A));
    const jacobi = D ? { D, z } : null;
    return blocks(state, RING, () => {
      const nq = G.spmvDot(A, p, q, partials);
      G.cgScalars(dt, state, partials, nq, 0, k, D !== null);
      const nr = G.update(p, q, x, r, state, partials, jacobi);
      G.cgScalars(dt, state, partials, nr, 1, k, D !== null);
      G.blas1('aypx', zr, p, state, BETA);
    });
  });
};

/**
 * CG preconditioned by the Chebyshev polynomial z = p(D⁻¹A)·D⁻¹·r of `poly` (the host's
 * chebyshevOperator, src/solvers/precond: the same steps and coefficients), resident on the GPU like
 * residentCg: an iteration is residentCg's with Jacobi's z = D⁻¹·r replaced by the polynomial. Where
 * A's kernel has the fused step (a DIA matrix), z₁ = c2·D⁻¹·r and then degree − 1 passes that each run
 * an SpMV and the three-term Chebyshev update together (wgsl/spmv_cheb.wgsl), over two vectors in
 * turn; else degree − 1 SpMVs and degree element-wise steps (wgsl/chebyshev.wgsl). The last step also
 * sums the partials of rᴴz for the scalar kernel. No host round trip per iteration: the coefficients
 * are fixed at setup. dinv: per row unless A's kernel has the fused step. Where A's values are all
 * exactly f32 (its DIA stored as bytes or f32), the fused steps run in f32 over two f32 vectors
 * (wgsl/cheb32.wgsl) and only the last writes z in double-single: the polynomial only steers CG's
 * directions, while CG's own product, dots and updates stay double-single (poisson3D(128) on an H200:
 * docs/solvers.md).
 */
export function residentChebyshevCg(poly: ChebyshevPolynomial, encode: (c: number) => Float32Array) {
  return (G: CgRecorder, A: WebGpuMatrix, dinv: ChebyshevDinv, b: WebGpuVector, options: SolveOptions<WebGpuVector> & { checkEvery: number }): Promise<SolveResult<WebGpuVector>> => {
    const fused = G.fusedChebyshev(A);
    const buffer = 'buffer' in dinv ? dinv.buffer : null;
    if (!fused && !buffer) throw new TypeError('residentChebyshevCg: the element-wise steps need D⁻¹ per row');
    // a constant D⁻¹ (fused steps only) folded into every step's c2
    const scale = 'value' in dinv ? dinv.value : 1;
    const steps = chebyshevSteps(poly).map(([c1, c2]) => [encode(c1), encode(c2 * scale)] as const);
    const last = steps.length - 1;
    const B = G.backend;
    const dt = b.dtype;
    const k = options.checkEvery;
    const single = chebyshevStepsInF32(G, A, steps.length, options.tol ?? DEFAULT_TOL);
    // in f32 the fused steps' second vector (res) is one of the f32 pair
    return residentSolve(G, A, b, options, single ? 3 : fused ? 4 : 5, async ({ x, r, work: [z, p, q, res, d], threshold, state: newState, scratch, vectors, blocks }) => {
      // fused: the last step's partials of rᴴz go after as many others (runChebyshevStep), ≤ partialsFor
      const partials = scratch((fused ? 2 : 1) * G.partialsFor(A));
      // fused: z_j in [z, res][(j + 1) % 2] (res is the second vector, z₁ in z), so z_degree is out;
      // in f32, z_j in [a, b][(j + 1) % 2] and z_degree in z
      const out = fused && !single && steps.length % 2 === 0 ? res : z;
      const [za, zb] = single ? vectors('f32', 2) : [];
      // the polynomial after update() wrote `before` partials of ‖r‖²; returns where its partials of rᴴz start (0: right after those)
      const apply = (S: GPUBuffer, before: number): number => {
        if (single) {
          G.chebyshevFirst32(A, r, buffer, za, steps[0][1]);
          let second = 0;
          for (let s = 1; s <= last; s++) second = G.chebyshevStep32(A, s % 2 ? za : zb, s % 2 ? zb : za, r, buffer, steps[s], s === 1, s === last ? z : null, S, partials, before);
          return second;
        }
        if (!fused) {
          steps.forEach((c, s) => {
            if (s > 0) B.spmv(A, d, res, { alpha: -1, beta: 1 });
            G.chebyshev(s === 0, s === last, r, buffer!, res, d, z, c, partials);
          });
          return 0;
        }
        G.chebyshevFirst(r, buffer, z, steps[0][1], last === 0, partials);
        let second = 0;
        for (let s = 1; s <= last; s++) second = G.chebyshevStep(A, s % 2 ? z : res, s % 2 ? res : z, r, buffer, steps[s], s === 1, s === last, S, partials, before);
        return second;
      };
      // ρ₀ = rᴴz₀ goes into the state on the GPU, not through the host: the first block is recorded
      // behind it (one read-back ≈ 0.8 ms fewer on an H100); cg_scalars' first phase stops on a ρ that
      // is NaN ('nan') or not positive ('breakdown'), as stopOnRho before the first iteration
      const state = newState(initialState(RING, k, threshold, {}));
      apply(state, 0);
      B.copy(out, p);
      G.dot(r, out, state, RHO);
      return blocks(state, RING, () => {
        const nq = G.spmvDot(A, p, q, partials);
        G.cgScalars(dt, state, partials, nq, 0, k, true);
        const nr = G.update(p, q, x, r, state, partials, null);
        const second = apply(state, nr);
        G.cgScalars(dt, state, partials, nr, 1, k, true, second);
        G.blas1('aypx', out, p, state, BETA);
      });
    });
  };
}

/**
 * The tightest tolerance at which the resident Chebyshev-CG takes its steps in f32. Below it an f32
 * polynomial costs CG iterations — poisson2D(96) on SwiftShader, degree 8: 34 / 37 iterations either way
 * at 1e-8 / 1e-9, but 45 against 40 at 1e-10 and 49 against 43 at 1e-11 (the steps' r − A·z loses f32
 * digits as z nears A⁻¹r, and the directions drift from conjugacy) — so there they run in double-single.
 * rt.solve's default, 1e-8, takes the f32 steps (poisson3D(128): 36 iterations either way).
 */
export const F32_STEPS_MIN_TOL = 1e-9;

/** Whether residentChebyshevCg runs a polynomial of `degree` on A with its steps in f32 (wgsl/cheb32.wgsl: CG itself stays double-single): fused steps over values all exactly f32, degree 2 or more, tol at least F32_STEPS_MIN_TOL. */
export function chebyshevStepsInF32(G: Pick<CgRecorder, 'fusedChebyshev32'>, A: WebGpuMatrix, degree: number, tol: number): boolean {
  return degree > 1 && tol >= F32_STEPS_MIN_TOL && G.fusedChebyshev32(A);
}

/** What a resident solver's iterations get from residentSolve(). */
export interface SolveFrame {
  /** the solution, updated in place */
  readonly x: WebGpuVector;
  /** the residual b − A·x */
  readonly r: WebGpuVector;
  /** the solver's scratch vectors */
  readonly work: WebGpuVector[];
  /** ‖r‖ at the start */
  readonly rnorm: number;
  /** (tol·scale)², the GPU's convergence test on ‖r‖² */
  readonly threshold: number;
  /** a state buffer from `init`, released when the solve ends */
  state(init: Float32Array): GPUBuffer;
  /** a buffer of `count` partial sums, released when the solve ends */
  scratch(count: number): GPUBuffer;
  /** `count` more scratch vectors of n elements of `dtype` (the solve's own dtype or another), given back when the solve ends */
  vectors(dtype: DType, count: number): WebGpuVector[];
  /** runBlocks() with `iteration` recorded m times per block */
  blocks(state: GPUBuffer, ring: number, iteration: () => void): Promise<StopReason>;
}

/**
 * The frame of a resident solve, shared by CG and BiCGSTAB: takes x and `nWork` scratch vectors from the pool,
 * sets r = b − A·x0 and reads ‖b‖, ‖r‖ as src/solvers/cg.ts does, calls `iterate` unless r is already
 * small enough, and gives back the scratch vectors and state buffers however it ends (x too on an error).
 */
export async function residentSolve(
  G: CgRecorder,
  A: WebGpuMatrix,
  b: WebGpuVector,
  options: SolveOptions<WebGpuVector> & { checkEvery: number },
  nWork: number,
  iterate: (f: SolveFrame) => Promise<StopReason>,
): Promise<SolveResult<WebGpuVector>> {
  const B = G.backend;
  const { tol = DEFAULT_TOL, checkEvery: k } = options;
  const n = b.length;
  const maxIter = maxIterOf(options.maxIter, n);
  // from the backend's pool: repeated solves of one size create no buffers (x goes back with SolverOps.release)
  const [x, r, ...work] = Array.from({ length: nWork + 2 }, () => B.scratchVector(b.dtype, n));
  const extra: WebGpuVector[] = [];
  const states: GPUBuffer[] = [];
  try {
    B.copy(b, r);
    if (options.x0) {
      B.copy(options.x0, x);
      B.spmv(A, x, r, { alpha: -1, beta: 1 });
    }
    const bnorm = options.rhsNorm ?? (await B.nrm2(b));
    const scale = bnorm > 0 ? bnorm : 1;
    // without x0, r = b: one read-back fewer before the first block
    const rnorm = options.x0 ? await B.nrm2(r) : bnorm;
    const at: Progress = { iterations: 0, rnorm, history: [rnorm / scale] };
    let reason: StopReason = 'converged';
    if (!(rnorm / scale <= tol)) {
      reason = await iterate({
        x,
        r,
        work,
        rnorm,
        threshold: (tol * scale) ** 2,
        state: (init) => {
          const S = G.state(init);
          states.push(S);
          return S;
        },
        scratch: (count) => {
          const S = G.partials(count);
          states.push(S);
          return S;
        },
        vectors: (dtype, count) => {
          const vs = Array.from({ length: count }, () => B.scratchVector(dtype, n));
          extra.push(...vs);
          return vs;
        },
        blocks: (state, ring, iteration) =>
          runBlocks(G, state, ring, (m) => {
            for (let j = 0; j < m; j++) iteration();
          }, at, { ...options, scale, tol, maxIter, checkEvery: k }),
      });
    }
    return result(x, at, scale, reason);
  } catch (e) {
    B.recycle(x);
    throw e;
  } finally {
    for (const v of [r, ...work, ...extra]) B.recycle(v);
    for (const S of states) G.release(S);
  }
}

function result(x: WebGpuVector, at: Progress, scale: number, reason: StopReason): SolveResult<WebGpuVector> {
  return { x, iterations: at.iterations, residualNorm: at.rnorm, relativeResidual: at.rnorm / scale, converged: reason === 'converged', reason, history: at.history };
}
