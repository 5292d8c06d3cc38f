import { isComplex } from '../dtype.js';
import type { CpuBackend } from './backend.js';
import { CpuVector, type CpuMatrix } from './resident.js';
import { oneByOne, type SolverOps, type SolverStep } from '../solvers/ops.js';

/**
 * BLAS-1 on resident vectors, chunked over the pool like SpMV. Reductions combine the per-chunk
 * partial results in chunk order, so a result is deterministic for a given number of threads.
 */

/** y ← α·x + y */
export function axpy(B: CpuBackend, alpha: [number, number], x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`axpy_${x.dtype}`, () => [x.ptr, y.ptr, ...scalar(x, alpha)], x.length);
}

/** y ← α·y + x */
export function aypx(B: CpuBackend, alpha: [number, number], x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`aypx_${x.dtype}`, () => [x.ptr, y.ptr, ...scalar(x, alpha)], x.length);
}

/** x ← α·x (α = 0 writes zeros, so NaN in x does not survive) */
export function scal(B: CpuBackend, alpha: [number, number], x: CpuVector): Promise<number> {
  return B.runVector(`scal_${x.dtype}`, () => [x.ptr, ...scalar(x, alpha)], x.length);
}

/** y ← x */
export function copy(B: CpuBackend, x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`copy_${x.dtype}`, () => [x.ptr, y.ptr], x.length);
}

/** The chunks' (re, im) partials added in chunk order. */
export function sumPartials(parts: Float64Array): [number, number] {
  let re = 0;
  let im = 0;
  for (let c = 0; c < parts.length; c += 2) {
    re += parts[c];
    im += parts[c + 1];
  }
  return [re, im];
}

/** Σ x_i·y_i (conj: Σ conj(x_i)·y_i) as [re, im], accumulated in f64 */
export async function dot(B: CpuBackend, x: CpuVector, y: CpuVector, conj: boolean): Promise<[number, number]> {
  const args = (): number[] => (isComplex(x.dtype) ? [x.ptr, y.ptr, conj ? 1 : 0] : [x.ptr, y.ptr]);
  // real kernels write one f64 per chunk; the other slot keeps the scratch's zero
  return sumPartials(await B.runReduction(`dot_${x.dtype}`, args, x.length));
}

/** ‖x‖₂, safe from overflow and underflow: each chunk gives (scale, ssq) with Σ|x|² = scale²·ssq */
export async function nrm2(B: CpuBackend, x: CpuVector): Promise<number> {
  return normOfPartials(await B.runReduction(`nrm2_${x.dtype}`, () => [x.ptr], x.length));
}

/** ‖x‖₂ from the chunks' (scale, ssq) partials. */
function normOfPartials(parts: Float64Array): number {
  const chunks = parts.length / 2;
  let scale = 0;
  for (let c = 0; c < chunks; c++) scale = Math.max(scale, parts[2 * c]);
  if (scale === 0 || !Number.isFinite(scale)) return scale;
  let ssq = 0;
  for (let c = 0; c < chunks; c++) {
    const r = parts[2 * c] / scale;
    ssq += parts[2 * c + 1] * r * r;
  }
  return scale * Math.sqrt(ssq);
}

function scalar(v: CpuVector, a: [number, number]): number[] {
  return isComplex(v.dtype) ? [a[0], a[1]] : [a[0]];
}

type Partials = [number, number][];
/** The preconditioner of a CPU sequence: the Jacobi inverse diagonal, null for none, or the solver's own */
type SequencePreconditioner = CpuVector | null | ((r: CpuVector, z: CpuVector) => Promise<void>);

/**
 * SolverOps.sequenceNow on the CPU path: the steps at once on the calling thread where each would run
 * inline now (CpuBackend.inlineBatch: a small system, nothing in flight) — each step the kernel,
 * arguments and single chunk its own operation runs there, so the same bits — returning the results;
 * undefined, with nothing run, otherwise. `pre`: the Jacobi preconditioner's inverse diagonal, null for
 * none ('precondition' then copies), or the solver's own preconditioner (IC(0), ILU(0), …), which only
 * cpuSequence applies.
 */
export function cpuSequenceNow(B: CpuBackend, M: CpuMatrix, pre: SequencePreconditioner, steps: readonly SolverStep<CpuVector>[]): Partials | undefined {
  if (!fits(M, steps)) return undefined;
  if (typeof pre !== 'function') return inlineSteps(B, M, pre, steps);
  for (const s of steps) if (s[0] === 'precondition') return undefined;
  return inlineSteps(B, M, null, steps);
}

/**
 * SolverOps.sequence on the CPU path: cpuSequenceNow's run as a promise, and with the solver's own
 * preconditioner awaited between the inline runs of the steps around it. `o`: the solver's operations.
 */
