/**
 * Fill-reducing orderings (AMD, nested dissection) and the symbolic phase: every ordering is a
 * permutation, the symbolic column counts equal a plain elimination count written here (bitset
 * elimination of the graph in that order), and the orderings cut the fill against the natural order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amdOrder, columnAmdOrder, type MinimumDegreeKernel } from '../src/solvers/direct/amd.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { makeHarness, type Harness } from './kernel-harness.js';
import { amdOrder as referenceAmd, columnAmdOrder as referenceColumnAmd } from './amd-reference.js';
import { compressGraph, ndOrder } from '../src/solvers/direct/nested-dissection.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { bandOf, cscOf, denseRows, inversePermutation, patternSymmetry, rowsOf as patternRows, symmetricGraph, type Graph } from '../src/solvers/direct/pattern.js';
import { analyze } from '../src/solvers/direct/analysis.js';
import { columnCounts, columnCountsAtA, columnEliminationTree, supernodes, type SymbolicKernels } from '../src/solvers/direct/symbolic.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

function graphOf(A: CSRMatrix): Graph {
  const C = cscOf(A);
  return symmetricGraph(C.n, C.colPtr, C.rowIdx);
}

function expectPermutation(p: Int32Array, n: number): void {
  expect(p.length).toBe(n);
  const seen = new Uint8Array(n);
  for (const v of p) {
    expect(v >= 0 && v < n && !seen[v]).toBe(true);
    seen[v] = 1;
  }
}

/** nnz(L) (diagonal included) of eliminating the graph in order perm: rows as bitsets, each pivot's row ORed into its neighbours'. */
function referenceFill(g: Graph, perm: Int32Array): number {
  return referenceElimination(g, perm).fill;
}

/** The bitset elimination: nnz(L), and the elimination tree (each column's first row below the diagonal in L, −1 for none). */
function referenceElimination(g: Graph, perm: Int32Array): { fill: number; parent: Int32Array } {
  const n = g.n;
  const pinv = inversePermutation(perm);
  const words = (n + 31) >>> 5;
  const rows = new Uint32Array(n * words);
  for (let v = 0; v < n; v++) {
    for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) {
      const a = pinv[v];
      const b = pinv[g.adj[p]];
      if (b > a) rows[a * words + (b >>> 5)] |= 1 << (b & 31);
    }
  }
  let fill = n;
  const parent = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    const rk = k * words;
    for (let w = k >>> 5; w < words; w++) {
      let bits = rows[rk + w];
      while (bits) {
        const t = 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        const j = (w << 5) + t;
        if (parent[k] === -1) parent[k] = j;
        fill++;
        // row j gets row k's entries past j
        const rj = j * words;
        const jw = j >>> 5;
        rows[rj + jw] |= rows[rk + jw] & ~((2 ** ((j & 31) + 1) - 1) >>> 0);
        for (let u = jw + 1; u < words; u++) rows[rj + u] |= rows[rk + u];
      }
    }
  }
  return { fill, parent };
}

/** nnz(L) from the symbolic kernels (tree, postorder, counts), checked against the bitset elimination's tree; the plain build gives the same. */
function symbolicFill(g: Graph, perm: Int32Array): number {
  const pinv = inversePermutation(perm);
  const parent = sk.eliminationTree(g, perm, pinv);
  expect([...parent]).toEqual([...referenceElimination(g, perm).parent]);
  const post = sk.postorder(parent);
  expectPostorder(post, parent);
  const counts = columnCounts(g, perm, pinv, parent, post, sk);
  expect([...skPlain.eliminationTree(g, perm, pinv)]).toEqual([...parent]);
  expect([...skPlain.postorder(parent)]).toEqual([...post]);
  expect([...columnCounts(g, perm, pinv, parent, post, skPlain)]).toEqual([...counts]);
  // the fused call (the analysis's) gives the same three arrays, in both builds
  for (const k of [sk, skPlain]) {
    const t = k.graphTree(g, perm, pinv);
    expect([...t.parent]).toEqual([...parent]);
    expect([...t.post]).toEqual([...post]);
    expect([...t.counts]).toEqual([...counts]);
  }
  return counts.reduce((s, c) => s + c, 0);
}

/** post is a permutation with every node after its children. */
function expectPostorder(post: Int32Array, parent: Int32Array): void {
  const n = parent.length;
  expectPermutation(post, n);
  const at = inversePermutation(post);
  for (let j = 0; j < n; j++) if (parent[j] !== -1 && !(at[parent[j]] > at[j])) expect.fail(`postorder: node ${j} after its parent`);
}

