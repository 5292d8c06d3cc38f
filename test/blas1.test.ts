/** BLAS-1 through the public API on 1, 2, 3 and 7 threads, against a plain f64 reference. */
import { describe, expect, it } from 'vitest';
import { runtimesByThreads, THREADS } from './runtimes-by-threads.js';
import { allocValues, isComplex, type DType, type ValueArray } from '../src/dtype.js';
import { Prng } from '../src/generators/prng.js';
import { ShapeError, UnsupportedError } from '../src/errors.js';

const runtimes = runtimesByThreads({ inlineThreshold: 0 });

function rand(dtype: DType, n: number, seed: number): ValueArray {
  const v = allocValues(dtype, n);
  const r = new Prng(seed);
  for (let i = 0; i < v.length; i++) v[i] = r.next() * 2 - 1;
  return v;
}
const unit = (d: DType) => (d === 'f32' || d === 'c64' ? 2 ** -24 : 2 ** -53);

/** max |a - b| over components, relative to the largest |b| (1 when b is all zero) */
function relErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = 0;
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    e = Math.max(e, Math.abs(a[i] - b[i]));
    s = Math.max(s, Math.abs(b[i]));
  }
  return e / (s || 1);
}

describe('axpy, aypx, scal, copy, dot, nrm2', () => {
  for (const dtype of ['f32', 'f64', 'c64', 'c128'] as DType[]) {
    const cplx = isComplex(dtype);
    const alpha: number | [number, number] = cplx ? [0.75, -1.5] : -2.5;
    const [ar, ai] = typeof alpha === 'number' ? [alpha, 0] : alpha;
    for (const n of [0, 1, 5, 1000, 100_003]) {
      it(`${dtype} n=${n}`, async () => {
        const x0 = rand(dtype, n, 1);
        const y0 = rand(dtype, n, 2);
        // f64 references
        const axpy = Float64Array.from(y0);
        const aypx = Float64Array.from(x0);
        const scal = new Float64Array(x0.length);
        let dr = 0, di = 0, cr = 0, ci = 0, sq = 0;
        for (let i = 0; i < n; i++) {
          if (!cplx) {
            axpy[i] = ar * x0[i] + y0[i];
            aypx[i] = ar * y0[i] + x0[i];
            scal[i] = ar * x0[i];
            dr += x0[i] * y0[i];
            sq += x0[i] * x0[i];
          } else {
            const [xr, xi, yr, yi] = [x0[2 * i], x0[2 * i + 1], y0[2 * i], y0[2 * i + 1]];
            axpy[2 * i] = ar * xr - ai * xi + yr;
            axpy[2 * i + 1] = ar * xi + ai * xr + yi;
            aypx[2 * i] = ar * yr - ai * yi + xr;
            aypx[2 * i + 1] = ar * yi + ai * yr + xi;
            scal[2 * i] = ar * xr - ai * xi;
            scal[2 * i + 1] = ar * xi + ai * xr;
            dr += xr * yr - xi * yi;
            di += xr * yi + xi * yr;
            cr += xr * yr + xi * yi;
            ci += xr * yi - xi * yr;
            sq += xr * xr + xi * xi;
          }
        }
        const tol = 8 * unit(dtype);
        for (const t of THREADS) {
          const rt = runtimes.get(t)!;
          const x = rt.vector(x0, dtype);
          const y = rt.vector(y0, dtype);
          await rt.axpy(alpha, x, y);
          expect(relErr(await y.read(), axpy), `axpy threads=${t}`).toBeLessThanOrEqual(tol);
          y.write(y0);
          await rt.aypx(alpha, x, y); // y ← α·y + x
          expect(relErr(await y.read(), aypx), `aypx threads=${t}`).toBeLessThanOrEqual(tol);
          await rt.copy(x, y);
          expect(Array.from(await y.read()), `copy threads=${t}`).toEqual(Array.from(x0));
          await rt.scal(alpha, y);
          expect(relErr(await y.read(), scal), `scal threads=${t}`).toBeLessThanOrEqual(tol);
          y.write(y0);
          const d = await rt.dot(x, y);
          // f64 accumulation of |terms| ≤ 2 each: error ≤ n·2⁻⁵³·Σ|terms| ≤ 4n²·2⁻⁵³
          const bound = 4 * n * n * unit('f64') + 1e-300;
          if (cplx) {
            const [re, im] = d as [number, number];
            expect(Math.abs(re - dr) + Math.abs(im - di)).toBeLessThanOrEqual(2 * bound);
            const [cre, cim] = (await rt.dot(x, y, { conj: true })) as [number, number];
            expect(Math.abs(cre - cr) + Math.abs(cim - ci)).toBeLessThanOrEqual(2 * bound);
          } else {
            expect(Math.abs((d as number) - dr)).toBeLessThanOrEqual(bound);
          }
          // the same call on the same thread count gives the same bits
          expect(await rt.dot(x, y)).toEqual(d);
          expect(Math.abs((await rt.nrm2(x)) - Math.sqrt(sq))).toBeLessThanOrEqual(1e-12 * Math.sqrt(sq) + 1e-300);
          x.dispose();
          y.dispose();
        }
      });
    }
  }

  it('nrm2 neither overflows nor underflows; NaN propagates into dot', async () => {
    const rt = runtimes.get(3)!;
    const big = rt.vector(new Float64Array(50_000).fill(1e300));
    expect((await rt.nrm2(big)) / (1e300 * Math.sqrt(50_000))).toBeCloseTo(1, 12);
    const tiny = rt.vector(new Float64Array(50_000).fill(1e-300));
    expect((await rt.nrm2(tiny)) / (1e-300 * Math.sqrt(50_000))).toBeCloseTo(1, 12);
    const withNaN = new Float64Array(50_000).fill(1);
    withNaN[31_337] = NaN;
    const v = rt.vector(withNaN);
    expect(await rt.dot(v, big)).toBeNaN();
  });

  it('mismatched vectors and complex scalars on real vectors are typed errors', async () => {
    const rt = runtimes.get(2)!;
    const a = rt.vector(10);
    const b = rt.vector(11);
    const c = rt.vector(10, 'f32');
    await expect(rt.axpy(1, a, b)).rejects.toThrow(ShapeError);
    await expect(rt.axpy(1, a, b)).rejects.toThrow(/x has 10 elements and y has 11/);
    await expect(rt.dot(a, c)).rejects.toThrow(/x is f64 and y is f32/);
    await expect(rt.scal([1, 2], a)).rejects.toThrow(UnsupportedError);
  });
});
