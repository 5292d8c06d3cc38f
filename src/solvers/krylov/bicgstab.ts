import type { SolveOptions, SolveResult, SolverOps, StopReason } from '../ops.js';
import { startResidual } from './start.js';

type C = [number, number];
const mul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
// a/b through |b|², and by Smith's method where |b|² over- or underflows (from |b| ≈ 1e±145: NaN or 0
// for a finite quotient); in range the textbook formula keeps the rounding as it was (BiCGSTAB on young1c
// c128: 742 iterations, the WebGPU path's 738; by Smith's everywhere 602, off the GPU's by more than the
// 10% test/webgpu-cg allows); a divisor that is not finite gives NaN, as the textbook formula does
const div = (a: C, b: C): C => {
  if (!(Number.isFinite(b[0]) && Number.isFinite(b[1]))) return [NaN, NaN];
  const d2 = b[0] * b[0] + b[1] * b[1];
  if (d2 > 1e-290 && d2 < 1e290) return [(a[0] * b[0] + a[1] * b[1]) / d2, (a[1] * b[0] - a[0] * b[1]) / d2];
  if (Math.abs(b[1]) <= Math.abs(b[0])) {
    const t = b[1] / b[0];
    const d = b[0] + b[1] * t;
    return [(a[0] + a[1] * t) / d, (a[1] - a[0] * t) / d];
  }
  const t = b[0] / b[1];
  const d = b[0] * t + b[1];
  return [(a[0] * t + a[1]) / d, (a[1] * t - a[0]) / d];
};
const neg = (a: C): C => [-a[0], -a[1]];
const isZero = (a: C): boolean => a[0] === 0 && a[1] === 0;
const isNaNc = (a: C): boolean => Number.isNaN(a[0]) || Number.isNaN(a[1]);

/**
 * Right-preconditioned BiCGSTAB (van der Vorst) for general square A, real or complex. Breakdowns
 * (ρ = 0, r̂ᴴv = 0, tᴴt = 0) and NaN end the solve with converged: false and the reason.
 */
export async function bicgstab<V>(ops: SolverOps<V>, b: V, options: SolveOptions<V> = {}): Promise<SolveResult<V>> {
  const checkEvery = options.checkEvery ?? ops.checkEvery ?? 1;
  if (checkEvery > 1 && ops.bicgstabResident) return ops.bicgstabResident(b, { ...options, checkEvery });
  const { tol = 1e-8, onIteration, signal } = options;
  const maxIter = options.maxIter ?? Math.max(100, 10 * ops.n);
  const x = ops.vector();
  const [r, rhat, p, v, s, t, y, z] = Array.from({ length: 8 }, () => ops.vector());
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
    while (reason === 'maxIter' && it < maxIter) {
      if (signal?.aborted) {
        reason = 'aborted';
        break;
      }
      const rhoNext = await ops.dot(rhat, r);
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
      // p ← r + β·(p − ω·v)
      await ops.axpy(neg(omega), v, p);
      await ops.aypx(beta, r, p);
      const py = ops.precondition ? y : p;
      if (ops.precondition) await ops.precondition(p, y);
      await ops.spmv(py, v, 1, 0);
      const rv = await ops.dot(rhat, v);
      if (isZero(rv) || isNaNc(rv)) {
        reason = isNaNc(rv) ? 'nan' : 'breakdown';
        break;
      }
      alpha = div(rho, rv);
      // s ← r − α·v
      await ops.copy(r, s);
      await ops.axpy(neg(alpha), v, s);
      const snorm = await ops.nrm2(s);
      if (snorm / scale <= tol) {
        await ops.axpy(alpha, py, x);
        it++;
        rnorm = snorm;
        history.push(snorm / scale);
        await onIteration?.(it, snorm / scale);
        reason = 'converged';
        break;
      }
      const sz = ops.precondition ? z : s;
      if (ops.precondition) await ops.precondition(s, z);
      await ops.spmv(sz, t, 1, 0);
      const tt = (await ops.dot(t, t))[0];
      if (!(tt > 0)) {
        reason = Number.isNaN(tt) ? 'nan' : 'breakdown';
        break;
      }
      omega = div(await ops.dot(t, s), [tt, 0]);
      await ops.axpy(alpha, py, x);
      await ops.axpy(omega, sz, x);
      // an iteration counts once it has updated x (a breakdown before that leaves x and the count as they were)
      it++;
      // r ← s − ω·t
      await ops.copy(s, r);
      await ops.axpy(neg(omega), t, r);
      rnorm = await ops.nrm2(r);
      history.push(rnorm / scale);
      await onIteration?.(it, rnorm / scale);
      if (Number.isNaN(rnorm)) reason = 'nan';
      else if (rnorm / scale <= tol) reason = 'converged';
      else if (isZero(omega)) reason = 'breakdown';
    }
    return { x, iterations: it, residualNorm: rnorm, relativeResidual: rnorm / scale, converged: reason === 'converged', reason, history };
  } catch (e) {
    ops.release(x);
    throw e;
  } finally {
    for (const w of [r, rhat, p, v, s, t, y, z]) ops.release(w);
  }
}
