/**
 * LU's block triangular form (ordering 'btf': src/solvers/direct/btf.ts, assembly/btf.ts) checked
 * independently: the row matching is a permutation onto stored entries, every entry lies in or above
 * the diagonal blocks, each block is strongly connected (a search written here), the graph is B + Bᵀ
 * within the blocks, and a structurally singular matrix reports its structural rank (a plain
 * augmenting-path matching written here); planted block structures give back their blocks. Then
 * rt.factor with it (real and complex, the dense window inside a block) against a dense LU written
 * here, and the typed errors of singular and structurally singular matrices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { cpuLuKernels } from '../src/cpu/lu.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { randomMatrix } from '../src/generators/random.js';
import { Prng } from '../src/generators/prng.js';
import { SingularMatrixError, UnsupportedError } from '../src/errors.js';
import { cscOf, rowsOf } from '../src/solvers/direct/pattern.js';
import type { BlockTriangular } from '../src/solvers/direct/btf.js';
import { amdOrder } from './amd-reference.js';
import type { SymbolicKernels } from '../src/solvers/direct/symbolic.js';
import type { LuNumeric } from '../src/solvers/direct/lu.js';
import { loadShared } from './matrices.js';
import { matvec, relDiff, trueResidual } from './solve-reference.js';

let rt: Runtime;
let backend: CpuBackend;
let sk: SymbolicKernels;
let sparseLu: LuNumeric;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
  backend = await CpuBackend.create();
  sk = cpuSymbolicKernels(backend);
  sparseLu = cpuLuKernels(backend).sparse;
});
afterAll(() => {
  rt.dispose();
  backend.dispose();
});

const cplx = (A: CSRMatrix) => A.dtype === 'c128' || A.dtype === 'c64';

/**
 * A block upper triangular matrix with diagonal blocks of the given sizes (each irreducible: a cycle
 * through its columns, plus random entries inside), random entries above the blocks, then rows and
 * columns shuffled. Values random with a dominant diagonal.
 */
function planted(sizes: number[], seed: number, complex = false, extra = 2): CSRMatrix {
  const rng = new Prng(seed);
  const n = sizes.reduce((s, t) => s + t, 0);
  const starts: number[] = [];
  sizes.reduce((s, t) => (starts.push(s), s + t), 0);
  const entries = new Map<number, number>();
  const put = (i: number, j: number, v: number) => entries.set(i * n + j, v);
  sizes.forEach((m, b) => {
    const s = starts[b];
    for (let t = 0; t < m; t++) {
      put(s + t, s + t, m + 2 + rng.next());
      if (m > 1) put(s + ((t + 1) % m), s + t, rng.next() - 0.5);
      for (let e = 0; e < extra && m > 2; e++) put(s + Math.floor(rng.next() * m), s + t, rng.next() - 0.5);
    }
    // entries above the block: rows of earlier blocks in this block's columns
    for (let e = 0; e < 2 && s > 0; e++) put(Math.floor(rng.next() * s), s + Math.floor(rng.next() * m), rng.next() - 0.5);
  });
  const pr = shuffle(n, rng);
  const pc = shuffle(n, rng);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (const [key, v] of entries) {
    rows.push(pr[Math.floor(key / n)]);
    cols.push(pc[key % n]);
    vals.push(v);
    if (complex) vals.push(rng.next() - 0.5);
  }
  return CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
}

function shuffle(n: number, rng: Prng): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/** Structural rank by Kuhn's augmenting paths (recursive, written here). */
function structuralRank(A: CSRMatrix): number {
  const C = cscOf(A);
  const rowOwner = new Int32Array(A.rows).fill(-1);
  let rank = 0;
  for (let j = 0; j < A.cols; j++) {
    const seen = new Uint8Array(A.rows);
    const augment = (c: number): boolean => {
      for (let p = C.colPtr[c]; p < C.colPtr[c + 1]; p++) {
        const r = C.rowIdx[p];
        if (seen[r]) continue;
        seen[r] = 1;
        if (rowOwner[r] < 0 || augment(rowOwner[r])) {
          rowOwner[r] = c;
          return true;
        }
      }
      return false;
    };
    if (augment(j)) rank++;
  }
  return rank;
}

