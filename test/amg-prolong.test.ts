import { describe, expect, it, vi } from 'vitest';
import { CSRMatrix, poisson3D, randomMatrix, type Runtime } from '../src/index.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { onePerRow } from '../src/cpu/prolong.js';
import { knownLongestRow } from '../src/formats/csr.js';
import { strengthAggregation } from '../src/solvers/amg/aggregate.js';
import { fitCandidates } from '../src/solvers/amg/tentative.js';
import { lanczosStart } from '../src/solvers/precond/chebyshev.js';
import { mulberry32 } from './random.js';
import { withRuntimes } from './cpu-setups.js';

/**
 * T + diag(s)·A·T written out: row i's columns in the order A's entries first reach them, each
 * summed from its first term ((sᵢ·aᵢⱼ)·tⱼₗ by A's entries and T's, then T's row i with weight 1),
 * then sorted: the order of sums the product promises, so the comparison is bit for bit.
 */
function reference(A: CSRMatrix, T: CSRMatrix, s: Float64Array): CSRMatrix {
  const ptr = new Int32Array(A.rows + 1);
  const idx: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    const row = new Map<number, number>();
    const add = (j: number, a: number) => {
      for (let l = T.rowPtr[j]; l < T.rowPtr[j + 1]; l++) {
        const c = T.colIdx[l];
        const p = a * T.values[l];
        row.set(c, row.has(c) ? row.get(c)! + p : p);
      }
    };
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) add(A.colIdx[k], s[i] * A.values[k]);
    add(i, 1);
    for (const c of [...row.keys()].sort((x, y) => x - y)) {
      idx.push(c);
      val.push(row.get(c)!);
    }
    ptr[i + 1] = idx.length;
  }
  return new CSRMatrix(A.rows, T.cols, 'f64', ptr, Int32Array.from(idx), Float64Array.from(val));
}

function sameBits(want: CSRMatrix, got: CSRMatrix, label: string): void {
  expect([got.rows, got.cols], label).toEqual([want.rows, want.cols]);
  for (const [a, b, what] of [
    [want.rowPtr, got.rowPtr, 'row pointers'],
    [want.colIdx, got.colIdx, 'columns'],
    [want.values, got.values, 'values'],
  ] as const) {
    expect(b.length, `${label}: ${what}`).toBe(a.length);
    for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) throw new Error(`${label}: ${what}[${k}] is ${b[k]}, the reference's ${a[k]}`);
  }
}

/** T with one entry a row: random columns of nc, values with zeros and −0 among them. */
function oneEntryT(n: number, nc: number, rnd: () => number): CSRMatrix {
  const pick = [0, -0, 1, -1.5];
  const values = Float64Array.from({ length: n }, () => (rnd() < 0.2 ? pick[Math.floor(rnd() * 4)] : rnd() * 2 - 1));
  return new CSRMatrix(n, nc, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, () => Math.floor(rnd() * nc)), values);
}

