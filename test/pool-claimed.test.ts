/**
 * Claimed pool jobs (WorkerPool's PoolJob.claimed, CpuBackend.runClaimedSync): more chunks than threads,
 * taken one at a time by whichever thread is free, the calling thread too. Every chunk runs exactly
 * once, chunk edges anywhere (empty chunks, one-element chunks, the most chunks a job may have), a
 * reduction's partial lands at its chunk's place, a thread's workspace argument at that thread's,
 * whichever thread ran which chunk; and the AMG setup that splits its heaviest jobs this way gives the
 * same hierarchy on 1, 2 and 3 threads and on repeated runs, bit for bit.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { runtimesByThreads, THREADS } from './runtimes-by-threads.js';
import { poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/index.js';
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import { sameHierarchy } from './same-hierarchy.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { MAX_CHUNKS } from '../src/cpu/control.js';
import { claimedParts } from '../src/cpu/partition.js';
import { WorkerError } from '../src/cpu/pool.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { mulberry32 } from './random.js';

const rts = runtimesByThreads({ backend: 'cpu' });

/** Chunk edges over [0, n): `chunks` chunks, every 7th empty and the next of one element, the rest random, the last to n. */
function edges(n: number, chunks: number, seed: number): Int32Array {
  const rnd = mulberry32(seed);
  const b = new Int32Array(chunks + 1);
  for (let c = 0; c < chunks - 1; c++) b[c + 1] = Math.min(n, b[c] + (c % 7 === 0 ? 0 : c % 7 === 1 ? 1 : Math.floor((rnd() * 2 * n) / chunks)));
  b[chunks] = n;
  return b;
}

