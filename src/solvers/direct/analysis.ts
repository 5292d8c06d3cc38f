/**
 * The symbolic phase of every factorization: a fill-reducing ordering of the pattern of A + Aᵀ
 * (AMD, nested dissection, or the natural order; 'auto' measures AMD and, on larger graphs, nested
 * dissection by their predicted flops and keeps the cheaper — nested dissection alone on a large
 * mesh-like graph), postordered along its elimination tree,
 * and the tree, column counts, supernodes and cost of the factor in that order.
 */
import { amdOrder, columnAmdOrder } from './amd.js';
import type { Band } from './band-lu.js';
import type { BlockTriangular } from './btf.js';
import { ndOrderSteps } from './nested-dissection.js';
import { inversePermutation, type Graph, type Rows } from './pattern.js';
import { finish, type Steps } from './steps.js';
import { columnCountsAtA, columnEliminationTree, costOf, supernodes, type FactorCost, type SymbolicKernels } from './symbolic.js';

/**
 * The fill-reducing orderings: approximate minimum degree or nested dissection of A + Aᵀ, none, or
 * (LU only) 'amd-ata', a column ordering: approximate minimum degree of AᵀA's pattern (from A's, without forming AᵀA),
 * or 'btf', block triangular form (btf.ts: rows matched to columns, the diagonal blocks in block upper
 * triangular order), each block ordered by approximate minimum degree of its B + Bᵀ.
 */
export type OrderingName = 'amd' | 'nd' | 'natural' | 'amd-ata' | 'btf';

/** Graphs at least this large also try nested dissection under ordering: 'auto'. */
const ND_MIN_NODES = 2000;

/**
 * A mesh-like graph at least this large gets nested dissection alone under 'auto'. Measured
 * 2026-11-26 (AMD's against ND's predicted flops): ND fewer on every low-degree grid from 8,000 nodes
 * (poisson2D(128…512) 1.4–1.8×, poisson3D(20…32) 2.2–3.2×), while AMD's ordering and counts then
 * cost 40% of poisson2D(256)'s analysis for an ordering that is thrown away.
 */
const ND_ONLY_MIN_NODES = 16384;

/**
 * Whether the graph looks like a low-order finite-difference/element mesh (one unknown per node):
 * average degree ≤ 8 and no node above twice that (+2): the graphs where nested dissection's
 * separators are small. Higher degrees (several unknowns per node: elasticity2D, bcsstk13) and hubs
 * (circuits, power-law graphs) are where AMD can win, so both are tried there.
 */
function meshLike(g: Graph): boolean {
  const avg = g.ptr[g.n] / g.n;
  if (avg > 8) return false;
  const cap = 2 * avg + 2;
  for (let i = 0; i < g.n; i++) if (g.ptr[i + 1] - g.ptr[i] > cap) return false;
  return true;
}

/** What the symbolic phase knows about the factor of P·(A + Aᵀ)·Pᵀ. */
export interface Analysis {
  /** perm[k] = the row/column of A eliminated k-th (postordered) */
  perm: Int32Array;
  pinv: Int32Array;
  /** the elimination tree in the permuted numbering */
  parent: Int32Array;
  /** column counts of the Cholesky factor of the permuted pattern (diagonal included) */
  counts: Int32Array;
  /** first column of each fundamental supernode, n appended */
  supernodeStarts: Int32Array;
  cost: FactorCost;
  ordering: OrderingName;
  orderingReason: string;
  /** ordering 'btf': row r of A is factorized as row matchOf[r] (the maximum transversal's renumbering), so the kernel's diagonal is the matched entry */
  matchOf?: Int32Array;
  /** ordering 'btf': the diagonal block of each column (blocks numbered in their order along perm), and the entries of A above the blocks */
  blockOf?: Int32Array;
  above?: number;
  /**
   * ordering 'btf' chosen by 'auto' for one irreducible block of a mostly symmetric pattern (a saddle
   * point's): its fill rests on pivots that stay on the matched diagonal (LU's pivot tolerance 0.01 there)
   */
  symmetricBlock?: boolean;
  /** LU of a banded matrix: its band, factorized by the banded kernel in the natural order (the counts are then the band's) */
  band?: Band;
  /** a small matrix factorized dense (denseAnalysis: `band` is then the whole matrix) */
  dense?: boolean;
  /** milliseconds spent ordering, and on the rest of the symbolic phase */
  orderingMs: number;
  symbolicMs: number;
}