describe('AMG smoothed prolongator with one entry per row of T (src/cpu/prolong.ts)', () => {
  let rt1: Runtime;
  let rt2: Runtime;
  withRuntimes([1, 2], (made) => ([rt1, rt2] = made));

  const product = (rt: Runtime, A: CSRMatrix, T: CSRMatrix, s: Float64Array): CSRMatrix => {
    const session = new CpuSparseSession(rt.cpuBackend);
    try {
      return session.smoothedProlongator(A, T, s);
    } finally {
      session.dispose();
    }
  };

  it('random A (rows without a diagonal, empty, up to 80 long) and T: the reference bits on 1 and 2 threads, the general product where T has an empty row or A a row over 64', () => {
    const rnd = mulberry32(41);
    let taken = 0;
    for (let t = 0; t < 40; t++) {
      const n = 1 + Math.floor(rnd() * 300);
      const nc = 1 + Math.floor(rnd() * 40);
      const A = randomMatrix({ rows: n, cols: n, meanRowLength: t % 10 === 9 ? 70 : rnd() * 12, seed: 900 + t }).astype('f64');
      let T = oneEntryT(n, nc, rnd);
      if (t % 7 === 6) {
        // a row of T emptied: the general product
        const ptr = T.rowPtr.slice();
        const e = Math.floor(rnd() * n);
        for (let i = e + 1; i <= n; i++) ptr[i]--;
        T = new CSRMatrix(n, nc, 'f64', ptr, Int32Array.from([...T.colIdx].filter((_, k) => k !== e)), Float64Array.from([...T.values].filter((_, k) => k !== e)));
      }
      taken += onePerRow(A, T) ? 1 : 0;
      const s = Float64Array.from({ length: n }, () => -rnd());
      const want = reference(A, T, s);
      sameBits(want, product(rt1, A, T, s), `case ${t} (${n}×${nc}, 1 thread)`);
      sameBits(want, product(rt2, A, T, s), `case ${t} (2 threads)`);
    }
    // both ways were met
    expect(taken).toBeGreaterThan(20);
    expect(taken).toBeLessThan(40);
  });

  it('poisson3D(24) with the tentative prolongator of its aggregates (on the pool): the reference bits', () => {
    const A = poisson3D(24);
    const { agg, count } = strengthAggregation(A, 0.02);
    const { T } = fitCandidates(agg, count, 1, [Float64Array.from({ length: A.rows }, (_, i) => 1 + (i % 7) / 10)]);
    expect(onePerRow(A, T)).toBe(true);
    const s = Float64Array.from({ length: A.rows }, (_, i) => -(4 / 3) / (6 + (i % 3)));
    const want = reference(A, T, s);
    sameBits(want, product(rt2, A, T, s), 'poisson3D(24), 2 threads');
    sameBits(want, product(rt1, A, T, s), 'poisson3D(24), 1 thread');
  });

  it("smoothedTentative (T made in the kernels' memory) against fitCandidates then smoothedProlongator, bit for bit, on 1 and 2 threads: one entry a row, A's rows over 64 (the general product), b vanishing on an aggregate; undefined where a node is in no aggregate", () => {
    const rnd = mulberry32(77);
    const cases: { A: CSRMatrix; agg: Int32Array; count: number; label: string }[] = [];
    for (const [A, label] of [
      [poisson3D(24), 'poisson3D(24)'],
      [randomMatrix({ rows: 400, cols: 400, meanRowLength: 70, seed: 5 }).astype('f64'), 'rows over 64'],
    ] as const) {
      const agg = A.rows === 400 ? Int32Array.from({ length: 400 }, (_, i) => i % 37) : strengthAggregation(A, 0.02).agg;
      cases.push({ A, agg, count: Math.max(...agg) + 1, label });
    }
    let general = 0;
    for (const { A, agg, count, label } of cases) {
      const b = Float64Array.from({ length: A.rows }, () => rnd() * 2 - 1);
      // aggregate 3's b is zero: a zero column of T and a zero coarse candidate
      agg.forEach((a, i) => a === 3 && (b[i] = 0));
      const dinv = Float64Array.from({ length: A.rows }, () => 0.1 + rnd());
      const w = -4 / 3 / (1.5 + rnd());
      const fit = fitCandidates(agg, count, 1, [b]);
      general += onePerRow(A, fit.T) ? 0 : 1;
      const want = reference(A, fit.T, Float64Array.from(dinv, (d) => w * d));
      for (const rt of [rt1, rt2]) {
        const session = new CpuSparseSession(rt.cpuBackend);
        try {
          const got = session.smoothedTentative(A, agg, count, b, dinv, w);
          if (!got) throw new Error(`${label}: undefined`);
          sameBits(want, got.P, `${label}, ${rt === rt1 ? 1 : 2} threads`);
          expect(Array.from(got.coarse), label).toEqual(Array.from(fit.coarse[0]));
          expect(got.coarse[3], label).toBe(0);
        } finally {
          session.dispose();
        }
      }
    }
    expect(general).toBe(1);
    // a node in no aggregate: nothing made, the caller takes fitCandidates
    const { A, agg, count } = cases[0];
    const lone = agg.slice();
    lone[5] = -1;
    const session = new CpuSparseSession(rt2.cpuBackend);
    try {
      const before = rt2.memoryInUse;
      expect(session.smoothedTentative(A, lone, count, new Float64Array(A.rows).fill(1), new Float64Array(A.rows).fill(1), -1)).toBeUndefined();
      session.release(A);
      expect(rt2.memoryInUse).toBeLessThanOrEqual(before);
    } finally {
      session.dispose();
    }
  });

  it("the setup's chain in one session — the constant by ones(), smoothed in place, D⁻¹ and the aggregates read where the session made them (D⁻¹ copied on the pool) — gives the bits of the same calls on host copies, on 1 and 2 threads; longest rows recorded; its vectors freed by release and dispose", () => {
    // 19 683 rows (odd, over the pool floor): the pool's copies split unevenly
    const A = poisson3D(27);
    for (const rt of [rt1, rt2]) {
      const label = `${rt === rt1 ? 1 : 2} threads`;
      const before = rt.memoryInUse;
      const chain = new CpuSparseSession(rt.cpuBackend);
      const free = chain.retain();
      const host = new CpuSparseSession(rt.cpuBackend);
      try {
        const inPlace = rt.cpuBackend.heap.shared;
        const x = chain.ones(A.rows);
        expect(x.buffer instanceof ArrayBuffer, label).toBe(!inPlace);
        expect(Array.from(x).every((v) => v === 1), label).toBe(true);
        const xHost = new Float64Array(A.rows).fill(1);
        const spy = vi.spyOn(rt.cpuBackend, 'runChunksSync');
        chain.gaussSeidelOnZero(A, x, 2);
        host.gaussSeidelOnZero(A, xHost, 2);
        expect(Array.from(x), label).toEqual(Array.from(xHost));
        const { dinv } = chain.diagonal(A);
        const { agg, count } = chain.aggregate(A, 0.02);
        expect(Array.from(agg), label).toEqual(Array.from(strengthAggregation(A, 0.02).agg));
        const lanczos = chain.lanczosBounds(A, dinv, 15);
        expect(host.lanczosBounds(A, dinv.slice(), 15), label).toEqual(lanczos);
        const w = -4 / 3 / lanczos.max;
        const got = chain.smoothedTentative(A, agg, count, x, dinv, w)!;
        const want = host.smoothedTentative(A, agg.slice(), count, xHost.slice(), dinv.slice(), w)!;
        // with views: D⁻¹ for Lanczos and for the tentative prolongator's scale copied on the pool, x and agg read in place
        const copies = spy.mock.calls.filter(([k]) => String(k).startsWith('copy_')).map(([k]) => k);
        spy.mockRestore();
        expect(copies, label).toEqual(inPlace ? ['copy_f64', 'copy_f64'] : []);
        sameBits(want.P, got.P, label);
        expect(Array.from(got.coarse), label).toEqual(Array.from(want.coarse));
        // the vectors handed in and out unchanged by the kernels that read them
        expect(Array.from(x), label).toEqual(Array.from(xHost));
        expect(Array.from(agg), label).toEqual(Array.from(strengthAggregation(A, 0.02).agg));
        // the products' longest rows, recorded for the WebGPU kernel choice, are theirs
        const R = chain.transpose(got.P);
        for (const M of [got.P, R]) {
          let longest = 0;
          for (let i = 0; i < M.rows; i++) longest = Math.max(longest, M.rowPtr[i + 1] - M.rowPtr[i]);
          expect(knownLongestRow(M), label).toBe(longest);
        }
        const held = rt.memoryInUse;
        chain.release(x);
        chain.release(agg);
        if (inPlace) expect(rt.memoryInUse, label).toBeLessThan(held);
      } finally {
        host.dispose();
        chain.dispose();
        free();
      }
      expect(rt.memoryInUse, label).toBe(before);
    }
  });

  it("lanczosBounds' start vector by its kernel: lanczosStart's values and sum of squares, bit for bit", () => {
    const heap = rt2.cpuBackend.heap;
    for (const n of [1, 2, 1000, 100003]) {
      const want = new Float64Array(n);
      const ss = lanczosStart(want);
      const r = heap.alloc(8 * n);
      try {
        expect(rt2.cpuBackend.kernel('lanczos_start')(r.ptr, n)).toBe(ss);
        expect(Array.from(r.view('f64', n))).toEqual(Array.from(want));
      } finally {
        r.dispose();
      }
    }
  });
});
