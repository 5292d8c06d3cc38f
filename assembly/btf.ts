// Block triangular form of a square sparse matrix (src/solvers/direct/btf.ts documents the method and
// lays out the memory), and the solve through its factor (btf_solve, below): a maximum transversal (augmenting paths by depth-first search with a cheap
// assignment first, Duff 1981, as CSparse's cs_maxtrans), then the strongly connected components of the
// matrix with its matched entries on the diagonal (Tarjan 1972, without recursion), then the pattern of
// B + Bᵀ within the diagonal blocks (B: A with row r relabelled colOf[r]), the graph its blocks are
// ordered on.
//
// btf_analyze(n, Ap, Ai, Rp, Rj, colOf, blk, gptr, gadj, above, work) — A by columns (Ap, Ai) and by
//   rows (Rp, Rj); out: colOf[r] the column matched to row r, blk[j] the block of column j (blocks
//   numbered so that every entry B(i, j) has blk[i] ≤ blk[j]), gptr/gadj (n + 1, up to 2·nnz words) the
//   graph, no self-loops or duplicates, above[0] the entries above the blocks; work 5n words. Returns the
//   number of blocks, or −1 − (rows matched) when A is structurally singular (the other outputs then unset).

// btf_order(n, Ap, Ai, Rp, Rj, colOf, blk, gptr, gadj, above, order, orderFrom, work) — btf_analyze
//   (above: 3 words, the entries above the blocks, the largest block's size, the 1×1 blocks), then, where A has a form of at least orderFrom blocks, the ordering the symbolic phase keeps, in the
//   same call (the graph never leaves the kernels' memory; as four calls with JavaScript between them
//   the glue and copies cost ≈ 50 µs of west0479's 0.6 ms rt.solve): approximate minimum degree of the
//   graph (amd_eliminate over the block amdOrder in src/solvers/direct/amd.ts fills), its columns in
//   block order (btf.ts blockOrder), the graph's elimination tree, postorder and column counts in that
//   order (sym_graph), and the order postordered along its tree, as src/solvers/direct/analysis.ts
//   analyze does: order holds perm, pinv, parent, counts (n words each; unset when not ordered). work:
//   btfOrderWords(n, nnz) words. Returns btf_analyze's result, or −2 − n when the minimum degree
//   elimination ran out of pivots (an internal error).

import { ld, st, ldf, stf, colSub, colSubC, copyValue } from './words';
import { amd_eliminate } from './amd';
import { sym_graph } from './symbolic';

