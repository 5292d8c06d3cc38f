/**
 * Direct tests of the pointer kernels csr_*, coo_*, mrs_*, jds_* and scal_* in both
 * builds (SIMD and plain), all four dtypes, against the f64 triplet reference. Row lengths 0..17, 100
 * and 10 001 hit every unroll step and scalar tail of the SIMD loops.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { makeHarness, disposeAll, type Harness, type DT, type Cx, DTYPES, isC, comp, kind, prec, Arr, randArr, re, im } from './kernel-harness.js';
import { referenceSpmv, checkAgainst, type Triplets, type RefResult, type Op } from './reference.js';
import { mulberry32 as rng } from './random.js';
import type { Region } from '../src/cpu/memory.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { cacheTiles } from '../src/cpu/tiles.js';
import { groupedLayout } from '../src/cpu/csr-layout.js';

/** Triplets built here: index lists are plain arrays, so the tests can reorder and extend them. */
type ListTriplets = Triplets & { rowIdx: number[]; colIdx: number[] };

const LENGTHS = [...Array.from({ length: 18 }, (_, i) => i), 100, 10001, 5, 0, 9];

/** Random triplets, grouped by row (row i has lengths[i] entries, random columns, duplicates allowed). */
function makeTriplets(dt: DT, lengths: number[], cols: number, seed: number, noDiag = false): ListTriplets {
  const r = rng(seed);
  const rowIdx: number[] = [];
  const colIdx: number[] = [];
  lengths.forEach((len, i) => {
    for (let k = 0; k < len; k++) {
      let j = Math.floor(r() * cols);
      if (noDiag && j === i) j = (j + 1) % cols;
      if (noDiag && j === i) continue;
      rowIdx.push(i);
      colIdx.push(j);
    }
  });
  // values rounded to the kernel's precision, so the reference sees what the kernel sees
  return { rows: lengths.length, cols, complex: isC(dt), rowIdx, colIdx, values: randArr(dt, rowIdx.length, r) };
}

function toCSR(A: Triplets) {
  const ptr = new Int32Array(A.rows + 1);
  for (let k = 0; k < A.rowIdx.length; k++) ptr[A.rowIdx[k] + 1]++;
  for (let i = 0; i < A.rows; i++) ptr[i + 1] += ptr[i];
  return { ptr, idx: Int32Array.from(A.colIdx) }; // triplets are grouped by row already
}

/**
 * JDS from a CSR pattern (ptr, idx) and its values: rows in decreasing-length order (perm, ties by
 * index), jagged diagonal d holds entry d of each row long enough, at jdPtr[d]..jdPtr[d + 1].
 */
function toJDS(dt: DT, ptr: Int32Array, idx: Int32Array, values: ArrayLike<number>) {
  const n = ptr.length - 1;
  const c = comp(dt);
  const len = (i: number) => ptr[i + 1] - ptr[i];
  const perm = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => len(b) - len(a) || a - b);
  const njd = n ? len(perm[0]) : 0;
  const jdPtr = new Int32Array(njd + 1);
  const jIdx = new Int32Array(idx.length);
  const jVal = new (Arr(dt))(idx.length * c);
  let q = 0;
  for (let d = 0; d < njd; d++) {
    jdPtr[d] = q;
    for (let p = 0; p < n && len(perm[p]) > d; p++, q++) {
      const k = ptr[perm[p]] + d;
      jIdx[q] = idx[k];
      for (let t = 0; t < c; t++) jVal[q * c + t] = values[k * c + t];
    }
  }
  jdPtr[njd] = q;
  return { perm, njd, jdPtr, jIdx, jVal };
}

function subset(A: ListTriplets, keep: (k: number) => boolean): ListTriplets {
  const ks = A.rowIdx.map((_, k) => k).filter(keep);
  const c = A.complex ? 2 : 1;
  const values = new Float64Array(ks.length * c);
  ks.forEach((k, n) => {
    for (let q = 0; q < c; q++) values[n * c + q] = A.values[k * c + q];
  });
  return { ...A, rowIdx: ks.map((k) => A.rowIdx[k]), colIdx: ks.map((k) => A.colIdx[k]), values };
}

