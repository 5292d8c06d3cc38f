/**
 * The sparse LU kernel (WebAssembly, assembly/lu.ts through cpuLuNumeric): its dense LU (a whole matrix
 * from step 0), its switch to it (the trailing dense block), its growth of L and U; and the banded LU (bandLu)
 * against plain f64 references written here: a textbook LU with partial pivoting on a row-major copy
 * (real and complex), and a dense Gaussian elimination of the whole system.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denseStart, type LuNumeric } from '../src/solvers/direct/lu.js';
import { luSolveReference } from './lu-solve-reference.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';
import { cpuLuKernels } from '../src/cpu/lu.js';
import { MemoryLimitError } from '../src/errors.js';
import { bandRows, bandSolve, keepBandRows, type BandLdltNumeric, type BandLuNumeric } from '../src/solvers/direct/band-lu.js';
import { div } from '../src/solvers/krylov/complex.js';
import type { LuFactor } from '../src/solvers/direct/lu.js';
import { Prng } from '../src/generators/prng.js';
import { withMemoryBudget } from '../src/memory-budget.js';
import { loadShared } from './matrices.js';

/** m×m column-major random matrix (interleaved complex when c = 2). */
function randomBlock(m: number, c: number, seed: number): Float64Array {
  const rng = new Prng(seed);
  return Float64Array.from({ length: m * m * c }, () => rng.next() - 0.5);
}

const mag = (M: Float64Array, k: number, c: number) => (c === 1 ? Math.abs(M[k]) : Math.abs(M[2 * k]) + Math.abs(M[2 * k + 1]));

/** Textbook right-looking LU with strict partial pivoting (first largest |re| + |im| wins): packed L\U, row order, or the failing step. */
function referenceLu(A: Float64Array, m: number, c: number): { LU: Float64Array; rows: number[] } | number {
  const M = Float64Array.from(A);
  const rows = Array.from({ length: m }, (_, i) => i);
  const at = (i: number, j: number) => (j * m + i) * c;
  for (let t = 0; t < m; t++) {
    let p = t;
    for (let i = t + 1; i < m; i++) if (mag(M, at(i, t) / c, c) > mag(M, at(p, t) / c, c)) p = i;
    if (!(mag(M, at(p, t) / c, c) > 0)) return t;
    for (let j = 0; j < m; j++) for (let s = 0; s < c; s++) [M[at(t, j) + s], M[at(p, j) + s]] = [M[at(p, j) + s], M[at(t, j) + s]];
    [rows[t], rows[p]] = [rows[p], rows[t]];
    const [pr, pi] = [M[at(t, t)], c === 2 ? M[at(t, t) + 1] : 0];
    const d = pr * pr + pi * pi;
    for (let i = t + 1; i < m; i++) {
      const [ar, ai] = [M[at(i, t)], c === 2 ? M[at(i, t) + 1] : 0];
      const lr = (ar * pr + ai * pi) / d;
      const li = (ai * pr - ar * pi) / d;
      M[at(i, t)] = lr;
      if (c === 2) M[at(i, t) + 1] = li;
      for (let j = t + 1; j < m; j++) {
        const [ur, ui] = [M[at(t, j)], c === 2 ? M[at(t, j) + 1] : 0];
        M[at(i, j)] -= lr * ur - li * ui;
        if (c === 2) M[at(i, j) + 1] -= lr * ui + li * ur;
      }
    }
  }
  return { LU: M, rows };
}

let backend: CpuBackend;
let luFactor: LuNumeric;
let bandLu: BandLuNumeric;
let bandLdlt: BandLdltNumeric;
beforeAll(async () => {
  backend = await CpuBackend.create();
  ({ sparse: luFactor, band: bandLu, bandLdlt } = cpuLuKernels(backend));
});
afterAll(() => backend.dispose());

/**
 * The LU of the m×m column-major block D (all of it dense: the kernel's dense LU from step 0, columns
 * in the natural order, the diagonal preferred) as the dense kernel leaves it: packed L\U in pivot
 * order and rows (rows[t] = the row pivoted at step t), or the failing step.
 */
function denseLu(D: Float64Array, m: number, complex: boolean, tol: number): { LU: Float64Array; rows: Int32Array } | number {
  const c = complex ? 2 : 1;
  const colPtr = Int32Array.from({ length: m + 1 }, (_, j) => j * m);
  const rowIdx = Int32Array.from({ length: m * m }, (_, p) => p % m);
  const q = Int32Array.from({ length: m }, (_, i) => i);
  const f = luFactor(m, colPtr, rowIdx, D, complex, q, tol, 1, () => {}, 0);
  if (typeof f === 'number') return f;
  const LU = new Float64Array(m * m * c);
  for (let t = 0; t < m; t++) {
    for (let p = f.Lp[t] + 1; p < f.Lp[t + 1]; p++) for (let s = 0; s < c; s++) LU[(t * m + f.Li[p]) * c + s] = f.Lx[p * c + s];
    for (let p = f.Up[t]; p < f.Up[t + 1]; p++) for (let s = 0; s < c; s++) LU[(t * m + f.Ui[p]) * c + s] = f.Ux[p * c + s];
  }
  const rows = new Int32Array(m);
  for (let i = 0; i < m; i++) rows[f.pinv[i]] = i;
  return { LU, rows };
}

