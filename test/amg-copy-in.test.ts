/**
 * The AMG setup's copy of A into the kernels' memory by the pool's threads (src/cpu/copy-in.ts), from
 * rt.upload's private CSR on SharedArrayBuffers (formats/owned.ts). The split of the arrays laid end to
 * end into chunks of 4-byte words is checked against plain JavaScript at every boundary (a chunk ending
 * inside an array, at its end, on an array of one word, on empty chunks); the pool's job on 1, 2 and 4
 * workers word for word (nothing written outside the destinations); and a hierarchy set up from such an
 * upload is the bits of one set up from the caller's own arrays on one thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/index.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { copyInOnPool, copyWords } from '../src/cpu/copy-in.js';
import { sameHierarchy, firstDifference } from './same-hierarchy.js';

/** a SharedArrayBuffer-backed array of `words` 4-byte words (f64 when even and `f64`), filled by a rule of `seed` */
function sharedArray(words: number, seed: number, f64 = false): Int32Array | Float64Array {
  if (f64 && words % 2 === 0) return fill(new Float64Array(new SharedArrayBuffer(4 * words)), (i) => seed * 1000 + i / 3);
  return fill(new Int32Array(new SharedArrayBuffer(4 * words)), (i) => seed * 1_000_000 + i);
}
function fill<T extends Int32Array | Float64Array>(a: T, f: (i: number) => number): T {
  for (let i = 0; i < a.length; i++) a[i] = f(i);
  return a;
}

/** The plain reference: word w of the sources laid end to end, as (source, word within it) */
function wordAt(sources: (Int32Array | Float64Array)[], w: number): [number, number] {
  for (let k = 0; k < sources.length; k++) {
    const n = sources[k].byteLength / 4;
    if (w < n) return [k, w];
    w -= n;
  }
  throw new Error('past the end');
}

/** memory of `bytes` filled with a sentinel, destinations placed with a gap of 12 bytes between them */
function layout(sources: (Int32Array | Float64Array)[]): { memory: Int32Array; to: number[] } {
  const to: number[] = [];
  let at = 16;
  for (const s of sources) {
    to.push(at);
    at += s.byteLength + 16;
  }
  return { memory: new Int32Array(new SharedArrayBuffer(at + 16)).fill(-7), to };
}

/** what copying words [s, e) must leave in `memory`: the reference written word by word */
function expected(sources: (Int32Array | Float64Array)[], to: number[], bytes: number, ranges: [number, number][]): Int32Array {
  const m = new Int32Array(bytes / 4).fill(-7);
  for (const [s, e] of ranges) {
    for (let w = s; w < e; w++) {
      const [k, i] = wordAt(sources, w);
      m[to[k] / 4 + i] = new Int32Array(sources[k].buffer, sources[k].byteOffset, sources[k].byteLength / 4)[i];
    }
  }
  return m;
}

describe('copyWords: words [start, end) of arrays laid end to end', () => {
  const shapes: [string, number[]][] = [
    ['three arrays as a CSR (pointers, columns, f64 values)', [9, 24, 48]],
    ['arrays of one word and empty ones between', [1, 0, 5, 1, 0, 2]],
    ['one array', [17]],
  ];
  for (const [name, words] of shapes) {
    it(`${name}: every chunk boundary, every range`, () => {
      const sources = words.map((w, k) => sharedArray(w, k + 1, k === 2));
      const total = words.reduce((a, b) => a + b, 0);
      for (let s = 0; s <= total; s++) {
        for (let e = s; e <= total; e++) {
          const { memory, to } = layout(sources);
          copyWords(memory.buffer, sources, to, s, e);
          expect(firstDifference(memory, expected(sources, to, memory.byteLength, [[s, e]])), `[${s}, ${e})`).toBeNull();
        }
      }
    });
  }
  it('views at an offset into their buffer (a subarray of a longer array)', () => {
    const whole = sharedArray(40, 3) as Int32Array;
    const sources = [whole.subarray(5, 12), whole.subarray(20, 39)];
    const { memory, to } = layout(sources);
    for (const [s, e] of [[0, 3], [3, 7], [7, 26]]) copyWords(memory.buffer, sources, to, s, e);
    expect(firstDifference(memory, expected(sources, to, memory.byteLength, [[0, 26]]))).toBeNull();
  });
});

