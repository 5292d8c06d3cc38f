/**
 * Supernodal multifrontal Cholesky (LLᵀ): the columns of each supernode (consecutive columns of L with
 * one pattern) are factorized together in a dense frontal matrix holding A's entries of those columns
 * plus the update matrices of the child supernodes (extend-add); a dense partial factorization leaves
 * the supernode's columns of L and the update (Schur complement) its parent receives. This module is
 * the symbolic side (supernodes, row patterns, and the schedule over threads); the numeric phase and
 * the solves run in the CPU path's SIMD kernels (assembly/cholesky.ts), independent subtrees on
 * different threads, and L stays in the path's memory. Small fundamental supernodes are merged with
 * their parent when the explicit zeros this adds stay few (relaxed amalgamation), so fronts are
 * rarely narrower than a few columns.
 */

/** The supernodal structure: supernode s owns columns [super[s], super[s+1]) and rows rows[rowPtr[s]..rowPtr[s+1]). */
export interface SupernodalSymbolic {
  n: number;
  /** first column of each supernode, n appended */
  super: Int32Array;
  /** row pattern of each supernode: its own columns first, then the rows below, ascending */
  rowPtr: Int32Array;
  rows: Int32Array;
  /** offset of each supernode's dense m×k block (column-major) in the values, total appended */
  valPtr: Float64Array;
  /** the supernodal elimination tree */
  parent: Int32Array;
  /** the most entries the stack of update matrices holds at once */
  stackPeak: number;
}

/**
 * Children lists of a forest: the children of p are head[p], next[head[p]], … in decreasing order
 * (in a postorder, the order their updates come off the stack).
 */
function childLists(parent: Int32Array): { head: Int32Array; next: Int32Array } {
  const head = new Int32Array(parent.length).fill(-1);
  const next = new Int32Array(parent.length).fill(-1);
  for (let s = 0; s < parent.length; s++) {
    const p = parent[s];
    if (p >= 0) {
      next[s] = head[p];
      head[p] = s;
    }
  }
  return { head, next };
}

/** Bytes of the numeric phase's workspace: the largest front and the peak of the update stack. */
export function supernodalFrontBytes(sym: SupernodalSymbolic): number {
  return 8 * (largestFront(sym) ** 2 + sym.stackPeak);
}

/** Rows of the largest front. */
export function largestFront(sym: SupernodalSymbolic): number {
  let mmax = 0;
  for (let s = 0; s + 1 < sym.rowPtr.length; s++) mmax = Math.max(mmax, sym.rowPtr[s + 1] - sym.rowPtr[s]);
  return mmax;
}

/** The numeric factor, held by the path that computed it (its kernels solve with it). */
export interface SupernodalFactor {
  sym: SupernodalSymbolic;
  /** bytes it holds (L's blocks and the structure the solve reads) */
  bytes: number;
  /** y ← (L·Lᵀ)⁻¹·y in place (y permuted) */
  solve(y: Float64Array): Promise<void>;
  /** frees what it holds */
  dispose(): void;
}

/**
 * Relaxed amalgamation (CHOLMOD's defaults): a merged supernode of up to 4 columns is always taken,
 * up to 16 while explicit zeros are under 80 % of its entries, up to 48 under 10 %, any width under 5 %.
 */
function relaxOk(columns: number, zeroFraction: number): boolean {
  return columns <= 4 || (columns <= 16 && zeroFraction < 0.8) || (columns <= 48 && zeroFraction < 0.1) || zeroFraction < 0.05;
}

/**
 * Supernodes (relaxed) and their row patterns from a postordered elimination tree and its column
 * counts; A's pattern by columns (colPtr/rowIdx, the original numbering) is read through the
 * ordering: column j of P·A·Pᵀ is column perm[j] of A, row i is pinv[i].
 */
