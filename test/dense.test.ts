/**
 * Dense kernels (assembly/dense.ts) and their pool wiring (src/cpu/dense.ts) against a plain f64
 * JavaScript reference: gemm (tiled in place, packed, naive), add, transpose — both builds, raw kernel
 * calls on split row ranges, and through the pool on 1, 2 and 3 threads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from './kernel-harness.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { Prng } from '../src/generators/prng.js';
import { gemm, gemmNaive, add, transpose } from '../src/cpu/dense.js';
import { ShapeError, UnsupportedError } from '../src/errors.js';
import { DenseMatrix } from '../src/formats/dense.js';
import type { CpuBackend } from '../src/cpu/backend.js';

type Real = 'f32' | 'f64';
const U: Record<Real, number> = { f32: 2 ** -24, f64: 2 ** -53 };
type Dt = Real | 'c64' | 'c128';
const cplx = (dt: Dt) => dt === 'c64' || dt === 'c128';
/** the real dtype of a dtype's components */
const part = (dt: Dt): Real => (dt === 'f32' || dt === 'c64' ? 'f32' : 'f64');
const arr = (dt: Dt, n: number) => (part(dt) === 'f64' ? new Float64Array(n) : new Float32Array(n));

function rand(dt: Dt, n: number, seed: number): Float32Array | Float64Array {
  const r = new Prng(seed);
  const v = arr(dt, n);
  for (let i = 0; i < n; i++) v[i] = r.next() * 2 - 1;
  return v;
}

/** Bitwise equality of two float arrays (vitest's toEqual is slow on large typed arrays). */
function sameBits(x: ArrayLike<number>, y: ArrayLike<number>): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  return true;
}

type Pair = [number, number];

const abs2 = (x: number, y: number) => Math.sqrt(x * x + y * y);

/**
 * The f64 products of the reference, once per operand set: S = A·B (w = 1 real, 2 interleaved complex)
 * and T = Σ|a||b| per element (for the error bound).
 */
function products(w: number, m: number, n: number, k: number, A: ArrayLike<number>, lda: number, B: ArrayLike<number>, ldb: number) {
  const S = new Float64Array(m * n * w), T = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let sr = 0, si = 0, t = 0;
      for (let p = 0; p < k; p++) {
        const x = (i * lda + p) * w, y = (p * ldb + j) * w;
        if (w === 1) {
          sr += A[x] * B[y];
          t += Math.abs(A[x] * B[y]);
        } else {
          sr += A[x] * B[y] - A[x + 1] * B[y + 1];
          si += A[x] * B[y + 1] + A[x + 1] * B[y];
          t += abs2(A[x], A[x + 1]) * abs2(B[y], B[y + 1]);
        }
      }
      S[(i * n + j) * w] = sr;
      if (w === 2) S[(i * n + j) * w + 1] = si;
      T[i * n + j] = t;
    }
  return { S, T };
}

/**
 * f64 reference C = α·A·B + β·C0 (β = 0 ignores C0; α, β as [re, im]) from the products, and the
 * error bound's magnitude per element: |α|·Σ|a||b| + |β·c|.
 */
function refGemm(w: number, P: { S: Float64Array; T: Float64Array }, m: number, n: number, C0: ArrayLike<number>, ldc: number, alpha: Pair, beta: Pair) {
  const ref = new Float64Array(m * n * w);
  const mag = new Float64Array(m * n);
  const useA = alpha[0] !== 0 || alpha[1] !== 0, useC = beta[0] !== 0 || beta[1] !== 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      const e = i * n + j, x = e * w, y = (i * ldc + j) * w;
      const [sr, si] = useA ? [P.S[x], w === 2 ? P.S[x + 1] : 0] : [0, 0];
      const [cr, ci] = useC ? [C0[y], w === 2 ? C0[y + 1] : 0] : [0, 0];
      const re = alpha[0] * sr - alpha[1] * si + beta[0] * cr - beta[1] * ci;
      const im = alpha[0] * si + alpha[1] * sr + beta[0] * ci + beta[1] * cr;
      ref[x] = re;
      if (w === 2) ref[x + 1] = im;
      mag[e] = (useA ? abs2(...alpha) * P.T[e] : 0) + abs2(...beta) * abs2(cr, ci);
    }
  return { ref, mag };
}