describe('the dense LU (the trailing block of the sparse LU, here the whole matrix)', () => {
  for (const c of [1, 2]) {
    it(`${c === 1 ? 'real' : 'complex'}: the same pivots and factors as the textbook LU (strict partial pivoting, every size)`, () => {
      for (const m of [1, 2, 3, 7, 16, 33, 50]) {
        const A = randomBlock(m, c, 10 * m + c);
        const got = denseLu(A, m, c === 2, 1);
        if (typeof got === 'number') throw new Error(`failed at step ${got}`);
        const ref = referenceLu(A, m, c);
        if (typeof ref === 'number') throw new Error('reference failed');
        expect(Array.from(got.rows)).toEqual(ref.rows);
        for (let k = 0; k < got.LU.length; k++) expect(Math.abs(got.LU[k] - ref.LU[k])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(ref.LU[k])));
      }
    });
  }

  it('keeps the preferred (diagonal) row when within the tolerance, like the sparse kernel; never a zero one', () => {
    const m = 4;
    // column 0: 1 on the diagonal, 100 below: tolerance 0.001 keeps the diagonal, 1 does not
    const A = Float64Array.from([1, 100, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    for (const [tol, first] of [[0.001, 0], [1, 1]] as const) {
      const got = denseLu(A, m, false, tol);
      if (typeof got === 'number') throw new Error(`failed at step ${got}`);
      expect(got.rows[0]).toBe(first);
    }
    // a zero diagonal entry is never kept, whatever the tolerance
    const Z = Float64Array.from([0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const got = denseLu(Z, m, false, 0);
    if (typeof got === 'number') throw new Error(`failed at step ${got}`);
    expect(got.rows[0]).toBe(1);
  });

  it('returns the step of the first column without a nonzero pivot (a zero column, dependent columns, NaN)', () => {
    for (const c of [1, 2]) {
      const m = 6;
      const base = randomBlock(m, c, 3 + c);
      const zero = Float64Array.from(base);
      zero.fill(0, 3 * m * c, 4 * m * c); // column 3 zero
      const dep = Float64Array.from(base);
      dep.copyWithin(4 * m * c, 1 * m * c, 2 * m * c); // column 4 = column 1
      const nan = Float64Array.from(base);
      nan[2 * m * c] = NaN;
      for (const [M, step] of [[zero, 3], [dep, 4]] as const) {
        const ref = referenceLu(M, m, c);
        const got = denseLu(M, m, c === 2, 1);
        // a dependent column leaves a pivot of rounding size, not exactly zero: compare with the reference
        expect(typeof got === 'number' ? got : -1).toBe(typeof ref === 'number' ? ref : -1);
        if (M === zero) expect(got).toBe(step);
      }
      // a NaN candidate stops the step that meets it (here the first: row 0 of column 2 is still a candidate at step 2 only if not pivoted)
      const r = denseLu(nan, m, c === 2, 1);
      if (typeof r !== 'number' || r > 2) expect(typeof r === 'number' || r.LU.some((v) => Number.isNaN(v))).toBe(true); // the NaN went into U: the factor shows it
      else expect(r).toBe(2);
    }
  });
});

/** A random sparse n×n matrix by columns (rows ascending), `per` entries a column plus a diagonal of weight `diag`, optionally a column left empty. */
function randomSparse(n: number, per: number, c: number, seed: number, diag: number, emptyColumn = -1) {
  const rng = new Prng(seed);
  const colPtr = new Int32Array(n + 1);
  const rowIdx: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    if (j !== emptyColumn) {
      const rows = new Set<number>([j]);
      while (rows.size < Math.min(n, per + 1)) rows.add(Math.floor(rng.next() * n));
      for (const i of [...rows].sort((a, b) => a - b)) {
        rowIdx.push(i);
        for (let s = 0; s < c; s++) values.push(i === j ? (s === 0 ? diag : 0) : rng.next() - 0.5);
      }
    }
    colPtr[j + 1] = rowIdx.length;
  }
  return { n, colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(values) };
}

/** Dense Gaussian elimination with partial pivoting of the whole system (row-major), x for b; null when singular. */
function referenceSolve(S: ReturnType<typeof randomSparse>, c: number, b: Float64Array): Float64Array | null {
  const { n } = S;
  const A = new Float64Array(n * n * c); // column-major for referenceLu
  for (let j = 0; j < n; j++) for (let p = S.colPtr[j]; p < S.colPtr[j + 1]; p++) for (let s = 0; s < c; s++) A[(j * n + S.rowIdx[p]) * c + s] = S.values[p * c + s];
  const f = referenceLu(A, n, c);
  if (typeof f === 'number') return null;
  const y = new Float64Array(n * c);
  for (let i = 0; i < n; i++) for (let s = 0; s < c; s++) y[i * c + s] = b[f.rows[i] * c + s];
  const { LU } = f;
  const at = (i: number, j: number) => (j * n + i) * c;
  for (let j = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++) {
      const [lr, li] = [LU[at(i, j)], c === 2 ? LU[at(i, j) + 1] : 0];
      y[i * c] -= lr * y[j * c] - (c === 2 ? li * y[j * c + 1] : 0);
      if (c === 2) y[i * c + 1] -= lr * y[j * c + 1] + li * y[j * c];
    }
  }
  for (let j = n - 1; j >= 0; j--) {
    const [ur, ui] = [LU[at(j, j)], c === 2 ? LU[at(j, j) + 1] : 0];
    const d = ur * ur + ui * ui;
    const [a, bi] = [y[j * c], c === 2 ? y[j * c + 1] : 0];
    y[j * c] = (a * ur + bi * ui) / d;
    if (c === 2) y[j * c + 1] = (bi * ur - a * ui) / d;
    for (let i = 0; i < j; i++) {
      const [vr, vi] = [LU[at(i, j)], c === 2 ? LU[at(i, j) + 1] : 0];
      y[i * c] -= vr * y[j * c] - vi * (c === 2 ? y[j * c + 1] : 0);
      if (c === 2) y[i * c + 1] -= vr * y[j * c + 1] + vi * y[j * c];
    }
  }
  return y;
}

describe('luFactor with a dense trailing block', () => {
  for (const c of [1, 2]) {
    it(`${c === 1 ? 'real' : 'complex'}: the same solution as the dense reference whether it goes dense from the start, midway or not at all`, () => {
      const n = 60;
      // a weak diagonal: the pivots leave it, in the sparse part and in the dense block
      const S = randomSparse(n, 4, c, 20 + c, 0.01);
      const rng = new Prng(9);
      const b = Float64Array.from({ length: n * c }, () => rng.next() - 0.5);
      const ref = referenceSolve(S, c, b)!;
      const scale = Math.sqrt(ref.reduce((s, v) => s + v * v, 0));
      const q = Int32Array.from({ length: n }, (_, i) => (i * 7) % n); // some column order
      for (const from of [0, 1, 20, 45, n - 1, n]) {
        for (const tol of [0.001, 1]) {
          const f = luFactor(n, S.colPtr, S.rowIdx, S.values, c === 2, q, tol, 10, () => {}, from);
          if (typeof f === 'number') throw new Error(`singular at ${f}`);
          // pinv a permutation, L unit lower with its diagonal first, U's diagonal last
          expect(Array.from(f.pinv).sort((a, z) => a - z)).toEqual(Array.from({ length: n }, (_, i) => i));
          for (let k = 0; k < n; k++) {
            expect(f.Li[f.Lp[k]]).toBe(k);
            for (let p = f.Lp[k] + 1; p < f.Lp[k + 1]; p++) expect(f.Li[p]).toBeGreaterThan(k);
            expect(f.Ui[f.Up[k + 1] - 1]).toBe(k);
            for (let p = f.Up[k]; p < f.Up[k + 1] - 1; p++) expect(f.Ui[p]).toBeLessThan(k);
          }
          const y = new Float64Array(n * c);
          for (let i = 0; i < n; i++) for (let s = 0; s < c; s++) y[f.pinv[i] * c + s] = b[i * c + s];
          luSolveReference(f, y);
          const x = new Float64Array(n * c);
          for (let k = 0; k < n; k++) for (let s = 0; s < c; s++) x[q[k] * c + s] = y[k * c + s];
          const err = Math.sqrt(x.reduce((s, v, i) => s + (v - ref[i]) ** 2, 0));
          expect(err).toBeLessThan(1e-9 * scale);
        }
      }
    });
  }

  it('a singular or structurally singular matrix: the failing step, in the sparse part or the dense block', () => {
    for (const c of [1, 2]) {
      const n = 40;
      const q = Int32Array.from({ length: n }, (_, i) => i);
      // column 30 empty: structurally singular; the step that fails is 30 with the natural order
      const E = randomSparse(n, 3, c, 5, 1, 30);
      for (const from of [0, 10, 35, n]) expect(luFactor(n, E.colPtr, E.rowIdx, E.values, c === 2, q, 0.001, 10, () => {}, from)).toBe(30);
      // column 25 := 2·column 3 (numerically singular, pattern intact): no nonzero pivot left at step 25
      const S = randomSparse(n, 3, c, 6, 1);
      const colPtr = Int32Array.from(S.colPtr);
      const rows: number[] = [], vals: number[] = [];
      for (let j = 0; j < n; j++) {
        const src = j === 25 ? 3 : j;
        for (let p = S.colPtr[src]; p < S.colPtr[src + 1]; p++) {
          rows.push(S.rowIdx[p]);
          for (let s = 0; s < c; s++) vals.push(2 * S.values[p * c + s]);
        }
        colPtr[j + 1] = rows.length;
      }
      for (const from of [0, 10, 30, n]) {
        const r = luFactor(n, colPtr, Int32Array.from(rows), Float64Array.from(vals), c === 2, q, 1, 10, () => {}, from);
        // rounding may leave a tiny pivot instead of an exact zero in the dense block: then the factor is useless but valid
        if (typeof r === 'number') expect(r).toBe(25);
        else expect(Math.min(...Array.from({ length: n }, (_, k) => Math.abs(r.Ux[c * (r.Up[k + 1] - 1)])))).toBeLessThan(1e-12);
      }
    }
  });

  it('grows L and U by resuming where it stopped: the same factor, bit for bit, as with room from the start; a refused growth throws and frees its memory', () => {
    for (const c of [1, 2]) {
      const n = 80;
      const S = randomSparse(n, 5, c, 40 + c, 0.05);
      const q = Int32Array.from({ length: n }, (_, i) => (i * 11) % n);
      for (const from of [30, n]) {
        const asked: number[] = [];
        const small = luFactor(n, S.colPtr, S.rowIdx, S.values, c === 2, q, 0.1, 1, (b) => asked.push(b), from);
        const roomy = luFactor(n, S.colPtr, S.rowIdx, S.values, c === 2, q, 0.1, n * n, () => {}, from);
        if (typeof small === 'number' || typeof roomy === 'number') throw new Error('singular');
        expect(asked.length).toBeGreaterThan(1);
        for (const key of ['Lp', 'Li', 'Lx', 'Up', 'Ui', 'Ux', 'pinv'] as const) expect(Array.from(small[key])).toEqual(Array.from(roomy[key]));
      }
      const live = backend.heap.liveBytes;
      const refuse = (): void => {
        throw new MemoryLimitError(1, 'refused');
      };
      expect(() => luFactor(n, S.colPtr, S.rowIdx, S.values, c === 2, q, 0.1, 1, refuse, n)).toThrow(MemoryLimitError);
      expect(backend.heap.liveBytes).toBe(live);
    }
  });

  it('in an unshared memory that grows while L and U grow (its buffers detached): the same factor as in the runtime\'s', async () => {
    const heap = new WasmHeap({ shared: false, initialPages: 2 });
    const kernels = await instantiateKernels(await compileKernels(backend.flavor, false), heap.memory);
    const { sparse, band } = cpuLuKernels({ heap, kernels });
    for (const c of [1, 2]) {
      const n = 400;
      const S = randomSparse(n, 6, c, 60 + c, 0.05);
      const q = Int32Array.from({ length: n }, (_, i) => (i * 13) % n);
      const pages = heap.memory.buffer.byteLength / 65536;
      const got = sparse(n, S.colPtr, S.rowIdx, S.values, c === 2, q, 0.1, 1, () => {}, n - 40);
      const want = luFactor(n, S.colPtr, S.rowIdx, S.values, c === 2, q, 0.1, 1, () => {}, n - 40);
      if (typeof got === 'number' || typeof want === 'number') throw new Error('singular');
      if (c === 1) expect(heap.memory.buffer.byteLength / 65536).toBeGreaterThan(pages);
      for (const key of ['Lp', 'Li', 'Lx', 'Up', 'Ui', 'Ux', 'pinv'] as const) expect(Array.from(got[key])).toEqual(Array.from(want[key]));
      const B = randomSparse(300, 4, c, 70 + c, 1);
      const bandOf = { lower: 299, upper: 299 };
      const gb = band(300, B.colPtr, B.rowIdx, B.values, c === 2, bandOf, 0.001);
      const wb = bandLu(300, B.colPtr, B.rowIdx, B.values, c === 2, bandOf, 0.001);
      if (typeof gb === 'number' || typeof wb === 'number') throw new Error('singular');
      for (const key of ['Lp', 'Li', 'Lx', 'Up', 'Ui', 'Ux', 'pinv'] as const) expect(Array.from(gb[key])).toEqual(Array.from(wb[key]));
    }
  });

  it('denseStart picks the largest trailing block whose counts fill at least 80% of it (16 columns or more)', () => {
    // a 100-column arrow: columns 70.. full below the diagonal, the rest with 2 entries
    const counts = Int32Array.from({ length: 100 }, (_, k) => (k >= 70 ? 100 - k : 2));
    const s = denseStart(counts);
    const m = 100 - s;
    let sum = 0;
    for (let k = s; k < 100; k++) sum += counts[k];
    expect(sum).toBeGreaterThanOrEqual(0.8 * m * (m + 1) / 2);
    // one column more is below 80%
    expect(sum + counts[s - 1]).toBeLessThan(0.8 * (m + 1) * (m + 2) / 2);
    expect(m).toBeGreaterThanOrEqual(30);
    expect(denseStart(Int32Array.from({ length: 100 }, () => 2))).toBe(100);
    expect(denseStart(Int32Array.from({ length: 10 }, (_, k) => 10 - k))).toBe(10); // full but under 16 columns
  });
});

/** A random banded n×n matrix by columns (lower/upper bandwidths kl/ku, a fraction `fill` of the band stored, diagonal `diag`), optionally a column left empty. */
function randomBanded(n: number, kl: number, ku: number, c: number, seed: number, diag: number, emptyColumn = -1) {
  const rng = new Prng(seed);
  const colPtr = new Int32Array(n + 1);
  const rowIdx: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    if (j !== emptyColumn) {
      for (let i = Math.max(0, j - ku); i <= Math.min(n - 1, j + kl); i++) {
        if (i !== j && rng.next() < 0.3) continue;
        rowIdx.push(i);
        for (let s = 0; s < c; s++) values.push(i === j ? (s === 0 ? diag : 0) : rng.next() - 0.5);
      }
    }
    colPtr[j + 1] = rowIdx.length;
  }
  return { n, colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(values) };
}