export function supernodalSymbolic(
  parent: Int32Array, counts: Int32Array, starts: Int32Array, colPtr: Int32Array, rowIdx: Int32Array, perm: Int32Array, pinv: Int32Array,
): SupernodalSymbolic {
  const n = parent.length;
  // fundamental supernodes → relaxed: s joins the supernode before it when that one's last column
  // has s's first column as parent (a chain, so the merged pattern is the earlier columns plus s's
  // pattern) and the explicit zeros stay few
  const fs = starts.length - 1;
  const merged: number[] = [0];
  let real = 0; // entries of L in the current supernode's columns
  for (let s = 0; s < fs; s++) {
    const f = starts[s];
    const kNext = starts[s + 1] - f;
    let realNext = 0;
    for (let j = f; j < f + kNext; j++) realNext += counts[j];
    const first = merged[merged.length - 1];
    const k = f - first;
    if (s > 0 && parent[f - 1] === f) {
      const K = k + kNext;
      const M = k + counts[f];
      const entries = M * K - (K * (K - 1)) / 2;
      if (relaxOk(K, (entries - real - realNext) / entries)) {
        real += realNext;
        continue;
      }
    }
    if (s > 0) merged.push(f);
    real = realNext;
  }
  merged.push(n);
  const sup = Int32Array.from(merged);
  const ns = sup.length - 1;
  const snode = new Int32Array(n);
  for (let s = 0; s < ns; s++) for (let j = sup[s]; j < sup[s + 1]; j++) snode[j] = s;
  const sparent = new Int32Array(ns);
  for (let s = 0; s < ns; s++) {
    const p = parent[sup[s + 1] - 1];
    sparent[s] = p < 0 ? -1 : snode[p];
  }
  // row patterns: own columns, A's rows below them, the children's rows below the child; each
  // supernode's rows are gathered in `list` and only the rows below its columns are sorted
  const { head: childHead, next: childNext } = childLists(sparent);
  const mark = new Int32Array(n).fill(-1);
  const rowPtr = new Int32Array(ns + 1);
  const list = new Int32Array(n);
  let rows = new Int32Array(Math.max(16, colPtr[n] + n));
  const valPtr = new Float64Array(ns + 1);
  // update matrices wait on a stack (a parent comes right after its last child's subtree in the
  // postorder, so its children's updates are the top ones); its peak is the workspace to hold
  const usize = new Float64Array(ns);
  let stack = 0;
  let stackPeak = 0;
  let total = 0;
  for (let s = 0; s < ns; s++) {
    const f = sup[s];
    const l = sup[s + 1];
    let len = 0;
    for (let j = f; j < l; j++) mark[j] = s;
    for (let j = f; j < l; j++) {
      const oj = perm[j];
      for (let p = colPtr[oj]; p < colPtr[oj + 1]; p++) {
        const i = pinv[rowIdx[p]];
        if (i > j && mark[i] !== s) {
          mark[i] = s;
          list[len++] = i;
        }
      }
    }
    for (let c = childHead[s]; c >= 0; c = childNext[c]) {
      for (let t = rowPtr[c] + sup[c + 1] - sup[c]; t < rowPtr[c + 1]; t++) {
        const i = rows[t];
        if (mark[i] !== s) {
          mark[i] = s;
          list[len++] = i;
        }
      }
      stack -= usize[c];
    }
    const m = l - f + len;
    const r0 = rowPtr[s];
    if (r0 + m > rows.length) {
      const grown = new Int32Array(Math.max(2 * rows.length, r0 + m));
      grown.set(rows.subarray(0, r0));
      rows = grown;
    }
    for (let t = 0; t < l - f; t++) rows[r0 + t] = f + t;
    rows.set(list.subarray(0, len).sort(), r0 + l - f);
    rowPtr[s + 1] = r0 + m;
    valPtr[s] = total;
    total += m * (l - f);
    if (sparent[s] >= 0) {
      usize[s] = len * len;
      stack += len * len;
      stackPeak = Math.max(stackPeak, stack);
    }
  }
  valPtr[ns] = total;
  return { n, super: sup, rowPtr, rows: rows.slice(0, rowPtr[ns]), valPtr, parent: sparent, stackPeak };
}

/** A real symmetric matrix by columns (both triangles, the original numbering) and its ordering. */
export interface OrderedMatrix {
  colPtr: Int32Array;
  rowIdx: Int32Array;
  values: Float64Array;
  /** perm[j]: the column of A eliminated j-th; pinv its inverse */
  perm: Int32Array;
  pinv: Int32Array;
}