const natural = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

// the minimum degree elimination (assembly/amd.ts) of both builds: the SIMD one orders, and the plain
// one must give the same permutations
let simd: Harness;
let plain: Harness;
let sk: SymbolicKernels;
let skPlain: SymbolicKernels;
let md: MinimumDegreeKernel;
let mdPlain: MinimumDegreeKernel;
beforeAll(async () => {
  [simd, plain] = await Promise.all([makeHarness('simd'), makeHarness('plain')]);
  sk = cpuSymbolicKernels(simd);
  skPlain = cpuSymbolicKernels(plain);
  md = sk.minimumDegree;
  mdPlain = skPlain.minimumDegree;
});
afterAll(() => {
  // every block the orderings took was given back
  expect([simd.heap.liveBytes, plain.heap.liveBytes]).toEqual([0, 0]);
});

/** matrices whose bitset elimination stays quick */
const cases: [string, () => CSRMatrix][] = [
  ['poisson2D(30)', () => poisson2D(30)],
  ['poisson3D(10)', () => poisson3D(10)],
  ['random 600', () => randomMatrix({ rows: 600, meanRowLength: 4, seed: 3 })],
  ['elasticity2D(12) (two unknowns a node: ND merges them)', () => elasticity2D(12)],
  ...sharedMatrixNames()
    .filter((m) => !['Groebner_id2003_aug', 'ash219'].includes(m))
    .map((m): [string, () => CSRMatrix] => [m, () => loadShared(m)]),
];

describe('orderings', () => {
  for (const [name, make] of cases) {
    it(`${name}: AMD and ND are permutations; symbolic counts equal the elimination count; fill below natural`, () => {
      const A = make();
      const g = graphOf(A);
      const n = g.n;
      const amd = amdOrder(g, md);
      const nd = ndOrder(g, md);
      // the permutation of the JavaScript reference, from both builds
      expect([...amd]).toEqual([...referenceAmd(g)]);
      expect([...amdOrder(g, mdPlain)]).toEqual([...amd]);
      expectPermutation(amd, n);
      expectPermutation(nd, n);
      const fills: Record<string, number> = {};
      // the natural order of the largest (rajat01) fills too much for a quick bitset elimination
      const orders = n > 3000 ? ([['amd', amd], ['nd', nd]] as const) : ([['natural', natural(n)], ['amd', amd], ['nd', nd]] as const);
      for (const [o, p] of orders) {
        const ref = referenceFill(g, p);
        expect(symbolicFill(g, p)).toBe(ref);
        fills[o] = ref;
      }
      // the orderings never fill much more than doing nothing (a banded matrix is already good)
      const base = fills.natural ?? symbolicFill(g, natural(n));
      expect(fills.amd).toBeLessThanOrEqual(1.1 * base + n);
      expect(fills.nd).toBeLessThanOrEqual(1.5 * base + n);
    });
  }

  it('on grids AMD and ND cut the fill of the natural (banded) order well down', () => {
    const g2 = graphOf(poisson2D(40));
    const nat2 = referenceFill(g2, natural(g2.n));
    expect(referenceFill(g2, amdOrder(g2, md))).toBeLessThan(0.5 * nat2);
    expect(referenceFill(g2, ndOrder(g2, md))).toBeLessThan(0.6 * nat2);
    const g3 = graphOf(poisson3D(12));
    const nat3 = referenceFill(g3, natural(g3.n));
    expect(referenceFill(g3, amdOrder(g3, md))).toBeLessThan(0.6 * nat3);
    expect(referenceFill(g3, ndOrder(g3, md))).toBeLessThan(0.6 * nat3);
  });

  it('edge cases: empty, one node, isolated nodes, a dense row, disconnected parts', () => {
    for (const n of [0, 1, 5]) {
      const g: Graph = { n, ptr: new Int32Array(n + 1), adj: new Int32Array(0) };
      expectPermutation(amdOrder(g, md), n);
      expect([...amdOrder(g, md)]).toEqual([...referenceAmd(g)]);
      expectPermutation(ndOrder(g, md), n);
    }
    // an arrow: node 0 joined to all of 400 others, plus a chain; dense rows go last in AMD
    const n = 400;
    const rows: number[] = [];
    const cols: number[] = [];
    for (let i = 0; i < n; i++) {
      rows.push(i, 0, i);
      cols.push(0, i, i);
      if (i + 1 < n) rows.push(i, i + 1), cols.push(i + 1, i);
    }
    const arrow = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), new Float64Array(rows.length).fill(1));
    const ga = graphOf(arrow);
    const pa = amdOrder(ga, md);
    expectPermutation(pa, n);
    expect([...pa]).toEqual([...referenceAmd(ga)]);
    expect(pa[n - 1]).toBe(0);
    expect(referenceFill(ga, pa)).toBeLessThanOrEqual(3 * n);
    // two grids side by side, no edge between them, and 3000 nodes so ND splits components
    const P = poisson2D(40);
    const two = CSRMatrix.fromTriplets(
      2 * P.rows, 2 * P.rows, 'f64',
      Int32Array.from([...rowsOf(P), ...rowsOf(P).map((r) => r + P.rows)]),
      Int32Array.from([...P.colIdx, ...[...P.colIdx].map((c) => c + P.rows)]),
      new Float64Array(2 * P.nnz).fill(1),
    );
    const g2 = graphOf(two);
    const nd = ndOrder(g2, md);
    expectPermutation(nd, g2.n);
    expect(referenceFill(g2, nd)).toBeLessThan(0.6 * referenceFill(g2, natural(g2.n)));
  });

  it('analysis: postordered, supernodes partition the columns, auto keeps the fewer flops', () => {
    const g = graphOf(poisson2D(50));
    const a = analyze(g, 'auto', false, false, sk);
    expectPermutation(a.perm, g.n);
    expect(a.ordering === 'amd' || a.ordering === 'nd').toBe(true);
    expect(a.orderingReason).toMatch(/flops/);
    // postordered: every parent after its child, the tree's postorder is the identity
    for (let j = 0; j < g.n; j++) expect(a.parent[j] === -1 || a.parent[j] > j).toBe(true);
    expect([...sk.postorder(a.parent)]).toEqual([...natural(g.n)]);
    expect(a.cost.fillNnz).toBe(referenceFill(g, a.perm));
    const other = analyze(g, a.ordering === 'amd' ? 'nd' : 'amd', false, false, sk);
    expect(a.cost.flops).toBeLessThanOrEqual(other.cost.flops);
    const s = supernodes(a.parent, a.counts);
    expect(s[0]).toBe(0);
    expect(s[s.length - 1]).toBe(g.n);
    expect([...a.supernodeStarts]).toEqual([...s]);
    // a supernode's columns share one pattern: counts drop by one along it
    for (let k = 0; k + 1 < s.length; k++) for (let j = s[k] + 1; j < s[k + 1]; j++) expect(a.counts[j]).toBe(a.counts[j - 1] - 1);
  });
});

