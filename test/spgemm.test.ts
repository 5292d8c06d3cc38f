import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, CSRMatrix, DisposedError, FormatError, InputTypeError, OptionError, ShapeError, MemoryLimitError, WorkerError, poisson2D, poisson3D, randomMatrix, type Runtime } from '../src/index.js';
import { spgemm } from '../src/solvers/amg/spgemm.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { testHooks } from '../src/cpu/spgemm-fresh.js';
import { FRESH } from '../src/cpu/control.js';
import { ARRAY_F32, ARRAY_F64, ARRAY_I32, type OutArray, type OutSpec } from '../src/cpu/copy-out.js';
import type { CpuBackend } from '../src/cpu/backend.js';
import { lanczosBounds } from '../src/solvers/precond/chebyshev.js';
import { strengthAggregation } from '../src/solvers/amg/aggregate.js';
import { fitCandidates } from '../src/solvers/amg/tentative.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { csrTriplets } from './reference.js';
import { mulberry32 } from './random.js';

/**
 * The reference: row i of A·B as a dense row of B.cols entries, Σₖ A[i,k]·B[k,:] from the operands'
 * triplets, in f64 (complex as pairs), with the structural pattern (every column some product reaches).
 * Then the whole dense row is compared with ours, so a missing, extra or misplaced entry fails.
 */
function checkProduct(A: CSRMatrix, B: CSRMatrix, C: CSRMatrix, label: string): void {
  expect([C.rows, C.cols], label).toEqual([A.rows, B.cols]);
  expect(C.isCanonical(), `${label}: canonical`).toBe(true);
  const ta = csrTriplets(A);
  const tb = csrTriplets(B);
  const ca = ta.complex ? 2 : 1;
  const cb = tb.complex ? 2 : 1;
  const byRowB: number[][] = Array.from({ length: B.rows }, () => []);
  for (let e = 0; e < tb.rowIdx.length; e++) byRowB[tb.rowIdx[e]].push(e);
  const byRowA: number[][] = Array.from({ length: A.rows }, () => []);
  for (let e = 0; e < ta.rowIdx.length; e++) byRowA[ta.rowIdx[e]].push(e);
  const n = B.cols;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const mag = new Float64Array(n);
  const hit = new Uint8Array(n);
  const cc = C.dtype === 'c64' || C.dtype === 'c128' ? 2 : 1;
  const eps = C.dtype === 'f32' || C.dtype === 'c64' ? 1e-5 : 1e-13;
  for (let i = 0; i < A.rows; i++) {
    const touched: number[] = [];
    for (const ea of byRowA[i]) {
      const k = ta.colIdx[ea];
      const [ar, ai] = [ta.values[ca * ea], ca === 2 ? ta.values[2 * ea + 1] : 0];
      for (const eb of byRowB[k]) {
        const j = tb.colIdx[eb];
        const [br, bi] = [tb.values[cb * eb], cb === 2 ? tb.values[2 * eb + 1] : 0];
        if (!hit[j]) touched.push(j);
        re[j] += ar * br - ai * bi;
        im[j] += ar * bi + ai * br;
        mag[j] += Math.hypot(ar, ai) * Math.hypot(br, bi);
        hit[j] = 1;
      }
    }
    // every stored entry is one the reference reaches, once, with its value; as many as it reaches
    if (C.rowPtr[i + 1] - C.rowPtr[i] !== touched.length) throw new Error(`${label}: row ${i} has ${C.rowPtr[i + 1] - C.rowPtr[i]} entries, the reference reaches ${touched.length}`);
    for (let k = C.rowPtr[i]; k < C.rowPtr[i + 1]; k++) {
      const j = C.colIdx[k];
      if (hit[j] !== 1) throw new Error(`${label}: C[${i},${j}] stored ${hit[j] ? 'twice' : 'but no product reaches it'}`);
      hit[j] = 2;
      const [cr, ci] = [C.values[cc * k], cc === 2 ? C.values[2 * k + 1] : 0];
      if (!(Math.hypot(cr - re[j], ci - im[j]) <= eps * mag[j])) throw new Error(`${label}: C[${i},${j}] = ${cr}+${ci}i, reference ${re[j]}+${im[j]}i`);
    }
    for (const j of touched) re[j] = im[j] = mag[j] = hit[j] = 0;
  }
}

/** The same product on one thread (the kernel inline) and on two (the pool): rows are independent, so the same bits. */
function sameBits(C1: CSRMatrix, C2: CSRMatrix, label: string): void {
  expect(C2.dtype, label).toBe(C1.dtype);
  // a loop, not toEqual: products reach millions of entries
  for (const [a, b, what] of [
    [C1.rowPtr, C2.rowPtr, 'row pointers'],
    [C1.colIdx, C2.colIdx, 'columns'],
    [C1.values, C2.values, 'values'],
  ] as const) {
    expect(b.length, `${label}: ${what}`).toBe(a.length);
    for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) throw new Error(`${label}: ${what}[${k}] is ${b[k]} on 2 threads, ${a[k]} on 1`);
  }
}

/**
 * A·B in the kernels' plain order, in f64: each row's products in A's then B's order, a column's first
 * product stored, the others added, the columns sorted — the bits the product must have however it
 * takes a row (in full, from the row before or from a replay record).
 */
function plainOrder(A: CSRMatrix, B: CSRMatrix): CSRMatrix {
  const acc = new Float64Array(B.cols);
  const seen = new Int32Array(B.cols).fill(-1);
  const [ptr, cols, vals] = [[0], [] as number[], [] as number[]];
  for (let i = 0; i < A.rows; i++) {
    const row: number[] = [];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      for (let l = B.rowPtr[j]; l < B.rowPtr[j + 1]; l++) {
        const [c, p] = [B.colIdx[l], A.values[k] * B.values[l]];
        if (seen[c] !== i) {
          seen[c] = i;
          acc[c] = p;
          row.push(c);
        } else acc[c] += p;
      }
    }
    row.sort((x, y) => x - y);
    for (const c of row) {
      cols.push(c);
      vals.push(acc[c]);
    }
    ptr.push(cols.length);
  }
  return new CSRMatrix(A.rows, B.cols, 'f64', Int32Array.from(ptr), Int32Array.from(cols), Float64Array.from(vals));
}