describe('copyInOnPool: the pool copies shared arrays into its memory', () => {
  /** threads (the calling thread and 1, 2 and 4 workers) */
  const POOLS = [2, 3, 5];
  let rts: Runtime[];
  beforeAll(async () => {
    rts = await Promise.all(POOLS.map((workers) => createRuntime({ workers, backend: 'cpu' })));
  });
  afterAll(() => {
    for (const rt of rts) rt.dispose();
  });
  it('word for word on 1, 2 and 4 workers, chunks ending inside arrays and on short ones, nothing written around them', () => {
    for (const [k, rt] of rts.entries()) {
      const B = rt.cpuBackend;
      const pool = B.workerPool!;
      expect(pool, `${POOLS[k]} threads`).not.toBeNull();
      for (const words of [[3, 1, 2, 1, 1, 5], [4097, 100_003, 200_006], [pool.chunks]]) {
        const sources = words.map((w, j) => sharedArray(w, j + 7, j === 2));
        const bytes = sources.map((s) => s.byteLength + 32);
        const regions = bytes.map((b) => B.heap.alloc(b));
        try {
          for (const r of regions) r.view('i32').fill(-7);
          const items = sources.map((src, j) => ({ src, to: regions[j].ptr + 16 }));
          expect(copyInOnPool(pool, items), `${POOLS[k]} threads, ${words}`).toBe(true);
          sources.forEach((src, j) => {
            const got = regions[j].view('i32', bytes[j] / 4);
            const want = new Int32Array(bytes[j] / 4).fill(-7);
            want.set(new Int32Array(src.buffer, src.byteOffset, src.byteLength / 4), 4);
            expect(firstDifference(got, want), `${POOLS[k]} threads, ${words}, array ${j}`).toBeNull();
          });
        } finally {
          for (const r of regions) r.dispose();
        }
      }
      // fewer words than chunks: refused (some worker would have nothing to take its message in)
      if (pool.chunks > 1) expect(copyInOnPool(pool, [{ src: sharedArray(1, 1), to: 0 }])).toBe(false);
    }
  });
});

describe('an upload on SharedArrayBuffers: the same hierarchy as from the caller\'s arrays', () => {
  let rt: Runtime;
  let one: Runtime;
  beforeAll(async () => {
    [rt, one] = await Promise.all([createRuntime({ workers: 4, backend: 'cpu' }), createRuntime({ workers: 1, backend: 'cpu' })]);
  });
  afterAll(() => {
    rt.dispose();
    one.dispose();
  });
  const cases: [string, () => CSRMatrix][] = [
    ['poisson3D(48)', () => poisson3D(48)],
    ['jumping diffusion2D(400)', () => diffusion2D({ n: 400, coefficients: 'jumping' })],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const A = make();
      const h = rt.upload(A);
      const src = h.source as CSRMatrix;
      // the private copy's large arrays are shared, the same values as the caller's
      for (const part of ['colIdx', 'values'] as const) {
        expect(src[part].buffer instanceof SharedArrayBuffer, part).toBe(true);
        expect(firstDifference(src[part], A[part]), part).toBeNull();
      }
      const g = buildHierarchy(src, () => new CpuSparseSession(rt.cpuBackend));
      const f = buildHierarchy(A, () => new CpuSparseSession(one.cpuBackend));
      try {
        sameHierarchy(f, g, `${name}: upload's shared copy on 4 threads against the caller's arrays on 1 thread`);
      } finally {
        g.dispose();
        f.dispose();
      }
      // and through rt.amg: the same levels and CG iterations as on the one-thread runtime
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i / 7) + 1);
      const run = async (r: Runtime) => {
        const u = r.upload(A);
        const M = r.amg(u);
        const x = await r.cg(u, b, { preconditioner: M, tol: 1e-10 });
        const out = { levels: M.amg!.levels.map((L) => [L.rows, L.nnz]), iterations: x.iterations, x: Array.from(x.x as Float64Array) };
        M.dispose();
        u.dispose();
        return out;
      };
      const [p, q] = [await run(rt), await run(one)];
      expect([p.levels, p.iterations]).toEqual([q.levels, q.iterations]);
      h.dispose();
    }, 120_000);
  }
});