/** The graph's edges as "v,u" strings; each neighbour list must ascend. */
/** The graph's edges; no node listed twice among a node's neighbours, in ascending order when `sorted`. */
function edgeSet(g: Graph, sorted = true): Set<string> {
  const got = new Set<string>();
  for (let v = 0; v < g.n; v++) {
    for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) {
      got.add(`${v},${g.adj[p]}`);
      if (sorted && p > g.ptr[v]) expect(g.adj[p]).toBeGreaterThan(g.adj[p - 1]);
    }
  }
  expect(got.size).toBe(g.ptr[g.n]);
  return got;
}

function rowsOf(A: CSRMatrix): number[] {
  const r: number[] = [];
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) r.push(i);
  return r;
}

describe("ordering 'auto' on mesh-like graphs", () => {
  it("auto on a large mesh-like graph runs nested dissection alone, and it beats AMD there; hubs or several unknowns per node still compare both", () => {
    const g = graphOf(poisson2D(128)); // 16,384 nodes, degree ≤ 4
    const a = analyze(g, 'auto', false, false, sk);
    expect(a.ordering).toBe('nd');
    expect(a.orderingReason).toMatch(/^nested dissection alone: a mesh-like graph \(average degree [34]\.\d ≤ 8/);
    expect(a.cost.flops).toBeLessThan(analyze(g, 'amd', false, false, sk).cost.flops);
    expect(a.cost.fillNnz).toBe(referenceFill(g, a.perm));
    // the same grid with one node joined to 100 others: a hub, so both are measured
    const P = poisson2D(128);
    const hubCols = Array.from({ length: 100 }, (_, k) => 50 + 150 * k);
    const rows = [...rowsOf(P), ...hubCols.map(() => 0), ...hubCols];
    const cols = [...P.colIdx, ...hubCols, ...hubCols.map(() => 0)];
    const hub = CSRMatrix.fromTriplets(P.rows, P.rows, 'f64', Int32Array.from(rows), Int32Array.from(cols), new Float64Array(rows.length).fill(1));
    expect(analyze(graphOf(hub), 'auto', false, false, sk).orderingReason).toMatch(/^the fewer predicted flops: amd .* vs nd /);
    // two unknowns per node (average degree ≈ 17): both measured
    const e = graphOf(elasticity2D(91)); // 2·92² = 16,928 unknowns
    expect(e.n).toBeGreaterThanOrEqual(16384);
    expect(analyze(e, 'auto', false, false, sk).orderingReason).toMatch(/^the fewer predicted flops: amd .* vs nd /);
  });
});

describe('column ordering for LU (minimum degree of AᵀA, without forming it)', () => {
  /** AᵀA's off-diagonal pattern by a plain boolean product, rows with more than max(16, 10√n) entries left out. */
  function referenceAtA(A: CSRMatrix): Graph {
    const n = A.rows;
    const dense = Math.max(16, 10 * Math.sqrt(n));
    const adj: Set<number>[] = Array.from({ length: n }, () => new Set());
    for (let i = 0; i < n; i++) {
      const cols = [...A.colIdx.subarray(A.rowPtr[i], A.rowPtr[i + 1])];
      if (cols.length > dense) continue;
      for (const a of cols) for (const b of cols) if (a !== b) adj[a].add(b);
    }
    const ptr = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) ptr[v + 1] = ptr[v] + adj[v].size;
    return { n, ptr, adj: Int32Array.from(adj.flatMap((s) => [...s])) };
  }

  function triplets(n: number, entries: [number, number][]): CSRMatrix {
    return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(entries.map((e) => e[0])), Int32Array.from(entries.map((e) => e[1])), new Float64Array(entries.length).fill(1));
  }
  // an arrow: row 0 and column 0 full (row 0 is dense: left out), plus the diagonal
  const arrow = (n: number): CSRMatrix => triplets(n, [...Array.from({ length: n }, (_, j): [number, number] => [0, j]), ...Array.from({ length: n - 1 }, (_, i): [number, number] => [i + 1, 0]), ...Array.from({ length: n - 1 }, (_, i): [number, number] => [i + 1, i + 1])]);
  const columnCases: [string, () => CSRMatrix][] = [
    ['west0479', () => loadShared('west0479')],
    ['young1c', () => loadShared('young1c')],
    ['494_bus', () => loadShared('494_bus')],
    ['random 300', () => randomMatrix({ rows: 300, meanRowLength: 5, seed: 11 })],
    ['random 40 (empty rows and columns)', () => randomMatrix({ rows: 40, meanRowLength: 2, seed: 4 })],
    ['arrow 200 (a dense row)', () => arrow(200)],
    ['one entry', () => triplets(1, [[0, 0]])],
    ['empty 3×3', () => triplets(3, [])],
  ];
  for (const [name, make] of columnCases) {
    it(`${name}: a permutation; the column tree and counts from A's rows equal those of AᵀA formed (and its elimination count); fill near AMD of AᵀA`, () => {
      const A = make();
      const n = A.rows;
      const C = cscOf(A);
      const rows = patternRows(C);
      const skip = denseRows(rows, n);
      const g = referenceAtA(A);
      const q = columnAmdOrder(C, rows, skip, md);
      // the permutation of the JavaScript reference, from both builds
      expect([...q]).toEqual([...referenceColumnAmd(C, rows, skip)]);
      expect([...columnAmdOrder(C, rows, skip, mdPlain)]).toEqual([...q]);
      expectPermutation(q, n);
      const pinv = inversePermutation(q);
      const parent = columnEliminationTree(C, skip, q);
      expect([...parent]).toEqual([...referenceElimination(g, q).parent]);
      const post = sk.postorder(parent);
      const counts = columnCountsAtA(rows, skip, pinv, parent, post, sk);
      expect([...counts]).toEqual([...columnCounts(g, q, pinv, parent, post, sk)]);
      const fill = referenceFill(g, q);
      expect(counts.reduce((s, c) => s + c, 0)).toBe(fill);
      // as good as AMD of the formed AᵀA, within a margin (both approximate the minimum degree)
      expect(fill).toBeLessThanOrEqual(1.15 * referenceFill(g, amdOrder(g, md)) + 10);
    });
  }

  it('denseRows: the rows with more than max(16, 10√n) entries; patternSymmetry counts mirrored entries and the diagonal', () => {
    for (const A of [loadShared('west0479'), loadShared('young1c'), randomMatrix({ rows: 300, meanRowLength: 5, seed: 11 }), arrow(200)]) {
      const C = cscOf(A);
      const skip = denseRows(patternRows(C), A.rows);
      const dense = Math.max(16, 10 * Math.sqrt(A.rows));
      const want = Array.from({ length: A.rows }, (_, i) => (A.rowPtr[i + 1] - A.rowPtr[i] > dense ? 1 : 0));
      expect(skip ? [...skip] : want.map(() => 0)).toEqual(want);
      // the pattern's symmetry, by a plain set of entries
      const entries = new Set<string>();
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) entries.add(`${i},${A.colIdx[k]}`);
      let off = 0, mirrored = 0, diag = 0;
      for (const e of entries) {
        const [i, j] = e.split(',');
        if (i === j) diag++;
        else {
          off++;
          if (entries.has(`${j},${i}`)) mirrored++;
        }
      }
      const st = patternSymmetry(C);
      expect(st.diagonal).toBe(diag);
      expect(st.symmetry).toBeCloseTo(off ? mirrored / off : 1, 12);
    }
    expect(denseRows(patternRows(cscOf(arrow(200))), 200)?.[0]).toBe(1);
    expect(patternSymmetry(cscOf(loadShared('west0479'))).symmetry).toBeLessThan(0.5);
  });
});

