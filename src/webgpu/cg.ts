/**
 * Conjugate Gradient resident on the GPU (issue 10): the same recurrence as src/solvers/cg.ts, but α and
 * β are computed on the GPU (wgsl/cg_scalars.wgsl, double-single) from reductions that land in a small
 * state buffer, and the vector updates read them there, so an iteration records ~8 dispatches and
 * waits for nothing. The host reads the state back once every `checkEvery` iterations: the iteration
 * count, the stop flag and ‖r‖² of every iteration of the block (a ring), so `iterations`, `history`
 * and `onIteration` are exact (onIteration runs when its block is read).
 *
 * Stopping. The GPU itself tests each iteration (‖r‖² ≤ (tol·‖b‖)², NaN, pᴴAp ≤ 0) and sets a flag;
 * every later update in the block is then a no-op, so x is exactly the iterate at which the solve
 * stopped — no extra iterations leak into the result, only their (wasted) SpMV and dot run. The test
 * compares in double-single, so at a residual within ~1e-14 (relative) of the threshold the decision
 * can differ from the host's f64 test; the GPU's decision is the one reported.
 *
 * Pipelining. While the host waits for block i's state, block i+1 is already submitted (speculatively:
 * it does nothing if block i stopped), so the queue never drains. maxIter is exact (the blocks are cut
 * to it); an abort is seen between blocks (at most 2·checkEvery − 1 iterations later).
 */
import type { DType } from '../dtype.js';
import type { SolveOptions, SolveResult, StopReason } from '../solvers/ops.js';
import type { WebGpuMatrix, WebGpuVector } from './resident.js';
import { splitDS } from './encoding.js';

/** What the loop needs from the backend (WebGpuBackend.cgRecorder): it records, only read() waits. */
export interface CgRecorder {
  readonly backend: {
    vector(dt: DType, n: number): WebGpuVector;
    copy(x: WebGpuVector, y: WebGpuVector): void;
    spmv(A: WebGpuMatrix, x: WebGpuVector, y: WebGpuVector, o?: { alpha?: number; beta?: number }): void;
    nrm2(x: WebGpuVector): Promise<number>;
    dot(x: WebGpuVector, y: WebGpuVector, o: { conj?: boolean }): Promise<number | [number, number]>;
  };
  state(data: Float32Array): GPUBuffer;
  /** S[slot] ← xᴴy */
  dot(x: WebGpuVector, y: WebGpuVector, S: GPUBuffer, slot: number): void;
  /** cg_scalars phase 0 (α) or 1 (count, test, β) */
  scalars(dt: DType, S: GPUBuffer, phase: 0 | 1, ring: number, jacobi: boolean): void;
  /** x += α·p, r −= α·q, S[2] ← ‖r‖² */
  update(p: WebGpuVector, q: WebGpuVector, x: WebGpuVector, r: WebGpuVector, S: GPUBuffer): void;
  /** p ← z + β·p */
  direction(z: WebGpuVector, p: WebGpuVector, S: GPUBuffer): void;
  read(S: GPUBuffer, bytes: number): Promise<Float32Array>;
  /** destroys S once recorded work no longer needs it */
  release(S: GPUBuffer): void;
  flush(): void;
}

/** Slots of the state buffer (vec4 each), as wgsl/cg_scalars.wgsl reads them. */
const RHO = 0;
const PQ = 1;
const RZ = 3;
const FLAG = 7;
const COUNT = 8;
const RING = 9;
const REASONS: Record<number, StopReason> = { 1: 'converged', 2: 'nan', 3: 'breakdown' };

export async function residentCg(
  G: CgRecorder,
  A: WebGpuMatrix,
  D: WebGpuMatrix | null,
  b: WebGpuVector,
  options: SolveOptions<WebGpuVector> & { checkEvery: number },
): Promise<SolveResult<WebGpuVector>> {
  const B = G.backend;
  const { tol = 1e-8, onIteration, signal, checkEvery: k } = options;
  const n = b.length;
  const dt = b.dtype;
  const maxIter = options.maxIter ?? Math.max(100, 10 * n);
  const [x, r, z, p, q] = Array.from({ length: 5 }, () => B.vector(dt, n));
  let S: GPUBuffer | null = null;
  try {
    // r = b − A·x0; the set-up reads as src/solvers/cg.ts does
    B.copy(b, r);
    if (options.x0) {
      B.copy(options.x0, x);
      B.spmv(A, x, r, { alpha: -1, beta: 1 });
    }
    const bnorm = await B.nrm2(b);
    const scale = bnorm > 0 ? bnorm : 1;
    let rnorm = await B.nrm2(r);
    const history = [rnorm / scale];
    let it = 0;
    if (rnorm / scale <= tol) return done('converged');
    const zr = D ? z : r;
    if (D) B.spmv(D, r, z);
    B.copy(zr, p);
    const rho = D ? pair(await B.dot(r, z, { conj: true }))[0] : rnorm * rnorm;
    const init = new Float32Array((RING + k) * 4);
    splitDS(rho, init, RHO * 4);
    splitDS((tol * scale) ** 2, init, FLAG * 4 + 1);
    S = G.state(init);
    const state = S;
    const block = (m: number): Promise<Float32Array> => {
      for (let j = 0; j < m; j++) {
        B.spmv(A, p, q);
        G.dot(p, q, state, PQ);
        G.scalars(dt, state, 0, k, D !== null);
        G.update(p, q, x, r, state);
        if (D) {
          B.spmv(D, r, z);
          G.dot(r, z, state, RZ);
        }
        G.scalars(dt, state, 1, k, D !== null);
        G.direction(zr, p, state);
      }
      return G.read(state, (RING + k) * 16);
    };
    let recorded = signal?.aborted ? 0 : Math.min(k, maxIter);
    let pending = recorded > 0 ? block(recorded) : null;
    while (pending) {
      // the next block runs while this one's state comes back
      const m = signal?.aborted ? 0 : Math.min(k, maxIter - recorded);
      const next = m > 0 ? block(m) : null;
      recorded += m;
      G.flush();
      const f = await pending;
      const count = new Uint32Array(f.buffer, COUNT * 16, 1)[0];
      for (; it < count; it++) {
        const o = (RING + (it % k)) * 4;
        rnorm = Math.sqrt(Math.max(0, f[o] + f[o + 1]));
        history.push(rnorm / scale);
        await onIteration?.(it + 1, rnorm / scale);
      }
      const why = REASONS[f[FLAG * 4]];
      if (why) {
        await next?.catch(() => undefined);
        return done(why);
      }
      // on an abort the speculative block (if any) still runs and is reported honestly
      pending = next;
    }
    return done(signal?.aborted && it < maxIter ? 'aborted' : 'maxIter');

    function done(reason: StopReason): SolveResult<WebGpuVector> {
      return { x, iterations: it, residualNorm: rnorm, relativeResidual: rnorm / scale, converged: reason === 'converged', reason, history };
    }
  } catch (e) {
    x.dispose();
    throw e;
  } finally {
    for (const v of [r, z, p, q]) v.dispose();
    if (S) G.release(S);
  }
}

function pair(v: number | [number, number]): [number, number] {
  return typeof v === 'number' ? [v, 0] : v;
}