/**
 * Runs the numeric factorization of P·A·Pᵀ on a path's threads (src/cpu/cholesky.ts); resolves to the
 * factor, or the first column (permuted numbering) whose pivot is not positive.
 */
export type SupernodalNumeric = (sym: SupernodalSymbolic, A: OrderedMatrix, signal?: AbortSignal) => Promise<SupernodalFactor | number>;

/** What one thread runs: supernodes order[start..end), and the workspace they need. */
export interface SupernodalGroup {
  start: number;
  end: number;
  /** rows of its largest front */
  front: number;
  /** columns of its widest supernode */
  width: number;
  /** f64 entries of its stack of update matrices (the ones still waiting when it ends included) */
  stack: number;
}

/**
 * How the numeric phase runs on `threads` threads: disjoint subtrees of the supernodal tree spread
 * over the threads (each thread's subtrees one after the other, in postorder), then the supernodes
 * above them (the top separators) on one thread. Every update matrix has its place planned here
 * (its group's stack, `updOffset` entries in; -1: a root, none), so the threads need no allocation
 * and a parent finds its children's updates wherever they were computed.
 */
export interface SupernodalSchedule {
  /** supernodes in the order they run: the threads' runs, then the top */
  order: Int32Array;
  /** pool bounds over order (threads + 1 of them) when threads > 1, then the top's [start, end] */
  ranges: Int32Array[];
  /** where the top starts in order (order.length when there is none) */
  top: number;
  /** the groups (non-empty runs), each with its own workspace */
  groups: SupernodalGroup[];
  /** which group computes each supernode */
  groupOf: Int32Array;
  updOffset: Float64Array;
  /** children of each supernode (increasing), as a pointer array over `children` */
  childPtr: Int32Array;
  children: Int32Array;
}

/** Estimated flops of each supernode's front: the partial Cholesky plus the assembly (a flop per entry). */
function frontWork(sym: SupernodalSymbolic): Float64Array {
  const ns = sym.super.length - 1;
  const w = new Float64Array(ns);
  for (let s = 0; s < ns; s++) {
    const k = sym.super[s + 1] - sym.super[s];
    const m = sym.rowPtr[s + 1] - sym.rowPtr[s];
    const u = m - k;
    w[s] = k * k * k / 3 + u * k * k + u * u * k + m * m;
  }
  return w;
}

/** A subtree may be split while it is larger than this share of the work per thread. */
const BALANCE_TOLERANCE = 0.05;
/** Fewest flops per subtree task worth handing to another thread. */
const TASK_MIN_FLOPS = 2e5;

/**
 * The schedule for `threads` threads (Geist & Ng's subtree-to-thread mapping): starting from the
 * roots, the heaviest subtree is replaced by its children (its root moving to the top) while that
 * shortens the estimated time — the most loaded thread (greedy: largest subtree first to the least
 * loaded) plus the top run alone; the best set seen is kept.
 */