describe('banded matrices keep the natural order', () => {
  it('bandOf: the bandwidths and the stored fraction of the band, by a plain scan of the entries', () => {
    for (const A of [loadShared('olm1000'), loadShared('young1c'), loadShared('west0479'), poisson2D(7), randomMatrix({ rows: 80, meanRowLength: 4, seed: 3 })]) {
      let lo = 0, up = 0;
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) lo = Math.max(lo, i - A.colIdx[k]), up = Math.max(up, A.colIdx[k] - i);
      const b = bandOf(cscOf(A));
      expect([b.lower, b.upper]).toEqual([lo, up]);
      expect(b.density).toBeCloseTo(A.nnz / (A.rows * (lo + up + 1)), 14);
    }
  });

  it("olm1000 (band 2 + 3, two thirds of it stored) factorizes by the banded LU under 'auto', with less fill than AMD's", async () => {
    const { createRuntime } = await import('../src/runtime/runtime.js');
    const rt = await createRuntime({ workers: 1 });
    try {
      const A = loadShared('olm1000');
      const F = await rt.factor(A);
      expect([F.info.ordering, F.info.method]).toEqual(['natural', 'banded']);
      expect(F.info.orderingReason).toMatch(/^banded: A stores 0\.\d\d of its band.*banded LU \(2 \+ 3 diagonals\)/);
      // the band estimate bounds the fill
      expect(F.info.fillNnz).toBeLessThanOrEqual(F.info.estimate.fillNnz);
      // its answer is the left-looking kernel's (natural order asked for: no banded kernel)
      const N = await rt.factor(A, { ordering: 'natural' });
      expect(N.info.method).toBe('left-looking');
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i));
      const [x1, x2] = [(await F.solve(b)).x, (await N.solve(b)).x];
      for (let i = 0; i < A.rows; i++) expect(Math.abs(x1[i] - x2[i])).toBeLessThan(1e-10 * (1 + Math.abs(x2[i])));
      const G = await rt.factor(A, { ordering: 'amd' });
      expect(F.info.fillNnz).toBeLessThanOrEqual(G.info.fillNnz);
      // a grid is not banded enough: AMD or ND
      expect(['amd', 'nd']).toContain((await rt.factor(poisson2D(20))).info.ordering);
    } finally {
      rt.dispose();
    }
  });
});