describe('claimed jobs on the pool', () => {
  const n = 50_001;
  for (const t of THREADS) {
    it(`${t} thread(s): every chunk once (y += α·x over ${MAX_CHUNKS}, ${claimedParts(t)}, 3 and 1 chunks), nothing outside the range`, () => {
      const B = rts.get(t)!.cpuBackend;
      for (const [chunks, seed] of [[MAX_CHUNKS, 1], [claimedParts(t), 2], [3, 3], [1, 4]]) {
        const bounds = edges(n, chunks, seed);
        const x = B.heap.alloc(8 * n);
        const y = B.heap.alloc(8 * (n + 2));
        try {
          const xv = x.view('f64', n);
          for (let i = 0; i < n; i++) xv[i] = 1 + (i % 97);
          const yv = y.view('f64', n + 2);
          yv.fill(0);
          yv[n + 1] = -7;
          // y + 1 element: a write before the range shows at yv[0], after it at yv[n + 1]
          B.runClaimedSync('axpy_f64', [x.ptr, y.ptr + 8, 0.5], bounds);
          const got = y.view('f64', n + 2);
          expect(got[0]).toBe(0);
          expect(got[n + 1]).toBe(-7);
          for (let i = 0; i < n; i++) if (got[i + 1] !== 0.5 * xv[i]) throw new Error(`${t} threads, ${chunks} chunks: y[${i}] = ${got[i + 1]}, not ${0.5 * xv[i]} (its chunk run ${got[i + 1] / (0.5 * xv[i])} times)`);
        } finally {
          x.dispose();
          y.dispose();
        }
      }
    });
  }

  it("a reduction's partials at their chunks' places (chunkArg), the inline run's bits; a workspace argument (threadArg) only at the threads' places", () => {
    const chunks = MAX_CHUNKS;
    const bounds = edges(n, chunks, 9);
    for (const t of THREADS) {
      const B = rts.get(t)!.cpuBackend;
      const x = B.heap.alloc(8 * n);
      const out = B.heap.alloc(16 * chunks);
      try {
        const rnd = mulberry32(5);
        const xv = x.view('f64', n);
        for (let i = 0; i < n; i++) xv[i] = rnd() * 2 - 1;
        const sentinel = -12345.5;
        out.view('f64', 2 * chunks).fill(sentinel);
        B.runClaimedSync('dot_f64', [x.ptr, x.ptr, out.ptr], bounds, 2);
        const parts = out.view('f64', 2 * chunks).slice();
        // each chunk's partial, computed alone on this thread
        const one = B.heap.alloc(16);
        try {
          for (let c = 0; c < chunks; c++) {
            if (bounds[c + 1] === bounds[c]) {
              expect(parts[2 * c], `empty chunk ${c}`).toBe(sentinel);
              continue;
            }
            one.view('f64', 2).fill(0);
            B.kernel('dot_f64')(x.ptr, x.ptr, one.ptr, bounds[c], bounds[c + 1]);
            expect(Object.is(parts[2 * c], one.view('f64', 2)[0]), `${t} threads, chunk ${c}`).toBe(true);
            let ref = 0;
            for (let i = bounds[c]; i < bounds[c + 1]; i++) ref += xv[i] * xv[i];
            expect(Math.abs(parts[2 * c] - ref)).toBeLessThanOrEqual(1e-12 * Math.max(1, ref));
          }
          // the same kernel with its output as a thread's workspace: only the first `threads` places written,
          // each with the partial of some chunk
          const all = new Set<number>();
          for (let c = 0; c < chunks; c++) if (bounds[c + 1] > bounds[c]) all.add(parts[2 * c]);
          out.view('f64', 2 * chunks).fill(sentinel);
          B.runClaimedSync('dot_f64', [x.ptr, x.ptr, out.ptr], bounds, undefined, 2);
          const ws = out.view('f64', 2 * chunks);
          for (let s = 0; s < chunks; s++) {
            if (s >= t) expect(ws[2 * s], `${t} threads: place ${s}`).toBe(sentinel);
            else if (ws[2 * s] !== sentinel) expect(all.has(ws[2 * s]), `${t} threads: place ${s} holds a chunk's partial`).toBe(true);
          }
          expect([...ws.subarray(0, 2 * t)].some((v, k) => k % 2 === 0 && v !== sentinel)).toBe(true);
        } finally {
          one.dispose();
        }
      } finally {
        x.dispose();
        out.dispose();
      }
    }
  });

  it('a worker that throws in a claimed job → WorkerError; the replaced pool runs the next one, every chunk once', async () => {
    const rt = await createRuntime({ workers: 3, backend: 'cpu' });
    try {
      const B = rt.cpuBackend;
      const m = 20_000;
      const bounds = edges(m, 40, 11);
      const x = B.heap.alloc(8 * m);
      const y = B.heap.alloc(8 * m);
      try {
        x.view('f64', m).fill(2);
        B.workerPool!.failNext(1, 'throw');
        expect(() => B.runClaimedSync('axpy_f64', [x.ptr, y.ptr, 1], bounds)).toThrow(WorkerError);
        // the replaced pool, once its workers are up (an operation on the pool waits for them)
        await rt.spmv(rt.upload(poisson3D(8)), new Float64Array(512));
        y.view('f64', m).fill(0);
        B.runClaimedSync('axpy_f64', [x.ptr, y.ptr, 1], bounds);
        expect(y.view('f64', m).every((v) => v === 2)).toBe(true);
      } finally {
        x.dispose();
        y.dispose();
      }
    } finally {
      rt.dispose();
    }
  });
});

describe("the AMG setup's claimed jobs (products, Lanczos, prolongator, aggregation's pass over rows): the same bits on 1, 2 and 3 threads and repeated", () => {
  const cases: [string, () => CSRMatrix][] = [
    // 262 144 rows: aggregation in 2 blocks
    ['poisson3D(64)', () => poisson3D(64)],
    ['jumping diffusion2D(150)', () => diffusion2D({ n: 150, coefficients: 'jumping' })],
  ];
  for (const [name, make] of cases) {
    it(name, () => {
      const A = make();
      const build = (t: number) => buildHierarchy(A, () => new CpuSparseSession(rts.get(t)!.cpuBackend));
      const one = build(1);
      try {
        for (const t of [2, 3, 3, 2]) {
          const h = build(t);
          try {
            sameHierarchy(one, h, `${name}, ${t} threads against 1`);
          } finally {
            h.dispose();
          }
        }
      } finally {
        one.dispose();
      }
    });
  }
});