/** What a column ordering orders: A's pattern by columns and by rows, the rows left out of AᵀA (denseRows). */
export interface ColumnPattern {
  n: number;
  colPtr: Int32Array;
  rowIdx: Int32Array;
  rows: Rows;
  skip: Uint8Array | null;
}

/** Elimination tree, a postorder of it, and column counts of the graph (of AᵀA for a column pattern) in the order perm. */
function countsFor(g: Graph | ColumnPattern, perm: Int32Array, k: SymbolicKernels): { pinv: Int32Array; parent: Int32Array; post: Int32Array; counts: Int32Array } {
  const pinv = inversePermutation(perm);
  if ('rows' in g) {
    const parent = columnEliminationTree(g, g.skip, perm);
    const post = k.postorder(parent);
    return { pinv, parent, post, counts: columnCountsAtA(g.rows, g.skip, pinv, parent, post, k) };
  }
  return { pinv, ...k.graphTree(g, perm, pinv) };
}

/**
 * Orders and analyses the graph of A + Aᵀ, or for 'amd-ata' the column pattern of A (the counts are
 * then those of AᵀA's Cholesky factor, a bound on LU's). `lu` and `complex` only change the cost
 * estimate; `k` runs the loops of the orderings and of the tree and counts. (Ordering 'btf':
 * btfAnalysis.)
 */
export function analyze(g: Graph | ColumnPattern, asked: OrderingName | 'auto', lu: boolean, complex: boolean, k: SymbolicKernels): Analysis {
  return finish(analyzeSteps(g, asked, lu, complex, k));
}

/** analyze as steps (steps.ts): it yields between the orderings, the tree and counts of each, and within nested dissection. */
export function* analyzeSteps(g: Graph | ColumnPattern, asked: OrderingName | 'auto', lu: boolean, complex: boolean, k: SymbolicKernels): Steps<Analysis> {
  const n = g.n;
  const t0 = performance.now();
  const candidates: [OrderingName, Int32Array][] = [];
  // a column pattern is ordered by columns ('amd-ata'), a graph by the ordering asked for
  if ('rows' in g) candidates.push(['amd-ata', columnAmdOrder(g, g.rows, g.skip, k.minimumDegree)]);
  const graph = 'rows' in g ? null : g;
  const ndOnly = graph !== null && asked === 'auto' && n >= ND_ONLY_MIN_NODES && meshLike(graph);
  if (graph) {
    if (asked === 'natural') candidates.push(['natural', Int32Array.from({ length: n }, (_, i) => i)]);
    if (asked === 'amd' || (asked === 'auto' && !ndOnly)) candidates.push(['amd', amdOrder(graph, k.minimumDegree)]);
    yield;
    if (asked === 'nd' || (asked === 'auto' && n >= ND_MIN_NODES)) candidates.push(['nd', yield* ndOrderSteps(graph, k.minimumDegree)]);
  }
  const t1 = performance.now();
  let best: { name: OrderingName; perm: Int32Array; s: ReturnType<typeof countsFor>; cost: FactorCost } | undefined;
  const tried: string[] = [];
  for (const [name, perm] of candidates) {
    yield;
    const s = countsFor(g, perm, k);
    // the cost is a sum over the columns: the postorder below leaves it as it is
    const cost = costOf(s.counts, lu, complex);
    const flops = cost.flops;
    tried.push(`${name} ${flops.toExponential(2)} flops`);
    if (!best || flops < best.cost.flops) best = { name, perm, s, cost };
  }
  const chosen = best!;
  yield;
  const orderingReason =
    asked !== 'auto' ? `ordering: '${asked}' was asked for`
    : ndOnly ? `nested dissection alone: a mesh-like graph (average degree ${(graph!.ptr[n] / n).toFixed(1)} ≤ 8, no hub) of n = ${n} ≥ ${ND_ONLY_MIN_NODES}, where it predicts fewer flops than AMD`
    : candidates.length === 1 ? `AMD (n = ${n} < ${ND_MIN_NODES}: nested dissection not tried)`
    : `the fewer predicted flops: ${tried.join(' vs ')}`;
  // postorder along the elimination tree: same fill, and supernodes become contiguous columns
  const post = chosen.s.post;
  // the four arrays the analysis keeps, views of one (fewer arrays to allocate and collect); pinv's
  // place holds the inverse postorder first
  const kept = new Int32Array(4 * n);
  const [perm, counts, parent, pinv] = [0, 1, 2, 3].map((i) => kept.subarray(i * n, (i + 1) * n));
  for (let k = 0; k < n; k++) {
    perm[k] = chosen.perm[post[k]];
    counts[k] = chosen.s.counts[post[k]];
    pinv[post[k]] = k;
  }
  for (let k = 0; k < n; k++) {
    const p = chosen.s.parent[post[k]];
    parent[k] = p < 0 ? -1 : pinv[p];
  }
  for (let k = 0; k < n; k++) pinv[perm[k]] = k;
  const supernodeStarts = supernodes(parent, counts);
  const t2 = performance.now();
  return {
    perm, pinv, parent, counts, supernodeStarts, cost: chosen.cost,
    ordering: chosen.name, orderingReason, orderingMs: t1 - t0, symbolicMs: t2 - t1,
  };
}