export function supernodalSchedule(sym: SupernodalSymbolic, threads: number): SupernodalSchedule {
  const { parent, rowPtr, super: sup } = sym;
  const ns = parent.length;
  const childPtr = new Int32Array(ns + 1);
  for (let s = 0; s < ns; s++) if (parent[s] >= 0) childPtr[parent[s] + 1]++;
  for (let s = 0; s < ns; s++) childPtr[s + 1] += childPtr[s];
  const children = new Int32Array(childPtr[ns]);
  const fillAt = childPtr.slice(0, ns);
  for (let s = 0; s < ns; s++) if (parent[s] >= 0) children[fillAt[parent[s]]++] = s;
  // subtree of s: supernodes first[s]..s (a postorder), and its work
  const work = frontWork(sym);
  const first = new Int32Array(ns);
  for (let s = 0; s < ns; s++) first[s] = s;
  const subtree = work.slice();
  for (let s = 0; s < ns; s++) {
    const p = parent[s];
    if (p >= 0) {
      first[p] = Math.min(first[p], first[s]);
      subtree[p] += subtree[s];
    }
  }
  let total = 0;
  for (let s = 0; s < ns; s++) total += work[s];
  // the subtree set: from the roots, split the heaviest while it helps
  let tasks: number[] = [];
  for (let s = 0; s < ns; s++) if (parent[s] < 0) tasks.push(s);
  let top = 0;
  let best: { tasks: number[]; bins: number[][] } = { tasks: [], bins: [] };
  let bestTime = Infinity;
  if (threads > 1) {
    for (let round = 0; round < 64 * threads && tasks.length > 0; round++) {
      tasks.sort((a, b) => subtree[b] - subtree[a]);
      const load = new Float64Array(threads);
      const bins: number[][] = Array.from({ length: threads }, () => []);
      for (const t of tasks) {
        let c = 0;
        for (let q = 1; q < threads; q++) if (load[q] < load[c]) c = q;
        load[c] += subtree[t];
        bins[c].push(t);
      }
      const time = Math.max(...load) + top;
      if (time < bestTime) {
        bestTime = time;
        best = { tasks: tasks.slice(), bins };
      }
      const h = tasks[0];
      if (subtree[h] <= (1 + BALANCE_TOLERANCE) * (total - top) / threads && Math.max(...load) <= (1 + BALANCE_TOLERANCE) * (total - top) / threads) break;
      if (childPtr[h + 1] === childPtr[h] || subtree[h] < TASK_MIN_FLOPS) break;
      tasks = tasks.slice(1);
      for (let e = childPtr[h]; e < childPtr[h + 1]; e++) tasks.push(children[e]);
      top += work[h];
    }
    // a split that balances no better than one thread does not pay
    if (!(bestTime < total)) best = { tasks: [], bins: [] };
  }
  // the order: each thread's subtrees by position, then the rest (the top) in postorder
  const order = new Int32Array(ns);
  const groupOf = new Int32Array(ns).fill(-1);
  const groups: SupernodalGroup[] = [];
  const bounds = new Int32Array(threads + 1);
  let at = 0;
  const group = (start: number, end: number) => {
    if (end > start) groups.push({ start, end, front: 0, width: 0, stack: 0 });
  };
  best.bins.forEach((bin, c) => {
    const start = at;
    for (const r of bin.sort((a, b) => a - b)) for (let s = first[r]; s <= r; s++) order[at++] = s;
    bounds[c + 1] = at;
    group(start, at);
  });
  const topStart = at;
  const inTask = new Uint8Array(ns);
  for (let p = 0; p < topStart; p++) inTask[order[p]] = 1;
  for (let s = 0; s < ns; s++) if (!inTask[s]) order[at++] = s;
  group(topStart, ns);
  // each group's workspace and its stack of updates, simulated (a child's update sits on its
  // group's stack until the parent, in the same group, pops it; one whose parent is elsewhere stays)
  const updOffset = new Float64Array(ns).fill(-1);
  groups.forEach((g, gi) => {
    let stack = 0;
    for (let p = g.start; p < g.end; p++) {
      const s = order[p];
      groupOf[s] = gi;
      const k = sup[s + 1] - sup[s];
      const m = rowPtr[s + 1] - rowPtr[s];
      g.front = Math.max(g.front, m);
      g.width = Math.max(g.width, k);
      for (let e = childPtr[s]; e < childPtr[s + 1]; e++) {
        const c = children[e];
        if (groupOf[c] === gi && updOffset[c] >= 0) {
          const u = rowPtr[c + 1] - rowPtr[c] - (sup[c + 1] - sup[c]);
          stack -= u * u;
        }
      }
      const u = m - k;
      if (parent[s] >= 0 && u > 0) {
        updOffset[s] = stack;
        stack += u * u;
        g.stack = Math.max(g.stack, stack);
      }
    }
  });
  const ranges = threads > 1 && topStart > 0 ? [bounds] : [];
  if (topStart < ns) ranges.push(Int32Array.of(topStart, ns));
  return { order, ranges, top: topStart, groups, groupOf, updOffset, childPtr, children };
}