/** kernel scalar arguments: real α[, β] or complex αr, αi[, βr, βi], conj */
function scalars(dt: DT, alpha: Cx, beta: Cx | null, conj: number): number[] {
  if (!isC(dt)) return beta === null ? [re(alpha)] : [re(alpha), re(beta)];
  return beta === null ? [re(alpha), im(alpha), conj] : [re(alpha), im(alpha), re(beta), im(beta), conj];
}

const CASES: Record<'real' | 'complex', Array<{ alpha: Cx; beta: Cx; conj?: number; nanY?: boolean }>> = {
  real: [
    { alpha: 1, beta: 0 },
    { alpha: 1, beta: 1 },
    { alpha: 2.5, beta: -0.75 },
    { alpha: 0, beta: 0.5 },
    { alpha: -1.25, beta: 0, nanY: true },
  ],
  complex: [
    { alpha: 1, beta: 0 },
    { alpha: 1, beta: 1, conj: 1 },
    { alpha: [0.5, -1.5], beta: [0.25, 0.75] },
    { alpha: [0.5, -1.5], beta: [0.25, 0.75], conj: 1 },
    { alpha: [0, 2], beta: [-1, 0] },
    { alpha: [1.5, 0.5], beta: 0, conj: 1, nanY: true },
  ],
};
const casesFor = (dt: DT) => CASES[isC(dt) ? 'complex' : 'real'];

/** Checks y[lo..hi) (elements) against the reference, and that everything else kept y0 bit for bit. */
function expectRange(dt: DT, got: ArrayLike<number>, y0: ArrayLike<number>, ref: RefResult, lo: number, hi: number, what: string) {
  const c = comp(dt);
  const sub: RefResult = { y: ref.y.slice(lo * c, hi * c), scale: ref.scale.slice(lo * c, hi * c), terms: ref.terms.slice(lo, hi) };
  const err = checkAgainst(Array.from(got).slice(lo * c, hi * c), sub, prec(dt), isC(dt));
  expect(err, what).toBeNull();
  for (let k = 0; k < got.length; k++) {
    if (k >= lo * c && k < hi * c) continue;
    if (!Object.is(got[k], y0[k])) expect.fail(`${what}: component ${k} outside the range changed (${y0[k]} → ${got[k]})`);
  }
}

/** Permuted-row lists used by the range tests: the whole matrix, an inner range, empty ranges. */
const ranges = (n: number): Array<[number, number]> => [[0, n], [3, 19], [18, n], [5, 5], [n, n]];