/** Checks C (stride ldc elements) against the reference, component by component, within 2(k+4)·u·magnitude (×2 complex). */
function expectGemm(dt: Dt, C: ArrayLike<number>, ldc: number, m: number, n: number, k: number, r: { ref: Float64Array; mag: Float64Array }, what: string): void {
  const w = cplx(dt) ? 2 : 1;
  let bad = '';
  for (let i = 0; i < m && !bad; i++)
    for (let j = 0; j < n && !bad; j++)
      for (let q = 0; q < w; q++) {
        const got = C[(i * ldc + j) * w + q];
        const want = r.ref[(i * n + j) * w + q];
        const tol = 2 * w * (k + 4) * U[part(dt)] * r.mag[i * n + j] + 1e-300;
        if (!(Math.abs(got - want) <= tol)) {
          bad = `${what}: C[${i}][${j}]${w === 2 ? (q ? '.im' : '.re') : ''} = ${got}, expected ${want} ± ${tol}`;
          break;
        }
      }
  expect(bad).toBe('');
}

// (m, k, n): 1×1, row and column vectors, primes, thin/fat, powers of two, odd sizes past the tiles
const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [1, 50, 37],
  [37, 50, 1],
  [7, 13, 11],
  [3, 1000, 3],
  [600, 3, 700],
  [64, 64, 64],
  [257, 129, 131],
  [21, 300, 9],
  [5, 0, 6],
];
const SCALARS: [Pair, Pair, string][] = [
  [[1, 0], [0, 0], 'α=1 β=0 (NaN in C)'],
  [[2.5, 0], [-0.5, 0], 'α=2.5 β=-0.5'],
  [[0, 0], [1.5, 0], 'α=0 β=1.5 (NaN in A, B)'],
  [[-1, 0], [1, 0], 'α=-1 β=1'],
];
/** complex dtypes also run these: complex α and β, a purely imaginary α, and a complex β alone */
const CSCALARS: [Pair, Pair, string][] = [
  [[2.5, -1], [-0.5, 0.75], 'α=2.5−i β=−0.5+0.75i'],
  [[0, 1], [0, 0], 'α=i β=0 (NaN in C)'],
  [[0, 0], [0.5, -2], 'α=0 β=0.5−2i (NaN in A, B)'],
];
const DTS: Dt[] = ['f32', 'f64', 'c64', 'c128'];
const scalarsOf = (dt: Dt) => (cplx(dt) ? [...SCALARS, ...CSCALARS] : SCALARS);
/** the kernel arguments for α, β: (re, im) pairs for complex dtypes */
const sArgs = (dt: Dt, alpha: Pair, beta: Pair) => (cplx(dt) ? [...alpha, ...beta] : [alpha[0], beta[0]]);

const flavors = ['simd', 'plain'] as const;
const harness = new Map<string, Harness>();
beforeAll(async () => {
  for (const f of flavors) harness.set(f, await makeHarness(f));
});

