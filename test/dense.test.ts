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

/** f64 reference C = α·A·B + β·C0 (β = 0 ignores C0) and the error bound per element. */
function refGemm(m: number, n: number, k: number, A: ArrayLike<number>, lda: number, B: ArrayLike<number>, ldb: number, C0: ArrayLike<number>, ldc: number, alpha: number, beta: number) {
  const ref = new Float64Array(m * n);
  const mag = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      let t = 0;
      if (alpha !== 0)
        for (let p = 0; p < k; p++) {
          s += A[i * lda + p] * B[p * ldb + j];
          t += Math.abs(A[i * lda + p] * B[p * ldb + j]);
        }
      const c = beta === 0 ? 0 : beta * C0[i * ldc + j];
      ref[i * n + j] = alpha * s + c;
      mag[i * n + j] = Math.abs(alpha) * t + Math.abs(c);
    }
  return { ref, mag };
}

/** Checks C (stride ldc) against the reference, element by element, within (k+4)·u·magnitude. */
function expectGemm(dt: Real, C: ArrayLike<number>, ldc: number, m: number, n: number, k: number, r: { ref: Float64Array; mag: Float64Array }, what: string): void {
  let bad = '';
  for (let i = 0; i < m && !bad; i++)
    for (let j = 0; j < n; j++) {
      const got = C[i * ldc + j];
      const want = r.ref[i * n + j];
      const tol = 2 * (k + 4) * U[dt] * r.mag[i * n + j] + 1e-300;
      if (!(Math.abs(got - want) <= tol)) {
        bad = `${what}: C[${i}][${j}] = ${got}, expected ${want} ± ${tol}`;
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
  [1000, 3, 1000],
  [64, 64, 64],
  [257, 129, 131],
  [21, 300, 9],
  [5, 0, 6],
];
const SCALARS: [number, number, string][] = [
  [1, 0, 'α=1 β=0 (NaN in C)'],
  [2.5, -0.5, 'α=2.5 β=-0.5'],
  [0, 1.5, 'α=0 β=1.5 (NaN in A, B)'],
  [-1, 1, 'α=-1 β=1'],
];

const flavors = ['simd', 'plain'] as const;
const harness = new Map<string, Harness>();
beforeAll(async () => {
  for (const f of flavors) harness.set(f, await makeHarness(f));
});

describe('gemm kernels (raw calls, both builds)', () => {
  for (const f of flavors)
    for (const dt of ['f32', 'f64'] as Real[])
      for (const [m, k, n] of SHAPES)
        it(`${f} ${dt} ${m}×${k} · ${k}×${n}`, () => {
          const h = harness.get(f)!;
          const K = h.kernels;
          const size = dt === 'f32' ? 4 : 8;
          const NR = 32 / size;
          // padded leading dimensions on one case, to check strides and that padding is left alone
          const pad = m === 7 ? 3 : 0;
          const lda = k + pad, ldb = n + pad, ldc = n + pad;
          const A = rand(dt, m * lda, 1 + m), B = rand(dt, Math.max(k, 1) * ldb, 2 + n), C0 = rand(dt, m * ldc, 3 + k);
          const a = h.put(A), b = h.put(B);
          const packed = h.zeros(Math.max(k, 1) * Math.ceil(n / NR) * 32);
          try {
            K[`gemm_pack_${dt}`](b.ptr, packed.ptr, n, k, ldb, 0, k);
            for (const [alpha, beta, label] of SCALARS) {
              const Cin = C0.slice();
              if (beta === 0) Cin.fill(NaN);
              const Ain = alpha === 0 ? A.map(() => NaN) : A;
              const r = refGemm(m, n, k, A, lda, B, ldb, C0, ldc, alpha, beta);
              const aN = alpha === 0 ? h.put(Ain) : a;
              const bN = alpha === 0 ? h.put(B.map(() => NaN)) : b;
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
                    if (kind === 'gemm') K[`gemm_${dt}`](aN.ptr, bN.ptr, c.ptr, m, n, k, lda, ldb, ldc, alpha, beta, sp[s], sp[s + 1]);
                    else if (kind === 'naive') K[`gemm_naive_${dt}`](aN.ptr, bN.ptr, c.ptr, m, n, k, lda, ldb, ldc, alpha, beta, sp[s], sp[s + 1]);
                    else K[`gemm_packed_${dt}`](aN.ptr, packed.ptr, c.ptr, m, n, k, lda, ldc, alpha, beta, sp[s], sp[s + 1]);
                  }
                  const out = h.get(c, dt) as Float32Array | Float64Array;
                  c.dispose();
                  expectGemm(dt, out, ldc, m, n, k, r, `${kind} ${label} rows ${sp.join(',')}`);
                  for (let i = 0; i < m; i++)
                    for (let j = n; j < ldc; j++) if (!Object.is(out[i * ldc + j], Cin[i * ldc + j])) throw new Error(`${kind}: padding of C row ${i} written`);
                  results.push(out);
                }
                // a row split never changes a result: each element's summation order is fixed
                expect(sameBits(results[results.length - 1], results[results.length - 2])).toBe(true);
              }
              if (alpha === 0) {
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
    for (const dt of ['f32', 'f64', 'c64'] as const)
      it(`${f} ${dt}`, () => {
        const h = harness.get(f)!;
        const cplx = dt === 'c64';
        const comp = cplx ? 2 : 1;
        const u = dt === 'f64' ? U.f64 : U.f32;
        const cases: [[number, number], [number, number]][] = cplx
          ? [[[1, 0], [0, 0]], [[0.5, -2], [1.5, 0.25]], [[0, 0], [-1, 3]], [[0, 0], [0, 0]]]
          : [[[1, 0], [0, 0]], [[2.5, 0], [-0.5, 0]], [[0, 0], [1.5, 0]], [[0, 0], [0, 0]]];
        for (const [rows, cols] of [[1, 1], [1, 7], [7, 1], [13, 11], [64, 64], [100, 33]]) {
          const len = rows * cols * comp;
          for (const [al, be] of cases) {
            const A = rand(dt, len, rows + 7 * cols), B = rand(dt, len, rows * 3 + cols);
            const useA = al[0] !== 0 || al[1] !== 0, useB = be[0] !== 0 || be[1] !== 0;
            const a = h.put(useA ? A : A.map(() => NaN)), b = h.put(useB ? B : B.map(() => NaN));
            const c = h.put(arr(dt, len).fill(NaN));
            const args = cplx ? [...al, ...be] : [al[0], be[0]];
            const mid = Math.floor(rows / 2);
            h.kernels[`add_${dt}`](a.ptr, b.ptr, c.ptr, cols, ...args, 0, mid);
            h.kernels[`add_${dt}`](a.ptr, b.ptr, c.ptr, cols, ...args, mid, rows);
            const C = h.get(c, dt === 'f64' ? 'f64' : 'f32');
            for (let e = 0; e < rows * cols; e++) {
              let re: number, im = 0, mag: number;
              if (cplx) {
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
              if (!(Math.abs(C[e * comp] - re) <= tol) || (cplx && !(Math.abs(C[e * comp + 1] - im) <= tol))) {
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

describe('through the pool (src/cpu/dense.ts) on 1, 2, 3 threads', () => {
  const THREADS = [1, 2, 3];
  const runtimes = new Map<number, Runtime>();
  beforeAll(async () => {
    for (const t of THREADS) runtimes.set(t, await createRuntime({ workers: t, inlineThreshold: 0 }));
  });
  afterAll(() => runtimes.forEach((rt) => rt.dispose()));

  /** Uploads values into a fresh resident vector; returns it and its DenseRegion for rows×cols. */
  function resident(B: CpuBackend, dt: Real | 'c64', values: Float32Array | Float64Array, rows: number, cols: number) {
    const v = B.vector(dt, values.length / (dt === 'c64' ? 2 : 1) || 1);
    v.view().set(values);
    return { v, R: { ptr: v.ptr, rows, cols } };
  }

  for (const dt of ['f32', 'f64'] as Real[])
    it(`gemm ${dt}: every shape and α/β, results identical for any thread count`, async () => {
      for (const [m, k, n] of SHAPES) {
        const A = rand(dt, m * k, 11 + m), Bv = rand(dt, k * n, 12 + n), C0 = rand(dt, m * n, 13 + k);
        for (const [alpha, beta, label] of SCALARS) {
          const r = refGemm(m, n, k, A, k, Bv, n, C0, n, alpha, beta);
          let first: Float32Array | Float64Array | null = null;
          for (const t of THREADS) {
            const B = runtimes.get(t)!.cpuBackend;
            expect(B.threads).toBe(t);
            const a = resident(B, dt, alpha === 0 ? A.map(() => NaN) : A, m, k);
            const b = resident(B, dt, alpha === 0 ? Bv.map(() => NaN) : Bv, k, n);
            const c = resident(B, dt, beta === 0 ? C0.map(() => NaN) : C0, m, n);
            await gemm(B, dt, a.R, b.R, c.R, alpha, beta);
            const out = c.v.view().slice();
            expectGemm(dt, out, n, m, n, k, r, `${m}×${k}·${k}×${n} ${label} t=${t}`);
            if (first) expect(sameBits(out, first), `t=${t} differs from t=1`).toBe(true);
            else first = out;
            if (m * n * k <= 1e6) {
              const cn = resident(B, dt, beta === 0 ? C0.map(() => NaN) : C0, m, n);
              await gemmNaive(B, dt, a.R, b.R, cn.R, alpha, beta);
              expectGemm(dt, cn.v.view(), n, m, n, k, r, `naive ${label} t=${t}`);
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
    for (const t of THREADS) {
      const B = runtimes.get(t)!.cpuBackend;
      for (const dt of ['f32', 'f64', 'c64'] as const) {
        const comp = dt === 'c64' ? 2 : 1;
        for (const [r, c] of [[1, 1], [257, 129], [129, 257], [1000, 3], [3, 1000], [64, 64]]) {
          const A = rand(dt, r * c * comp, r + c + t);
          const a = resident(B, dt, A, r, c);
          const b = resident(B, dt, arr(dt, r * c * comp).fill(NaN), c, r);
          await transpose(B, dt, r, c, a.v.ptr, b.v.ptr);
          expect(transposeMismatch(A, b.v.view(), r, c, comp), `${dt} ${r}×${c} t=${t}`).toBe('');
          // add: C = 2·A − Aᵀᵀ = A (via aliasing C = B input)
          const back = resident(B, dt, arr(dt, r * c * comp), r, c);
          await transpose(B, dt, c, r, b.v.ptr, back.v.ptr);
          await add(B, dt, r, c, a.v.ptr, back.v.ptr, back.v.ptr, 2, -1);
          expect(sameBits(back.v.view(), A)).toBe(true);
          a.v.dispose();
          b.v.dispose();
          back.v.dispose();
        }
      }
    }
  });

  it('shape and dtype errors', async () => {
    const B = runtimes.get(1)!.cpuBackend;
    const R = (rows: number, cols: number) => ({ ptr: 0, rows, cols });
    await expect(gemm(B, 'f32', R(2, 3), R(4, 2), R(2, 2), 1, 0)).rejects.toBeInstanceOf(ShapeError);
    await expect(gemm(B, 'f32', R(2, 3), R(3, 2), R(2, 3), 1, 0)).rejects.toBeInstanceOf(ShapeError);
    await expect(gemm(B, 'c64', R(2, 3), R(3, 2), R(2, 2), 1, 0)).rejects.toBeInstanceOf(UnsupportedError);
    await expect(transpose(B, 'c128', 2, 2, 0, 0)).rejects.toBeInstanceOf(UnsupportedError);
    await expect(add(B, 'f32', 2, 2, 0, 0, 0, [1, 1], 0)).rejects.toBeInstanceOf(UnsupportedError);
  });
});