export function btf_order(n: i32, Ap: usize, Ai: usize, Rp: usize, Rj: usize, colOf: usize, blk: usize, gptr: usize, gadj: usize, above: usize, order: usize, orderFrom: i32, work: usize): i32 {
  const blocks = btf_analyze(n, Ap, Ai, Rp, Rj, colOf, blk, gptr, gadj, above, work);
  if (blocks < 0) return blocks;
  // the blocks' sizes (for the ordering's reason): above[1] the largest, above[2] how many are 1×1
  for (let b = 0; b < blocks; b++) st(work, b, 0);
  for (let j = 0; j < n; j++) {
    const b = ld(blk, j);
    st(work, b, ld(work, b) + 1);
  }
  let largest = 0;
  let singletons = 0;
  for (let b = 0; b < blocks; b++) {
    const size = ld(work, b);
    largest = max<i32>(largest, size);
    singletons += <i32>(size == 1);
  }
  st(above, 1, largest);
  st(above, 2, singletons);
  if (blocks < orderFrom) return blocks;
  // amdOrder's block (amd.ts minimumDegree: m = 0, N = n + 1): Ci (size), Cp, len, elen, degree, w
  // (N each), the kernel's six vectors of n + 1; zero but for the lists, Cp, len and degree
  const cnz = ld(gptr, n);
  const n1 = n + 1;
  const size = cnz + cnz / 5 + 2 * n + 1;
  const words = size + 11 * n1;
  const Ci = work;
  const Cp = Ci + (<usize>size << 2);
  const len = Cp + (<usize>n1 << 2);
  const degree = len + (<usize>(2 * n1) << 2);
  const within = work;
  if (n > 0) {
    memory.fill(work, 0, <usize>words << 2);
    memory.copy(Ci, gadj, <usize>cnz << 2);
    memory.copy(Cp, gptr, <usize>n1 << 2);
    for (let i = 0; i < n; i++) {
      const d = ld(gptr, i + 1) - ld(gptr, i);
      st(len, i, d);
      st(degree, i, d);
    }
    // rows denser than this are ordered last (amd.ts: min(n − 2, ⌊max(16, 10√n)⌋)), compared with len
    const dense = min<i32>(n - 2, <i32>max<f64>(16.0, 10.0 * Math.sqrt(<f64>n)));
    if (amd_eliminate(work, n, 0, size, cnz, dense, len) != 0) return -2 - n;
  }
  // after the ordering (within: the block's first n words) the block holds the rest: blockOrder's
  // starts, the order in blocks and its inverse, sym_graph's tree, postorder, counts and work
  const start = within + (<usize>n << 2);
  const q = start + (<usize>n1 << 2);
  const qinv = q + (<usize>n << 2);
  const tparent = qinv + (<usize>n << 2);
  const post = tparent + (<usize>n << 2);
  const tcounts = post + (<usize>n << 2);
  const gw = tcounts + (<usize>n << 2);
  for (let b = 0; b <= blocks; b++) st(start, b, 0);
  for (let j = 0; j < n; j++) {
    const b = ld(blk, j) + 1;
    st(start, b, ld(start, b) + 1);
  }
  for (let b = 0; b < blocks; b++) st(start, b + 1, ld(start, b + 1) + ld(start, b));
  for (let k = 0; k < n; k++) {
    const j = ld(within, k);
    const b = ld(blk, j);
    const at = ld(start, b);
    st(q, at, j);
    st(start, b, at + 1);
  }
  for (let k = 0; k < n; k++) st(qinv, ld(q, k), k);
  sym_graph(n, gptr, gadj, q, qinv, tparent, post, tcounts, gw);
  // postordered along the tree: same fill, supernodes contiguous (analysis.ts analyze's three loops);
  // pinv holds the inverse postorder first
  const perm = order;
  const pinv = order + (<usize>n << 2);
  const parent = order + (<usize>(2 * n) << 2);
  const counts = order + (<usize>(3 * n) << 2);
  for (let k = 0; k < n; k++) {
    const pk = ld(post, k);
    st(perm, k, ld(q, pk));
    st(counts, k, ld(tcounts, pk));
    st(pinv, pk, k);
  }
  for (let k = 0; k < n; k++) {
    const p = ld(tparent, ld(post, k));
    st(parent, k, p < 0 ? -1 : ld(pinv, p));
  }
  for (let k = 0; k < n; k++) st(pinv, ld(perm, k), k);
  return blocks;
}

export function btf_analyze(n: i32, Ap: usize, Ai: usize, Rp: usize, Rj: usize, colOf: usize, blk: usize, gptr: usize, gadj: usize, above: usize, work: usize): i32 {
  const w0 = work;
  const w1 = work + (<usize>n << 2);
  const w2 = work + (<usize>(2 * n) << 2);
  const w3 = work + (<usize>(3 * n) << 2);
  const w4 = work + (<usize>(4 * n) << 2);
  const matched = transversal(n, Ap, Ai, colOf, w0, w1, w2, w3, w4);
  if (matched < n) return -1 - matched;
  const blocks = components(n, Ap, Ai, colOf, blk, w0, w1, w2, w3, w4);
  // rowOf (the inverse of colOf) in w0, marks in w1
  for (let r = 0; r < n; r++) st(w0, ld(colOf, r), r);
  for (let j = 0; j < n; j++) st(w1, j, -1);
  let q = 0;
  let off = 0;
  for (let j = 0; j < n; j++) {
    st(gptr, j, q);
    st(w1, j, j);
    const b = ld(blk, j);
    // column j of B: rows colOf[r]; row j of B: A's row rowOf[j]
    // without branches on the entries (whether one is in the block, or already listed, follows no
    // pattern a predictor learns: they cost more than the loop's work): every i is written at q and
    // marked, q moves on past the new ones only (marking one of another block changes nothing, as its
    // block keeps it out of column j's list anyway); at most q + 1 ≤ 2·nnz words are written
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const i = ld(colOf, ld(Ai, p));
      const other = <i32>(ld(blk, i) != b);
      off += other;
      const add = (other ^ 1) & <i32>(ld(w1, i) != j);
      st(w1, i, j);
      st(gadj, q, i);
      q += add;
    }
    const r = ld(w0, j);
    for (let p = ld(Rp, r), e = ld(Rp, r + 1); p < e; p++) {
      const i = ld(Rj, p);
      const add = <i32>(ld(blk, i) == b) & <i32>(ld(w1, i) != j);
      st(w1, i, j);
      st(gadj, q, i);
      q += add;
    }
  }
  st(gptr, n, q);
  st(above, 0, off);
  return blocks;
}

/**
 * A maximum matching of columns to rows: colOf[r] (−1 unmatched). Each column in turn starts a
 * depth-first search for an augmenting path; at each column reached, a free row of it (found by a scan
 * that never restarts: `cheap`) ends the path, else the search goes on through the columns its rows are
 * matched to (each column visited once a search: `seen`). Returns the rows matched.
 */