describe('gemm kernels (raw calls, both builds)', () => {
  for (const f of flavors)
    for (const dt of DTS)
      for (const [m, k, n] of SHAPES)
        it(`${f} ${dt} ${m}×${k} · ${k}×${n}`, () => {
          const h = harness.get(f)!;
          const K = h.kernels;
          const w = cplx(dt) ? 2 : 1;
          const size = (part(dt) === 'f32' ? 4 : 8) * w;
          // padded leading dimensions on one case, to check strides and that padding is left alone
          const pad = m === 7 ? 3 : 0;
          const lda = k + pad, ldb = n + pad, ldc = n + pad;
          const A = rand(dt, m * lda * w, 1 + m), B = rand(dt, Math.max(k, 1) * ldb * w, 2 + n), C0 = rand(dt, m * ldc * w, 3 + k);
          const a = h.put(A), b = h.put(B);
          const packed = h.zeros(Math.max(k, 1) * Math.ceil((n * size) / 32) * 32);
          const P = products(w, m, n, k, A, lda, B, ldb);
          try {
            K[`gemm_pack_${dt}`](b.ptr, packed.ptr, n, k, ldb, 0, k);
            for (const [alpha, beta, label] of scalarsOf(dt)) {
              const useA = alpha[0] !== 0 || alpha[1] !== 0, useC = beta[0] !== 0 || beta[1] !== 0;
              const Cin = C0.slice();
              if (!useC) Cin.fill(NaN);
              const r = refGemm(w, P, m, n, C0, ldc, alpha, beta);
              const aN = useA ? a : h.put(A.map(() => NaN));
              const bN = useA ? b : h.put(B.map(() => NaN));
              const sc = sArgs(dt, alpha, beta);
              const results: (Float32Array | Float64Array)[] = [];
              for (const kind of ['gemm', 'packed', 'naive'] as const) {
                // full range, then the same rows in three uneven pieces (thread panels)
                const splits = [
                  [0, m],
                  [0, Math.min(m, 5), Math.min(m, 5), Math.min(m, 22), Math.min(m, 22), m],
                ];
                for (const sp of splits) {
                  const c = h.put(Cin);
                  for (let s = 0; s < sp.length; s += 2) {
                    if (kind === 'gemm') K[`gemm_${dt}`](aN.ptr, bN.ptr, c.ptr, m, n, k, lda, ldb, ldc, ...sc, sp[s], sp[s + 1]);
                    else if (kind === 'naive') K[`gemm_naive_${dt}`](aN.ptr, bN.ptr, c.ptr, m, n, k, lda, ldb, ldc, ...sc, sp[s], sp[s + 1]);
                    else K[`gemm_packed_${dt}`](aN.ptr, packed.ptr, c.ptr, m, n, k, lda, ldc, ...sc, sp[s], sp[s + 1]);
                  }
                  const out = h.get(c, part(dt)) as Float32Array | Float64Array;
                  c.dispose();
                  expectGemm(dt, out, ldc, m, n, k, r, `${kind} ${label} rows ${sp.join(',')}`);
                  for (let i = 0; i < m; i++)
                    for (let e = n * w; e < ldc * w; e++) if (!Object.is(out[i * ldc * w + e], Cin[i * ldc * w + e])) throw new Error(`${kind}: padding of C row ${i} written`);
                  results.push(out);
                }
                // a row split never changes a result: each element's summation order is fixed
                expect(sameBits(results[results.length - 1], results[results.length - 2])).toBe(true);
              }
              if (!useA) {
                aN.dispose();
                bN.dispose();
              }
            }
          } finally {
            a.dispose();
            b.dispose();
            packed.dispose();
          }
        });
});

/** The definition: B[j][i] = A[i][j] for every i < rows, j < cols. Returns the first mismatch. */
function transposeMismatch(A: ArrayLike<number>, B: ArrayLike<number>, rows: number, cols: number, comp = 1): string {
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      for (let c = 0; c < comp; c++)
        if (!Object.is(B[(j * rows + i) * comp + c], A[(i * cols + j) * comp + c])) return `B[${j}][${i}] ≠ A[${i}][${j}]`;
  return '';
}

/**
 * Seed 004's "optimised" transpose, reproduced: each T×T tile is transposed in place, but written to the
 * same block coordinates (I, J) instead of (J, I). Right on the diagonal tiles only.
 */
function seed004Transpose(A: ArrayLike<number>, rows: number, cols: number, T = 16): Float64Array {
  const B = new Float64Array(rows * cols);
  for (let I = 0; I < rows; I += T)
    for (let J = 0; J < cols; J += T)
      for (let ii = 0; ii < T; ii++)
        for (let jj = 0; jj < T; jj++) {
          // element (I+ii, J+jj) of A goes to B[I+jj][J+ii] (block not swapped) — within bounds of B
          const i = I + ii, j = J + jj;
          const bi = I + jj, bj = J + ii;
          if (i < rows && j < cols && bi < cols && bj < rows) B[bi * rows + bj] = A[i * cols + j];
        }
  return B;
}

const TSHAPES: [number, number][] = [
  [1, 1], [1, 9], [9, 1], [4, 4], [3, 5], [7, 13], [13, 7], [16, 16], [31, 33], [32, 32], [33, 31], [64, 64], [100, 3], [3, 100], [129, 257], [257, 129], [300, 517], [517, 300], [19, 600], [600, 19], [35, 67],
];