/** Checks the block triangular form of A independently; returns the block sizes. */
function checkBtf(A: CSRMatrix, bt: BlockTriangular): number[] {
  const n = A.rows;
  const C = cscOf(A);
  const { colOf, blk, blocks } = bt;
  const graph = bt.graph!;
  // a permutation onto stored entries
  expect(new Set(colOf).size).toBe(n);
  for (let r = 0; r < n; r++) {
    const j = colOf[r];
    expect(j >= 0 && j < n).toBe(true);
    expect(Array.from(C.rowIdx.subarray(C.colPtr[j], C.colPtr[j + 1]))).toContain(r);
  }
  // B(i, j) = A(r, j) with i = colOf[r]: block upper triangular
  const sizes = new Array<number>(blocks).fill(0);
  for (let j = 0; j < n; j++) sizes[blk[j]]++;
  expect(sizes.every((s) => s > 0)).toBe(true);
  expect([bt.largest, bt.singletons]).toEqual([Math.max(...sizes), sizes.filter((s) => s === 1).length]);
  const within: number[][] = Array.from({ length: n }, () => []);
  let above = 0;
  for (let j = 0; j < n; j++) {
    for (let p = C.colPtr[j]; p < C.colPtr[j + 1]; p++) {
      const i = colOf[C.rowIdx[p]];
      expect(blk[i]).toBeLessThanOrEqual(blk[j]);
      if (blk[i] === blk[j] && i !== j) within[j].push(i);
      if (blk[i] < blk[j]) above++;
    }
  }
  expect(bt.above).toBe(above);
  // each block strongly connected: from its first column every column is reached along B's
  // within-block entries, both ways
  const out: number[][] = within;
  const inn: number[][] = Array.from({ length: n }, () => []);
  for (let j = 0; j < n; j++) for (const i of out[j]) inn[i].push(j);
  for (let b = 0; b < blocks; b++) {
    const members = Array.from(blk.keys()).filter((j) => blk[j] === b);
    for (const adj of [out, inn]) {
      const seen = new Set([members[0]]);
      const todo = [members[0]];
      while (todo.length) for (const v of adj[todo.pop()!]) if (!seen.has(v)) (seen.add(v), todo.push(v));
      expect(seen.size).toBe(members.length);
    }
  }
  // the graph: B + Bᵀ within the blocks, no diagonal, no duplicates
  for (let j = 0; j < n; j++) {
    const expected = new Set([...out[j], ...inn[j]]);
    const got = Array.from(graph.adj.subarray(graph.ptr[j], graph.ptr[j + 1]));
    expect(got.length).toBe(expected.size);
    expect(new Set(got)).toEqual(expected);
  }
  return sizes;
}

const btfOf = (A: CSRMatrix, orderFrom = Infinity) => {
  const C = cscOf(A);
  return sk.btf(C, rowsOf(C), orderFrom);
};

/**
 * The ordering the analysis keeps under 'btf', built here from the form's graph: its minimum degree
 * order (the plain JavaScript AMD of amd-reference.ts) taken block by block, the
 * graph's elimination tree in that order (a plain path-compressed search), a postorder of it (children
 * before parents, both in index order), the column counts by explicit row patterns (each column's
 * later neighbours and its children's patterns, united as sets), and all four in postorder.
 */
