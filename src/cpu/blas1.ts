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

/**
 * SolverOps.sequence on the CPU path: the steps at once on the calling thread where each would run
 * inline now (CpuBackend.inlineBatch: a small system, nothing in flight), one promise for the chain —
 * each step the kernel, arguments and single chunk its own operation runs there, so the same bits;
 * undefined otherwise (sequence() then runs them one by one). `pre`: the Jacobi preconditioner's
 * inverse diagonal, null for none ('precondition' then copies), or the solver's own preconditioner
 * (IC(0), ILU(0), …), awaited between the runs of steps around it. `o`: the solver's operations.
 */
export function cpuSequence(
  B: CpuBackend,
  M: CpuMatrix,
  pre: CpuVector | null | ((r: CpuVector, z: CpuVector) => Promise<void>),
  steps: readonly SolverStep<CpuVector>[],
  o: SolverOps<CpuVector>,
): Promise<[number, number][]> | undefined {
  const n = M.rows;
  // vectors of the system's length only (one of a multigrid level's length may reach the pool), a product's apart
  if (M.cols !== n) return undefined;
  for (const s of steps) {
    for (let i = 1; i < s.length; i++) if (s[i] instanceof CpuVector && (s[i] as CpuVector).length !== n) return undefined;
    if (s[0] === 'spmv' && s[1] === s[2]) return undefined;
  }
  if (typeof pre !== 'function') return inlineSteps(B, M, pre, steps);
  return (async () => {
    const out: [number, number][] = [];
    for (let i = 0; i < steps.length; ) {
      let j = i;
      while (j < steps.length && steps[j][0] !== 'precondition') j++;
      if (j > i) {
        const run = steps.slice(i, j);
        out.push(...(await (inlineSteps(B, M, null, run) ?? oneByOne(o, run))));
      }
      if (j < steps.length) await pre(steps[j][1] as CpuVector, steps[j][2] as CpuVector);
      i = j + 1;
    }
    return out;
  })();
}

/** The steps in one inline batch (CpuBackend.inlineBatch), undefined where they cannot run inline now. */
function inlineSteps(B: CpuBackend, M: CpuMatrix, dinv: CpuVector | null, steps: readonly SolverStep<CpuVector>[]): Promise<[number, number][]> | undefined {
  const n = M.rows;
  const cplx = isComplex(M.dtype);
  const k = kernelNames(M.dtype);
  let product = false;
  for (const s of steps) if (s[0] === 'spmv') product = true;
  // argument lists written out: a spread or a helper's array per step showed as garbage collection
  return B.inlineBatch(n, product ? M : null, () => {
    const out: [number, number][] = [];
    for (const s of steps) {
      switch (s[0]) {
        case 'spmv':
          B.spmvInline(M, s[1], s[2], { alpha: [s[3], 0], beta: [s[4], 0], op: 'N' });
          break;
        case 'axpy':
          B.kernelInline(k.axpy, cplx ? [s[2].ptr, s[3].ptr, s[1][0], s[1][1]] : [s[2].ptr, s[3].ptr, s[1][0]], n);
          break;
        case 'aypx':
          B.kernelInline(k.aypx, cplx ? [s[2].ptr, s[3].ptr, s[1][0], s[1][1]] : [s[2].ptr, s[3].ptr, s[1][0]], n);
          break;
        case 'scal':
          B.kernelInline(k.scal, cplx ? [s[2].ptr, s[1][0], s[1][1]] : [s[2].ptr, s[1][0]], n);
          break;
        case 'copy':
          B.kernelInline(k.copy, [s[1].ptr, s[2].ptr], n);
          break;
        case 'precondition':
          if (dinv) B.kernelInline(k.xmy, [dinv.ptr, s[1].ptr, s[2].ptr], n);
          else B.kernelInline(k.copy, [s[1].ptr, s[2].ptr], n);
          break;
        case 'dot':
          out.push(sumPartials(B.reductionInline(k.dot, cplx ? [s[1].ptr, s[2].ptr, 1] : [s[1].ptr, s[2].ptr], n)));
          break;
        case 'nrm2':
          out.push([normOfPartials(B.reductionInline(k.nrm2, [s[1].ptr], n)), 0]);
          break;
      }
    }
    return out;
  });
}

/** The BLAS-1 kernels' names for a dtype, made once (a name built per call costs a string and a lookup). */
const names = new Map<string, Record<'axpy' | 'aypx' | 'scal' | 'copy' | 'xmy' | 'dot' | 'nrm2', string>>();
function kernelNames(dt: string): Record<'axpy' | 'aypx' | 'scal' | 'copy' | 'xmy' | 'dot' | 'nrm2', string> {
  let k = names.get(dt);
  if (!k) names.set(dt, (k = { axpy: `axpy_${dt}`, aypx: `aypx_${dt}`, scal: `scal_${dt}`, copy: `copy_${dt}`, xmy: `xmy_${dt}`, dot: `dot_${dt}`, nrm2: `nrm2_${dt}` }));
  return k;
}