describe('transpose kernels (raw calls, both builds) against the definition', () => {
  it('the check catches a seed-004-style transpose (tiles transposed, blocks not swapped)', () => {
    for (const [r, c] of [[64, 64], [48, 32], [33, 31]] as [number, number][]) {
      const A = rand('f64', r * c, r + c);
      expect(transposeMismatch(A, seed004Transpose(A, r, c), r, c)).not.toBe('');
    }
    // while it is right when there is a single tile — why small-only tests would miss it
    const A = rand('f64', 16 * 16, 5);
    expect(transposeMismatch(A, seed004Transpose(A, 16, 16), 16, 16)).toBe('');
  });
  for (const f of flavors)
    for (const dt of ['f32', 'f64', 'c64', 'c128'] as const)
      it(`${f} ${dt}`, () => {
        const h = harness.get(f)!;
        const comp = cplx(dt) ? 2 : 1;
        for (const [r, c] of TSHAPES) {
          const A = rand(dt, r * c * comp, r * 31 + c);
          const a = h.put(A);
          for (const splits of [[0, c], [0, Math.min(c, 3), Math.min(c, 3), Math.min(c, 37), Math.min(c, 37), c]]) {
            const b = h.put(arr(dt, r * c * comp).fill(NaN));
            for (let s = 0; s < splits.length; s += 2) h.kernels[`transpose_${dt}`](a.ptr, b.ptr, r, c, splits[s], splits[s + 1]);
            const B = h.get(b, part(dt));
            b.dispose();
            expect(transposeMismatch(A, B, r, c, comp), `${r}×${c} rows ${splits}`).toBe('');
          }
          a.dispose();
        }
      });
});

describe('add kernels (raw calls, both builds)', () => {
  for (const f of flavors)
    for (const dt of DTS)
      it(`${f} ${dt}`, () => {
        const h = harness.get(f)!;
        const isC = cplx(dt);
        const comp = isC ? 2 : 1;
        const u = U[part(dt)];
        const cases: [[number, number], [number, number]][] = isC
          ? [[[1, 0], [0, 0]], [[0.5, -2], [1.5, 0.25]], [[0, 0], [-1, 3]], [[0, 0], [0, 0]]]
          : [[[1, 0], [0, 0]], [[2.5, 0], [-0.5, 0]], [[0, 0], [1.5, 0]], [[0, 0], [0, 0]]];
        for (const [rows, cols] of [[1, 1], [1, 7], [7, 1], [13, 11], [64, 64], [100, 33], [3, 0], [0, 5]]) {
          const len = rows * cols * comp;
          for (const [al, be] of cases) {
            const A = rand(dt, len, rows + 7 * cols), B = rand(dt, len, rows * 3 + cols);
            const useA = al[0] !== 0 || al[1] !== 0, useB = be[0] !== 0 || be[1] !== 0;
            const a = h.put(useA ? A : A.map(() => NaN)), b = h.put(useB ? B : B.map(() => NaN));
            const c = h.put(arr(dt, len).fill(NaN));
            const args = sArgs(dt, al, be);
            const mid = Math.floor(rows / 2);
            h.kernels[`add_${dt}`](a.ptr, b.ptr, c.ptr, cols, ...args, 0, mid);
            h.kernels[`add_${dt}`](a.ptr, b.ptr, c.ptr, cols, ...args, mid, rows);
            const C = h.get(c, part(dt));
            for (let e = 0; e < rows * cols; e++) {
              let re: number, im = 0, mag: number;
              if (isC) {
                const [ar, ai, xr, xi] = [al[0], al[1], A[2 * e], A[2 * e + 1]];
                const [br, bi, yr, yi] = [be[0], be[1], B[2 * e], B[2 * e + 1]];
                re = ar * xr - ai * xi + br * yr - bi * yi;
                im = ar * xi + ai * xr + br * yi + bi * yr;
                mag = Math.hypot(ar, ai) * Math.hypot(xr, xi) + Math.hypot(br, bi) * Math.hypot(yr, yi);
              } else {
                re = al[0] * A[e] + be[0] * B[e];
                mag = Math.abs(al[0] * A[e]) + Math.abs(be[0] * B[e]);
              }
              const tol = 8 * u * mag + 1e-300;
              if (!(Math.abs(C[e * comp] - re) <= tol) || (isC && !(Math.abs(C[e * comp + 1] - im) <= tol))) {
                throw new Error(`${rows}×${cols} α=${al} β=${be}: element ${e} = ${C[e * comp]} expected ${re}`);
              }
            }
            a.dispose();
            b.dispose();
            c.dispose();
          }
        }
      });
});

