// The symbolic phase's tree loops (src/solvers/direct/symbolic.ts documents them; src/cpu/symbolic.ts
// wires them): run here so that the analysis of a process's first factorizations does not wait for
// the JavaScript engine to optimize them (494_bus: tree, postorder and counts 0.4 ms a call for the
// first calls as JavaScript).
//
// sym_etree(n, ptr, adj, perm, pinv, parent, work) — the elimination tree of the graph (neighbours
//   of v: adj[ptr[v] .. ptr[v+1])) in the order perm (pinv its inverse): parent[k] of each position
//   (−1 at a root), with path compression through an ancestor array. work: 2n words.
// sym_postorder(n, parent, post, work) — a postorder of the forest: post[k] the k-th node, children
//   before parents, in index order. work: 3n words.
// sym_counts(n, ptr, idx, head, next, pinv, parent, post, counts, work) — column counts of L (the
//   diagonal included) in the order pinv, position j's pattern below the diagonal given by lists
//   (list L: idx[ptr[L] .. ptr[L+1]), j's lists head[j], next[head[j]], … until −1): row subtrees'
//   leaves and least common ancestors over the postorder `post` of `parent`. work: 5n words.
// sym_graph(n, ptr, adj, perm, pinv, parent, post, counts, work) — the three above for a graph in one
//   call (one copy of the graph, one region: 5–8 µs a call saved): its tree, postorder and counts
//   (position j's one list: node perm[j]'s neighbours). work: 6n words.
// sym_columns(n, rowPtr, colIdx, values, colPtr, rowIdx, cvalues, work, out) — the columns of a real
//   square canonical CSR (colPtr n + 1, rowIdx, cvalues: rows ascending in each column) and its
//   pattern symmetry, as src/solvers/direct/pattern.ts cscOf and patternSymmetry: out[0] the
//   off-diagonal entries whose mirror is stored, out[1] the off-diagonal entries, out[2] the diagonal
//   entries stored. work: n words.
// The tree and the counts first gather the entries of a list they go on with (earlier positions for
// the tree, later ones for the counts) without a branch, then walk those: whether an entry is one
// follows no pattern a branch predictor learns. The same entries in the same order: the same results.

import { ld, st, ldf, stf, treeDfs } from './words';

export function sym_etree(n: i32, ptr: usize, adj: usize, perm: usize, pinv: usize, parent: usize, work: usize): void {
  const ancestor = work;
  const earlier = work + (<usize>n << 2);
  for (let k = 0; k < n; k++) {
    st(parent, k, -1);
    st(ancestor, k, -1);
    const v = ld(perm, k);
    let m = 0;
    for (let p = ld(ptr, v), e = ld(ptr, v + 1); p < e; p++) {
      const i = ld(pinv, ld(adj, p));
      st(earlier, m, i);
      m += <i32>(i < k);
    }
    for (let t = 0; t < m; t++) {
      let i = ld(earlier, t);
      while (i != -1 && i < k) {
        const inext = ld(ancestor, i);
        st(ancestor, i, k);
        if (inext == -1) st(parent, i, k);
        i = inext;
      }
    }
  }
}

export function sym_postorder(n: i32, parent: usize, post: usize, work: usize): void {
  const head = work;
  const next = head + (<usize>n << 2);
  const stack = next + (<usize>n << 2);
  for (let j = 0; j < n; j++) st(head, j, -1);
  for (let j = n - 1; j >= 0; j--) {
    const p = ld(parent, j);
    if (p == -1) continue;
    st(next, j, ld(head, p));
    st(head, p, j);
  }
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (ld(parent, j) == -1) k = treeDfs(j, k, head, next, post, stack);
  }
}