/**
 * The symbolic phase under ordering 'btf', from the ordering the block triangular form's kernel made
 * (BlockTriangular.order: the graph of its blocks ordered by minimum degree, block by block, and
 * postordered along its elimination tree; its blocks stay in order, each one tree of the forest) and
 * the milliseconds that call took. Its reason is the caller's (plan.ts: the form's blocks).
 */
export function btfAnalysis(order: NonNullable<BlockTriangular['order']>, lu: boolean, complex: boolean, orderingMs: number): Analysis {
  const t0 = performance.now();
  const { perm, pinv, parent, counts } = order;
  return {
    perm, pinv, parent, counts, supernodeStarts: supernodes(parent, counts), cost: costOf(counts, lu, complex),
    ordering: 'btf', orderingReason: '', orderingMs, symbolicMs: performance.now() - t0,
  };
}

/**
 * The symbolic phase of a banded LU (bandLu): no ordering and no graph. The natural order, the
 * elimination tree a chain, column counts those of the symmetric band (the widest of its two
 * halves), and the cost of the band LU (L within the lower band, U within both: pivoting widens it).
 */
export function bandAnalysis(n: number, band: Band, complex: boolean, orderingReason: string): Analysis {
  const t0 = performance.now();
  const perm = new Int32Array(n);
  const parent = new Int32Array(n);
  const counts = new Int32Array(n);
  const half = Math.max(band.lower, band.upper) + 1;
  let fillNnz = 0;
  let flops = 0;
  for (let k = 0; k < n; k++) {
    perm[k] = k;
    parent[k] = k + 1 < n ? k + 1 : -1;
    counts[k] = Math.min(half, n - k);
    const l = Math.min(band.lower, n - 1 - k);
    const u = Math.min(band.lower + band.upper, n - 1 - k);
    fillNnz += 2 + l + u;
    flops += l * (2 * u + 1);
  }
  const v = complex ? 16 : 8;
  const cost: FactorCost = {
    fillNnz, flops: complex ? 4 * flops : flops,
    // the factor, and the band work array of (2·lower + upper + 1) diagonals
    bytes: fillNnz * (v + 4) + n * (2 * band.lower + band.upper + 1) * v + n * (8 * 4 + 2 * v),
  };
  return {
    perm, pinv: perm.slice(), parent, counts, supernodeStarts: supernodes(parent, counts), cost, band,
    ordering: 'natural', orderingReason, orderingMs: 0, symbolicMs: performance.now() - t0,
  };
}

/**
 * The symbolic phase of a small matrix factorized dense: the band taken as the whole matrix (the
 * natural order, full column counts), so no graph, ordering or counting runs. LU then runs the
 * banded kernel on it (dense partial pivoting), Cholesky and LDLᵀ the dense one (denseLdl).
 */
export function denseAnalysis(n: number, lu: boolean, complex: boolean, orderingReason: string): Analysis {
  const a = bandAnalysis(n, { lower: Math.max(0, n - 1), upper: Math.max(0, n - 1) }, complex, orderingReason);
  if (!lu) a.cost = costOf(a.counts, false, complex);
  a.dense = true;
  return a;
}