for (const flavor of ['simd', 'plain'] as const) {
  describe(`pointer kernels (${flavor})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await makeHarness(flavor);
    });
    const K = (name: string) => h.kernel(name);
    const put = (a: Float32Array | Float64Array | Int32Array | Int16Array | Uint8Array) => h.put(a);

    for (const dt of DTYPES) {
      const c = comp(dt);
      const opFor = (conj?: number): Op => (conj ? 'H' : 'T');

      it(`csr_${dt}: gather y = αAx + βy over row ranges`, () => {
        const A = makeTriplets(dt, LENGTHS, 12000, 11);
        const { ptr, idx } = toCSR(A);
        const r = rng(5);
        const x = randArr(dt, A.cols, r);
        const rp = put(ptr), ri = put(idx), rv = put(A.values as Float32Array), rx = put(x);
        for (const { alpha, beta, conj = 0, nanY } of casesFor(dt)) {
          const y0 = nanY ? new (Arr(dt))(A.rows * c).fill(NaN) : randArr(dt, A.rows, r);
          const ref = referenceSpmv(conj ? conjT(A) : A, x, y0, alpha, beta, 'N');
          for (const [lo, hi] of ranges(A.rows)) {
            const ry = put(y0);
            K(`csr_${dt}`)(rp.ptr, ri.ptr, rv.ptr, rx.ptr, ry.ptr, ...scalars(dt, alpha, beta, conj), lo, hi);
            expectRange(dt, h.get(ry, kind(dt), y0.length), y0, ref, lo, hi, `csr_${dt} α=${alpha} β=${beta} conj=${conj} rows ${lo}..${hi}`);
            ry.dispose();
          }
        }
        disposeAll(rp, ri, rv, rx);
      });

      if (!isC(dt)) {
        it(`csr_rows_${dt}: the row-by-row entry gives csr_${dt}'s bits over any row range`, () => {
          const A = makeTriplets(dt, LENGTHS, 12000, 13);
          const { ptr, idx } = toCSR(A);
          const r = rng(9);
          const x = randArr(dt, A.cols, r);
          const rp = put(ptr), ri = put(idx), rv = put(A.values as Float32Array), rx = put(x);
          for (const { alpha, beta, nanY } of casesFor(dt)) {
            const y0 = nanY ? new (Arr(dt))(A.rows).fill(NaN) : randArr(dt, A.rows, r);
            const ref = referenceSpmv(A, x, y0, alpha, beta, 'N');
            for (const [lo, hi] of ranges(A.rows)) {
              const ry = put(y0), rg = put(y0);
              K(`csr_rows_${dt}`)(rp.ptr, ri.ptr, rv.ptr, rx.ptr, ry.ptr, ...scalars(dt, alpha, beta, 0), lo, hi);
              K(`csr_${dt}`)(rp.ptr, ri.ptr, rv.ptr, rx.ptr, rg.ptr, ...scalars(dt, alpha, beta, 0), lo, hi);
              const got = h.get(ry, kind(dt), y0.length), grouped = h.get(rg, kind(dt), y0.length);
              expectRange(dt, got, y0, ref, lo, hi, `csr_rows_${dt} α=${alpha} β=${beta} rows ${lo}..${hi}`);
              for (let k = 0; k < got.length; k++) {
                if (!Object.is(got[k], grouped[k])) expect.fail(`csr_rows_${dt} rows ${lo}..${hi}: y[${k}] = ${got[k]}, csr_${dt} gave ${grouped[k]}`);
              }
              disposeAll(ry, rg);
            }
          }
          disposeAll(rp, ri, rv, rx);
        });
      }

      if (!isC(dt)) {
        it(`csr16_${dt}, csrg_${dt}: i16 offsets or i32 columns, uniform groups interleaved, give csr_${dt}'s bits over any row range`, () => {
          // the LENGTHS rows (every unroll step and tail, equal and unequal 4-row groups) over 12 000
          // columns; a stencil block of groups: uniform with 5, 1 and 16 entries per row, equal lengths
          // with one offset different, uniform but 17 long (the long-row order: not interleaved); then a
          // tall part reaching both ends of the i16 range, below and above the diagonal. Rows ascend, so
          // the triplets stay grouped by row.
          const top = makeTriplets(dt, LENGTHS, 12000, 23);
          const r = rng(29);
          const entries: Array<[number, number]> = [[60, 60 + 32767]];
          const block = (row0: number, offsets: number[][]) =>
            offsets.forEach((o, q) => o.forEach((d) => entries.push([row0 + q, row0 + q + d])));
          const P5 = [-40, -3, 0, 2, 31];
          const P16 = Array.from({ length: 16 }, (_, k) => 3 * k - 20);
          const P17 = Array.from({ length: 17 }, (_, k) => 2 * k - 16);
          block(100, [P5, P5, P5, P5]);
          block(104, [[0], [0], [0], [0]]);
          block(108, [P16, P16, P16, P16]);
          block(112, [[-1, 0, 1], [-1, 0, 1], [-1, 0, 2], [-1, 0, 1]]);
          block(116, [P17, P17, P17, P17]);
          block(120, [P5, P5, P5, P5]);
          entries.push([32800, 32800 - 32768], [32801, 32801 + 32767]);
          for (let k = 0; k < 40; k++) entries.push([32802, 32802 - 32768 + Math.floor(r() * 65536)]); // a long row, both signs
          for (let i = 32804; i < 32812; i++) for (let k = 0; k < 5; k++) entries.push([i, i - 32768 + Math.floor(r() * 65536)]); // equal groups
          entries.push([39999, 39999 - 32768]);
          const rows = 40000, cols = 80000;
          const rowIdx = [...top.rowIdx, ...entries.map(([i]) => i)];
          const colIdx = [...top.colIdx, ...entries.map(([, j]) => j)];
          const values = new (Arr(dt))(rowIdx.length);
          values.set(top.values);
          values.set(randArr(dt, entries.length, r), top.values.length);
          const A: ListTriplets = { rows, cols, complex: false, rowIdx, colIdx, values };
          const { ptr, idx } = toCSR(A);
          const x = randArr(dt, cols, r);
          const rp = put(ptr), ri = put(idx), rv = put(values), rx = put(x);
          for (const layout of ['csr16', 'csrg'] as const) {
            const L = groupedLayout(layout, ptr, idx, values);
            // groups 25, 26, 27 and 30 (rows 100–111, 120–123) are uniform; 28 (one offset differs) and 29 (17 long) not
            expect([25, 26, 27, 28, 29, 30].map((g) => L.groups[g])).toEqual([1, 1, 1, 0, 0, 1]);
            expect(L.uniform).toBe(4);
            const ro = put(L.idx), rl = put(L.values), rg = put(L.groups);
            const splits: Array<[number, number]> = [...ranges(rows), [1, 32803], [101, 118], [102, 103], [99, 125], [32801, 32806], [32802, rows]];
            for (const { alpha, beta, nanY } of casesFor(dt)) {
              const y0 = nanY ? new (Arr(dt))(rows).fill(NaN) : randArr(dt, rows, r);
              const ref = referenceSpmv(A, x, y0, alpha, beta, 'N');
              for (const [lo, hi] of splits) {
                const ry = put(y0), rc = put(y0);
                K(`${layout}_${dt}`)(rp.ptr, ro.ptr, rl.ptr, rg.ptr, rx.ptr, ry.ptr, ...scalars(dt, alpha, beta, 0), lo, hi);
                K(`csr_${dt}`)(rp.ptr, ri.ptr, rv.ptr, rx.ptr, rc.ptr, ...scalars(dt, alpha, beta, 0), lo, hi);
                const got = h.get(ry, kind(dt), rows), cols32 = h.get(rc, kind(dt), rows);
                expectRange(dt, got, y0, ref, lo, hi, `${layout}_${dt} α=${alpha} β=${beta} rows ${lo}..${hi}`);
                for (let k = 0; k < rows; k++) {
                  if (!Object.is(got[k], cols32[k])) expect.fail(`${layout}_${dt} rows ${lo}..${hi}: y[${k}] = ${got[k]}, csr_${dt} gave ${cols32[k]}`);
                }
                disposeAll(ry, rc);
              }
            }
            disposeAll(ro, rl, rg);
          }
          disposeAll(rp, ri, rv, rx);
        });
      }

      if (!isC(dt)) {
        it(`tiles_${dt}: CSR in cache tiles over band ranges, the same bits for any split`, () => {
          const A = makeTriplets(dt, [...LENGTHS, ...LENGTHS.slice(0, 9)], 40, 17);
          const { ptr, idx } = toCSR(A);
          const csr = new CSRMatrix(A.rows, A.cols, dt, ptr, idx, A.values as Float32Array);
          const r = rng(21);
          const x = randArr(dt, A.cols, r);
          const rx = put(x);
          // bands of 1, 3 and 7 rows; tiles of 1, 5 and 64 columns (one tile per band)
          for (const shape of [{ R: 3, W: 5 }, { R: 7, W: 1 }, { R: 1, W: 64 }]) {
            const T = cacheTiles(csr, shape);
            const regs = [T.bandPtr, T.tilePtr, T.tileCol, T.rc, T.values].map((a) => put(a as Float32Array));
            const work = put(new (Arr(dt))(A.rows));
            for (const { alpha, beta, nanY } of casesFor(dt)) {
              const y0 = nanY ? new (Arr(dt))(A.rows).fill(NaN) : randArr(dt, A.rows, r);
              const ref = referenceSpmv(A, x, y0, alpha, beta, 'N');
              // touchX 1: each tile reads its slice of x first (clamped to x's end where W passes it)
              const run = (b0: number, b1: number, ry: Region, touchX = 1) =>
                K(`tiles_${dt}`)(...regs.map((g) => g.ptr), rx.ptr, ry.ptr, work.ptr, shape.R, shape.W, A.rows, A.cols, touchX, ...scalars(dt, alpha, beta, 0), b0, b1);
              const whole = put(y0);
              run(0, T.bands, whole);
              const all = h.get(whole, kind(dt), y0.length);
              expectRange(dt, all, y0, ref, 0, A.rows, `tiles_${dt} ${shape.R}×${shape.W} α=${alpha} β=${beta}`);
              // two calls over split band ranges give the whole call's bits, with x read first or not
              const mid = T.bands >> 1;
              const split = put(y0);
              run(mid, T.bands, split, 0);
              run(0, mid, split);
              const got = h.get(split, kind(dt), y0.length);
              for (let k = 0; k < got.length; k++) {
                if (!Object.is(got[k], all[k])) expect.fail(`tiles_${dt} ${shape.R}×${shape.W}: split bands gave y[${k}] = ${got[k]}, whole ${all[k]}`);
              }
              disposeAll(whole, split);
            }
            disposeAll(...regs, work);
          }
          disposeAll(rx);
        });
      }

      it(`scal_${dt}: sub-ranges, β = 0 clears NaN, β = 1 keeps y`, () => {
        const r = rng(7);
        const n = 37;
        for (const beta of (isC(dt) ? [[0.5, -2], [0, 0], [1, 0], [-3, 0]] : [-0.5, 0, 1, 3]) as Cx[]) {
          const y0 = randArr(dt, n, r);
          y0[2 * c] = NaN;
          y0[3 * c - 1] = NaN; // complex: both parts, so 0·NaN cross terms do not matter
          for (const [lo, hi] of [[0, n], [3, 30], [1, 2], [7, 7]]) {
            const ry = put(y0);
            K(`scal_${dt}`)(ry.ptr, ...(isC(dt) ? [re(beta), im(beta)] : [re(beta)]), lo, hi);
            const ref = referenceSpmv({ rows: n, cols: n, complex: isC(dt), rowIdx: [], colIdx: [], values: [] }, [], y0, 0, beta);
            expectRange(dt, h.get(ry, kind(dt), y0.length), y0, ref, lo, hi, `scal_${dt} β=${beta} ${lo}..${hi}`);
            ry.dispose();
          }
        }
      });

      it(`coo_${dt}: scatter over entry ranges, op = N and T/H by swapping indices`, () => {
        const A0 = makeTriplets(dt, LENGTHS, 500, 13);
        // shuffle the entries: COO order is arbitrary
        const r = rng(8);
        const order = A0.rowIdx.map((_, k) => k).sort(() => r() - 0.5);
        const A = subset(A0, () => true);
        A.rowIdx = order.map((k) => A0.rowIdx[k]);
        A.colIdx = order.map((k) => A0.colIdx[k]);
        const vals = new (Arr(dt))(order.length * c);
        order.forEach((k, n) => {
          for (let q = 0; q < c; q++) vals[n * c + q] = A0.values[k * c + q];
        });
        A.values = vals;
        const rr = put(Int32Array.from(A.rowIdx)), rc = put(Int32Array.from(A.colIdx)), rv = put(vals);
        const nnz = A.rowIdx.length;
        for (const op of ['N', 'T'] as const) {
          const outLen = op === 'N' ? A.rows : A.cols;
          const x = randArr(dt, op === 'N' ? A.cols : A.rows, r);
          const rx = put(x);
          for (const { alpha, beta, conj = 0, nanY } of casesFor(dt)) {
            const y0 = nanY ? new (Arr(dt))(outLen * c).fill(NaN) : randArr(dt, outLen, r);
            for (const [lo, hi] of [[0, nnz], [7, nnz - 5], [3, 3]]) {
              const sub = subset(A, (k) => k >= lo && k < hi);
              // conj with op=N means conj(A)·x: the reference gets conjugated values
              const ref = op === 'N' ? referenceSpmv(conj ? conjT(sub) : sub, x, y0, alpha, beta, 'N') : referenceSpmv(sub, x, y0, alpha, beta, opFor(conj));
              const ry = put(y0);
              K(`scal_${dt}`)(ry.ptr, ...(isC(dt) ? [re(beta), im(beta)] : [re(beta)]), 0, outLen);
              const [ri1, ri2] = op === 'N' ? [rr, rc] : [rc, rr];
              K(`coo_${dt}`)(ri1.ptr, ri2.ptr, rv.ptr, rx.ptr, ry.ptr, ...scalars(dt, alpha, null, conj), lo, hi);
              expectRange(dt, h.get(ry, kind(dt), y0.length), y0, ref, 0, outLen, `coo_${dt} op=${op} α=${alpha} β=${beta} conj=${conj} k ${lo}..${hi}`);
              ry.dispose();
            }
          }
          rx.dispose();
        }
        disposeAll(rr, rc, rv);
      });

      it(`mrs_${dt}: diagonal + off-diagonal rows, wide and tall`, () => {
        for (const [lengths, cols, seed] of [[LENGTHS, 12000, 14], [[...LENGTHS.slice(0, 18), 3, 1, 0, 7], 11, 15]] as Array<[number[], number, number]>) {
          const off = makeTriplets(dt, lengths, cols, seed, true);
          const n = off.rows;
          const ndiag = Math.min(n, cols);
          const r = rng(seed + 100);
          // diagonal: some rows have none (stored as 0)
          const diag = randArr(dt, n, r);
          for (let i = 0; i < n; i++) if (i % 4 === 3 || i >= ndiag) for (let q = 0; q < c; q++) diag[i * c + q] = 0;
          const { ptr, idx } = toCSR(off);
          const nnzOff = idx.length;
          const index = new Int32Array(n + 1 + nnzOff);
          const val = new (Arr(dt))((n + 1 + nnzOff) * c);
          val.set(diag);
          for (let i = 0; i <= n; i++) index[i] = ptr[i] + n + 1;
          index.set(idx, n + 1);
          val.set(off.values as Float32Array, (n + 1) * c);
          // reference triplets: off-diagonal plus the diagonal entries
          const A: ListTriplets = { ...off, rowIdx: [...off.rowIdx], colIdx: [...off.colIdx], values: [...Array.from(off.values)] };
          for (let i = 0; i < ndiag; i++) {
            A.rowIdx.push(i);
            A.colIdx.push(i);
            for (let q = 0; q < c; q++) (A.values as number[]).push(diag[i * c + q]);
          }
          const x = randArr(dt, cols, r);
          const rI = put(index), rV = put(val), rx = put(x);
          for (const { alpha, beta, conj = 0, nanY } of casesFor(dt)) {
            const y0 = nanY ? new (Arr(dt))(n * c).fill(NaN) : randArr(dt, n, r);
            const ref = referenceSpmv(conj ? conjT(A) : A, x, y0, alpha, beta, 'N');
            for (const [lo, hi] of ranges(n)) {
              const ry = put(y0);
              K(`mrs_${dt}`)(rI.ptr, rV.ptr, ndiag, rx.ptr, ry.ptr, ...scalars(dt, alpha, beta, conj), lo, hi);
              expectRange(dt, h.get(ry, kind(dt), y0.length), y0, ref, lo, hi, `mrs_${dt} cols=${cols} α=${alpha} β=${beta} conj=${conj} rows ${lo}..${hi}`);
              ry.dispose();
            }
          }
          disposeAll(rI, rV, rx);
        }
      });

      it(`jds_${dt}: jagged diagonals over position ranges`, () => {
        const A = makeTriplets(dt, LENGTHS, 12000, 16);
        const { ptr, idx } = toCSR(A);
        const n = A.rows;
        const { perm, njd, jdPtr, jIdx, jVal } = toJDS(dt, ptr, idx, A.values);
        const r = rng(9);
        const x = randArr(dt, A.cols, r);
        const rP = put(perm), rJ = put(jdPtr), rI = put(jIdx), rV = put(jVal), rx = put(x);
        const work = h.zeros(n * c * (kind(dt) === 'f32' ? 4 : 8));
        for (const { alpha, beta, conj = 0, nanY } of casesFor(dt)) {
          const y0 = nanY ? new (Arr(dt))(n * c).fill(NaN) : randArr(dt, n, r);
          const ref = referenceSpmv(conj ? conjT(A) : A, x, y0, alpha, beta, 'N');
          for (const [lo, hi] of ranges(n)) {
            const ry = put(y0);
            K(`jds_${dt}`)(rP.ptr, rJ.ptr, njd, rI.ptr, rV.ptr, rx.ptr, ry.ptr, work.ptr, ...scalars(dt, alpha, beta, conj), lo, hi);
            const got = h.get(ry, kind(dt), y0.length);
            // positions lo..hi are rows perm[lo..hi): compare row by row
            const rows = new Set(Array.from(perm.slice(lo, hi)));
            for (let i = 0; i < n; i++) {
              if (rows.has(i)) expectRange(dt, got.slice(i * c, (i + 1) * c), y0.slice(i * c, (i + 1) * c), sliceRef(ref, i, c), 0, 1, `jds_${dt} α=${alpha} β=${beta} conj=${conj} row ${i}`);
              else for (let t = 0; t < c; t++) if (!Object.is(got[i * c + t], y0[i * c + t])) expect.fail(`jds_${dt}: row ${i} outside positions ${lo}..${hi} changed`);
            }
            ry.dispose();
          }
        }
        disposeAll(rP, rJ, rI, rV, rx, work);
      });

      it(`csr/mrs/jds_${dt}: a row's bits do not depend on the range split`, () => {
        // the worker pool splits rows anywhere: each row must come out bitwise the same whether it is
        // computed in one call or in sub-ranges cut at any point (SIMD groups of 4 rows, equal-length
        // runs, long rows, rows near the end of a range all take different paths)
        const r = rng(21);
        const lengths = [
          ...Array(13).fill(7), 6, 7, 7, 7, 6, 3, 0, 12, 5, 1, 17, 16, 40, 2, 2, 2, 2, 9, 9, 9, 9, 30, 30, 30, 30, 4, 8, 3, 5,
          ...Array.from({ length: 160 }, () => (r() < 0.08 ? 17 + Math.floor(r() * 50) : Math.floor(r() * 12))),
          ...Array(9).fill(5), 2, 19, 1, 0, 6,
        ];
        const n = lengths.length;
        const cols = 3000;
        const nanCol = cols - 1; // referenced by one row only: its NaN must not leak into other rows
        const A = makeTriplets(dt, lengths, cols - 1, 22);
        const { ptr, idx } = toCSR(A);
        const nanRow = lengths.findIndex((l, i) => i >= 38 && l > 0);
        idx[ptr[nanRow]] = nanCol;
        const x = randArr(dt, cols, r);
        for (let q = 0; q < c; q++) x[nanCol * c + q] = NaN;
        const y0 = randArr(dt, n, r);
        const [alpha, beta]: [Cx, Cx] = isC(dt) ? [[0.5, -1.5], [0.25, 0.75]] : [1.5, -0.5];
        const partitions: number[][] = [
          [0, n],
          Array.from({ length: n + 1 }, (_, i) => i),
          Array.from({ length: Math.ceil(n / 3) + 1 }, (_, i) => Math.min(3 * i, n)),
          [0, 1, 2, 5, 6, 11, 13, 14, 19, 26, 27, 37, 38, 39, 41, 45, 50, 61, 62, 63, 99, 101, 150, n - 5, n - 2, n - 1, n],
          [0, ...Array.from({ length: Math.floor((n - 2) / 4) + 1 }, (_, i) => 2 + 4 * i).filter((v) => v < n), n],
          [0, ...Array.from({ length: Math.floor(n / 7) }, (_, i) => 7 * (i + 1)).filter((v) => v < n), n],
        ];
        const bits = (a: ArrayLike<number>) => new Uint8Array(Arr(dt).from(a as ArrayLike<number>).buffer);
        const sameBits = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
          const g = bits(got), w = bits(want);
          const eb = kind(dt) === 'f32' ? 4 : 8;
          for (let k = 0; k < w.length; k++) {
            if (g[k] !== w[k]) {
              const e = Math.floor(k / eb);
              expect.fail(`${what}: element ${e} (row ${Math.floor(e / c)}) differs: ${got[e]} vs ${want[e]} in one call`);
            }
          }
        };
        const run = (name: string, call: (ry: Region, lo: number, hi: number) => void, rowOf: (p: number) => number, rowRefs: (i: number) => boolean) => {
          const whole = (() => {
            const ry = put(y0);
            call(ry, 0, n);
            const g = h.get(ry, kind(dt), y0.length);
            ry.dispose();
            return g;
          })();
          for (let p = 0; p < n; p++) {
            const i = rowOf(p);
            const bad = Array.from(whole.slice(i * c, (i + 1) * c)).some((v) => Number.isNaN(v));
            if (bad !== rowRefs(i)) expect.fail(`${name}: row ${i} is ${bad ? 'NaN' : 'finite'} (x has NaN only at a column of row ${nanRow})`);
          }
          for (const cuts of partitions) {
            const ry = put(y0);
            for (let t = 0; t + 1 < cuts.length; t++) call(ry, cuts[t], cuts[t + 1]);
            sameBits(h.get(ry, kind(dt), y0.length), whole, `${name} split at ${cuts.length - 2} points`);
            ry.dispose();
          }
        };
        const refsNan = (i: number) => i === nanRow;
        // CSR
        const rp = put(ptr), ri = put(idx), rv = put(A.values as Float32Array), rx = put(x);
        run(`csr_${dt}`, (ry, lo, hi) => K(`csr_${dt}`)(rp.ptr, ri.ptr, rv.ptr, rx.ptr, ry.ptr, ...scalars(dt, alpha, beta, 0), lo, hi), (p) => p, refsNan);
        // MRS: the same rows as off-diagonal part, plus a diagonal (none past ndiag)
        const ndiag = n - 3;
        const index = new Int32Array(n + 1 + idx.length);
        const mval = new (Arr(dt))((n + 1 + idx.length) * c);
        mval.set(randArr(dt, ndiag, r));
        for (let i = 0; i <= n; i++) index[i] = ptr[i] + n + 1;
        index.set(idx, n + 1);
        mval.set(A.values as Float32Array, (n + 1) * c);
        const rI = put(index), rV = put(mval);
        const mrsX = put(x.slice(0, cols * c));
        run(`mrs_${dt}`, (ry, lo, hi) => K(`mrs_${dt}`)(rI.ptr, rV.ptr, ndiag, mrsX.ptr, ry.ptr, ...scalars(dt, alpha, beta, 0), lo, hi), (p) => p, refsNan);
        // JDS: positions in decreasing-length order
        const { perm, njd, jdPtr, jIdx, jVal } = toJDS(dt, ptr, idx, A.values);
        const rP = put(perm), rJ = put(jdPtr), rJI = put(jIdx), rJV = put(jVal);
        const work = h.zeros(n * c * (kind(dt) === 'f32' ? 4 : 8));
        run(`jds_${dt}`, (ry, lo, hi) => K(`jds_${dt}`)(rP.ptr, rJ.ptr, njd, rJI.ptr, rJV.ptr, rx.ptr, ry.ptr, work.ptr, ...scalars(dt, alpha, beta, 0), lo, hi), (p) => perm[p], refsNan);
        disposeAll(rp, ri, rv, rx, rI, rV, mrsX, rP, rJ, rJI, rJV, work);
      });
    }
  });
}

/** the same triplets with conjugated values (reference for op=N on conj(A)) */
function conjT(A: Triplets): Triplets {
  const values = Float64Array.from(A.values);
  for (let k = 1; k < values.length; k += 2) values[k] = -values[k];
  return { ...A, values };
}

function sliceRef(ref: RefResult, i: number, c: number): RefResult {
  return { y: ref.y.slice(i * c, (i + 1) * c), scale: ref.scale.slice(i * c, (i + 1) * c), terms: ref.terms.slice(i, i + 1) };
}
