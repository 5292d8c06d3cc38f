/** hostNorm (src/host-spmv.ts): its one-pass sum against a scaled, compensated plain-f64 reference, at every scale. */
import { describe, expect, it } from 'vitest';
import { hostNorm } from '../src/host-spmv.js';

/** ‖v‖₂ by max-scaling and Kahan summation (independent of hostNorm's passes). */
function reference(v: Float64Array): number {
  let m = 0;
  for (const x of v) {
    if (Number.isNaN(x)) return NaN;
    m = Math.max(m, Math.abs(x));
  }
  if (m === 0) return 0;
  if (m === Infinity) return NaN;
  let s = 0;
  let c = 0;
  for (const x of v) {
    const y = (x / m) * (x / m) - c;
    const t = s + y;
    c = t - s - y;
    s = t;
  }
  return m * Math.sqrt(s);
}

function seeded(n: number, seed: number, scale: (i: number) => number): Float64Array {
  let st = seed >>> 0;
  const v = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    st = (Math.imul(st, 1664525) + 1013904223) >>> 0;
    v[i] = (st / 2 ** 32 - 0.5) * scale(i);
  }
  return v;
}

describe('hostNorm', () => {
  const cases: [string, Float64Array][] = [
    ['empty', new Float64Array(0)],
    ['zeros', new Float64Array(5)],
    ['one entry', Float64Array.of(-3)],
    ['unit scale, 4099', seeded(4099, 1, () => 1)],
    ['1e300 (squares overflow)', seeded(1000, 2, () => 1e300)],
    ['1e-300 (squares underflow)', seeded(1000, 3, () => 1e-300)],
    ['subnormals', seeded(100, 4, () => 1e-310)],
    ['2^500 and 2^-500 edges', Float64Array.of(2 ** 500, 2 ** 500, 1)],
    ['just under 2^-500', Float64Array.of(2 ** -501, 2 ** -501)],
    ['mixed 1e200 and 1e-200', seeded(1000, 5, (i) => (i % 2 ? 1e200 : 1e-200))],
    ['near max f64', Float64Array.of(Number.MAX_VALUE / 4, Number.MAX_VALUE / 8)],
    ['interleaved complex', seeded(2 * 513, 6, () => 7)],
  ];
  for (const [name, v] of cases) {
    it(name, () => {
      const want = reference(v);
      const got = hostNorm(v);
      if (want === 0) expect(got).toBe(0);
      else expect(Math.abs(got - want) / want).toBeLessThan(1e-14);
    });
  }
  it('NaN anywhere, or ±Inf, gives NaN', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (const at of [0, 7, 999]) {
        const v = seeded(1000, 7, () => 1);
        v[at] = bad;
        expect(hostNorm(v)).toBeNaN();
      }
    }
  });
});