function orderHere(bt: BlockTriangular): NonNullable<BlockTriangular['order']> {
  const { blk, blocks } = bt;
  const g = bt.graph!;
  const n = g.n;
  const within = amdOrder(g);
  const byBlock: number[][] = Array.from({ length: blocks }, () => []);
  for (const j of within) byBlock[blk[j]].push(j);
  const q = byBlock.flat();
  const qinv = new Int32Array(n);
  q.forEach((j, k) => (qinv[j] = k));
  const parent = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    for (let p = g.ptr[q[k]]; p < g.ptr[q[k] + 1]; p++) {
      let i = qinv[g.adj[p]];
      while (i !== -1 && i < k) {
        const up = ancestor[i];
        ancestor[i] = k;
        if (up === -1) parent[i] = k;
        i = up;
      }
    }
  }
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < n; k++) if (parent[k] !== -1) children[parent[k]].push(k);
  const post: number[] = [];
  const visit = (k: number): void => {
    for (const c of children[k]) visit(c);
    post.push(k);
  };
  for (let k = 0; k < n; k++) if (parent[k] === -1) visit(k);
  const pattern: Set<number>[] = [];
  const counts = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const rows = new Set<number>();
    for (let p = g.ptr[q[k]]; p < g.ptr[q[k] + 1]; p++) if (qinv[g.adj[p]] > k) rows.add(qinv[g.adj[p]]);
    for (const c of children[k]) for (const i of pattern[c]) if (i > k) rows.add(i);
    pattern.push(rows);
    counts[k] = rows.size + 1;
  }
  const at = new Int32Array(n);
  post.forEach((k, t) => (at[k] = t));
  const perm = Int32Array.from(post, (k) => q[k]);
  const pinv = new Int32Array(n);
  perm.forEach((j, t) => (pinv[j] = t));
  return { perm, pinv, parent: Int32Array.from(post, (k) => (parent[k] === -1 ? -1 : at[parent[k]])), counts: Int32Array.from(post, (k) => counts[k]) };
}