describe('through the pool (src/cpu/dense.ts): SIMD build on 1, 2, 3 threads, plain build on 2', () => {
  const POOLS: { simd: boolean; threads: number }[] = [
    { simd: true, threads: 1 },
    { simd: true, threads: 2 },
    { simd: true, threads: 3 },
    { simd: false, threads: 2 },
  ];
  const runtimes = new Map<(typeof POOLS)[number], Runtime>();
  beforeAll(async () => {
    for (const p of POOLS) runtimes.set(p, await createRuntime({ workers: p.threads, simd: p.simd, inlineThreshold: 0 }));
  });
  afterAll(() => runtimes.forEach((rt) => rt.dispose()));

  /** Uploads values into a fresh resident vector; returns it and its DenseRegion for rows×cols. */
  function resident(B: CpuBackend, dt: Dt, values: Float32Array | Float64Array, rows: number, cols: number) {
    const v = B.vector(dt, values.length / (cplx(dt) ? 2 : 1) || 1);
    v.view().set(values);
    return { v, R: { ptr: v.ptr, rows, cols } };
  }

  for (const dt of DTS)
    it(`gemm ${dt}: every shape and α/β, results identical for any thread count`, async () => {
      const w = cplx(dt) ? 2 : 1;
      for (const [m, k, n] of SHAPES) {
        const A = rand(dt, m * k * w, 11 + m), Bv = rand(dt, k * n * w, 12 + n), C0 = rand(dt, m * n * w, 13 + k);
        const P = products(w, m, n, k, A, k, Bv, n);
        for (const [alpha, beta, label] of scalarsOf(dt)) {
          const useA = alpha[0] !== 0 || alpha[1] !== 0, useC = beta[0] !== 0 || beta[1] !== 0;
          const r = refGemm(w, P, m, n, C0, n, alpha, beta);
          const first = new Map<boolean, Float32Array | Float64Array>();
          // a real α, β goes in as a number (the runtime's form), a complex one as [re, im]
          const al = alpha[1] === 0 ? alpha[0] : alpha, be = beta[1] === 0 ? beta[0] : beta;
          for (const p of POOLS) {
            const B = runtimes.get(p)!.cpuBackend;
            expect([B.threads, B.flavor]).toEqual([p.threads, p.simd ? 'simd' : 'plain']);
            const a = resident(B, dt, useA ? A : A.map(() => NaN), m, k);
            const b = resident(B, dt, useA ? Bv : Bv.map(() => NaN), k, n);
            const c = resident(B, dt, useC ? C0 : C0.map(() => NaN), m, n);
            await gemm(B, dt, a.R, b.R, c.R, al, be);
            const out = c.v.view().slice();
            const what = `${m}×${k}·${k}×${n} ${label} ${B.flavor} t=${p.threads}`;
            expectGemm(dt, out, n, m, n, k, r, what);
            const f = first.get(p.simd);
            if (f) expect(sameBits(out, f), `${what} differs from 1 thread`).toBe(true);
            else first.set(p.simd, out);
            if (m * n * k <= 1e6) {
              const cn = resident(B, dt, useC ? C0 : C0.map(() => NaN), m, n);
              await gemmNaive(B, dt, a.R, b.R, cn.R, al, be);
              expectGemm(dt, cn.v.view(), n, m, n, k, r, `naive ${what}`);
              cn.v.dispose();
            }
            a.v.dispose();
            b.v.dispose();
            c.v.dispose();
          }
        }
      }
    });

  it('transpose and add through the pool', async () => {
    for (const p of POOLS) {
      const B = runtimes.get(p)!.cpuBackend;
      for (const dt of DTS) {
        const comp = cplx(dt) ? 2 : 1;
        for (const [r, c] of [[1, 1], [257, 129], [129, 257], [1000, 3], [3, 1000], [64, 64], [300, 517]]) {
          const A = rand(dt, r * c * comp, r + c + p.threads);
          const a = resident(B, dt, A, r, c);
          const b = resident(B, dt, arr(dt, r * c * comp).fill(NaN), c, r);
          await transpose(B, dt, r, c, a.v.ptr, b.v.ptr);
          expect(transposeMismatch(A, b.v.view(), r, c, comp), `${dt} ${r}×${c} ${B.flavor} t=${p.threads}`).toBe('');
          // add: C = 2·A − Aᵀᵀ = A (via aliasing C = B input)
          const back = resident(B, dt, arr(dt, r * c * comp), r, c);
          await transpose(B, dt, c, r, b.v.ptr, back.v.ptr);
          await add(B, dt, r, c, a.v.ptr, back.v.ptr, back.v.ptr, 2, -1);
          expect(sameBits(back.v.view(), A)).toBe(true);
          if (comp === 2) {
            // complex scalars: (1 + i)·A + (−1 − i)·A = 0 exactly
            await add(B, dt, r, c, a.v.ptr, a.v.ptr, back.v.ptr, [1, 1], [-1, -1]);
            expect(back.v.view().every((x) => x === 0)).toBe(true);
          }
          a.v.dispose();
          b.v.dispose();
          back.v.dispose();
        }
      }
    }
  });

  it('shape and dtype errors', async () => {
    const B = runtimes.get(POOLS[0])!.cpuBackend;
    const R = (rows: number, cols: number) => ({ ptr: 0, rows, cols });
    await expect(gemm(B, 'f32', R(2, 3), R(4, 2), R(2, 2), 1, 0)).rejects.toBeInstanceOf(ShapeError);
    await expect(gemm(B, 'f32', R(2, 3), R(3, 2), R(2, 3), 1, 0)).rejects.toBeInstanceOf(ShapeError);
    await expect(gemm(B, 'f64', R(2, 3), R(3, 2), R(2, 2), [1, 2], 0)).rejects.toBeInstanceOf(UnsupportedError);
    await expect(gemmNaive(B, 'f32', R(2, 3), R(3, 2), R(2, 2), 1, [0, 1])).rejects.toBeInstanceOf(UnsupportedError);
    await expect(add(B, 'f32', 2, 2, 0, 0, 0, [1, 1], 0)).rejects.toBeInstanceOf(UnsupportedError);
  });
});