describe('the banded LU kernel (banded matrices, natural order)', () => {
  for (const c of [1, 2]) {
    it(`${c === 1 ? 'real' : 'complex'}: the same solution as the dense reference, with and without row exchanges, every band shape`, () => {
      let checked = 0;
      let byRows = 0;
      for (const [n, kl, ku] of [[1, 0, 0], [5, 1, 1], [40, 2, 3], [40, 0, 4], [40, 3, 0], [60, 5, 2], [30, 29, 29]]) {
        for (const diag of [10, 0.01]) {
          const S = randomBanded(n, kl, ku, c, n + kl * 7 + ku + c, diag);
          const rng = new Prng(4);
          const b = Float64Array.from({ length: n * c }, () => rng.next() - 0.5);
          const ref = referenceSolve(S, c, b);
          if (!ref) continue;
          const scale = Math.sqrt(ref.reduce((s, v) => s + v * v, 0));
          for (const tol of [0.001, 1]) {
            const f = bandLu(n, S.colPtr, S.rowIdx, S.values, c === 2, { lower: kl, upper: ku }, tol);
            if (typeof f === 'number') throw new Error(`singular at ${f}`);
            expect(Array.from(f.pinv).sort((a, z) => a - z)).toEqual(Array.from({ length: n }, (_, i) => i));
            for (let k = 0; k < n; k++) {
              expect(f.Li[f.Lp[k]]).toBe(k);
              for (let p = f.Lp[k] + 1; p < f.Lp[k + 1]; p++) expect(f.Li[p]).toBeGreaterThan(k);
              expect(f.Ui[f.Up[k + 1] - 1]).toBe(k);
              // U within the band widened by the exchanges
              for (let p = f.Up[k]; p < f.Up[k + 1] - 1; p++) expect(f.Ui[p]).toBeGreaterThanOrEqual(k - kl - ku);
            }
            const y = new Float64Array(n * c);
            for (let i = 0; i < n; i++) for (let s = 0; s < c; s++) y[f.pinv[i] * c + s] = b[i * c + s];
            luSolveReference(f, y);
            // the solve by rows: the same products in the same order, so the same x, bit for bit
            if (c === 1) {
              const x = new Float64Array(n);
              keepBandRows(f, { lower: kl, upper: ku });
              expect(bandSolve(f, b, x)).toBe(true);
              expect(Array.from(x)).toEqual(Array.from(y));
              // and by rows in the CPU path (lu_band_solve), held or once
              const held = cpuLuKernels(backend).hold(f);
              const xk = new Float64Array(n).fill(NaN);
              held.solve(b, xk);
              expect(Array.from(xk)).toEqual(Array.from(y));
              held.dispose();
              cpuLuKernels(backend).solve(f, b, xk.fill(NaN));
              expect(Array.from(xk)).toEqual(Array.from(y));
              byRows++;
            }
            // triangular bands with a weak diagonal are very ill-conditioned: the residual is the test there
            const err = Math.sqrt(y.reduce((s, v, i) => s + (v - ref[i]) ** 2, 0));
            if (scale < 1e6) expect(err).toBeLessThan(1e-9 * scale);
            const r = Float64Array.from(b);
            for (let j = 0; j < n; j++) for (let p = S.colPtr[j]; p < S.colPtr[j + 1]; p++) {
              const i = S.rowIdx[p];
              const [ar, ai] = [S.values[p * c], c === 2 ? S.values[p * c + 1] : 0];
              const [xr, xi] = [y[j * c], c === 2 ? y[j * c + 1] : 0];
              r[i * c] -= ar * xr - ai * xi;
              if (c === 2) r[i * c + 1] -= ar * xi + ai * xr;
            }
            const rn = Math.sqrt(r.reduce((s, v) => s + v * v, 0));
            const xn = Math.sqrt(y.reduce((s, v) => s + v * v, 0));
            expect(rn).toBeLessThan(1e-12 * (xn + 1) * n);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(20);
      expect(byRows).toBe(c === 1 ? checked : 0);
    });
  }

  it('bandSolve and lu_band_solve: a row carried down by the exchanges has a wide L row, solved by rows as by columns; L too wide for rows: nothing done (the CPU path: by columns)', () => {
    // tridiagonal, each subdiagonal entry the column's largest: row 0 loses every pivot and ends last
    const n = 40;
    const tri: { colPtr: number[]; rowIdx: number[]; values: number[] } = { colPtr: [0], rowIdx: [], values: [] };
    const rng = new Prng(11);
    for (let j = 0; j < n; j++) {
      for (let i = Math.max(0, j - 1); i <= Math.min(n - 1, j + 1); i++) {
        tri.rowIdx.push(i);
        tri.values.push(i === j + 1 ? 4 + rng.next() : 0.5 + 0.1 * rng.next());
      }
      tri.colPtr.push(tri.rowIdx.length);
    }
    const f = bandLu(n, Int32Array.from(tri.colPtr), Int32Array.from(tri.rowIdx), Float64Array.from(tri.values), false, { lower: 1, upper: 1 }, 1);
    if (typeof f === 'number') throw new Error('singular');
    expect(f.pinv[0]).toBe(n - 1);
    const R = bandRows(f, { lower: 1, upper: 1 })!;
    expect(R.Lptr[n] - R.Lptr[n - 1]).toBe(n - 1);
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) y[f.pinv[i]] = b[i];
    luSolveReference(f, y);
    const x = new Float64Array(n);
    keepBandRows(f, { lower: 1, upper: 1 });
    expect(bandSolve(f, b, x)).toBe(true);
    expect(Array.from(x)).toEqual(Array.from(y));
    const xk = new Float64Array(n);
    cpuLuKernels(backend).solve(f, b, xk);
    expect(Array.from(xk)).toEqual(Array.from(y));
    const ref = referenceSolve({ n, colPtr: Int32Array.from(tri.colPtr), rowIdx: Int32Array.from(tri.rowIdx), values: Float64Array.from(tri.values) }, 1, b)!;
    expect(Math.sqrt(x.reduce((s, v, i) => s + (v - ref[i]) ** 2, 0))).toBeLessThan(1e-12 * Math.sqrt(ref.reduce((s, v) => s + v * v, 0)));
    // L(i, 0) for every i: rows of i entries for 2n − 1 stored ones
    const wide: LuFactor = {
      n, complex: false, Lp: Int32Array.from({ length: n + 1 }, (_, j) => (j === 0 ? 0 : n + j - 1)), Li: Int32Array.from({ length: 2 * n - 1 }, (_, p) => (p < n ? p : p - n + 1)),
      Lx: new Float64Array(2 * n - 1).fill(0.5), Up: Int32Array.from({ length: n + 1 }, (_, j) => j), Ui: Int32Array.from({ length: n }, (_, j) => j), Ux: new Float64Array(n).fill(1),
      pinv: Int32Array.from({ length: n }, (_, i) => i), q: Int32Array.from({ length: n }, (_, i) => i),
    };
    expect(bandRows(wide, { lower: n - 1, upper: 0 })).toBeNull();
    // rows are counted in the memory budget: 20 000 rows of a 4+4 band hold 1.3 MB of U, over a 1 MiB budget
    const m = 20000;
    const band = { colPtr: [0], rowIdx: [] as number[], values: [] as number[] };
    for (let j = 0; j < m; j++) {
      for (let i = Math.max(0, j - 4); i <= Math.min(m - 1, j + 4); i++) {
        band.rowIdx.push(i);
        band.values.push(i === j ? 10 : -1);
      }
      band.colPtr.push(band.rowIdx.length);
    }
    const g = bandLu(m, Int32Array.from(band.colPtr), Int32Array.from(band.rowIdx), Float64Array.from(band.values), false, { lower: 4, upper: 4 }, 1);
    if (typeof g === 'number') throw new Error('singular');
    expect(withMemoryBudget(1, () => bandRows(g, { lower: 4, upper: 4 }))).toBeNull();
    expect(withMemoryBudget(64, () => bandRows(g, { lower: 4, upper: 4 }))).not.toBeNull();
    const untouched = new Float64Array(n).fill(7);
    keepBandRows(wide, { lower: n - 1, upper: 0 });
    expect(bandSolve(wide, b, untouched)).toBe(false);
    expect(untouched.every((v) => v === 7)).toBe(true);
    // without rows the CPU path solves by columns (lu_solve)
    const byColumns = new Float64Array(n);
    cpuLuKernels(backend).solve(wide, b, byColumns);
    const yw = Float64Array.from(b);
    luSolveReference(wide, yw);
    expect(Array.from(byColumns)).toEqual(Array.from(yw));
  });

  it('keeps the diagonal within the tolerance (no exchange on a diagonally dominant band), exchanges rows under strict pivoting', () => {
    const S = randomBanded(30, 2, 2, 1, 8, 0.3);
    const keep = bandLu(30, S.colPtr, S.rowIdx, S.values, false, { lower: 2, upper: 2 }, 0.001);
    const strict = bandLu(30, S.colPtr, S.rowIdx, S.values, false, { lower: 2, upper: 2 }, 1);
    if (typeof keep === 'number' || typeof strict === 'number') throw new Error('singular');
    expect(Array.from(keep.pinv)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(Array.from(strict.pinv)).not.toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('a structurally or numerically singular band: the failing column', () => {
    for (const c of [1, 2]) {
      const E = randomBanded(30, 2, 3, c, 3, 1, 17);
      expect(bandLu(30, E.colPtr, E.rowIdx, E.values, c === 2, { lower: 2, upper: 3 }, 0.001)).toBe(17);
      // a zero matrix with a full band pattern fails at once
      const Z = randomBanded(10, 1, 1, c, 3, 0);
      Z.values.fill(0);
      expect(bandLu(10, Z.colPtr, Z.rowIdx, Z.values, c === 2, { lower: 1, upper: 1 }, 0.001)).toBe(0);
    }
  });
});

/** A random symmetric (complex symmetric: A = Aᵀ, no conjugation) banded matrix by columns, bandwidth kl, diagonal `diag`. */
function randomSymmetricBanded(n: number, kl: number, c: number, seed: number, diag: number) {
  const rng = new Prng(seed);
  const entries = new Map<number, number[]>();
  for (let j = 0; j < n; j++) {
    entries.set(j * n + j, c === 2 ? [diag, 0.3 * (rng.next() - 0.5)] : [diag]);
    for (let i = j + 1; i <= Math.min(n - 1, j + kl); i++) {
      if (rng.next() < 0.3) continue;
      const v = Array.from({ length: c }, () => rng.next() - 0.5);
      entries.set(j * n + i, v);
      entries.set(i * n + j, v);
    }
  }
  const colPtr = new Int32Array(n + 1);
  const rowIdx: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const v = entries.get(j * n + i);
      if (!v) continue;
      rowIdx.push(i);
      values.push(...v);
    }
    colPtr[j + 1] = rowIdx.length;
  }
  return { n, colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(values) };
}

/**
 * bandLdlt's algorithm in plain JavaScript (the implementation before it moved to assembly/lu.ts
 * lu_band_ldlt, one column at a time here): LDLᵀ of the lower band in a dense n×(kl + 1) array, each
 * pivot under bandLu's rule, L's nonzeros and U = D·Lᵀ; null at a breakdown. The kernel must give the
 * same bits: the same operations in the same order (a complex pivot's reciprocal by div([1, 0], d)).
 */
function referenceBandLdlt(n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, c: number, kl: number, tol: number): LuFactor | null {
  const ld = kl + 1;
  const W = new Float64Array(n * ld * c);
  const at = (i: number, j: number) => (j * ld + i - j) * c;
  for (let j = 0; j < n; j++) for (let p = Ap[j]; p < Ap[j + 1]; p++) if (Ai[p] >= j) for (let s = 0; s < c; s++) W[at(Ai[p], j) + s] = Ax[c * p + s];
  for (let j = 0; j < n; j++) {
    const last = Math.min(n - 1, j + kl);
    const dr = W[at(j, j)];
    const di = c === 2 ? W[at(j, j) + 1] : 0;
    const dmag = Math.abs(dr) + Math.abs(di);
    let best = dmag;
    let sum = dmag;
    for (let i = j + 1; i <= last; i++) {
      const v = mag(W, at(i, j) / c, c);
      sum += v;
      if (v > best) best = v;
    }
    if (!(dmag > 0) || dmag < tol * best || !(sum < Infinity)) return null;
    const [ir, ii] = c === 1 ? [1 / dr, 0] : div([1, 0], [dr, di]);
    for (let i = j + 1; i <= last; i++) {
      if (c === 1) W[at(i, j)] *= ir;
      else {
        const [a, b] = [W[at(i, j)], W[at(i, j) + 1]];
        W[at(i, j)] = a * ir - b * ii;
        W[at(i, j) + 1] = a * ii + b * ir;
      }
    }
    // A(i, k) −= l_i · t_k, t_k = l_k · d, for j < k ≤ i
    for (let k = j + 1; k <= last; k++) {
      const [lr, li] = [W[at(k, j)], c === 2 ? W[at(k, j) + 1] : 0];
      const [tr, ti] = c === 1 ? [lr * dr, 0] : [lr * dr - li * di, lr * di + li * dr];
      for (let i = k; i <= last; i++) {
        if (c === 1) {
          W[at(i, k)] -= i === k && k === last && (k - j) % 2 === 1 ? W[at(k, j)] * W[at(k, j)] * dr : W[at(i, j)] * tr;
          continue;
        }
        const [ar, ai] = [W[at(i, j)], W[at(i, j) + 1]];
        W[at(i, k)] -= ar * tr - ai * ti;
        W[at(i, k) + 1] -= ar * ti + ai * tr;
      }
    }
  }
  const Lp = [0];
  const Li: number[] = [];
  const Lx: number[] = [];
  for (let j = 0; j < n; j++) {
    Li.push(j);
    Lx.push(1, ...(c === 2 ? [0] : []));
    for (let i = j + 1; i <= Math.min(n - 1, j + kl); i++) {
      const v = Array.from(W.subarray(at(i, j), at(i, j) + c));
      if (v.every((x) => x === 0)) continue;
      Li.push(i);
      Lx.push(...v);
    }
    Lp.push(Li.length);
  }
  const Up = [0];
  const Ui: number[] = [];
  const Ux: number[] = [];
  for (let k = 0; k < n; k++) {
    for (let j = Math.max(0, k - kl); j < k; j++) {
      const [lr, li] = [W[at(k, j)], c === 2 ? W[at(k, j) + 1] : 0];
      if (lr === 0 && li === 0) continue;
      const [dr, di] = [W[at(j, j)], c === 2 ? W[at(j, j) + 1] : 0];
      Ui.push(j);
      Ux.push(...(c === 1 ? [dr * lr] : [dr * lr - di * li, dr * li + di * lr]));
    }
    Ui.push(k);
    Ux.push(...Array.from(W.subarray(at(k, k), at(k, k) + c)));
    Up.push(Ui.length);
  }
  const q = Int32Array.from({ length: n }, (_, i) => i);
  return { n, complex: c === 2, Lp: Int32Array.from(Lp), Li: Int32Array.from(Li), Lx: Float64Array.from(Lx), Up: Int32Array.from(Up), Ui: Int32Array.from(Ui), Ux: Float64Array.from(Ux), pinv: q.slice(), q };
}

/** Every array of two factors equal bit for bit (their f64 words compared as integers: −0 ≠ 0, NaN payloads too). */
function expectSameBits(got: LuFactor, want: LuFactor): void {
  for (const key of ['Lp', 'Li', 'Up', 'Ui', 'pinv', 'q'] as const) expect(Array.from(got[key]), key).toEqual(Array.from(want[key]));
  const words = (x: Float64Array) => Array.from(new BigUint64Array(Float64Array.from(x).buffer));
  for (const key of ['Lx', 'Ux'] as const) expect(words(got[key]), key).toEqual(words(want[key]));
}

describe('bandLdlt (a symmetric band whose pivots stay on the diagonal)', () => {
  it('the kernel (SIMD and plain builds) gives the plain reference\'s factor bit for bit: real and complex, every band width, pivots of 1e±200 (the complex reciprocal by Smith\'s method), breakdowns', async () => {
    const heap = new WasmHeap({ shared: false, initialPages: 2 });
    const plain = cpuLuKernels({ heap, kernels: await instantiateKernels(await compileKernels('plain', false), heap.memory) }).bandLdlt;
    let kept = 0;
    let nulls = 0;
    for (const c of [1, 2]) {
      for (const [n, kl] of [[1, 0], [5, 0], [7, 1], [8, 1], [30, 2], [31, 3], [60, 6], [45, 7], [40, 39], [41, 40]]) {
        for (const [seed, diag, scale, tol] of [[1, 4 + kl, 1, 0.001], [2, 0.4, 1, 0.001], [3, 2, 1e200, 0.001], [4, 2, 1e-200, 0.1], [5, 1 + kl, 1, 1], [6, 0.05, 1, 1], [7, 0.3, 1, 0.5]] as const) {
          const S = randomSymmetricBanded(n, kl, c, 100 * seed + 7 * n + kl + c, diag);
          S.values.forEach((v, i) => (S.values[i] = v * scale));
          // an entry above the diagonal is read from its mirror: the kernel skips it
          const want = referenceBandLdlt(n, S.colPtr, S.rowIdx, S.values, c, kl, tol);
          for (const run of [bandLdlt, plain]) {
            const got = run(n, S.colPtr, S.rowIdx, S.values, c === 2, kl, tol);
            if (want === null) expect(got).toBeNull();
            else expectSameBits(got!, want);
          }
          if (want) kept++;
          else nulls++;
        }
      }
    }
    // both outcomes met (weak diagonals and tol = 1 break down, dominant ones do not)
    expect(kept).toBeGreaterThan(60);
    expect(nulls).toBeGreaterThan(15);
  });

  it('qc324 (complex symmetric, its band stored): the kernel\'s factor is the reference\'s bit for bit, and so is its real part\'s', () => {
    const A = loadShared('qc324');
    const n = A.rows;
    // A = Aᵀ: its CSR arrays are its columns
    const Ap = Int32Array.from(A.rowPtr);
    const Ai = Int32Array.from(A.colIdx);
    let kl = 0;
    for (let j = 0; j < n; j++) for (let p = Ap[j]; p < Ap[j + 1]; p++) kl = Math.max(kl, Ai[p] - j);
    const re = Float64Array.from({ length: Ai.length }, (_, p) => A.values[2 * p]);
    for (const [Ax, c] of [[Float64Array.from(A.values), 2], [re, 1]] as const) {
      const want = referenceBandLdlt(n, Ap, Ai, Ax, c, kl, 0.001);
      if (!want) throw new Error('qc324 broke down');
      expectSameBits(bandLdlt(n, Ap, Ai, Ax, c === 2, kl, 0.001)!, want);
    }
  });

  for (const c of [1, 2]) {
    it(`${c === 1 ? 'real' : 'complex symmetric'}: the same solution as the dense reference; L·U with U = D·Lᵀ`, () => {
      for (const [n, kl] of [[1, 0], [6, 1], [40, 3], [50, 8], [30, 29]]) {
        const S = randomSymmetricBanded(n, kl, c, 3 * n + kl + c, 4 + kl);
        const f = bandLdlt(n, S.colPtr, S.rowIdx, S.values, c === 2, kl, 0.001);
        if (!f) throw new Error('a diagonally dominant band fell back');
        expect(Array.from(f.pinv)).toEqual(Array.from({ length: n }, (_, i) => i));
        // U's pattern is Lᵀ's, and U(j, k) = U(j, j)·L(k, j)
        for (let k = 0; k < n; k++) {
          expect(f.Ui[f.Up[k + 1] - 1]).toBe(k);
          for (let p = f.Up[k]; p < f.Up[k + 1] - 1; p++) {
            const j = f.Ui[p];
            const q = Array.from(f.Li.subarray(f.Lp[j], f.Lp[j + 1])).indexOf(k) + f.Lp[j];
            expect(q).toBeGreaterThan(f.Lp[j]);
            const d = f.Up[j + 1] - 1;
            const [dr, di, lr, li] = [f.Ux[c * d], c === 2 ? f.Ux[c * d + 1] : 0, f.Lx[c * q], c === 2 ? f.Lx[c * q + 1] : 0];
            expect(f.Ux[c * p]).toBeCloseTo(dr * lr - di * li, 12);
            if (c === 2) expect(f.Ux[c * p + 1]).toBeCloseTo(dr * li + di * lr, 12);
          }
        }
        const rng = new Prng(5);
        const b = Float64Array.from({ length: n * c }, () => rng.next() - 0.5);
        const ref = referenceSolve(S, c, b)!;
        const y = Float64Array.from(b);
        luSolveReference(f, y);
        const scale = Math.sqrt(ref.reduce((t, v) => t + v * v, 0));
        expect(Math.sqrt(y.reduce((t, v, i) => t + (v - ref[i]) ** 2, 0))).toBeLessThan(1e-10 * scale);
      }
    });
  }

  it('returns null where threshold pivoting would leave the diagonal (a zero or small diagonal entry), so bandLu runs', () => {
    for (const c of [1, 2]) {
      // a symmetric tridiagonal, 0.5 off the diagonal, 4 on it except 1e-6 at (5, 5): tolerance 0.001 leaves the diagonal there
      const n = 20;
      const colPtr = new Int32Array(n + 1);
      const rowIdx: number[] = [];
      const vals: number[] = [];
      for (let j = 0; j < n; j++) {
        for (const i of [j - 1, j, j + 1]) {
          if (i < 0 || i >= n) continue;
          rowIdx.push(i);
          vals.push(i === j ? (j === 5 ? 1e-6 : 4) : 0.5);
          if (c === 2) vals.push(0);
        }
        colPtr[j + 1] = rowIdx.length;
      }
      const T = { colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(vals) };
      // (the Schur complement's diagonal at 5 is 1e-6 − 0.25/d₄, about −0.06: kept at tolerance 0.001, not at 1)
      expect(bandLdlt(n, T.colPtr, T.rowIdx, T.values, c === 2, 1, 0.001)).not.toBeNull();
      expect(bandLdlt(n, T.colPtr, T.rowIdx, T.values, c === 2, 1, 1)).toBeNull();
      // a zero first pivot (A(0, 0) = 0) is never kept, whatever the tolerance
      const Z = randomSymmetricBanded(20, 2, c, 9, 4);
      Z.values.fill(0, 0, c);
      expect(bandLdlt(20, Z.colPtr, Z.rowIdx, Z.values, c === 2, 2, 0)).toBeNull();
      // and bandLu still factorizes it
      expect(typeof bandLu(20, Z.colPtr, Z.rowIdx, Z.values, c === 2, { lower: 2, upper: 2 }, 0.001)).toBe('object');
    }
  });
});