export function sym_counts(n: i32, ptr: usize, idx: usize, head: usize, next: usize, pinv: usize, parent: usize, post: usize, counts: usize, work: usize): void {
  const delta = counts;
  const first = work;
  const maxfirst = first + (<usize>n << 2);
  const prevleaf = maxfirst + (<usize>n << 2);
  const ancestor = prevleaf + (<usize>n << 2);
  const later = ancestor + (<usize>n << 2);
  for (let j = 0; j < n; j++) {
    st(first, j, -1);
    st(maxfirst, j, -1);
    st(prevleaf, j, -1);
    st(ancestor, j, j);
  }
  for (let k = 0; k < n; k++) {
    let j = ld(post, k);
    st(delta, j, ld(first, j) == -1 ? 1 : 0);
    for (; j != -1 && ld(first, j) == -1; j = ld(parent, j)) st(first, j, k);
  }
  for (let k = 0; k < n; k++) {
    const j = ld(post, k);
    const pj = ld(parent, j);
    if (pj != -1) st(delta, pj, ld(delta, pj) - 1);
    const fj = ld(first, j);
    for (let L = ld(head, j); L != -1; L = ld(next, L)) {
      let m = 0;
      for (let p = ld(ptr, L), e = ld(ptr, L + 1); p < e; p++) {
        const i = ld(pinv, ld(idx, p));
        st(later, m, i);
        m += <i32>(i > j);
      }
      for (let t = 0; t < m; t++) {
        const i = ld(later, t);
        if (fj <= ld(maxfirst, i)) continue;
        st(maxfirst, i, fj);
        const jprev = ld(prevleaf, i);
        st(prevleaf, i, j);
        st(delta, j, ld(delta, j) + 1);
        if (jprev == -1) continue;
        let q = jprev;
        while (q != ld(ancestor, q)) q = ld(ancestor, q);
        for (let s = jprev; s != q; ) {
          const up = ld(ancestor, s);
          st(ancestor, s, q);
          s = up;
        }
        st(delta, q, ld(delta, q) - 1);
      }
    }
    if (pj != -1) st(ancestor, j, pj);
  }
  for (let k = 0; k < n; k++) {
    const j = ld(post, k);
    const pj = ld(parent, j);
    if (pj != -1) st(delta, pj, ld(delta, pj) + ld(delta, j));
  }
}

export function sym_graph(n: i32, ptr: usize, adj: usize, perm: usize, pinv: usize, parent: usize, post: usize, counts: usize, work: usize): void {
  const next = work;
  const rest = next + (<usize>n << 2);
  sym_etree(n, ptr, adj, perm, pinv, parent, rest);
  sym_postorder(n, parent, post, rest);
  for (let j = 0; j < n; j++) st(next, j, -1);
  sym_counts(n, ptr, adj, perm, next, pinv, parent, post, counts, rest);
}

export function sym_columns(n: i32, rowPtr: usize, colIdx: usize, values: usize, colPtr: usize, rowIdx: usize, cvalues: usize, work: usize, out: usize): void {
  const nnz = ld(rowPtr, n);
  memory.fill(colPtr, 0, <usize>(n + 1) << 2);
  for (let k = 0; k < nnz; k++) {
    const j = ld(colIdx, k) + 1;
    st(colPtr, j, ld(colPtr, j) + 1);
  }
  for (let j = 0; j < n; j++) {
    st(colPtr, j + 1, ld(colPtr, j + 1) + ld(colPtr, j));
    st(work, j, ld(colPtr, j));
  }
  for (let i = 0; i < n; i++) {
    for (let k = ld(rowPtr, i), e = ld(rowPtr, i + 1); k < e; k++) {
      const j = ld(colIdx, k);
      const p = ld(work, j);
      st(work, j, p + 1);
      st(rowIdx, p, i);
      stf(cvalues, p, ldf(values, k));
    }
  }
  // row j's entries A(j, i) against column j's A(i, j), marked with j
  for (let j = 0; j < n; j++) st(work, j, -1);
  let matched = 0;
  let off = 0;
  let diagonal = 0;
  for (let j = 0; j < n; j++) {
    for (let p = ld(colPtr, j), e = ld(colPtr, j + 1); p < e; p++) st(work, ld(rowIdx, p), j);
    for (let p = ld(rowPtr, j), e = ld(rowPtr, j + 1); p < e; p++) {
      const i = ld(colIdx, p);
      const d = <i32>(i == j);
      diagonal += d;
      off += d ^ 1;
      matched += (d ^ 1) & <i32>(ld(work, i) == j);
    }
  }
  st(out, 0, matched);
  st(out, 1, off);
  st(out, 2, diagonal);
}