describe('the block triangular form (maximum transversal + strongly connected components)', () => {
  it('planted blocks come back (sizes as planted, in an order that keeps B block upper triangular)', () => {
    for (const [sizes, seed] of [[[1, 1, 1], 1], [[3, 1, 5, 1, 1, 8], 2], [[40], 3], [[1, 30, 1, 1, 2, 20, 1], 4], [Array.from({ length: 60 }, () => 1), 5]] as const) {
      const A = planted([...sizes], seed);
      const bt = btfOf(A);
      if (typeof bt === 'number') throw new Error('structurally singular');
      const got = checkBtf(A, bt);
      expect(got.sort((a, b) => a - b)).toEqual([...sizes].sort((a, b) => a - b));
    }
  });

  it('the shared unsymmetric matrices and random patterns: valid forms (west0479: 166 blocks, 159 of them 1×1)', () => {
    const w = btfOf(loadShared('west0479'));
    if (typeof w === 'number') throw new Error('structurally singular');
    const sizes = checkBtf(loadShared('west0479'), w);
    expect([sizes.length, sizes.filter((s) => s === 1).length, Math.max(...sizes)]).toEqual([166, 159, 308]);
    for (const A of [loadShared('olm1000'), loadShared('young1c'), loadShared('t1'), ...[1, 2, 3].map((seed) => randomMatrix({ rows: 150, meanRowLength: 3, seed }))]) {
      const bt = btfOf(A);
      if (typeof bt === 'number') expect(bt).toBe(structuralRank(A));
      else checkBtf(A, bt);
    }
  });

  it('the ordering made in the same call (orderFrom) is the one built here from its graph: minimum degree block by block, postordered, with the tree and counts', () => {
    const mats: CSRMatrix[] = [
      ...[[[1, 1, 1], 1], [[3, 1, 5, 1, 1, 8], 2], [[40], 3], [[1, 30, 1, 1, 2, 20, 1], 4], [Array.from({ length: 60 }, () => 1), 5], [[90, 2, 70], 6], [[5, 5, 5, 5], 7], [[120, 1, 1, 60], 8], [[2, 2, 2, 2, 2, 2], 9], [[200], 10]].map(([sizes, seed]) => planted(sizes as number[], seed as number)),
      loadShared('west0479'), loadShared('olm1000'), loadShared('young1c'), loadShared('t1'),
      ...[1, 2, 3, 4, 5, 6].map((seed) => randomMatrix({ rows: 40 * seed, meanRowLength: 2 + (seed % 3), seed })),
      CSRMatrix.fromTriplets(1, 1, 'f64', Int32Array.of(0), Int32Array.of(0), Float64Array.of(2)),
    ];
    let ordered = 0;
    for (const A of mats) {
      // the form and its graph (no ordering below orderFrom blocks), then the form with its ordering (no graph)
      const bt = btfOf(A);
      if (typeof bt === 'number') continue;
      const ob = btfOf(A, 0);
      if (typeof ob === 'number') throw new Error('structurally singular when ordered');
      expect([ob.blocks, ob.above, ob.largest, ob.singletons, Array.from(ob.colOf), Array.from(ob.blk)]).toEqual([bt.blocks, bt.above, bt.largest, bt.singletons, Array.from(bt.colOf), Array.from(bt.blk)]);
      expect([bt.order, ob.graph]).toEqual([undefined, undefined]);
      ordered++;
      const o = ob.order!;
      const want = orderHere(bt);
      expect(Array.from(o.perm)).toEqual(Array.from(want.perm));
      expect(Array.from(o.pinv)).toEqual(Array.from(want.pinv));
      expect(Array.from(o.parent)).toEqual(Array.from(want.parent));
      expect(Array.from(o.counts)).toEqual(Array.from(want.counts));
      // the blocks stay in order along perm, and each parent is later than its child (a postorder)
      for (let k = 1; k < A.rows; k++) expect(bt.blk[o.perm[k]]).toBeGreaterThanOrEqual(bt.blk[o.perm[k - 1]]);
      o.parent.forEach((p, k) => expect(p === -1 || p > k).toBe(true));
      // from orderFrom blocks on, with one
      expect(typeof btfOf(A, bt.blocks) === 'object' && (btfOf(A, bt.blocks) as BlockTriangular).order !== undefined).toBe(true);
      expect((btfOf(A, bt.blocks + 1) as BlockTriangular).order).toBe(undefined);
    }
    expect(ordered).toBeGreaterThanOrEqual(14);
  });

  it('a structurally singular matrix reports its structural rank (an augmenting-path matching written here)', () => {
    const rng = new Prng(9);
    for (let t = 0; t < 12; t++) {
      const n = 5 + Math.floor(rng.next() * 40);
      // rows and columns drawn from fewer than n, so no full matching exists; a few random entries more
      const rows: number[] = [];
      const cols: number[] = [];
      const k = n - 1 - Math.floor(rng.next() * 3);
      for (let e = 0; e < 3 * n; e++) {
        const dense = rng.next() < 0.5;
        rows.push(dense ? Math.floor(rng.next() * n) : Math.floor(rng.next() * k));
        cols.push(dense ? Math.floor(rng.next() * k) : Math.floor(rng.next() * n));
      }
      const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(rows, () => 1));
      const bt = btfOf(A);
      const rank = structuralRank(A);
      if (rank < n) expect(bt).toBe(rank);
      else if (typeof bt === 'number') throw new Error(`rank ${rank} but the kernel matched ${bt}`);
      else checkBtf(A, bt);
    }
  });
});