export function cpuSequence(B: CpuBackend, M: CpuMatrix, pre: SequencePreconditioner, steps: readonly SolverStep<CpuVector>[], o: SolverOps<CpuVector>): Promise<Partials> | undefined {
  if (!fits(M, steps)) return undefined;
  if (typeof pre !== 'function') {
    try {
      const out = inlineSteps(B, M, pre, steps);
      return out && Promise.resolve(out);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return (async () => {
    const out: Partials = [];
    for (let i = 0; i < steps.length; ) {
      let j = i;
      while (j < steps.length && steps[j][0] !== 'precondition') j++;
      if (j > i) {
        const run = steps.slice(i, j);
        out.push(...(inlineSteps(B, M, null, run) ?? (await oneByOne(o, run))));
      }
      if (j < steps.length) await pre(steps[j][1] as CpuVector, steps[j][2] as CpuVector);
      i = j + 1;
    }
    return out;
  })();
}

/** A system not empty, vectors of its length only (one of a multigrid level's length may reach the pool), a product's apart. */
function fits(M: CpuMatrix, steps: readonly SolverStep<CpuVector>[]): boolean {
  const n = M.rows;
  if (M.cols !== n || n === 0) return false;
  for (const s of steps) {
    for (let i = 1; i < s.length; i++) if (s[i] instanceof CpuVector && (s[i] as CpuVector).length !== n) return false;
    if (s[0] === 'spmv' && s[1] === s[2]) return false;
  }
  return true;
}

/** The steps in one inline batch (CpuBackend.inlineBatch), undefined where they cannot run inline now. */
function inlineSteps(B: CpuBackend, M: CpuMatrix, dinv: CpuVector | null, steps: readonly SolverStep<CpuVector>[]): Partials | undefined {
  const n = M.rows;
  const cplx = isComplex(M.dtype);
  const f = blas1Kernels(B, M.dtype);
  let product = false;
  for (const s of steps) if (s[0] === 'spmv') product = true;
  // the kernels called with their arguments written out, as runVector / runReduction would pass them
  // (an argument array per step showed as garbage collection)
  return B.inlineBatch(n, product ? M : null, () => {
    const out: Partials = [];
    for (const s of steps) {
      switch (s[0]) {
        case 'spmv':
          B.spmvInline(M, s[1], s[2], { alpha: [s[3], 0], beta: [s[4], 0], op: 'N' });
          break;
        case 'axpy':
        case 'aypx': {
          const fn = s[0] === 'axpy' ? f.axpy : f.aypx;
          if (cplx) fn(s[2].ptr, s[3].ptr, s[1][0], s[1][1], 0, n);
          else fn(s[2].ptr, s[3].ptr, s[1][0], 0, n);
          break;
        }
        case 'scal':
          if (cplx) f.scal(s[2].ptr, s[1][0], s[1][1], 0, n);
          else f.scal(s[2].ptr, s[1][0], 0, n);
          break;
        case 'copy':
          f.copy(s[1].ptr, s[2].ptr, 0, n);
          break;
        case 'precondition':
          if (dinv) f.xmy(dinv.ptr, s[1].ptr, s[2].ptr, 0, n);
          else f.copy(s[1].ptr, s[2].ptr, 0, n);
          break;
        case 'dot': {
          const parts = B.partialsInline();
          // complex: conjugated, as ops.dot asks
          if (cplx) f.dot(s[1].ptr, s[2].ptr, 1, parts.byteOffset, 0, n);
          else f.dot(s[1].ptr, s[2].ptr, parts.byteOffset, 0, n);
          out.push(sumPartials(parts));
          break;
        }
        case 'nrm2': {
          const parts = B.partialsInline();
          f.nrm2(s[1].ptr, parts.byteOffset, 0, n);
          out.push([normOfPartials(parts), 0]);
          break;
        }
      }
    }
    return out;
  });
}

type KernelFn = (...args: number[]) => number;
type Blas1Kernels = Record<'axpy' | 'aypx' | 'scal' | 'copy' | 'xmy' | 'dot' | 'nrm2', KernelFn>;
/** The BLAS-1 kernels of a dtype, per backend, looked up once (a name built per call costs a string and a lookup). */
const kernelTables = new WeakMap<CpuBackend, Map<string, Blas1Kernels>>();
function blas1Kernels(B: CpuBackend, dt: string): Blas1Kernels {
  let byType = kernelTables.get(B);
  if (!byType) kernelTables.set(B, (byType = new Map()));
  let k = byType.get(dt);
  if (!k) {
    const of = (op: string) => B.kernel(`${op}_${dt}`);
    byType.set(dt, (k = { axpy: of('axpy'), aypx: of('aypx'), scal: of('scal'), copy: of('copy'), xmy: of('xmy'), dot: of('dot'), nrm2: of('nrm2') }));
  }
  return k;
}