describe('graphs', () => {
  it('cscOf is A by columns (rows ascending, values with them, re/im interleaved), against the entries listed by rows; empty rows and columns, 0×0 and 1×1', () => {
    // column j of A is the list of (i, value) over A's entries (i, j) in row order: a plain transposition by sorting
    const reference = (A: CSRMatrix): { colPtr: number[]; rowIdx: number[]; values: number[] } => {
      const c = A.dtype === 'c128' || A.dtype === 'c64' ? 2 : 1;
      const entries: [number, number, number[]][] = [];
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) entries.push([A.colIdx[k], i, Array.from(A.values.subarray(c * k, c * k + c))]);
      entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const colPtr = new Array<number>(A.cols + 1).fill(0);
      for (const [j] of entries) colPtr[j + 1]++;
      for (let j = 0; j < A.cols; j++) colPtr[j + 1] += colPtr[j];
      return { colPtr, rowIdx: entries.map((e) => e[1]), values: entries.flatMap((e) => e[2]) };
    };
    const holes = CSRMatrix.fromTriplets(6, 6, 'f64', Int32Array.of(0, 0, 2, 2, 5, 5), Int32Array.of(5, 1, 1, 5, 0, 5), Float64Array.of(1, 2, 3, 4, 5, 6));
    const cases = [loadShared('west0479'), loadShared('young1c'), randomMatrix({ rows: 150, meanRowLength: 5, seed: 7 }), holes,
      CSRMatrix.fromTriplets(0, 0, 'f64', new Int32Array(0), new Int32Array(0), new Float64Array(0)),
      CSRMatrix.fromTriplets(1, 1, 'f64', Int32Array.of(0), Int32Array.of(0), Float64Array.of(-2.5))];
    for (const A of cases) {
      const C = cscOf(A);
      const want = reference(A);
      expect(C.n).toBe(A.rows);
      expect(C.complex).toBe(A.dtype === 'c128' || A.dtype === 'c64');
      expect(Array.from(C.colPtr)).toEqual(want.colPtr);
      expect(Array.from(C.rowIdx)).toEqual(want.rowIdx);
      expect(Array.from(C.values)).toEqual(want.values);
    }
  });

  it('symmetricGraph is the pattern of A + Aᵀ without the diagonal, each list ascending', () => {
    for (const A of [loadShared('west0479'), loadShared('bcsstk01'), randomMatrix({ rows: 200, meanRowLength: 6, seed: 2 })]) {
      const want = new Set<string>();
      for (let i = 0; i < A.rows; i++) {
        for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
          const j = A.colIdx[k];
          if (i !== j) want.add(`${i},${j}`).add(`${j},${i}`);
        }
      }
      const g = graphOf(A);
      const got = edgeSet(g);
      expect(got.size).toBe(g.ptr[g.n]);
      expect(got).toEqual(want);
    }
  });

  it("symmetricGraph of a symmetric pattern given as its own rows (the factorization's shortcut) equals the merge of its columns and rows", () => {
    for (const A of [loadShared('bcsstk01'), loadShared('494_bus'), poisson2D(7), elasticity2D(3)]) {
      const C = cscOf(A);
      const merged = symmetricGraph(C.n, C.colPtr, C.rowIdx, patternRows(C));
      const own = symmetricGraph(C.n, C.colPtr, C.rowIdx, { rowPtr: C.colPtr, colIdx: C.rowIdx });
      expect([Array.from(own.ptr), Array.from(own.adj)]).toEqual([Array.from(merged.ptr), Array.from(merged.adj)]);
      expect(own.ptr[own.n]).toBeGreaterThan(0);
    }
  });

  it('compressGraph merges exactly the nodes with equal closed neighbourhoods; none on a grid', () => {
    const g = graphOf(elasticity2D(6));
    const closed = (v: number) => [...g.adj.subarray(g.ptr[v], g.ptr[v + 1]), v].sort((a, b) => a - b).join(',');
    const c = compressGraph(g)!;
    expect(c).not.toBeNull();
    const groupOf = new Int32Array(g.n).fill(-1);
    for (let t = 0; t < c.graph.n; t++) {
      const first = closed(c.members[c.memberPtr[t]]);
      for (let p = c.memberPtr[t]; p < c.memberPtr[t + 1]; p++) {
        expect(groupOf[c.members[p]]).toBe(-1);
        groupOf[c.members[p]] = t;
        expect(closed(c.members[p])).toBe(first);
      }
    }
    // a partition, and no two groups could have merged
    expect(groupOf.every((t) => t >= 0)).toBe(true);
    const keys = new Set(Array.from({ length: c.graph.n }, (_, t) => closed(c.members[c.memberPtr[t]])));
    expect(keys.size).toBe(c.graph.n);
    // the merged graph's edges are the groups' edges
    for (let t = 0; t < c.graph.n; t++) {
      const want = new Set<number>();
      const v = c.members[c.memberPtr[t]];
      for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) if (groupOf[g.adj[p]] !== t) want.add(groupOf[g.adj[p]]);
      expect(new Set(c.graph.adj.subarray(c.graph.ptr[t], c.graph.ptr[t + 1]))).toEqual(want);
    }
    expect(compressGraph(graphOf(poisson2D(20)))).toBeNull();
  });
});