function transversal(n: i32, Ap: usize, Ai: usize, colOf: usize, cheap: usize, seen: usize, js: usize, ps: usize, is: usize): i32 {
  for (let j = 0; j < n; j++) {
    st(colOf, j, -1);
    st(cheap, j, ld(Ap, j));
    st(seen, j, -1);
  }
  let matched = 0;
  for (let k = 0; k < n; k++) {
    let head = 0;
    st(js, 0, k);
    let found = false;
    while (head >= 0) {
      const j = ld(js, head);
      const e = ld(Ap, j + 1);
      if (ld(seen, j) != k) {
        st(seen, j, k);
        let p = ld(cheap, j);
        while (p < e && ld(colOf, ld(Ai, p)) != -1) p++;
        if (p < e) {
          st(cheap, j, p + 1);
          st(is, head, ld(Ai, p));
          found = true;
          break;
        }
        st(cheap, j, e);
        st(ps, head, ld(Ap, j));
      }
      // every row of j is matched: go on through the first row whose column this search has not seen
      let p = ld(ps, head);
      let next = -1;
      for (; p < e; p++) {
        const i = ld(Ai, p);
        const c = ld(colOf, i);
        if (ld(seen, c) == k) continue;
        st(is, head, i);
        next = c;
        p++;
        break;
      }
      st(ps, head, p);
      if (next >= 0) st(js, ++head, next);
      else head--;
    }
    if (!found) continue;
    // the path's columns take the rows it went through, the last one the free row
    for (let h = head; h >= 0; h--) st(colOf, ld(is, h), ld(js, h));
    matched++;
  }
  return matched;
}

/**
 * Tarjan's strongly connected components of the graph with an edge j → colOf[r] for every entry
 * A(r, j): a component is completed only after every component it reaches, so numbering them in the
 * order they complete gives blk[i] ≤ blk[j] for each entry B(i, j). Returns the number of components.
 */
function components(n: i32, Ap: usize, Ai: usize, colOf: usize, blk: usize, index: usize, low: usize, calls: usize, ep: usize, stack: usize): i32 {
  for (let j = 0; j < n; j++) {
    st(index, j, -1);
    st(blk, j, -1);
  }
  let count = 0;
  let sp = 0;
  let blocks = 0;
  for (let s = 0; s < n; s++) {
    if (ld(index, s) >= 0) continue;
    let top = 0;
    st(calls, 0, s);
    st(index, s, count);
    st(low, s, count++);
    st(ep, s, ld(Ap, s));
    st(stack, sp++, s);
    while (top >= 0) {
      const v = ld(calls, top);
      // v's edges from where it stopped, up to the first node not yet visited (its call); the others
      // lower low[v] without a branch (whether one does follows no pattern a predictor learns)
      let p = ld(ep, v);
      const e = ld(Ap, v + 1);
      let lowv = ld(low, v);
      let w = -1;
      for (; p < e; p++) {
        const u = ld(colOf, ld(Ai, p));
        const iu = ld(index, u);
        if (iu < 0) {
          w = u;
          p++;
          break;
        }
        lowv = select<i32>(iu, lowv, (ld(blk, u) < 0) & (iu < lowv));
      }
      st(low, v, lowv);
      st(ep, v, p);
      if (w >= 0) {
        st(index, w, count);
        st(low, w, count++);
        st(ep, w, ld(Ap, w));
        st(stack, sp++, w);
        st(calls, ++top, w);
        continue;
      }
      // v's edges are done: it closes a component when nothing it reaches lies below it on the stack
      if (ld(low, v) == ld(index, v)) {
        let u: i32;
        do {
          u = ld(stack, --sp);
          st(blk, u, blocks);
        } while (u != v);
        blocks++;
      }
      top--;
      if (top >= 0) {
        const u = ld(calls, top);
        if (ld(low, v) < ld(low, u)) st(low, u, ld(low, v));
      }
    }
  }
  return blocks;
}

