/**
 * The pool's scans of a sparse product's set-up (src/cpu/scan.ts, assembly/scan.ts; called through
 * src/cpu/row-pointers.ts as the products call them): the longest row, a product's row pointers and
 * multiply-adds before each row, a transpose's column starts — two passes over claimed chunks —
 * against plain JavaScript prefix sums and maxima, on 1, 2, 3 and 7 threads, at sizes on both sides of
 * the pool's floor and of chunk edges (the longest row or a large count in the first, last or a middle
 * row; empty rows; counts whose sum passes 2³¹ − 1, where the pointers wrap). Past the floor on several
 * threads the pool passes run (checked), else the one-thread kernels.
 */
import { describe, expect, it } from 'vitest';
import { runtimesByThreads, THREADS } from './runtimes-by-threads.js';
import { longestRow, rowPointers } from '../src/cpu/row-pointers.js';
import type { CpuBackend } from '../src/cpu/backend.js';
import { firstDifference } from './same-hierarchy.js';
import { mulberry32 } from './random.js';

const rts = runtimesByThreads({ backend: 'cpu' });

/** Row sizes: mostly 0–9 (a fifth empty), with `big` at row `at` (−1: none). */
function sizes(m: number, seed: number, at = -1, big = 0): Int32Array {
  const rnd = mulberry32(seed);
  const s = Int32Array.from({ length: m }, () => (rnd() < 0.2 ? 0 : Math.floor(rnd() * 10)));
  if (at >= 0) s[at] = big;
  return s;
}

/** rows of each case: under the floor (one thread's kernels), at it, past it by a row and a prime number */
const ROWS = [1, 1000, 65535, 65536, 65537, 100_003];
const FLOOR = 65536;

/** Whether the pool's scans run for n rows on B's t threads (the chunk loaded with a pool: checked). */
function onPool(B: CpuBackend, n: number, t: number): boolean {
  if (t > 1) expect(B.poolScans, 'the scans loaded with a pool').toBeDefined();
  return t > 1 && n >= FLOOR;
}

/** A region of `bytes` on B, given to f and freed after. */
function withRegion<T>(B: CpuBackend, bytes: number, f: (ptr: number) => T): T {
  const r = B.heap.alloc(bytes);
  try {
    return f(r.ptr);
  } finally {
    r.dispose();
  }
}

describe('longestRow', () => {
  for (const t of THREADS) {
    it(`${t} thread(s): the longest of the rows, wherever it is`, () => {
      const B = rts.get(t)!.cpuBackend;
      for (const m of ROWS) {
        for (const at of [-1, 0, m >> 1, m - 1]) {
          const s = sizes(m, m + at, at, 1000);
          const ptr = new Int32Array(m + 1);
          for (let i = 0; i < m; i++) ptr[i + 1] = ptr[i] + s[i];
          const got = withRegion(B, 4 * (m + 1), (p) => {
            new Int32Array(B.heap.memory.buffer, p, m + 1).set(ptr);
            expect(B.poolScans?.longestRow(B, p, m) !== undefined, `${m} rows on the pool`).toBe(onPool(B, m, t));
            return longestRow(B, p, m);
          });
          expect(got, `${m} rows, long row at ${at}`).toBe(Math.max(...s));
        }
      }
    });
  }
});

