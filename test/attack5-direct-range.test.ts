/**
 * Fifth adversarial pass, F.solve and rt.solve 'direct' at the ends of the f64 range: b whose ‖b‖₂
 * itself overflows (entries near 2^1023) is solved scaled by a power of two, as b beyond 2^±900 is
 * (x was NaN with no error, and rt.solve moved to CG, which ended 'nan'); a solution past the largest
 * f64 is an InputRangeError naming the entry (x was ±Inf with a NaN residual and no error).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputRangeError } from '../src/errors.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const diagonal = (d: number[]) => new CSRMatrix(d.length, d.length, 'f64', Int32Array.from({ length: d.length + 1 }, (_, i) => i), Int32Array.from(d, (_, i) => i), Float64Array.from(d));
const hostNormOf = (v: Float64Array) => Math.hypot(...v);
const scaled = (v: Float64Array, e: number) => v.map((t) => t * 2 ** e);

describe('b near the largest f64', () => {
  const A = poisson2D(6);
  const shape = Float64Array.from({ length: A.rows }, (_, i) => (i % 3 === 0 ? 1 : -0.5 + i / 64));

  it('‖b‖₂ past 2^1024: x is the scaled system’s x scaled back, bit for bit, its residual the exact one (NaN before)', async () => {
    const F = await rt.factor(A);
    try {
      // 2^1023·shape: ‖b‖₂ ≈ 4·2^1023 overflows, ‖b‖∞ does not
      for (const e of [1016, 1020, 1023]) {
        const b = scaled(shape, e);
        const s = await F.solve(b);
        const ref = await F.solve(scaled(shape, 0));
        expect(Array.from(s.x), `2^${e}`).toEqual(Array.from(scaled(ref.x, e)));
        // the scaled system's residual, the unscaled one's bits
        expect(s.relativeResidual).toBe(ref.relativeResidual);
        expect(exactRelativeResidual(A, s.x, b)).toBeLessThan(1e-14);
      }
    } finally {
      F.dispose();
    }
  });

  it('complex b whose |re| + |im| overflows too (1.7e308 + 1.7e308i): answered, the exact residual small', async () => {
    const C = new CSRMatrix(2, 2, 'c128', Int32Array.of(0, 2, 4), Int32Array.of(0, 1, 0, 1), Float64Array.of(2, 0, 0.5, 0.25, 0.5, 0.25, 3, 0));
    const b = Float64Array.of(1.7e308, 1.7e308, -1.7e308, 1e300);
    const F = await rt.factor(C);
    const s = await F.solve(b);
    expect(s.x.every(Number.isFinite)).toBe(true);
    expect(exactRelativeResidual(C, s.x, b)).toBeLessThan(1e-15);
    F.dispose();
    const d = await rt.solve(rt.upload(C), b);
    expect([d.method, d.reason]).toEqual(['direct', 'converged']);
  });

  it('rt.solve answers it directly, converged (CG with reason nan before)', async () => {
    const h = rt.upload(A);
    const b = scaled(shape, 1023);
    const s = await rt.solve(h, b);
    expect([s.method, s.reason, s.converged]).toEqual(['direct', 'converged', true]);
    expect(exactRelativeResidual(A, s.x, b)).toBeLessThan(1e-14);
    // ‖r‖ = relativeResidual·‖b‖, with ‖b‖ itself past the largest f64
    expect(s.residualNorm / 2 ** 1000).toBeCloseTo(s.relativeResidual * (hostNormOf(shape) * 2 ** 23), 20);
    h.dispose();
  });
});

describe('a solution past the largest f64', () => {
  it('F.solve and rt.solve (direct and auto) reject with an InputRangeError naming the entry', async () => {
    // x = 4·b: past 2^1024 when b is scaled (1e308) and when it is not (1e-300 pivot, b = 1e100)
    const cases: [CSRMatrix, Float64Array, number][] = [
      [diagonal([1, 0.25]), Float64Array.of(1, 1e308), 1],
      [diagonal([1e-300, 1]), Float64Array.of(1e100, 1), 0],
    ];
    for (const [A, b, at] of cases) {
      const F = await rt.factor(A);
      await expect(F.solve(b)).rejects.toSatisfy((e: unknown) => e instanceof InputRangeError && e.message.includes(`x[${at}] is Infinity`));
      // the factorization stays usable
      expect((await F.solve(Float64Array.of(1, 1))).relativeResidual).toBeLessThan(1e-15);
      F.dispose();
      const h = rt.upload(A);
      for (const method of ['direct', 'auto'] as const) await expect(rt.solve(h, b, { method })).rejects.toBeInstanceOf(InputRangeError);
      h.dispose();
    }
  });

  it('property: a diagonal system either answers with finite x and its exact residual, or throws the range error exactly when some |bᵢ/dᵢ| overflows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.double({ min: 2 ** -60, max: 2 ** 60, noNaN: true }), fc.integer({ min: -1074, max: 1023 }), fc.double({ min: 0.5, max: 2, noNaN: true })), { minLength: 1, maxLength: 6 }),
        async (entries) => {
          const d = entries.map(([v]) => v);
          const b = Float64Array.from(entries, ([, e, m]) => m * 2 ** e);
          const F = await rt.factor(diagonal(d));
          try {
            // |bᵢ/dᵢ| past 2^1025 must throw, all below 2^1022 must answer (between: rounding decides)
            const log = entries.map(([v], i) => Math.log2(Math.abs(b[i])) - Math.log2(v));
            const overflows = log.some((l) => l > 1025);
            fc.pre(overflows || log.every((l) => l < 1022));
            if (overflows) await expect(F.solve(b)).rejects.toBeInstanceOf(InputRangeError);
            else {
              const s = await F.solve(b);
              expect(s.x.every(Number.isFinite)).toBe(true);
              const t = exactRelativeResidual(diagonal(d), s.x, b);
              // (residuals far below f64's rounding unit may read 0)
              expect(Math.abs(s.relativeResidual - t)).toBeLessThanOrEqual(Math.max(1e-6 * t, 1e-15));
            }
          } finally {
            F.dispose();
          }
        },
      ),
      { seed: 5, numRuns: 150 },
    );
  });

  it('property: several right-hand sides of scales 2^-1074..2^1023 at once, real/complex, symmetric or not: each column the single solve’s bits, its residual the exact one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.integer({ min: -1074, max: 1023 }), fc.constantFrom(1023, 1022, -1074, -1060)), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 1e6 }), async (scales, complex, sym, seed) => {
        // 3–62 rows, diagonally dominant, two random couplings a row (mirrored: symmetric, or not)
        const g = mulberry32(seed);
        const n = 3 + (seed % 60);
        const c = complex ? 2 : 1;
        const [r, cc, v]: number[][] = [[], [], []];
        const put = (i: number, j: number, re: number, im: number) => {
          r.push(i), cc.push(j), v.push(re);
          if (complex) v.push(im);
        };
        for (let i = 0; i < n; i++) {
          put(i, i, 3 + g(), g() - 0.5);
          for (let t = 0; t < 2; t++) {
            const j = Math.floor(g() * n);
            if (j === i) continue;
            const [w, wi] = [g() - 0.5, g() - 0.5];
            put(i, j, w, wi);
            put(j, i, sym ? w : g() - 0.5, sym ? wi : g() - 0.5);
          }
        }
        const A = CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(r), Int32Array.from(cc), Float64Array.from(v));
        // entries up to 2^e: ‖b‖₂ past the largest f64 for e = 1023 from a dozen rows
        const cols = scales.map((e) => Float64Array.from({ length: c * n }, () => (2 * g() - 1) * 2 ** e));
        const all = new Float64Array(c * n * cols.length);
        cols.forEach((b, j) => all.set(b, j * c * n));
        const F = await rt.factor(A);
        try {
          const s = await F.solve(all);
          for (let j = 0; j < cols.length; j++) {
            const xj = s.x.subarray(j * c * n, (j + 1) * c * n);
            expect(xj.every(Number.isFinite)).toBe(true);
            expect(Array.from(xj)).toEqual(Array.from((await F.solve(cols[j])).x));
            const t = exactRelativeResidual(A, xj, cols[j]);
            // within the plain residual's own rounding; never 0 for a residual of 1e-17 (it read ‖r‖/∞ = 0
            // where ‖b‖₂ overflowed and the unscaled solve stayed finite)
            expect(Math.abs(s.residuals[j] - t)).toBeLessThanOrEqual(1e-3 * t + 1e-15);
            if (t >= 1e-17) expect(s.residuals[j]).toBeGreaterThan(0);
          }
        } finally {
          F.dispose();
        }
      }),
      { seed: 9, numRuns: 200 },
    );
  });
});