// btf_above(n, c, Ap, Ai, Ax, q, matchOf, blockOf, pinvB, starts, Fp, Fi, Fx) — after the sparse LU of
//   B's diagonal blocks (assembly/lu.ts, rows matchOf and blockOf, B's pivot steps pinvB): the entries
//   of A (by columns, c values each) above the blocks, as btf_solve reads them: by step columns (column
//   k: A's column q[k]; Fp, n + 1), rows as the pivot steps of A's rows (pinvB[matchOf[r]]; Fi), values
//   as A holds them (Fx); and each block's first step (starts, blocks + 1; blocks numbered along q).
//   Returns the number of blocks. An entry A(r, j) lies above the blocks where B's row matchOf[r] is
//   in another block than column j.
export function btf_above(n: i32, c: i32, Ap: usize, Ai: usize, Ax: usize, q: usize, match: usize, blk: usize, pinvB: usize, starts: usize, Fp: usize, Fi: usize, Fx: usize): i32 {
  let nb = 0;
  for (let j = 0; j < n; j++) nb = max(nb, ld(blk, j) + 1);
  memory.fill(starts, 0, <usize>(nb + 1) << 2);
  for (let j = 0; j < n; j++) st(starts, ld(blk, j) + 1, ld(starts, ld(blk, j) + 1) + 1);
  for (let t = 0; t < nb; t++) st(starts, t + 1, ld(starts, t + 1) + ld(starts, t));
  let f = 0;
  st(Fp, 0, 0);
  for (let k = 0; k < n; k++) {
    const j = ld(q, k);
    const b = ld(blk, j);
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const i = ld(match, ld(Ai, p));
      if (ld(blk, i) == b) continue;
      st(Fi, f, ld(pinvB, i));
      copyValue(Fx, f, Ax, p, c);
      f++;
    }
    st(Fp, k + 1, f);
  }
  return nb;
}

// btf_solve(n, c, nb, starts, Lp, Li, Lx, Up, Ui, Ux, dinv, Fp, Fi, Fx, pinv, q, b, x, y) — x = A⁻¹·b
//   through a block triangular form's factor (c 1 real, 2 complex interleaved): L and U of the diagonal
//   blocks only (block t: steps starts[t]..starts[t + 1]; as lu_solve's, U's diagonal applied as the
//   product with dinv) and F, the entries above the blocks as they stand, by step columns with rows as
//   steps. y[pinv[i]] = b[i]; then block by block from the last: its L and U solved in y, and its
//   columns' F entries times its solution taken off the earlier blocks' y; x[q[k]] = y[k].
export function btf_solve(
  n: i32, c: i32, nb: i32, starts: usize, Lp: usize, Li: usize, Lx: usize, Up: usize, Ui: usize, Ux: usize, dinv: usize,
  Fp: usize, Fi: usize, Fx: usize, pinv: usize, q: usize, b: usize, x: usize, y: usize,
): void {
  if (c == 1) {
    for (let i = 0; i < n; i++) stf(y, ld(pinv, i), ldf(b, i));
    for (let t = nb - 1; t >= 0; t--) {
      const s = ld(starts, t);
      const e = ld(starts, t + 1);
      for (let j = s; j < e; j++) {
        const yj = ldf(y, j);
        if (yj != 0) colSub(y, Li, Lx, ld(Lp, j) + 1, ld(Lp, j + 1), yj);
      }
      for (let j = e - 1; j >= s; j--) {
        const yj = ldf(y, j) * ldf(dinv, j);
        stf(y, j, yj);
        if (yj == 0) continue;
        colSub(y, Ui, Ux, ld(Up, j), ld(Up, j + 1) - 1, yj);
        colSub(y, Fi, Fx, ld(Fp, j), ld(Fp, j + 1), yj);
      }
    }
    for (let k = 0; k < n; k++) stf(x, ld(q, k), ldf(y, k));
    return;
  }
  for (let i = 0; i < n; i++) {
    const r = ld(pinv, i);
    stf(y, 2 * r, ldf(b, 2 * i));
    stf(y, 2 * r + 1, ldf(b, 2 * i + 1));
  }
  for (let t = nb - 1; t >= 0; t--) {
    const s = ld(starts, t);
    const e = ld(starts, t + 1);
    for (let j = s; j < e; j++) colSubC(y, Li, Lx, ld(Lp, j) + 1, ld(Lp, j + 1), ldf(y, 2 * j), ldf(y, 2 * j + 1));
    for (let j = e - 1; j >= s; j--) {
      const ar = ldf(y, 2 * j);
      const ai = ldf(y, 2 * j + 1);
      const dr = ldf(dinv, 2 * j);
      const di = ldf(dinv, 2 * j + 1);
      const yr = ar * dr - ai * di;
      const yi = ar * di + ai * dr;
      stf(y, 2 * j, yr);
      stf(y, 2 * j + 1, yi);
      colSubC(y, Ui, Ux, ld(Up, j), ld(Up, j + 1) - 1, yr, yi);
      colSubC(y, Fi, Fx, ld(Fp, j), ld(Fp, j + 1), yr, yi);
    }
  }
  for (let k = 0; k < n; k++) {
    const j = ld(q, k);
    stf(x, 2 * j, ldf(y, 2 * k));
    stf(x, 2 * j + 1, ldf(y, 2 * k + 1));
  }
}