describe('complex dense operations through the runtime (rt.gemm with real α, β; rt.add; rt.transpose)', () => {
  it('c64 and c128 match the reference; in-place C with β', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    try {
      for (const dt of ['c64', 'c128'] as const) {
        const [m, k, n] = [23, 17, 29];
        const A = rand(dt, 2 * m * k, 1), Bv = rand(dt, 2 * k * n, 2), C0 = rand(dt, 2 * m * n, 3);
        const P = products(2, m, n, k, A, k, Bv, n);
        const C = await rt.gemm(new DenseMatrix(m, k, dt, A), new DenseMatrix(k, n, dt, Bv));
        expectGemm(dt, C.values, n, m, n, k, refGemm(2, P, m, n, C0, n, [1, 0], [0, 0]), `rt.gemm ${dt}`);
        const Cin = new DenseMatrix(m, n, dt, C0.slice());
        await rt.gemm(new DenseMatrix(m, k, dt, A), new DenseMatrix(k, n, dt, Bv), { C: Cin, alpha: -2, beta: 0.5 });
        expectGemm(dt, Cin.values, n, m, n, k, refGemm(2, P, m, n, C0, n, [-2, 0], [0.5, 0]), `rt.gemm ${dt} in place`);
        const T = await rt.transpose(new DenseMatrix(m, k, dt, A));
        expect(transposeMismatch(A, T.values, m, k, 2)).toBe('');
        // add with complex α, β: (2 − i)·A + (0.5 + 3i)·C0
        const S = await rt.add(new DenseMatrix(m, k, dt, A), new DenseMatrix(m, k, dt, C0.subarray(0, 2 * m * k)), { alpha: [2, -1], beta: [0.5, 3] });
        for (let e = 0; e < m * k; e++) {
          const [xr, xi, yr, yi] = [A[2 * e], A[2 * e + 1], C0[2 * e], C0[2 * e + 1]];
          const re = 2 * xr + xi + 0.5 * yr - 3 * yi, im = 2 * xi - xr + 0.5 * yi + 3 * yr;
          const tol = 16 * U[part(dt)] * (abs2(xr, xi) + abs2(yr, yi)) * 4;
          if (!(Math.abs(S.values[2 * e] - re) <= tol && Math.abs(S.values[2 * e + 1] - im) <= tol)) throw new Error(`rt.add ${dt} element ${e}`);
        }
      }
    } finally {
      rt.dispose();
    }
  });
});