/** Dense LU with partial pivoting of A·x = b (real or complex interleaved), written here. */
function denseSolve(A: CSRMatrix, b: Float64Array): Float64Array {
  const n = A.rows;
  const c = cplx(A) ? 2 : 1;
  const re = Array.from({ length: n }, () => new Float64Array(n));
  const im = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      re[i][A.colIdx[k]] += A.values[c * k];
      if (c === 2) im[i][A.colIdx[k]] += A.values[2 * k + 1];
    }
  }
  const xr = Float64Array.from({ length: n }, (_, i) => b[c * i]);
  const xi = Float64Array.from({ length: n }, (_, i) => (c === 2 ? b[2 * i + 1] : 0));
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.hypot(re[i][k], im[i][k]) > Math.hypot(re[p][k], im[p][k])) p = i;
    [re[k], re[p], im[k], im[p]] = [re[p], re[k], im[p], im[k]];
    [xr[k], xr[p], xi[k], xi[p]] = [xr[p], xr[k], xi[p], xi[k]];
    const d = re[k][k] ** 2 + im[k][k] ** 2;
    for (let i = k + 1; i < n; i++) {
      const lr = (re[i][k] * re[k][k] + im[i][k] * im[k][k]) / d;
      const li = (im[i][k] * re[k][k] - re[i][k] * im[k][k]) / d;
      for (let j = k; j < n; j++) {
        re[i][j] -= lr * re[k][j] - li * im[k][j];
        im[i][j] -= lr * im[k][j] + li * re[k][j];
      }
      xr[i] -= lr * xr[k] - li * xi[k];
      xi[i] -= lr * xi[k] + li * xr[k];
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    let sr = xr[k];
    let si = xi[k];
    for (let j = k + 1; j < n; j++) {
      sr -= re[k][j] * xr[j] - im[k][j] * xi[j];
      si -= re[k][j] * xi[j] + im[k][j] * xr[j];
    }
    const d = re[k][k] ** 2 + im[k][k] ** 2;
    xr[k] = (sr * re[k][k] + si * im[k][k]) / d;
    xi[k] = (si * re[k][k] - sr * im[k][k]) / d;
  }
  return Float64Array.from({ length: n * c }, (_, t) => (c === 1 ? xr[t] : t % 2 ? xi[t >> 1] : xr[t >> 1]));
}

function known(A: CSRMatrix, seed: number): { xTrue: Float64Array; b: Float64Array } {
  const rng = new Prng(seed);
  const xTrue = Float64Array.from({ length: A.rows * (cplx(A) ? 2 : 1) }, () => 2 * rng.next() - 1);
  return { xTrue, b: matvec(A, xTrue) };
}

