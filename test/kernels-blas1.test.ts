/**
 * Direct tests of the BLAS-1 pointer kernels axpy_*, aypx_*, copy_*, dot_* and nrm2_* in both builds
 * (SIMD and plain), all four dtypes, against a plain f64 JavaScript reference. Lengths 0..17, 100 and
 * 1001 hit every unroll step and scalar tail; sub-ranges start at odd elements (unaligned v128
 * accesses) and everything outside the range is NaN in x (must not be read) and must stay bit for bit
 * unchanged in y.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { makeHarness, disposeAll, type Harness, type DT, type Cx, DTYPES, isC, comp, kind, prec, Arr, fromFn, randArr, re, im } from './kernel-harness.js';
import { checkAgainst, type RefResult } from './reference.js';
import { mulberry32 as rng } from './random.js';
import type { Region } from '../src/cpu/memory.js';

/** α as the kernel sees it: f32/c64 kernels round it to f32 */
const rnd = (dt: DT, v: number) => (kind(dt) === 'f32' ? Math.fround(v) : v);


const LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1001];
/** element ranges used per length: full, odd starts/ends, an inner range, empty ones */
function ranges(n: number): Array<[number, number]> {
  const rs: Array<[number, number]> = [[0, n], [1, n], [0, n - 1], [3, n - 2], [n >> 1, n], [n, n], [1, 1]];
  const seen = new Set<string>();
  return rs.filter(([lo, hi]) => {
    const k = `${lo},${hi}`;
    if (lo < 0 || hi > n || lo > hi || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
/** a copy of v with every component outside elements [lo, hi) set to NaN (the kernel must not read them) */
function poisonOutside(dt: DT, v: Float32Array | Float64Array, lo: number, hi: number) {
  const c = comp(dt);
  const w = v.slice();
  for (let k = 0; k < w.length; k++) if (k < lo * c || k >= hi * c) w[k] = NaN;
  return w;
}

const ALPHAS: Record<'real' | 'complex', Cx[]> = {
  real: [0, 1, -2.5, 0.3],
  complex: [0, 1, -2.5, [0.5, -1.5], [0, 2], [0.3, 0.7]],
};
const alphasFor = (dt: DT) => ALPHAS[isC(dt) ? 'complex' : 'real'];
const alphaArgs = (dt: DT, a: Cx) => (isC(dt) ? [re(a), im(a)] : [re(a)]);

/** f64 reference of y ← α·u + v elementwise over [lo, hi) (axpy: u = x, v = y; aypx: u = y, v = x) */
function refAxpy(dt: DT, alpha: Cx, u: ArrayLike<number>, v: ArrayLike<number>, lo: number, hi: number): RefResult {
  const c = comp(dt);
  const ar = rnd(dt, re(alpha)), ai = rnd(dt, im(alpha));
  const n = hi - lo;
  const y = new Float64Array(n * c), scale = new Float64Array(n * c), terms = new Int32Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    const k = (lo + i) * c;
    if (c === 1) {
      y[i] = ar * u[k] + v[k];
      scale[i] = Math.abs(ar * u[k]) + Math.abs(v[k]);
    } else {
      y[2 * i] = ar * u[k] - ai * u[k + 1] + v[k];
      y[2 * i + 1] = ar * u[k + 1] + ai * u[k] + v[k + 1];
      const s = Math.hypot(ar, ai) * Math.hypot(u[k], u[k + 1]) + Math.hypot(v[k], v[k + 1]);
      scale[2 * i] = s;
      scale[2 * i + 1] = s;
    }
  }
  return { y, scale, terms };
}

/** f64 reference dot over [lo, hi): Σ x'·y (x' = conj x when conj), with Σ|x||y| as the error scale */
function refDot(dt: DT, x: ArrayLike<number>, y: ArrayLike<number>, conj: number, lo: number, hi: number): RefResult {
  let sr = 0, si = 0, mag = 0;
  for (let i = lo; i < hi; i++) {
    if (!isC(dt)) {
      sr += x[i] * y[i];
      mag += Math.abs(x[i] * y[i]);
    } else {
      const xr = x[2 * i], xi = conj ? -x[2 * i + 1] : x[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
      sr += xr * yr - xi * yi;
      si += xr * yi + xi * yr;
      mag += Math.hypot(xr, xi) * Math.hypot(yr, yi);
    }
  }
  const n = hi - lo;
  return isC(dt)
    ? { y: Float64Array.of(sr, si), scale: Float64Array.of(mag, mag), terms: Int32Array.of(n) }
    : { y: Float64Array.of(sr), scale: Float64Array.of(mag), terms: Int32Array.of(n) };
}

/** scaled f64 reference 2-norm of the real parts of elements [lo, hi) (no overflow/underflow) */
function refNrm2(dt: DT, x: ArrayLike<number>, lo: number, hi: number): number {
  const c = comp(dt);
  let m = 0;
  for (let k = lo * c; k < hi * c; k++) m = Math.max(m, Math.abs(x[k]));
  if (m === 0) return 0;
  let q = 0;
  for (let k = lo * c; k < hi * c; k++) q += (x[k] / m) ** 2;
  return m * Math.sqrt(q);
}

/** the JS-side combination of per-chunk (scale, ssq) results documented in assembly/blas1.ts */
function combineNrm2(parts: Array<[number, number]>): number {
  if (parts.some(([, qk]) => Number.isNaN(qk))) return NaN;
  const s = Math.max(...parts.map(([sk]) => sk));
  if (s === 0) return 0;
  if (s === Infinity) return Infinity;
  let q = 0;
  for (const [sk, qk] of parts) if (sk > 0) q += qk * (sk / s) ** 2;
  return s * Math.sqrt(q);
}

/** relative check of a norm: |got − ref| ≤ 4·(n + 4)·2⁻⁵³·ref (all kernels accumulate in f64) */
function expectNorm(got: number, ref: number, n: number, what: string) {
  const bound = 4 * (n + 4) * 2 ** -53 * ref;
  if (!(Math.abs(got - ref) <= bound)) expect.fail(`${what}: got ${got}, expected ${ref} (bound ${bound})`);
}

const bytesOf = (a: ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }) =>
  Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

const HUGE: Record<DT, number> = { f32: 1e38, c64: 1e38, f64: 1e300, c128: 1e300 };
const TINY: Record<DT, number> = { f32: 1e-38, c64: 1e-38, f64: 1e-300, c128: 1e-300 };

for (const flavor of ['simd', 'plain'] as const) {
  describe(`BLAS-1 kernels (${flavor})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await makeHarness(flavor);
    });
    const K = (name: string) => h.kernel(name);
    /** runs dot_<dt> over [lo, hi) and returns the f64 result(s) */
    const dot = (dt: DT, rx: Region, ry: Region, conj: number, lo: number, hi: number) => {
      const out = h.zeros(16);
      out.view('f64').fill(NaN); // the kernel must write the result even for an empty range
      K(`dot_${dt}`)(rx.ptr, ry.ptr, ...(isC(dt) ? [conj] : []), out.ptr, lo, hi);
      const r = h.get(out, 'f64', comp(dt)) as Float64Array;
      out.dispose();
      return r;
    };
    const nrm2 = (dt: DT, rx: Region, lo: number, hi: number): [number, number] => {
      const out = h.zeros(16);
      out.view('f64').fill(NaN);
      K(`nrm2_${dt}`)(rx.ptr, out.ptr, lo, hi);
      const [s, q] = h.get(out, 'f64', 2) as Float64Array;
      out.dispose();
      return [s, q];
    };
    const norm = ([s, q]: [number, number]) => (s === 0 ? 0 : s * Math.sqrt(q));

    for (const dt of DTYPES) {
      const c = comp(dt);

      for (const op of ['axpy', 'aypx'] as const) {
        it(`${op}_${dt}: all lengths, sub-ranges, α = 0, 1, −2.5, complex α`, () => {
          const r = rng(op === 'axpy' ? 3 : 4);
          for (const n of LENGTHS) {
            const x0 = randArr(dt, n, r), y0 = randArr(dt, n, r);
            for (const alpha of alphasFor(dt)) {
              for (const [lo, hi] of ranges(n)) {
                const what = `${op}_${dt} n=${n} α=${alpha} range ${lo}..${hi}`;
                // axpy never reads x outside the range; aypx also must not read y there (we poison x
                // only: y outside the range is the bit-for-bit check)
                const x = poisonOutside(dt, x0, lo, hi);
                const rx = h.put(x), ry = h.put(y0);
                K(`${op}_${dt}`)(rx.ptr, ry.ptr, ...alphaArgs(dt, alpha), lo, hi);
                const got = h.get(ry, kind(dt), y0.length);
                const ref = op === 'axpy' ? refAxpy(dt, alpha, x, y0, lo, hi) : refAxpy(dt, alpha, y0, x, lo, hi);
                if (op === 'axpy' && re(alpha) === 0 && im(alpha) === 0) {
                  expect(bytesOf(got), `${what}: α = 0 leaves y untouched`).toEqual(bytesOf(y0));
                } else {
                  expect(checkAgainst(Array.from(got).slice(lo * c, hi * c), ref, prec(dt), isC(dt)), what).toBeNull();
                }
                for (let k = 0; k < y0.length; k++) {
                  if (k >= lo * c && k < hi * c) continue;
                  if (!Object.is(got[k], y0[k])) expect.fail(`${what}: component ${k} outside the range changed`);
                }
                disposeAll(rx, ry);
              }
            }
          }
        });
      }

      it(`axpy_${dt} α = 0 ignores NaN in x; aypx_${dt} α = 0 overwrites NaN in y with x`, () => {
        const r = rng(9);
        const n = 37;
        const x = randArr(dt, n, r).fill(NaN, 0, 5 * c);
        const y0 = randArr(dt, n, r);
        const rx = h.put(x), ry = h.put(y0);
        K(`axpy_${dt}`)(rx.ptr, ry.ptr, ...alphaArgs(dt, 0), 0, n);
        expect(bytesOf(h.get(ry, kind(dt), y0.length))).toEqual(bytesOf(y0));
        const xg = randArr(dt, n, r);
        const rx2 = h.put(xg), ry2 = h.put(new (Arr(dt))(n * c).fill(NaN));
        K(`aypx_${dt}`)(rx2.ptr, ry2.ptr, ...alphaArgs(dt, 0), 0, n);
        expect(bytesOf(h.get(ry2, kind(dt), xg.length))).toEqual(bytesOf(xg));
        // α ≠ 0: NaN propagates
        K(`axpy_${dt}`)(rx.ptr, ry.ptr, ...alphaArgs(dt, 1), 0, n);
        const got = h.get(ry, kind(dt));
        expect(Number.isNaN(got[0]) && Number.isNaN(got[4 * c]) && !Number.isNaN(got[5 * c])).toBe(true);
        disposeAll(rx, ry, rx2, ry2);
      });

      it(`copy_${dt}: exact over sub-ranges, rest untouched`, () => {
        const r = rng(10);
        for (const n of LENGTHS) {
          const x = randArr(dt, n, r), y0 = randArr(dt, n, r);
          for (const [lo, hi] of ranges(n)) {
            const rx = h.put(x), ry = h.put(y0);
            K(`copy_${dt}`)(rx.ptr, ry.ptr, lo, hi);
            const want = y0.slice();
            want.set(x.subarray(lo * c, hi * c), lo * c);
            expect(bytesOf(h.get(ry, kind(dt), y0.length)), `copy_${dt} n=${n} ${lo}..${hi}`).toEqual(bytesOf(want));
            disposeAll(rx, ry);
          }
        }
      });

      it(`dot_${dt}: all lengths and sub-ranges${isC(dt) ? ', conj 0/1' : ''}, f64 accuracy`, () => {
        const r = rng(11);
        for (const n of LENGTHS) {
          const x0 = randArr(dt, n, r), y0 = randArr(dt, n, r);
          for (const [lo, hi] of ranges(n)) {
            const x = poisonOutside(dt, x0, lo, hi), y = poisonOutside(dt, y0, lo, hi);
            const rx = h.put(x), ry = h.put(y);
            for (const conj of isC(dt) ? [0, 1] : [0]) {
              const got = dot(dt, rx, ry, conj, lo, hi);
              const what = `dot_${dt} n=${n} conj=${conj} range ${lo}..${hi}`;
              // inputs are exact in f64, and the kernel accumulates in f64 even for f32/c64: double bound
              expect(checkAgainst(got, refDot(dt, x, y, conj, lo, hi), 'double', isC(dt)), what).toBeNull();
              if (lo === hi) expect(Array.from(got), what).toEqual(isC(dt) ? [0, 0] : [0]);
              expect(bytesOf(dot(dt, rx, ry, conj, lo, hi)), `${what}: deterministic`).toEqual(bytesOf(got));
            }
            disposeAll(rx, ry);
          }
        }
      });

      it(`dot_${dt}: NaN in x gives NaN; chunks add up; placement does not change the bits`, () => {
        const r = rng(12);
        const n = 1001;
        const x = randArr(dt, n, r), y = randArr(dt, n, r);
        for (const at of [0, 1, 8, 500, 999, 1000]) {
          const xn = x.slice();
          xn[at * c] = NaN;
          const rx = h.put(xn), ry = h.put(y);
          for (const conj of isC(dt) ? [0, 1] : [0]) {
            const got = dot(dt, rx, ry, conj, 0, n);
            for (const v of got) expect(Number.isNaN(v), `NaN at ${at} conj ${conj}`).toBe(true);
            // a range without the NaN is finite
            if (at > 0) for (const v of dot(dt, rx, ry, conj, 0, at)) expect(Number.isFinite(v)).toBe(true);
          }
          disposeAll(rx, ry);
        }
        const rx = h.put(x), ry = h.put(y);
        const bounds = [0, 1, 9, 100, 517, 1000, 1001];
        for (const conj of isC(dt) ? [0, 1] : [0]) {
          const full = dot(dt, rx, ry, conj, 0, n);
          const sum = new Float64Array(c);
          for (let k = 0; k + 1 < bounds.length; k++) {
            const p = dot(dt, rx, ry, conj, bounds[k], bounds[k + 1]);
            for (let q = 0; q < c; q++) sum[q] += p[q];
          }
          expect(checkAgainst(sum, refDot(dt, x, y, conj, 0, n), 'double', isC(dt))).toBeNull();
          expect(checkAgainst(full, refDot(dt, x, y, conj, 0, n), 'double', isC(dt))).toBeNull();
          // same values at a different (not 16-byte aligned) address: same summation order, same bits
          const bpe = kind(dt) === 'f32' ? 4 : 8;
          const rx2 = h.zeros(x.byteLength + 32), ry2 = h.zeros(y.byteLength + 32);
          new Uint8Array(h.heap.memory.buffer, rx2.ptr + bpe, x.byteLength).set(new Uint8Array(x.buffer));
          new Uint8Array(h.heap.memory.buffer, ry2.ptr + 3 * bpe, y.byteLength).set(new Uint8Array(y.buffer));
          const out = h.zeros(16);
          K(`dot_${dt}`)(rx2.ptr + bpe, ry2.ptr + 3 * bpe, ...(isC(dt) ? [conj] : []), out.ptr, 0, n);
          expect(bytesOf(h.get(out, 'f64', c))).toEqual(bytesOf(full));
          disposeAll(rx2, ry2, out);
        }
        disposeAll(rx, ry);
      });

      it(`nrm2_${dt}: all lengths and sub-ranges, empty and zero ranges`, () => {
        const r = rng(13);
        for (const n of LENGTHS) {
          const x0 = randArr(dt, n, r);
          for (const [lo, hi] of ranges(n)) {
            const x = poisonOutside(dt, x0, lo, hi);
            const rx = h.put(x);
            const got = nrm2(dt, rx, lo, hi);
            const what = `nrm2_${dt} n=${n} range ${lo}..${hi}`;
            expectNorm(norm(got), refNrm2(dt, x, lo, hi), (hi - lo) * c, what);
            if (lo === hi) expect(got, what).toEqual([0, 0]);
            expect(bytesOf(Float64Array.from(nrm2(dt, rx, lo, hi))), `${what}: deterministic`).toEqual(bytesOf(Float64Array.from(got)));
            rx.dispose();
          }
          const rz = h.put(new (Arr(dt))(n * c));
          expect(nrm2(dt, rz, 0, n), `zeros n=${n}`).toEqual([0, 0]);
          rz.dispose();
        }
      });

      it(`nrm2_${dt}: huge (${HUGE[dt]}) and tiny (${TINY[dt]}) values neither overflow nor underflow`, () => {
        const r = rng(14);
        for (const n of [1, 3, 8, 17, 1001]) {
          for (const mag of [HUGE[dt], TINY[dt]]) {
            const x = randArr(dt, n, r, mag);
            const rx = h.put(x);
            const got = norm(nrm2(dt, rx, 0, n));
            const ref = refNrm2(dt, x, 0, n);
            expect(Number.isFinite(got) && got > 0, `n=${n} mag=${mag}: ${got}`).toBe(true);
            expectNorm(got, ref, n * c, `nrm2_${dt} n=${n} mag=${mag}`);
            rx.dispose();
          }
        }
        // f64 only: the biggest and the subnormal end of the range
        if (kind(dt) === 'f64') {
          for (const v of [4e307, 5e-324, 1e-310]) {
            const x = new Float64Array(9 * c).fill(v);
            const rx = h.put(x);
            expectNorm(norm(nrm2(dt, rx, 0, 9)), refNrm2(dt, x, 0, 9), 9 * c, `nrm2_${dt} all ${v}`);
            rx.dispose();
          }
        }
      });

      it(`nrm2_${dt}: NaN gives NaN, Inf gives Inf`, () => {
        const r = rng(15);
        const n = 33;
        for (const at of [0, 7, 32]) {
          const x = randArr(dt, n, r);
          x[at * c + c - 1] = NaN;
          x[((at + 3) % n) * c] = Infinity; // NaN wins over Inf
          let rx = h.put(x);
          expect(Number.isNaN(norm(nrm2(dt, rx, 0, n)))).toBe(true);
          expect(Number.isNaN(combineNrm2([nrm2(dt, rx, 0, at), nrm2(dt, rx, at, n)]))).toBe(true);
          rx.dispose();
          x[at * c + c - 1] = -Infinity;
          rx = h.put(x);
          expect(norm(nrm2(dt, rx, 0, n))).toBe(Infinity);
          expect(combineNrm2([nrm2(dt, rx, 0, at), nrm2(dt, rx, at, n)])).toBe(Infinity);
          rx.dispose();
        }
      });

      it(`nrm2_${dt}: chunks combined on the JS side reproduce the full-range norm`, () => {
        const r = rng(16);
        const n = 1001;
        const H = HUGE[dt], T = TINY[dt];
        const sets: Record<string, Float32Array | Float64Array> = {
          normal: randArr(dt, n, r),
          huge: randArr(dt, n, r, H),
          tiny: randArr(dt, n, r, T),
          // huge, tiny and ordinary chunks mixed, and an all-zero chunk
          mixed: fromFn(dt, n * c, (k) => {
            const i = Math.floor(k / c);
            const v = 2 * r() - 1;
            return i < 9 ? 0 : i < 100 ? v * T : i < 517 ? v : v * (kind(dt) === 'f32' ? 1e18 : 1e150);
          }),
        };
        const bounds = [0, 1, 9, 100, 517, 1000, 1001];
        for (const [name, x] of Object.entries(sets)) {
          const rx = h.put(x);
          const full = nrm2(dt, rx, 0, n);
          const parts = bounds.slice(1).map((b, k) => nrm2(dt, rx, bounds[k], b));
          const ref = refNrm2(dt, x, 0, n);
          expectNorm(norm(full), ref, n * c, `${name}: full range`);
          expectNorm(combineNrm2(parts), norm(full), n * c, `${name}: combined chunks`);
          expectNorm(combineNrm2([full]), ref, n * c, `${name}: combine of one`);
          rx.dispose();
        }
      });
    }
  });
}

describe('BLAS-1: SIMD and plain builds give bitwise identical results', () => {
  let s: Harness, p: Harness;
  beforeAll(async () => {
    [s, p] = await Promise.all([makeHarness('simd'), makeHarness('plain')]);
  });
  /** runs the kernel in both builds on the same inputs and returns the bytes of the written region */
  function both(name: string, inputs: Array<Float32Array | Float64Array>, outIndex: number, args: (ptrs: number[]) => number[]) {
    return [s, p].map((h) => {
      const rs = inputs.map((a) => h.put(a));
      h.kernels[name](...args(rs.map((r) => r.ptr)));
      const got = bytesOf(h.get(rs[outIndex], inputs[outIndex] instanceof Float32Array ? 'f32' : 'f64'));
      rs.forEach((r) => r.dispose());
      return got;
    });
  }
  for (const dt of DTYPES) {
    it(`axpy/aypx/dot/nrm2_${dt}`, () => {
      const r = rng(21);
      for (const n of [9, 17, 100, 1001]) {
        for (const mag of [1, HUGE[dt], TINY[dt]]) {
          const x = randArr(dt, n, r, mag), y = randArr(dt, n, r);
          for (const [lo, hi] of ranges(n)) {
            for (const op of ['axpy', 'aypx']) {
              const [a, b] = both(`${op}_${dt}`, [x, y], 1, ([px, py]) => [px, py, ...alphaArgs(dt, [0.3, -1.7]), lo, hi]);
              expect(a, `${op}_${dt} n=${n} ${lo}..${hi}`).toEqual(b);
            }
            for (const conj of isC(dt) ? [0, 1] : [0]) {
              const [a, b] = both(`dot_${dt}`, [x, y, new Float64Array(2)], 2, ([px, py, po]) => [px, py, ...(isC(dt) ? [conj] : []), po, lo, hi]);
              expect(a, `dot_${dt} n=${n} mag=${mag} ${lo}..${hi}`).toEqual(b);
            }
            const [a, b] = both(`nrm2_${dt}`, [x, new Float64Array(2)], 1, ([px, po]) => [px, po, lo, hi]);
            expect(a, `nrm2_${dt} n=${n} mag=${mag} ${lo}..${hi}`).toEqual(b);
          }
        }
      }
    });
  }
});