describe('spgemm', () => {
  let rt1: Runtime;
  let rt2: Runtime;
  /** how many jobs ran on rt2's pool (runSync returned true) */
  let pooled = 0;
  beforeAll(async () => {
    rt1 = await createRuntime({ workers: 1 });
    rt2 = await createRuntime({ workers: 2 });
    const pool = rt2.cpuBackend.workerPool!;
    const runSync = pool.runSync.bind(pool);
    vi.spyOn(pool, 'runSync').mockImplementation((job, inline) => {
      const ran = runSync(job, inline);
      if (ran) pooled++;
      return ran;
    });
  });
  afterAll(() => {
    rt1.dispose();
    rt2.dispose();
  });

  /** rt2's product checked against the reference, and rt1's against rt2's bits */
  function both(A: CSRMatrix, B: CSRMatrix, label: string): CSRMatrix {
    const C = rt2.spgemm(A, B);
    checkProduct(A, B, C, label);
    sameBits(rt1.spgemm(A, B), C, `${label} (1 thread vs 2)`);
    return C;
  }

  for (const name of sharedMatrixNames()) {
    it(`${name}: A·A when square, A·Aᵀ always`, () => {
      const A = loadShared(name);
      const T = A.transpose();
      if (A.rows === A.cols) both(A, A, `${name} A·A`);
      both(A, T, `${name} A·Aᵀ`);
    });
  }

  it("rows of a repeated structure (a stencil's, replayed from the last row computed in full) have the bits of the plain order of sums: random values, exact zeros, −0, and rows whose structure breaks late", () => {
    // a banded stencil [−w, −1, 0, 1, w]; every 7th row also reaches +2 (its B row differs from its
    // neighbours' in the last column), every 11th lacks −w (its A row differs); values random with
    // zeros and −0 among them, so sums cancel and signed zeros show
    const [m, w] = [6000, 40];
    const r = mulberry32(2711);
    const rowPtr = [0];
    const colIdx: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < m; i++) {
      const offsets = [-w, -1, 0, 1, ...(i % 7 === 3 ? [2] : []), w].filter((o) => !(o === -w && i % 11 === 5));
      for (const o of offsets) {
        if (i + o < 0 || i + o >= m) continue;
        colIdx.push(i + o);
        const u = r();
        values.push(u < 0.05 ? 0 : u < 0.1 ? -0 : u < 0.15 ? 1 : Math.round((u - 0.5) * 16) / 4);
      }
      rowPtr.push(colIdx.length);
    }
    const A = new CSRMatrix(m, m, 'f64', Int32Array.from(rowPtr), Int32Array.from(colIdx), Float64Array.from(values));
    expect(A.nnz).toBeGreaterThan(16384); // on the pool (rt2) as well as inline (rt1)
    sameBits(plainOrder(A, A), both(A, A, 'stencil A·A'), 'stencil A·A against the plain order');
  });

  it("rows taken from the row before (A's row and each row of B it reaches that row's shifted: spgemm_shifts) or from one of 8 replay records: the plain order's bits, A ≠ B, rectangular, structures that cycle within and past 8 per period, rows of B that break late or are empty, host form, handles, into out; 1, 2 and 3 threads (B's flags split with A's rows)", async () => {
    // A (m×k) and B (k×n) banded, each row its band's offsets shifted, but for rows whose index mod a
    // period breaks the shift: an extra column (A: in the middle; B: after its last), a column dropped,
    // an empty row of B; periods 5 (5 structures a cycle: fewer than the 8 records), 12 (more) and 7 and 9
    // (A's and B's: 63)
    const band = (rows: number, cols: number, offsets: number[], breaks: (i: number) => number[] | null, r: () => number): CSRMatrix => {
      const [ptr, idx, val] = [[0], [] as number[], [] as number[]];
      for (let i = 0; i < rows; i++) {
        for (const o of breaks(i) ?? offsets) {
          if (i + o < 0 || i + o >= cols) continue;
          idx.push(i + o);
          const u = r();
          val.push(u < 0.05 ? 0 : u < 0.08 ? -0 : Math.round((u - 0.5) * 64) / 8);
        }
        ptr.push(idx.length);
      }
      return new CSRMatrix(rows, cols, 'f64', Int32Array.from(ptr), Int32Array.from(idx), Float64Array.from(val));
    };
    const r = mulberry32(9041);
    const rt3 = await createRuntime({ workers: 3 });
    for (const [period, periodB, m, k, n] of [
      [5, 5, 5000, 5000, 5000],
      [12, 12, 5200, 4700, 6100],
      [7, 9, 4100, 5300, 3900],
    ]) {
      const A = band(m, k, [-30, -1, 0, 2, 30], (i) => (i % period === 1 ? [-30, -1, 0, 1, 2, 30] : i % period === 3 ? [-30, 0, 2, 30] : i % 97 === 50 ? [-1, 0] : null), r);
      const B = band(k, n, [-3, 0, 1, 4], (i) => (i % periodB === 2 ? [-3, 0, 1, 4, 9] : i % 61 === 7 ? [] : i % 43 === 11 ? [-3, 0, 1, 5] : null), r);
      const label = `period ${period}, ${m}×${k} · ${k}×${n}`;
      expect(A.nnz, label).toBeGreaterThan(16384);
      const want = plainOrder(A, B);
      sameBits(want, both(A, B, label), `${label} against the plain order`);
      const [hA, hB] = [rt2.upload(A), rt2.upload(B)];
      const H = rt2.spgemm(hA, hB);
      sameBits(want, H.toCSR(), `${label}, handles`);
      for (const h of [H, hA, hB]) h.dispose();
      const out = rt2.spgemm(A, B);
      out.colIdx.fill(-1);
      out.values.fill(NaN);
      sameBits(want, rt2.spgemm(A, B, { out }), `${label}, into out`);
      sameBits(want, rt3.spgemm(A, B), `${label}, 3 threads`);
    }
    rt3.dispose();
  });

  it('the pool runs the larger products: poisson3D(14)², a power-law A·Aᵀ with hub rows', () => {
    const before = pooled;
    const P = poisson3D(14);
    both(P, P, 'poisson3D(14)²');
    const W = randomMatrix({ rows: 6000, meanRowLength: 6, distribution: 'powerlaw', exponent: 1.5, seed: 5 }).astype('f64');
    expect(W.nnz).toBeGreaterThan(16384); // SPGEMM_POOL_FLOOR: smaller products run inline
    both(W, W.transpose(), 'power-law A·Aᵀ');
    // rt.spgemm's product is three jobs: each row's multiply-adds, one numeric pass (rows appended per
    // chunk, no symbolic pass), the copy-out; before them, a job checks each operand's columns (P once: B is A)
    expect(pooled - before).toBe(6 + 3);
  });

  it('complex and single-precision products on the pool, rectangular, on 2 and 3 threads', async () => {
    const rt3 = await createRuntime({ workers: 3 });
    const before = pooled;
    try {
      for (const [da, db, t] of [['c128', 'c64', 0], ['f32', 'f32', 1], ['c64', 'f64', 2], ['f64', 'f64', 3]] as const) {
        const A = randomMatrix({ rows: 7000, cols: 3000, meanRowLength: 4, dtype: da, seed: 900 + t });
        const B = randomMatrix({ rows: 3000, cols: 5000, meanRowLength: 3, dtype: db, seed: 950 + t });
        const C = both(A, B, `${da}·${db}`);
        sameBits(rt3.spgemm(A, B), C, `${da}·${db} (3 threads vs 2)`);
      }
    } finally {
      rt3.dispose();
    }
    // each product on the pool as three jobs: the multiply-adds, one numeric pass, the copy-out; and
    // A's check (B's 9 000 entries are checked inline)
    expect(pooled - before).toBe(12 + 4);
  });

  it('random shapes, densities and dtypes, including empty rows, mixed dtypes and non-canonical input', () => {
    const rnd = mulberry32(21);
    const dtypes = ['f64', 'f32', 'c128', 'c64'] as const;
    for (let t = 0; t < 40; t++) {
      const [m, k, n] = [1 + Math.floor(rnd() * 40), 1 + Math.floor(rnd() * 40), 1 + Math.floor(rnd() * 40)];
      const da = dtypes[t % 4];
      const db = dtypes[Math.floor(t / 4) % 4];
      const A = randomMatrix({ rows: m, cols: k, meanRowLength: rnd() * 6, dtype: da, seed: t + 1 });
      const B = randomMatrix({ rows: k, cols: n, meanRowLength: rnd() * 6, dtype: db, seed: 100 + t });
      const C = both(A, B, `random ${t} ${m}×${k}·${k}×${n} ${da}·${db}`);
      const single = (da === 'f32' || da === 'c64') && (db === 'f32' || db === 'c64');
      const complex = da[0] === 'c' || db[0] === 'c';
      expect(C.dtype).toBe(complex ? (single ? 'c64' : 'c128') : single ? 'f32' : 'f64');
    }
    // duplicates and unsorted columns in A are summed first (toCSR)
    const A = new CSRMatrix(2, 3, 'f64', new Int32Array([0, 3, 3]), new Int32Array([2, 0, 2]), new Float64Array([1, 2, 3]));
    const B = randomMatrix({ rows: 3, cols: 5, meanRowLength: 3, seed: 7 });
    both(A, B, 'duplicates in A');
    // empty operands: no rows, no columns, no entries
    const E = new CSRMatrix(4, 0, 'f64', new Int32Array(5), new Int32Array(0), new Float64Array(0));
    const F = new CSRMatrix(0, 3, 'f64', new Int32Array(1), new Int32Array(0), new Float64Array(0));
    expect(rt2.spgemm(E, F).nnz).toBe(0);
    expect([rt2.spgemm(F.transpose(), F).rows, rt2.spgemm(E.transpose(), E).nnz]).toEqual([3, 0]);
  });

  it('rows in every way the kernel orders them: bitmap walk (narrow band, spread), introsort (long rows spread thin), insertion (short rows)', () => {
    const rnd = mulberry32(8);
    // [B's columns, lists in row 0 of A, label]: row 0 of C has every column 4·lists rows of B reach
    for (const [cols, k, label] of [
      [300, 120, 'band'],
      [200_000, 120, 'spread'],
      [1_000_000, 10, 'thin'],
      [200_000, 3, 'short'],
    ] as const) {
      // row 0 of A is full, so row 0 of C has every column some row of B reaches, in B's random order
      const A = new CSRMatrix(3, k, 'f64', new Int32Array([0, k, k, k + 2]), Int32Array.from({ length: k + 2 }, (_, i) => (i < k ? i : i - k)), Float64Array.from({ length: k + 2 }, () => rnd() - 0.5));
      const ptr = Int32Array.from({ length: k + 1 }, (_, i) => 4 * i);
      const idx = new Int32Array(4 * k);
      for (let r = 0; r < k; r++) {
        const seen = new Set<number>();
        for (let q = 0; q < 4; q++) {
          let c;
          do c = Math.floor(rnd() * cols);
          while (seen.has(c));
          seen.add(c);
        }
        idx.set([...seen].sort((a, b) => a - b), 4 * r);
      }
      const B = new CSRMatrix(k, cols, 'f64', ptr, idx, Float64Array.from({ length: 4 * k }, () => rnd() - 0.5));
      const C = both(A, B, label);
      expect(C.rowPtr[1]).toBeGreaterThan(k === 3 ? 8 : 24);
    }
  });

  it('skewed rows: a power-law A times a wide B (rows from 1 to thousands of entries, spans of 2 million columns), f64 and c128', () => {
    const A = randomMatrix({ rows: 3000, meanRowLength: 6, distribution: 'powerlaw', exponent: 1.3, seed: 77 });
    const lengths = Array.from({ length: A.rows }, (_, i) => A.rowPtr[i + 1] - A.rowPtr[i]);
    expect(Math.max(...lengths)).toBeGreaterThan(300);
    for (const dtype of ['f64', 'c128'] as const) {
      const B = randomMatrix({ rows: 3000, cols: 2_000_000, meanRowLength: 4, dtype, seed: 78 });
      const C = both(A, B, `power-law · wide ${dtype}`);
      const clen = Array.from({ length: C.rows }, (_, i) => C.rowPtr[i + 1] - C.rowPtr[i]);
      // rows on both sides of the walk's threshold (4·len + 4 summary words over 489)
      expect(clen.some((l) => l >= 16 && l < 120)).toBe(true);
      expect(clen.some((l) => l >= 130)).toBe(true);
    }
  });

  it("a session keeps operands resident: galerkin R·(A·P), spmv and Gauss–Seidel against references, release and reuse", () => {
    const A = poisson3D(14);
    // a prolongator-like P: each row's weights on the aggregates of its neighbours
    const rnd = mulberry32(3);
    const nc = 400;
    const P = new CSRMatrix(
      A.rows,
      nc,
      'f64',
      A.rowPtr.slice(),
      Int32Array.from(A.colIdx, (j) => Math.floor((j * nc) / A.rows)),
      Float64Array.from(A.colIdx, () => rnd() + 0.1),
    ).toCSR();
    const R = P.transpose();
    const before = pooled;
    const live = rt2.memoryInUse;
    const s = new CpuSparseSession(rt2.cpuBackend);
    try {
      const AP = s.spgemm(A, P, 'f64');
      checkProduct(A, P, AP, 'A·P');
      checkProduct(R, AP, s.galerkin(R, A, P), 'R·(A·P)');
      // Lanczos in the session's pool passes against the same steps on the host, on 1 and 2 threads:
      // the pool's A (poisson3D(14)), a small one, a diagonal scaled unevenly, and 1×1
      const uneven = poisson2D(12);
      for (let i = 0; i < uneven.rows; i++) for (let k = uneven.rowPtr[i]; k < uneven.rowPtr[i + 1]; k++) uneven.values[k] *= uneven.colIdx[k] === i ? 1 + (i % 7) : 1;
      const s1 = new CpuSparseSession(rt1.cpuBackend);
      try {
        for (const M of [A, poisson2D(40), uneven, new CSRMatrix(1, 1, 'f64', Int32Array.of(0, 1), Int32Array.of(0), Float64Array.of(3))]) {
          const dinv = new Float64Array(M.rows);
          for (let i = 0; i < M.rows; i++) for (let k = M.rowPtr[i]; k < M.rowPtr[i + 1]; k++) if (M.colIdx[k] === i) dinv[i] = 1 / M.values[k];
          const ref = lanczosBounds(M, 15);
          for (const session of [s, s1]) {
            const ours = session.lanczosBounds(M, dinv, 15);
            expect(Math.abs(ours.max - ref.max)).toBeLessThanOrEqual(1e-12 * ref.max);
            expect(Math.abs(ours.min - ref.min)).toBeLessThanOrEqual(1e-10 * ref.max);
          }
        }
      } finally {
        s1.dispose();
      }
      // symmetric Gauss–Seidel on A·x = 0 against plain sweeps here; a row with a diagonal ≤ 0 left alone
      const G = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.slice());
      for (let k = G.rowPtr[7]; k < G.rowPtr[8]; k++) if (G.colIdx[k] === 7) G.values[k] = -1;
      const g = Float64Array.from({ length: A.rows }, () => rnd() + 0.5);
      const ref = g.slice();
      for (let sweep = 0; sweep < 2; sweep++) {
        for (const order of [[...Array(A.rows).keys()], [...Array(A.rows).keys()].reverse()]) {
          for (const i of order) {
            let d = 0;
            let sum = 0;
            for (let k = G.rowPtr[i]; k < G.rowPtr[i + 1]; k++) {
              if (G.colIdx[k] === i) d = G.values[k];
              else sum += G.values[k] * ref[G.colIdx[k]];
            }
            if (d > 0) ref[i] = -sum / d;
          }
        }
      }
      const before7 = g[7];
      s.gaussSeidelOnZero(G, g, 2);
      expect(g[7]).toBe(before7);
      for (let i = 0; i < A.rows; i++) if (!(Math.abs(g[i] - ref[i]) <= 1e-13 * (1 + Math.abs(ref[i])))) throw new Error(`Gauss–Seidel: x[${i}] = ${g[i]}, reference ${ref[i]}`);
      // released and uploaded again: the same product
      s.release(A);
      s.release(P);
      sameBits(AP, s.spgemm(A, P, 'f64'), 'A·P after release');
    } finally {
      s.dispose();
    }
    expect(pooled - before).toBeGreaterThanOrEqual(6);
    expect(rt2.memoryInUse).toBe(live); // every copy freed
  });

  /**
   * The smoothed prolongator T + diag(scale)·A·T against the product S·T of S = I + diag(scale)·A
   * written out here (the reference of checkProduct), on 1 and 2 threads (the same bits), then used
   * as an operand resident in the session: R·(A·P) against the reference.
   */
  it('smoothedProlongator: T + diag(s)·A·T against (I + diag(s)·A)·T, random and Poisson with an aggregation T', () => {
    const rnd = mulberry32(17);
    const explicitS = (A: CSRMatrix, scale: Float64Array): CSRMatrix => {
      const [r, c, v]: number[][] = [[], [], []];
      for (let i = 0; i < A.rows; i++) {
        r.push(i), c.push(i), v.push(1);
        for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) r.push(i), c.push(A.colIdx[k]), v.push(scale[i] * A.values[k]);
      }
      return CSRMatrix.fromTriplets(A.rows, A.cols, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    };
    const cases: [string, CSRMatrix, CSRMatrix][] = [];
    for (let t = 0; t < 12; t++) {
      const n = 1 + Math.floor(rnd() * 60);
      const nc = 1 + Math.floor(rnd() * 20);
      // rows without a diagonal, empty rows, and T rows with none, one or several entries
      cases.push([`random ${t}`, randomMatrix({ rows: n, cols: n, meanRowLength: rnd() * 6, seed: 300 + t }).astype('f64'), randomMatrix({ rows: n, cols: nc, meanRowLength: rnd() * 3, seed: 400 + t }).astype('f64')]);
    }
    // Poisson with the constant's tentative prolongator of a standard aggregation (large: on the pool)
    const A = poisson3D(16);
    const { agg, count } = strengthAggregation(A, 0);
    const fit = fitCandidates(agg, count, 1, [new Float64Array(A.rows).fill(1)]);
    cases.push(['poisson3D(16), aggregates', A, fit.T]);
    const before = pooled;
    for (const [label, M, T] of cases) {
      const scale = Float64Array.from({ length: M.rows }, () => -rnd());
      const s2 = new CpuSparseSession(rt2.cpuBackend);
      const s1 = new CpuSparseSession(rt1.cpuBackend);
      try {
        const P = s2.smoothedProlongator(M, T, scale);
        checkProduct(explicitS(M, scale), T, P, label);
        sameBits(s1.smoothedProlongator(M, T, scale), P, `${label} (1 thread vs 2)`);
        const R = P.transpose();
        checkProduct(R, rt2.spgemm(M, P), s2.galerkin(R, M, P), `${label}: R·(A·P)`);
      } finally {
        s1.dispose();
        s2.dispose();
      }
    }
    expect(pooled).toBeGreaterThan(before);
  });

  /** Mᵀ bucketed by column here (rows ascending in each bucket), against the session's pool transpose on 1, 2 and 3 threads. */
  it('session transpose: random shapes with empty rows and columns, 1×1, and large (on the pool) against a bucketed reference, on 1, 2 and 3 threads', async () => {
    const reference = (M: CSRMatrix): CSRMatrix => {
      const buckets: [number, number][][] = Array.from({ length: M.cols }, () => []);
      for (let i = 0; i < M.rows; i++) for (let k = M.rowPtr[i]; k < M.rowPtr[i + 1]; k++) buckets[M.colIdx[k]].push([i, M.values[k]]);
      const ptr = new Int32Array(M.cols + 1);
      buckets.forEach((b, j) => (ptr[j + 1] = ptr[j] + b.length));
      const flat = buckets.flat();
      return new CSRMatrix(M.cols, M.rows, 'f64', ptr, Int32Array.from(flat, (e) => e[0]), Float64Array.from(flat, (e) => e[1]));
    };
    const rnd = mulberry32(29);
    const cases: CSRMatrix[] = [new CSRMatrix(1, 1, 'f64', Int32Array.of(0, 1), Int32Array.of(0), Float64Array.of(-2.5)), new CSRMatrix(3, 2, 'f64', new Int32Array(4), new Int32Array(0), new Float64Array(0))];
    for (let t = 0; t < 10; t++) {
      cases.push(randomMatrix({ rows: 1 + Math.floor(rnd() * 80), cols: 1 + Math.floor(rnd() * 80), meanRowLength: rnd() * 4, seed: 500 + t }).astype('f64'));
    }
    // above the pool's floor, rectangular, with rows and columns left empty
    cases.push(randomMatrix({ rows: 30000, cols: 7000, meanRowLength: 1.5, seed: 77 }).astype('f64'));
    const rt3 = await createRuntime({ workers: 3 });
    const before = pooled;
    try {
      for (const M of cases) {
        const ref = reference(M);
        for (const rt of [rt1, rt2, rt3]) {
          const s = new CpuSparseSession(rt.cpuBackend);
          try {
            const T = s.transpose(M);
            expect(T.isCanonical()).toBe(true);
            sameBits(ref, T, `transpose of a ${M.rows}×${M.cols} matrix, ${rt.cpuBackend.threads} threads`);
          } finally {
            s.dispose();
          }
        }
      }
    } finally {
      rt3.dispose();
    }
    expect(pooled).toBeGreaterThan(before);
  });

  it("operands checked on the pool (spgemm_check): a column out of range, one below 0, unordered or repeated columns and bad pointers, in either chunk, on 1 and 2 threads — validate()'s error, or the product of toCSR()", () => {
    const P = poisson3D(14); // 17 344 entries: the check runs on rt2's pool
    const I = poisson3D(14);
    const live = rt2.memoryInUse;
    for (const [at, what] of [
      [5, 'first chunk'],
      [P.nnz - 3, 'second chunk'],
    ] as const) {
      for (const [col, kind] of [
        [P.cols, 'column = cols'],
        [-1, 'column −1'],
        [2 ** 31 - 1, 'column 2³¹ − 1'],
      ] as const) {
        const colIdx = P.colIdx.slice();
        colIdx[at] = col;
        const bad = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, colIdx, P.values);
        const want = (() => {
          try {
            bad.validate();
          } catch (e) {
            return e as Error;
          }
          throw new Error('validate() accepted it');
        })();
        for (const rt of [rt1, rt2]) {
          expect(() => rt.spgemm(bad, I), `${kind}, ${what}: A`).toThrow(want.message);
          expect(() => rt.spgemm(I, bad), `${kind}, ${what}: B`).toThrow(FormatError);
          expect(() => rt.spgemm(bad, bad), `${kind}, ${what}: A = B`).toThrow(want.message);
        }
      }
      // two entries of a row swapped (unordered), or one repeated (a duplicate, summed by toCSR)
      const swapped = P.colIdx.slice();
      const row = P.rowPtr.findIndex((p) => p > at) - 1;
      const k0 = P.rowPtr[row];
      [swapped[k0], swapped[k0 + 1]] = [swapped[k0 + 1], swapped[k0]];
      const repeated = P.colIdx.slice();
      repeated[k0 + 1] = repeated[k0];
      for (const [colIdx, kind] of [
        [swapped, 'unordered'],
        [repeated, 'repeated'],
      ] as const) {
        const nc = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, colIdx, P.values);
        const canon = nc.toCSR();
        expect(canon).not.toBe(nc);
        sameBits(rt2.spgemm(canon, canon), rt2.spgemm(nc, nc), `${kind} in the ${what}, on the pool`);
        sameBits(rt1.spgemm(canon, I), rt1.spgemm(nc, I), `${kind} in the ${what}, inline`);
      }
    }
    const ptr = P.rowPtr.slice();
    ptr[100] = ptr[102];
    expect(() => rt2.spgemm(new CSRMatrix(P.rows, P.cols, 'f64', ptr, P.colIdx, P.values), I)).toThrow(/rowPtr\[101\]/);
    // a rejected operand's copy went with its session
    expect(rt2.memoryInUse).toBe(live);
  });

  it('the sums over rows (spgemm_flops_before, spgemm_row_pointers) against a plain loop; row pointers summed past 2³¹ − 1 return the true total', () => {
    const B = rt1.cpuBackend;
    const rand = mulberry32(21);
    for (const m of [0, 1, 7, 1000]) {
      const f = Float64Array.from({ length: m }, () => Math.floor(rand() * 5000));
      const counts = Int32Array.from({ length: m }, () => Math.floor(rand() * 300));
      B.heap.temporary(8 * (m + 1), (fl) => {
        fl.view('f64', m).set(f);
        const total = B.kernel('spgemm_flops_before')(fl.ptr, m);
        const want = new Float64Array(m + 1);
        for (let i = 0; i < m; i++) want[i + 1] = want[i] + f[i];
        expect(total).toBe(want[m]);
        expect([...fl.view('f64', m + 1)]).toEqual([...want]);
      });
      B.heap.temporary(4 * (m + 1), (cp) => {
        cp.view('i32', m + 1).set(counts, 1);
        cp.view('i32')[0] = -7; // not read: row 0 starts at 0
        const want = new Int32Array(m + 1);
        for (let i = 0; i < m; i++) want[i + 1] = want[i] + counts[i];
        expect(B.kernel('spgemm_row_pointers')(cp.ptr, m)).toBe(want[m]);
        expect([...cp.view('i32', m + 1)]).toEqual([...want]);
      });
    }
    B.heap.temporary(16, (cp) => {
      cp.view('i32', 4).set([0, 2 ** 30, 2 ** 30, 5]);
      expect(B.kernel('spgemm_row_pointers')(cp.ptr, 3)).toBe(2 ** 31 + 5);
    });
  });

  /**
   * A copy-out description over fresh regions of B's memory: i32 and f64 data (−0, NaN, ±∞, subnormals,
   * values past f32's range), arrays of one and of several segments, f32 rounded from f64, an empty one;
   * with the arrays a plain loop builds from the same data. `scale` multiplies the lengths.
   */
  function copyOutCase(B: CpuBackend, scale: number, seed: number): { specs: OutSpec[]; want: number[][]; kinds: string[]; free: () => void } {
    const rnd = mulberry32(seed);
    const special = [-0, NaN, Infinity, -Infinity, 5e-324, 1e300, -1e-310, 3.4028235677973366e38];
    const ints = Int32Array.from({ length: 300 * scale }, () => Math.floor((rnd() - 0.5) * 2 ** 32));
    const reals = Float64Array.from({ length: 500 * scale }, (_, k) => (k < special.length ? special[k] : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20)));
    const [ri, rv] = [B.heap.allocCopy(ints), B.heap.allocCopy(reals)];
    const seg = (r: typeof ri, bytes: number, from: number, len: number): [number, number] => [r.ptr + bytes * from, len];
    const pieces = (src: ArrayLike<number>, parts: [number, number][]) => parts.flatMap(([from, len]) => Array.from({ length: len }, (_, k) => src[from + k]));
    const i1: [number, number][] = [[0, 300 * scale]];
    const i3: [number, number][] = [[200 * scale, 50 * scale], [0, 1], [7, 100 * scale]];
    const v2: [number, number][] = [[100 * scale, 400 * scale], [0, 100 * scale]];
    const specs: OutSpec[] = [
      { kind: ARRAY_I32, length: 300 * scale, segments: i1.map(([f, l]) => seg(ri, 4, f, l)) },
      { kind: ARRAY_I32, length: 150 * scale + 1, segments: i3.map(([f, l]) => seg(ri, 4, f, l)) },
      { kind: ARRAY_I32, length: 0, segments: [] },
      { kind: ARRAY_F64, length: 500 * scale, segments: v2.map(([f, l]) => seg(rv, 8, f, l)) },
      { kind: ARRAY_F32, length: 500 * scale, segments: v2.map(([f, l]) => seg(rv, 8, f, l)) },
    ];
    const want = [pieces(ints, i1), pieces(ints, i3), [], pieces(reals, v2), pieces(reals, v2).map(Math.fround)];
    return { specs, want, kinds: ['Int32Array', 'Int32Array', 'Int32Array', 'Float64Array', 'Float32Array'], free: () => [ri, rv].forEach((r) => r.dispose()) };
  }

  /** Each array as a plain loop built it, of its kind, over a fresh non-shared buffer of its own. */
  function checkCopyOut(got: OutArray[], want: number[][], kinds: string[], label: string): void {
    expect(got.length, label).toBe(want.length);
    got.forEach((a, k) => {
      expect(a.constructor.name, `${label}: array ${k}`).toBe(kinds[k]);
      expect(a.buffer instanceof ArrayBuffer && !(a.buffer instanceof SharedArrayBuffer), `${label}: array ${k}'s buffer is its own`).toBe(true);
      expect([a.byteOffset, a.buffer.byteLength], `${label}: array ${k}`).toEqual([0, a.byteLength]);
      expect(a.length, `${label}: array ${k}`).toBe(want[k].length);
      for (let i = 0; i < a.length; i++) if (!Object.is(a[i], want[k][i])) throw new Error(`${label}: array ${k}[${i}] is ${Object.is(a[i], -0) ? '-0' : a[i]}, expected ${Object.is(want[k][i], -0) ? '-0' : want[k][i]}`);
    });
    expect(new Set(got.map((a) => a.buffer)).size, `${label}: distinct buffers`).toBe(got.length);
  }

  /** A banded m×n matrix (row i's columns near i·n/m, each taken with probability 0.6), every `empty`-th row empty, values with zeros and −0. */
  function bandedMatrix(m: number, n: number, band: number, dtype: 'f64' | 'f32' | 'c128' | 'c64', seed: number, empty = 7): CSRMatrix {
    const rnd = mulberry32(seed);
    const cc = dtype[0] === 'c' ? 2 : 1;
    const rowPtr = new Int32Array(m + 1);
    const cols: number[] = [];
    const vals: number[] = [];
    for (let i = 0; i < m; i++) {
      const c = Math.floor((i * n) / m);
      if (i % empty !== 3) {
        for (let j = Math.max(0, c - band); j <= Math.min(n - 1, c + band); j++) {
          if (rnd() >= 0.6) continue;
          cols.push(j);
          for (let t = 0; t < cc; t++) vals.push(rnd() < 0.05 ? (rnd() < 0.5 ? 0 : -0) : rnd() - 0.5);
        }
      }
      rowPtr[i + 1] = cols.length;
    }
    const values = dtype === 'f32' || dtype === 'c64' ? Float32Array.from(vals) : Float64Array.from(vals);
    return new CSRMatrix(m, n, dtype, rowPtr, Int32Array.from(cols), values);
  }

  /** Every byte of rt's heap not handed out set to 0xff (columns −1, values NaN): a row a product leaves unwritten cannot read as an earlier product's. */
  function poisonFree(rt: Runtime): void {
    const heap = rt.cpuBackend.heap as unknown as { freeList: [number, number][]; top: number; memory: WebAssembly.Memory };
    const bytes = new Uint8Array(heap.memory.buffer);
    for (const [ptr, len] of heap.freeList) bytes.fill(0xff, ptr, ptr + len);
    bytes.fill(0xff, heap.top);
  }

  it("the fresh-array product (two passes; a worker faults the values' array in while the calling thread computes rows, then every thread claims blocks of rows; the rows left split over every thread): the one-pass product's bits whatever the split — 0, 1, some or all blocks in the first job, on 2 and 3 threads; banded, rectangular, A·Aᵀ, empty rows, one row, every dtype", async () => {
    const rt3 = await createRuntime({ workers: 3 });
    // rt2's runSync is beforeAll's spy already (vi.spyOn returns it); rt3's calls through
    const spies = [rt2, rt3].map((rt) => vi.spyOn(rt.cpuBackend.workerPool!, 'runSync'));
    const seen = spies.map((s) => s.mock.calls.length);
    /** fresh-array jobs run on either pool since the last call */
    const freshJobs = (): number =>
      spies.reduce((sum, s, k) => {
        const calls = s.mock.calls.slice(seen[k]);
        seen[k] = s.mock.calls.length;
        return sum + calls.filter(([job]) => job.kernel === FRESH).length;
      }, 0);
    try {
      // banded operands take it by themselves: A·A of poisson3D(20) and poisson2D(150), a rectangular banded A·B and A·Aᵀ
      const P = poisson3D(20);
      const Q = poisson2D(150);
      const A = bandedMatrix(9000, 7000, 6, 'f64', 31);
      const B = bandedMatrix(7000, 5000, 5, 'f64', 32, 5);
      const At = A.transpose();
      for (const [X, Y, label] of [[P, P, 'poisson3D(20)²'], [Q, Q, 'poisson2D(150)²'], [A, B, 'banded 9000×7000 · 7000×5000'], [A, At, 'banded A·Aᵀ']] as const) {
        const want = rt1.spgemm(X, Y);
        checkProduct(X, Y, want, label);
        for (const firstJobBlocks of [0, 1, 31, 63, 64, -1]) {
          testHooks.firstJobBlocks = firstJobBlocks;
          for (const [rt, threads] of [[rt2, 2], [rt3, 3]] as const) {
            poisonFree(rt);
            const C = rt.spgemm(X, Y);
            sameBits(want, C, `${label}, ${threads} threads, the first job's blocks ${firstJobBlocks}`);
            expect(freshJobs(), `${label}, ${threads} threads`).toBe(1);
          }
        }
        testHooks.firstJobBlocks = -1;
      }
      // not banded: the one-pass product (no fresh-array job) unless the test hook says always
      const W = randomMatrix({ rows: 6000, meanRowLength: 6, distribution: 'powerlaw', exponent: 1.5, seed: 5 }).astype('f64');
      rt2.spgemm(W, W.transpose());
      expect(freshJobs(), 'power-law A·Aᵀ').toBe(0);
      testHooks.always = true;
      // one row of 20 000 entries; every dtype, mixed, rectangular
      const row = new CSRMatrix(1, 30000, 'f64', Int32Array.of(0, 20000), Int32Array.from({ length: 20000 }, (_, k) => k + Math.floor(k / 2)), Float64Array.from({ length: 20000 }, (_, k) => Math.sin(k)));
      const cases: [CSRMatrix, CSRMatrix, string][] = [
        [row, bandedMatrix(30000, 40, 3, 'f64', 33), 'one row'],
        [W, W.transpose(), 'power-law A·Aᵀ'],
        ...(
          [
            ['c128', 'c64'],
            ['f32', 'f32'],
            ['c64', 'f64'],
            ['c64', 'c64'],
          ] as const
        ).map(([da, db], t): [CSRMatrix, CSRMatrix, string] => [bandedMatrix(7000, 3000, 4, da, 40 + t), bandedMatrix(3000, 5000, 3, db, 50 + t), `${da}·${db}`]),
      ];
      for (const [X, Y, label] of cases) {
        const want = rt1.spgemm(X, Y);
        checkProduct(X, Y, want, label);
        for (const firstJobBlocks of [0, 40, -1]) {
          testHooks.firstJobBlocks = firstJobBlocks;
          for (const [rt, threads] of [[rt2, 2], [rt3, 3]] as const) {
            poisonFree(rt);
            sameBits(want, rt.spgemm(X, Y), `${label}, ${threads} threads, the first job's blocks ${firstJobBlocks}`);
            expect(freshJobs(), `${label}, ${threads} threads`).toBe(1);
          }
        }
      }
    } finally {
      testHooks.always = false;
      testHooks.firstJobBlocks = -1;
      spies[1].mockRestore();
      rt3.dispose();
    }
  });

  it("a worker's fresh array (a fresh-array job's) fills its next copy-out array of the same kind and length, once; of another kind or length, or after that copy-out, the array is a new one; the calling thread's arrays into given ones", () => {
    const B = rt2.cpuBackend;
    const pool = B.workerPool!;
    const c = copyOutCase(B, 300, 77);
    const flag = B.heap.alloc(16);
    try {
      // the worker's array, or none where the calling thread took the worker's chunk (a late worker:
      // chunk 0 waits up to 2 s for it, as rt.spgemm's calling thread computes rows meanwhile); no
      // blocks of rows to claim, so the worker's one claim after its array says it ran
      const fresh = (kind: number, length: number): boolean => {
        const words = flag.view('i32', 4);
        words.fill(0);
        const wait = (_job: unknown, start: number): void => {
          const until = performance.now() + 2000;
          while (start === 0 && Atomics.load(words, 0) === 0 && performance.now() < until);
        };
        expect(pool.runSync({ kernel: FRESH, args: [kind, length, 1, flag.ptr, 0], bounds: Int32Array.of(0, 1, 2) }, wait)).toBe(true);
        return words[0] === 1;
      };
      // copyOutCase's last array (the worker's, on 2 threads) is f32 of 150 000
      let made = 0;
      for (const [kind, length] of [[ARRAY_F32, 150000], [ARRAY_F64, 150000], [ARRAY_F32, 149999], [ARRAY_I32, 150000]]) {
        if (fresh(kind, length)) made++;
        const got = B.copyOut(c.specs, true);
        checkCopyOut(got, c.want, c.kinds, `after a fresh ${kind} array of ${length}`);
        // the next copy-out builds its own arrays, not the transferred ones
        const again = B.copyOut(c.specs, true);
        checkCopyOut(again, c.want, c.kinds, `the copy-out after it`);
        for (const a of again) expect(got.map((g) => g.buffer)).not.toContain(a.buffer);
      }
      expect(made).toBeGreaterThan(0);
      // the calling thread's arrays into given ones (the product's columns, faulted in during the numeric
      // pass), pooled; one given for a worker's array: all built here, into the given ones
      const spy = vi.spyOn(pool, 'copyOutSync');
      try {
        const first = new Int32Array(c.specs[0].length);
        const got = B.copyOut(c.specs, true, [first]);
        expect(got[0]).toBe(first);
        expect(spy.mock.results.at(-1)?.value).not.toBeNull();
        checkCopyOut(got, c.want, c.kinds, 'into the first array');
        const last = new Float32Array(c.specs[4].length);
        const all = B.copyOut(c.specs, true, [undefined, undefined, undefined, undefined, last]);
        expect(all[4]).toBe(last);
        expect(spy.mock.results.at(-1)?.value).toBeNull();
        checkCopyOut(all, c.want, c.kinds, "into a worker's array");
      } finally {
        spy.mockRestore();
      }
    } finally {
      flag.dispose();
      c.free();
    }
  });

  it('copy-out: the workers build the last arrays of a description and hand them over, the calling thread the first — the same arrays as a plain loop, on 2 and 3 threads, small (the caller may take a late worker\'s share) and large', async () => {
    const rt3 = await createRuntime({ workers: 3 });
    try {
      for (const [rt, threads] of [[rt2, 2], [rt3, 3]] as const) {
        const B = rt.cpuBackend;
        const pool = B.workerPool!;
        const spy = vi.spyOn(pool, 'copyOutSync');
        try {
          for (const scale of [1, 2000]) {
            const live = rt.memoryInUse;
            const c = copyOutCase(B, scale, 70 + scale + threads);
            try {
              const label = `${threads} threads, ×${scale}`;
              checkCopyOut(B.copyOut(c.specs, true), c.want, c.kinds, `${label}, pooled`);
              // it ran as a pool job (null: refused, built here instead)
              expect(spy.mock.results.at(-1)?.value, label).not.toBeNull();
              const calls = spy.mock.calls.length;
              checkCopyOut(B.copyOut(c.specs, false), c.want, c.kinds, `${label}, on the calling thread`);
              expect(spy.mock.calls.length, label).toBe(calls);
            } finally {
              c.free();
            }
            expect(rt.memoryInUse, 'the description is freed').toBe(live);
          }
        } finally {
          spy.mockRestore();
        }
      }
    } finally {
      rt3.dispose();
    }
  });

  it("rt.spgemm's product on the pool is fresh arrays of its own (copied out by both threads), which the caller may change: the next product (A·A, A uploaded once) and the operand are as before", () => {
    const P = poisson3D(14);
    const pristine = poisson3D(14);
    const pool = rt2.cpuBackend.workerPool!;
    const spy = vi.spyOn(pool, 'copyOutSync');
    const live = rt2.memoryInUse;
    try {
      const C = rt2.spgemm(P, P);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.results[0].value).not.toBeNull();
      checkProduct(P, P, C, 'poisson3D(14)² copied out on the pool');
      const arrays = [C.rowPtr, C.colIdx, C.values];
      for (const a of arrays) {
        expect(a.buffer instanceof SharedArrayBuffer).toBe(false);
        expect(a.buffer).not.toBe(rt2.cpuBackend.heap.memory.buffer);
        expect([a.byteOffset, a.buffer.byteLength]).toEqual([0, a.byteLength]);
      }
      expect(new Set(arrays.map((a) => a.buffer)).size).toBe(3);
      const want = C.values.slice();
      C.values.fill(NaN);
      C.colIdx.fill(-1);
      C.rowPtr.fill(7);
      const D = rt2.spgemm(P, P);
      sameBits(new CSRMatrix(C.rows, C.cols, 'f64', D.rowPtr, D.colIdx, want), D, 'the product after the last one was overwritten');
      checkProduct(P, P, D, 'the product after the last one was overwritten');
      sameBits(pristine, P, 'the operand after two products');
      expect(rt2.memoryInUse).toBe(live);
    } finally {
      spy.mockRestore();
    }
  });

  it("a copy-out that fails on the calling thread throws, and the next one gets its own arrays, not the ones a worker built for the failed one", () => {
    const B = rt2.cpuBackend;
    const spy = vi.spyOn(B.workerPool!, 'copyOutSync');
    const [c1, c2] = [copyOutCase(B, 500, 11), copyOutCase(B, 500, 12)];
    try {
      // array 0 (the calling thread's) says one element more than its segments hold; the worker's is fine
      const bad = c1.specs.map((sp, k) => (k === 0 ? { ...sp, length: sp.length + 1 } : sp));
      expect(() => B.copyOut(bad, true)).toThrow(/copy-out array 0 has/);
      checkCopyOut(B.copyOut(c2.specs, true), c2.want, c2.kinds, 'after a failed copy-out');
      expect(spy.mock.results.at(-1)?.value).not.toBeNull();
      // nothing left in the workers' ports (whichever thread built the worker's share this time, the
      // failed job's arrays would still be there had the copy-out not dropped them)
      const workers = (B.workerPool as unknown as { workers: { receive: () => unknown }[] }).workers;
      expect(workers.map((w) => w.receive())).toEqual(workers.map(() => undefined));
    } finally {
      spy.mockRestore();
      c1.free();
      c2.free();
    }
  });

  it('a worker failing during a copy-out → WorkerError; the pool is replaced and builds the arrays again', async () => {
    const B = rt2.cpuBackend;
    const c = copyOutCase(B, 500, 5);
    const spy = vi.spyOn(B.workerPool!, 'copyOutSync');
    try {
      B.workerPool!.failNext(0, 'throw');
      expect(() => B.copyOut(c.specs, true)).toThrow(WorkerError);
      // while the pool is replaced the calling thread builds them, then the new pool does
      let ran = false;
      for (let t = 0; t < 200 && !ran; t++) {
        await new Promise((r) => setTimeout(r, 10));
        checkCopyOut(B.copyOut(c.specs, true), c.want, c.kinds, 'after a worker failure');
        ran = spy.mock.results.at(-1)?.value != null;
      }
      expect(ran).toBe(true);
    } finally {
      spy.mockRestore();
      c.free();
    }
  });

  it('shape mismatch → ShapeError; a product over the budget → MemoryLimitError before the numeric pass; a worker failing → WorkerError, then the pool works again', async () => {
    const A = poisson2D(3);
    const B = randomMatrix({ rows: 4, cols: 9, meanRowLength: 4, seed: 1 });
    const kernel = () => new CpuSparseSession(rt2.cpuBackend);
    expect(() => spgemm(A, B, kernel)).toThrow(ShapeError);
    expect(() => spgemm(A, B, kernel)).toThrow(/9×9 and B is 4×9/);
    // dense 3000×1 times 1×3000: a 9·10⁶-entry product (≈100 MB) against a 64 MiB budget
    const col = new CSRMatrix(3000, 1, 'f64', Int32Array.from({ length: 3001 }, (_, i) => i), new Int32Array(3000), new Float64Array(3000).fill(1));
    const live = rt2.memoryInUse;
    expect(() => spgemm(col, col.transpose(), kernel, 64)).toThrow(MemoryLimitError);
    expect(rt2.memoryInUse).toBe(live); // its WebAssembly regions were freed
    // 200×200 full times full: 8·10⁶ multiply-adds (96 MB of one-pass arrays, over 64 MiB) for 40 000
    // entries: the one-pass product gives way to the two-pass one, allocated at its exact size
    const rf = mulberry32(4);
    const full = new CSRMatrix(200, 200, 'f64', Int32Array.from({ length: 201 }, (_, i) => 200 * i), Int32Array.from({ length: 40_000 }, (_, k) => k % 200), Float64Array.from({ length: 40_000 }, () => rf() - 0.5));
    checkProduct(full, full, spgemm(full, full, kernel, 64), 'full·full under 64 MiB (two-pass)');
    expect(rt2.memoryInUse).toBe(live);
    // an outer product of two 7·10⁴ vectors (4.9·10⁹ entries): refused from a lower bound on its entries
    // before the count pass (which took 3–11 s), its regions freed
    const v = new CSRMatrix(70_000, 1, 'f64', Int32Array.from({ length: 70_001 }, (_, i) => i), new Int32Array(70_000), new Float64Array(70_000).fill(1));
    expect(() => rt2.spgemm(v, v.transpose())).toThrow(/spgemm: the 70000×70000 product has at least 4900000000 entries/);
    expect(rt2.memoryInUse).toBe(live);
    // where the upper bound nnz(A) × B's longest row (10⁵ × 2000) is over the limit but the product is not
    // (every row of B holds the same 2000 columns: C is 2000×2000), the lower bound lets it run
    const B50 = new CSRMatrix(50, 2000, 'f64', Int32Array.from({ length: 51 }, (_, i) => 2000 * i), Int32Array.from({ length: 100_000 }, (_, k) => k % 2000), Float64Array.from({ length: 100_000 }, () => rf() - 0.5));
    const A50 = new CSRMatrix(2000, 50, 'f64', Int32Array.from({ length: 2001 }, (_, i) => 50 * i), Int32Array.from({ length: 100_000 }, (_, k) => k % 50), Float64Array.from({ length: 100_000 }, () => rf() - 0.5));
    expect(100_000 * 2000).toBeGreaterThan((rt2.cpuBackend.heap.maxPages * 65536) / 12);
    checkProduct(A50, B50, rt2.spgemm(A50, B50), 'dense 2000×50 · 50×2000 (the lower bound lets it run)');
    const h = rt2.upload(A);
    checkProduct(A, A, rt2.spgemm(h, A), 'handle·matrix');
    h.dispose();
    expect(() => rt2.spgemm(A, B)).toThrow(ShapeError);
    const P = poisson3D(14);
    const before = pooled;
    rt2.cpuBackend.workerPool!.failNext(0, 'throw');
    expect(() => rt2.spgemm(P, P)).toThrow(WorkerError);
    // the pool is being replaced: the next products run inline until it is up, then on it again
    checkProduct(P, P, rt2.spgemm(P, P), 'after a worker failure');
    for (let t = 0; t < 200 && pooled === before; t++) {
      await new Promise((r) => setTimeout(r, 10));
      checkProduct(P, P, rt2.spgemm(P, P), 'after a worker failure');
    }
    expect(pooled).toBeGreaterThan(before);
  });

  /** M with the same pattern and new values (seeded), as a loop of products whose values change sees it */
  function revalued(M: CSRMatrix, seed: number): CSRMatrix {
    const rnd = mulberry32(seed);
    const v = M.values instanceof Float32Array ? new Float32Array(M.values.length) : new Float64Array(M.values.length);
    for (let k = 0; k < v.length; k++) v[k] = rnd() - 0.5;
    return new CSRMatrix(M.rows, M.cols, M.dtype, M.rowPtr.slice(), M.colIdx.slice(), v);
  }

  /** A CSRMatrix of C's shape, dtype and entries, its arrays filled with what a product must overwrite */
  function garbageLike(C: CSRMatrix): CSRMatrix {
    const v = C.values instanceof Float32Array ? new Float32Array(C.values.length).fill(NaN) : new Float64Array(C.values.length).fill(NaN);
    return new CSRMatrix(C.rows, C.cols, C.dtype, new Int32Array(C.rows + 1).fill(-3), new Int32Array(C.nnz).fill(-1), v);
  }

  it("options.out: the product written into a given CSRMatrix's arrays and returned — every dtype, inline and on the pool (1, 2 and 3 threads), host matrices and handles, operands whose values change", async () => {
    const rt3 = await createRuntime({ workers: 3 });
    try {
      const P = poisson3D(14);
      const W = randomMatrix({ rows: 6000, meanRowLength: 6, distribution: 'powerlaw', exponent: 1.5, seed: 5 }).astype('f64');
      const cases: [string, CSRMatrix, CSRMatrix][] = [
        ['poisson3D(14)²', P, P],
        ['power-law A·Aᵀ', W, W.transpose()],
        ['small (inline)', poisson2D(5), poisson2D(5)],
      ];
      for (const [da, db, t] of [['c128', 'c64', 0], ['f32', 'f32', 1], ['c64', 'c64', 2], ['f64', 'f32', 3]] as const) {
        cases.push([`${da}·${db}`, randomMatrix({ rows: 7000, cols: 3000, meanRowLength: 4, dtype: da, seed: 300 + t }), randomMatrix({ rows: 3000, cols: 500, meanRowLength: 3, dtype: db, seed: 350 + t })]);
      }
      for (const [label, A, B] of cases) {
        for (const [rt, threads] of [[rt1, 1], [rt2, 2], [rt3, 3]] as const) {
          const live = rt.memoryInUse;
          const fresh = rt.spgemm(A, B);
          const out = garbageLike(fresh);
          const arrays = [out.rowPtr, out.colIdx, out.values];
          expect(rt.spgemm(A, B, { out }), `${label}, ${threads} threads`).toBe(out);
          for (const [k, a] of [out.rowPtr, out.colIdx, out.values].entries()) expect(a, `${label}: array ${k} is out's own`).toBe(arrays[k]);
          sameBits(fresh, out, `${label} into out, ${threads} threads`);
          // the same patterns, new values: out holds the new product, the last one's values all overwritten
          const [A2, B2] = [revalued(A, 7 + threads), B === A ? null : revalued(B, 9 + threads)];
          rt.spgemm(A2, B2 ?? A2, { out });
          checkProduct(A2, B2 ?? A2, out, `${label} revalued into out, ${threads} threads`);
          // two handles in, out given: the host form, into out
          const [hA, hB] = [rt.upload(A), rt.upload(B)];
          out.values.fill(NaN);
          expect(rt.spgemm(hA, hB, { out })).toBe(out);
          sameBits(fresh, out, `${label} of handles into out, ${threads} threads`);
          hA.dispose();
          hB.dispose();
          expect(rt.memoryInUse, `${label}: nothing kept`).toBe(live);
        }
      }
    } finally {
      rt3.dispose();
    }
  });

  it("options.out over the memory budget (the two-pass product) and after rt.dispose(): the given arrays, filled, kept as written by later products and by the runtime's end", async () => {
    const rf = mulberry32(4);
    const full = new CSRMatrix(200, 200, 'f64', Int32Array.from({ length: 201 }, (_, i) => 200 * i), Int32Array.from({ length: 40_000 }, (_, k) => k % 200), Float64Array.from({ length: 40_000 }, () => rf() - 0.5));
    const kernel = () => new CpuSparseSession(rt2.cpuBackend);
    const out = garbageLike(spgemm(full, full, kernel));
    // 8·10⁶ multiply-adds (96 MB of one-pass arrays) over 64 MiB: the two-pass product, into out
    expect(spgemm(full, full, kernel, 64, out)).toBe(out);
    checkProduct(full, full, out, 'full·full under 64 MiB into out');
    const rt = await createRuntime({ workers: 2 });
    const P = poisson3D(14);
    const C = rt.spgemm(P, P);
    const into = garbageLike(C);
    rt.spgemm(P, P, { out: into });
    const later = rt.spgemm(revalued(P, 3), revalued(P, 3));
    later.values.fill(7);
    rt.dispose();
    checkProduct(P, P, C, 'a fresh product after rt.dispose()');
    checkProduct(P, P, into, 'a product into out after rt.dispose()');
    expect(() => rt.spgemm(P, P, { out: into })).toThrow(DisposedError);
    checkProduct(P, P, into, 'out after a call on the disposed runtime');
  });

  it('options.out refused, out unchanged and nothing kept: other entries, shape or dtype → ShapeError; not a CSRMatrix → InputTypeError; an unknown key → OptionError', () => {
    const P = poisson3D(14);
    const C = rt2.spgemm(P, P);
    const live = rt2.memoryInUse;
    const unchanged = (M: CSRMatrix, label: string) => {
      const copy = new CSRMatrix(M.rows, M.cols, M.dtype, M.rowPtr.slice(), M.colIdx.slice(), M.values.slice());
      return () => sameBits(copy, M, label);
    };
    // one entry fewer, one more (both inline and on the pool: poisson2D(5)² runs inline)
    for (const [A, label] of [[P, 'pool'], [poisson2D(5), 'inline']] as const) {
      const D = rt2.spgemm(A, A);
      for (const d of [-1, 1]) {
        const nnz = D.nnz + d;
        const out = new CSRMatrix(D.rows, D.cols, 'f64', new Int32Array(D.rows + 1), new Int32Array(nnz).fill(5), new Float64Array(nnz).fill(2.5));
        const check = unchanged(out, `${label}: out after ${nnz} entries refused`);
        expect(() => rt2.spgemm(A, A, { out })).toThrow(ShapeError);
        expect(() => rt2.spgemm(A, A, { out })).toThrow(`the product has ${D.nnz} entries and out has ${nnz}`);
        check();
      }
    }
    const wrong: [string, CSRMatrix][] = [
      ['rows', new CSRMatrix(C.rows - 1, C.cols, 'f64', new Int32Array(C.rows).fill(0), new Int32Array(0), new Float64Array(0))],
      ['cols', new CSRMatrix(C.rows, C.cols + 1, 'f64', C.rowPtr.slice(), C.colIdx.slice(), C.values.slice())],
      ['dtype', new CSRMatrix(C.rows, C.cols, 'f32', C.rowPtr.slice(), C.colIdx.slice(), Float32Array.from(C.values))],
    ];
    for (const [what, out] of wrong) {
      const check = unchanged(out, `out of other ${what}`);
      expect(() => rt2.spgemm(P, P, { out }), what).toThrow(ShapeError);
      expect(() => rt2.spgemm(P, P, { out }), what).toThrow(/spgemm: out is \d+×\d+ f(32|64) and the product 2744×2744 f64/);
      check();
    }
    for (const bad of [null, rt2.upload(P), { rows: C.rows, cols: C.cols, rowPtr: C.rowPtr, colIdx: C.colIdx, values: C.values }, 5]) {
      expect(() => rt2.spgemm(P, P, { out: bad as unknown as CSRMatrix })).toThrow(InputTypeError);
    }
    expect(() => rt2.spgemm(P, P, { into: C } as never)).toThrow(OptionError);
    expect(rt2.memoryInUse).toBe(live);
  });
});