describe('productPointers', () => {
  for (const t of THREADS) {
    it(`${t} thread(s): row pointers and multiply-adds before each row as plain prefix sums; with fl 0 the pointers alone`, () => {
      const B = rts.get(t)!.cpuBackend;
      for (const m of ROWS) {
        for (const [at, big] of [[-1, 0], [0, 1 << 30], [m >> 1, 1 << 30], [m - 1, 0x7fffffff]]) {
          const counts = sizes(m, 3 * m + at, at, big);
          const flops = Float64Array.from(sizes(m, 5 * m + at, at, 2 ** 40 - 1));
          // the references: exact sums, the pointers as i32 (wrapped past 2³¹ − 1)
          const ptr = new Int32Array(m + 1);
          const before = new Float64Array(m + 1);
          let total = 0;
          for (let i = 0; i < m; i++) {
            total += counts[i];
            ptr[i + 1] = total | 0;
            before[i + 1] = before[i] + flops[i];
          }
          for (const withFlops of [true, false]) {
            withRegion(B, 4 * (m + 1), (cp) =>
              withRegion(B, 8 * (m + 1), (fl) => {
                const mem = B.heap.memory.buffer;
                const cv = new Int32Array(mem, cp, m + 1);
                cv[0] = -99; // the kernels write cp[0]
                cv.set(counts, 1);
                const fv = new Float64Array(mem, fl, m + 1);
                fv.set(flops);
                fv[m] = -1;
                // the pool's passes themselves where they run (undefined would fail), else the products' call
                const nnz = onPool(B, m, t) ? B.poolScans!.productPointers(B, cp, withFlops ? fl : 0, m) : rowPointers(B, cp, m, withFlops ? fl : 0);
                const what = `${m} rows, large row at ${at} (${big}), ${withFlops ? 'with' : 'without'} multiply-adds`;
                expect(nnz, what).toBe(total);
                expect(firstDifference(new Int32Array(mem, cp, m + 1), ptr), `${what}: pointers`).toBeNull();
                if (withFlops) expect(firstDifference(new Float64Array(mem, fl, m + 1), before), `${what}: multiply-adds before`).toBeNull();
                else expect(firstDifference(new Float64Array(mem, fl, m + 1).subarray(0, m), flops), `${what}: fl untouched`).toBeNull();
              }),
            );
          }
        }
      }
    });
  }
});

describe('transposeStarts', () => {
  for (const t of THREADS) {
    it(`${t} thread(s): each count array to its chunk's first position in each column, the row pointers, as the one-thread kernel's definition`, () => {
      const B = rts.get(t)!.cpuBackend;
      for (const n of ROWS) {
        for (const chunks of [1, 3]) {
          const counts = Array.from({ length: chunks }, (_, c) => sizes(n, 7 * n + c, c === chunks - 1 ? n - 1 : 0, 500));
          // the reference: columns in order, within a column the chunks in order
          const starts = counts.map(() => new Int32Array(n));
          const tp = new Int32Array(n + 1);
          let at = 0;
          for (let j = 0; j < n; j++) {
            tp[j] = at;
            for (let c = 0; c < chunks; c++) {
              starts[c][j] = at;
              at += counts[c][j];
            }
          }
          tp[n] = at;
          const regions = counts.map(() => B.heap.alloc(4 * n));
          try {
            withRegion(B, 16 * chunks, (slots) =>
              withRegion(B, 4 * (n + 1), (tpp) => {
                const mem = B.heap.memory.buffer;
                regions.forEach((r, c) => {
                  new Int32Array(mem, slots + 16 * c, 1)[0] = r.ptr;
                  r.view('i32', n).set(counts[c]);
                });
                new Int32Array(mem, tpp, n + 1).fill(-7);
                const pooled = B.poolScans?.transposeStarts(B, slots, chunks, n, tpp, at);
                expect(!!pooled, `${n} columns on the pool`).toBe(onPool(B, n, t));
                if (!pooled) B.kernel('spgemm_transpose_offsets')(slots, chunks, n, tpp);
                const what = `${n} columns, ${chunks} count arrays`;
                expect(firstDifference(new Int32Array(mem, tpp, n + 1), tp), `${what}: row pointers`).toBeNull();
                regions.forEach((r, c) => expect(firstDifference(r.view('i32', n), starts[c]), `${what}: chunk ${c}'s starts`).toBeNull());
              }),
            );
          } finally {
            for (const r of regions) r.dispose();
          }
        }
      }
    });
  }
});