describe("rt.factor with ordering 'btf'", () => {
  it("west0479 under 'auto': the block triangular form (its reason says so), the dense window inside the 308×308 block, the dense LU's answer", async () => {
    const A = loadShared('west0479');
    const { b } = known(A, 3);
    const F = await rt.factor(A);
    expect([F.info.kind, F.info.ordering]).toEqual(['lu', 'btf']);
    expect(F.info.orderingReason).toMatch(/166 diagonal blocks \(159 of them 1×1, the largest 308×308\)/);
    expect(F.info.denseColumns).toBeGreaterThan(0);
    expect(F.info.offDiagonalPivots).toBeLessThan(A.rows);
    const { x, relativeResidual } = await F.solve(b);
    expect(relativeResidual).toBeLessThan(1e-12);
    expect(trueResidual(A, x, b)).toBeLessThan(1e-12);
    expect(relDiff(x, denseSolve(A, b))).toBeLessThan(1e-8);
    // the same ordering asked for, and again after a refactor with new values
    const E = await rt.factor(A, { ordering: 'btf' });
    expect((await E.solve(b)).x).toEqual(x);
    const A2 = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values, (v, k) => v * (1 + 0.25 * Math.sin(k))));
    await E.refactor(A2);
    const b2 = known(A2, 4).b;
    const r2 = await E.solve(b2);
    expect(r2.relativeResidual).toBeLessThan(1e-12);
    expect(relDiff(r2.x, denseSolve(A2, b2))).toBeLessThan(1e-8);
  });

  it('planted block structures, real and complex, with dense windows inside blocks and between sparse ones: the dense LU\'s answer', async () => {
    const cases: [number[], number, boolean][] = [
      [[1, 60, 1, 1, 3, 1], 1, false],
      [[2, 1, 45, 1, 30, 1, 1], 2, true],
      [[70], 3, false],
      [[1, 1, 1, 1], 4, true],
      [[5, 50, 4, 1, 1, 1, 1, 1, 25], 5, false],
    ];
    let windows = 0;
    for (const [sizes, seed, complex] of cases) {
      // many entries inside the blocks: their tails fill and go dense
      const A = planted(sizes, seed, complex, 12);
      const { b } = known(A, seed);
      const F = await rt.factor(A, { kind: 'lu', ordering: 'btf' });
      expect(F.info.ordering).toBe('btf');
      windows += F.info.denseColumns > 0 ? 1 : 0;
      const { x, relativeResidual } = await F.solve(b);
      expect(relativeResidual).toBeLessThan(1e-12);
      expect(relDiff(x, denseSolve(A, b))).toBeLessThan(1e-10);
    }
    expect(windows).toBeGreaterThanOrEqual(3);
  });

  it('the kernel refuses a dense window that is not the tail of a diagonal block (an internal error, no wrong factor)', () => {
    const n = 30;
    const A = planted([n], 7, false, 10);
    const C = cscOf(A);
    const q = Int32Array.from({ length: n }, (_, i) => i);
    expect(() => sparseLu(n, C.colPtr, C.rowIdx, C.values, false, q, 1, 4 * C.colPtr[n], () => {}, 5, 20)).toThrow(/dense window 5\.\.20/);
    // the whole trailing part, as before, factorizes
    const f = sparseLu(n, C.colPtr, C.rowIdx, C.values, false, q, 1, 4 * C.colPtr[n], () => {}, 5, n);
    expect(typeof f).not.toBe('number');
  });

  it('singular: SingularMatrixError naming a column; structurally singular: the column ordering, then the same error', async () => {
    // rajat01 as stored (all ones) is singular
    const R = loadShared('rajat01');
    const e = await rt.factor(R).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SingularMatrixError);
    const { column, step } = e as SingularMatrixError;
    expect(column >= 0 && column < R.rows && step >= 0 && step < R.rows).toBe(true);
    expect((e as Error).message).toMatch(new RegExp(`column ${column}\\b`));
    // two columns with entries in one row only: structural rank n − 1
    const n = 8;
    const rows = [0, 0, ...Array.from({ length: n - 2 }, (_, i) => i + 1), 1, 3];
    const cols = [0, 1, ...Array.from({ length: n - 2 }, (_, i) => i + 2), 0, 5];
    const S = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(rows, (_, k) => 1 + k));
    expect(structuralRank(S)).toBe(n - 1);
    for (const ordering of ['auto', 'btf'] as const) {
      const err = await rt.factor(S, { kind: 'lu', ordering }).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(SingularMatrixError);
      expect((err as SingularMatrixError).column).toBeLessThan(n);
    }
    const est = rt.estimateFactorCost(S, 'lu', 'btf');
    expect(est.ordering).toBe('amd-ata');
  });

  it("'btf' is LU's: refused for Cholesky and LDLᵀ; kind 'auto' with it factorizes LU, a symmetric A too", async () => {
    // a symmetric matrix of two 2×2 blocks and a 1×1
    const S = CSRMatrix.fromTriplets(5, 5, 'f64', Int32Array.from([0, 0, 1, 1, 2, 3, 3, 4, 4]), Int32Array.from([0, 1, 0, 1, 2, 3, 4, 3, 4]), Float64Array.from([4, 1, 1, 3, 2, 5, 2, 2, 6]));
    for (const kind of ['cholesky', 'ldlt'] as const) await expect(rt.factor(S, { kind, ordering: 'btf' })).rejects.toThrow(/'btf' \(block triangular form\) is for LU/);
    expect(() => rt.estimateFactorCost(S, 'cholesky', 'btf')).toThrow(UnsupportedError);
    const F = await rt.factor(S, { ordering: 'btf' });
    expect([F.info.kind, F.info.ordering]).toEqual(['lu', 'btf']);
    expect(F.info.kindReason).toMatch(/ordering 'btf' was asked for/);
    const { b } = known(S, 2);
    expect(relDiff((await F.solve(b)).x, denseSolve(S, b))).toBeLessThan(1e-14);
  });
});
