/**
 * The approximate minimum degree orderings as plain JavaScript (the form src/solvers/direct/amd.ts
 * ran before its elimination moved to assembly/amd.ts): the reference the kernel's orderings must
 * equal permutation for permutation (test/direct-ordering.test.ts). Elimination on the quotient
 * graph (Amestoy, Davis & Duff 1996; Davis, "Direct Methods for Sparse Linear Systems", ch. 7) with
 * supervariables, mass elimination, aggressive absorption and dense rows ordered last, the assembly
 * tree postordered at the end.
 */
import type { Graph, Rows } from '../src/solvers/direct/pattern.js';

/** -2 - i: marks a node or a pointer as absorbed/flipped while keeping i recoverable. */
const flip = (i: number): number => -i - 2;

/** An AMD ordering of the graph: perm[k] is the node eliminated k-th. */
export function amdOrder(g: Graph): Int32Array {
  const n = g.n;
  const nnzG = g.ptr[n];
  return minimumDegree(n, 0, nnzG, (Ci, Cp, len, elen, degree) => {
    Ci.set(g.adj);
    Cp.set(g.ptr);
    for (let i = 0; i < n; i++) degree[i] = len[i] = Cp[i + 1] - Cp[i];
    return { cnz: nnzG, denseBy: len };
  });
}

/**
 * A column ordering for LU (COLAMD's idea, Davis, Gilbert, Larimore & Ng 2004): minimum degree on
 * the pattern of AᵀA without forming it. Each row of A starts as an element (the clique its columns
 * form in AᵀA) and each column's list holds its rows, so the quotient graph is born with A's nnz
 * entries twice instead of AᵀA's (west0479: 3.8k against 6.7k, and no product to form); the
 * elimination then runs as AMD's. A column's first degree is Σ (|row| − 1) over its rows, capped at
 * n − 1 (an upper bound of its degree in AᵀA, as COLAMD's initial score). Rows with more than
 * max(16, 10√n) entries are left out (`skip`: denseRows); columns in more kept rows than that go last
 * (dense). The ordering is postordered along its assembly tree.
 */
export function columnAmdOrder(A: { n: number; colPtr: Int32Array; rowIdx: Int32Array }, rows: Rows, skip: Uint8Array | null): Int32Array {
  const { n, colPtr, rowIdx } = A;
  const { rowPtr, colIdx } = rows;
  // element ids of the kept rows: n + 1 + t (node n is the dense root)
  const id = new Int32Array(n);
  let m = 0;
  let nnzKept = 0;
  for (let i = 0; i < n; i++) {
    const l = rowPtr[i + 1] - rowPtr[i];
    if (l === 0 || (skip && skip[i])) id[i] = -1;
    else {
      id[i] = n + 1 + m++;
      nnzKept += l;
    }
  }
  return minimumDegree(n, m, 2 * nnzKept, (Ci, Cp, len, elen, degree) => {
    let q = 0;
    for (let j = 0; j < n; j++) {
      Cp[j] = q;
      let d = 0;
      for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
        const i = rowIdx[p];
        if (id[i] < 0) continue;
        Ci[q++] = id[i];
        d += rowPtr[i + 1] - rowPtr[i] - 1;
      }
      elen[j] = len[j] = q - Cp[j];
      degree[j] = Math.min(d, n - 1);
    }
    for (let i = 0; i < n; i++) {
      const e = id[i];
      if (e < 0) continue;
      Cp[e] = q;
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) Ci[q++] = colIdx[p];
      len[e] = q - Cp[e];
      elen[e] = -2;
    }
    return { cnz: q, denseBy: elen };
  });
}

/**
 * The quotient-graph elimination shared by both orderings: n variables and m elements given from the
 * start (ids n + 1 … n + m; node n collects the dense variables). `fill` writes every node's list into
 * Ci (a variable's elements first, elen of them, then its variables) with Cp, len, elen (−2 for an
 * element) and the variables' first degrees, and returns the lists' end and the measure compared
 * with the dense threshold (a variable's degree, or its rows).
 */
function minimumDegree(
  n: number, m: number, nnzLists: number,
  fill: (Ci: Int32Array, Cp: Int32Array, len: Int32Array, elen: Int32Array, degree: Int32Array) => { cnz: number; denseBy: Int32Array },
): Int32Array {
  const perm = new Int32Array(n);
  if (n === 0) return perm;
  // elbow room for the new elements written past the end of the lists
  const size = nnzLists + (nnzLists / 5 | 0) + 2 * n + 1;
  // one allocation for the element lists and every work vector (small orderings are dominated by allocations)
  const n1 = n + 1;
  const N = n1 + m;
  const all = new Int32Array(size + 6 * n1 + 5 * N);
  const Ci = all.subarray(0, size);
  let off = size;
  const at = (len: number): Int32Array => all.subarray(off, (off += len));
  // indexed by every node (variables, elements, the root)
  const Cp = at(N);
  const len = at(N);
  const elen = at(N); // number of elements in a variable's list; -2 element, -1 absorbed
  const degree = at(N);
  const w = at(N); // marks (set differences)
  // indexed by variables (and the root)
  const nv = at(n1); // supervariable size; negative while in the pivot's element; 0 when absorbed
  const next = at(n1);
  const head = at(n1); // degree lists (and, at the end, children lists)
  const hhead = at(n1); // hash buckets
  const last = at(n1); // degree-list prev links, then hash keys
  const order = at(n1); // the postorder, at the end
  const given = fill(Ci, Cp, len, elen, degree);
  let cnz = given.cnz;
  const denseBy = given.denseBy;
  len[n] = 0;
  for (let i = 0; i <= n; i++) {
    head[i] = last[i] = next[i] = hhead[i] = -1;
    nv[i] = 1;
  }
  w.fill(1);
  degree[n] = 0;
  elen[n] = 0;
  let mark = clearMarks(0, 0, w);
  // node n is the root element that collects the dense rows
  elen[n] = -2;
  Cp[n] = -1;
  w[n] = 0;

  let dense = Math.max(16, 10 * Math.sqrt(n)) | 0;
  dense = Math.min(n - 2, dense);
  let nel = 0;
  for (let i = 0; i < n; i++) {
    const d = degree[i];
    if (d === 0 && len[i] === 0) {
      // an isolated node: eliminated first
      elen[i] = -2;
      nel++;
      Cp[i] = -1;
      w[i] = 0;
    } else if (denseBy[i] > dense) {
      // a dense row: absorbed into the root element, ordered last
      nv[i] = 0;
      elen[i] = -1;
      nel++;
      Cp[i] = flip(n);
      nv[n]++;
    } else {
      if (head[d] !== -1) last[head[d]] = i;
      next[i] = head[d];
      head[d] = i;
    }
  }

  // the given elements' degrees: their variables left after the dense ones went to the root; marks
  // step by the largest element degree (lemax), so that w[e] - mark stays a set difference
  let lemax = 0;
  for (let e = n1; e < N; e++) {
    let d = 0;
    for (let p = Cp[e], pe = p + len[e]; p < pe; p++) d += nv[Ci[p]];
    degree[e] = d;
    lemax = Math.max(lemax, d);
  }

  let mindeg = 0;
  while (nel < n) {
    // the pivot: a variable of least approximate degree
    let k = -1;
    for (; mindeg < n && (k = head[mindeg]) === -1; mindeg++);
    if (k < 0) throw new Error(`reference AMD: the degree lists ran empty (${nel} of ${n} eliminated)`);
    if (next[k] !== -1) last[next[k]] = -1;
    head[mindeg] = next[k];
    const elenk = elen[k];
    let nvk = nv[k];
    nel += nvk;

    // compact the lists when the new element may not fit past the end
    if (elenk > 0 && cnz + mindeg >= size) {
      for (let j = 0; j < N; j++) {
        const p = Cp[j];
        if (p >= 0) {
          // the list's first entry moves to Cp[j]; its slot holds the owner, flipped
          Cp[j] = Ci[p];
          Ci[p] = flip(j);
        }
      }
      let q = 0;
      for (let p = 0; p < cnz; ) {
        const j = flip(Ci[p++]);
        if (j >= 0) {
          Ci[q] = Cp[j];
          Cp[j] = q++;
          for (let t = 0; t < len[j] - 1; t++) Ci[q++] = Ci[p++];
        }
      }
      cnz = q;
    }

    // the new element Lk: the union of k's elements and k's variables, each variable once
    let dk = 0;
    nv[k] = -nvk;
    let p = Cp[k];
    const pk1 = elenk === 0 ? p : cnz;
    let pk2 = pk1;
    for (let k1 = 1; k1 <= elenk + 1; k1++) {
      let e: number, pj: number, ln: number;
      if (k1 > elenk) {
        e = k;
        pj = p;
        ln = len[k] - elenk;
      } else {
        e = Ci[p++];
        pj = Cp[e];
        ln = len[e];
      }
      for (let k2 = 1; k2 <= ln; k2++) {
        const i = Ci[pj++];
        const nvi = nv[i];
        if (nvi <= 0) continue;
        dk += nvi;
        nv[i] = -nvi; // in Lk
        Ci[pk2++] = i;
        // out of its degree list
        if (next[i] !== -1) last[next[i]] = last[i];
        if (last[i] !== -1) next[last[i]] = next[i];
        else head[degree[i]] = next[i];
      }
      if (e !== k) {
        Cp[e] = flip(k); // e is absorbed into k
        w[e] = 0;
      }
    }
    if (elenk !== 0) cnz = pk2;
    degree[k] = dk;
    Cp[k] = pk1;
    len[k] = pk2 - pk1;
    elen[k] = -2;

    // |Le \ Lk| for every element e next to a variable of Lk, kept in w[e] - mark
    mark = clearMarks(mark, lemax, w);
    for (let pk = pk1; pk < pk2; pk++) {
      const i = Ci[pk];
      const eln = elen[i];
      if (eln <= 0) continue;
      const nvi = -nv[i];
      const wnvi = mark - nvi;
      for (let q = Cp[i], qe = Cp[i] + eln; q < qe; q++) {
        const e = Ci[q];
        if (w[e] >= mark) w[e] -= nvi;
        else if (w[e] !== 0) w[e] = degree[e] + wnvi;
      }
    }

    // approximate degrees of the variables of Lk; prune their lists; hash them for supervariables
    for (let pk = pk1; pk < pk2; pk++) {
      const i = Ci[pk];
      const p1 = Cp[i];
      const p2 = p1 + elen[i] - 1;
      let pn = p1;
      let h = 0;
      let d = 0;
      for (let q = p1; q <= p2; q++) {
        const e = Ci[q];
        if (w[e] === 0) continue;
        const dext = w[e] - mark;
        if (dext > 0) {
          d += dext;
          Ci[pn++] = e;
          h += e;
        } else {
          Cp[e] = flip(k); // Le ⊆ Lk: absorbed
          w[e] = 0;
        }
      }
      elen[i] = pn - p1 + 1;
      const p3 = pn;
      const p4 = p1 + len[i];
      for (let q = p2 + 1; q < p4; q++) {
        const j = Ci[q];
        const nvj = nv[j];
        if (nvj <= 0) continue; // k itself, or a variable of Lk (covered by k now)
        d += nvj;
        Ci[pn++] = j;
        h += j;
      }
      if (d === 0) {
        // nothing outside Lk: i is eliminated along with k
        Cp[i] = flip(k);
        const nvi = -nv[i];
        dk -= nvi;
        nvk += nvi;
        nel += nvi;
        nv[i] = 0;
        elen[i] = -1;
      } else {
        degree[i] = Math.min(degree[i], d);
        // k goes first in i's element list
        Ci[pn] = Ci[p3];
        Ci[p3] = Ci[p1];
        Ci[p1] = k;
        len[i] = pn - p1 + 1;
        h = h % n;
        next[i] = hhead[h];
        hhead[h] = i;
        last[i] = h;
      }
    }
    degree[k] = dk;
    lemax = Math.max(lemax, dk);
    mark = clearMarks(mark + lemax, lemax, w);

    // supervariables: variables of one hash bucket with the same lists merge
    for (let pk = pk1; pk < pk2; pk++) {
      let i = Ci[pk];
      if (nv[i] >= 0) continue;
      const h = last[i];
      i = hhead[h];
      hhead[h] = -1;
      for (; i !== -1 && next[i] !== -1; i = next[i], mark++) {
        const ln = len[i];
        const eln = elen[i];
        for (let q = Cp[i] + 1; q <= Cp[i] + ln - 1; q++) w[Ci[q]] = mark;
        let jlast = i;
        for (let j = next[i]; j !== -1; ) {
          let ok = len[j] === ln && elen[j] === eln;
          for (let q = Cp[j] + 1; ok && q <= Cp[j] + ln - 1; q++) if (w[Ci[q]] !== mark) ok = false;
          if (ok) {
            Cp[j] = flip(i); // j merges into i
            nv[i] += nv[j];
            nv[j] = 0;
            elen[j] = -1;
            j = next[j];
            next[jlast] = j;
          } else {
            jlast = j;
            j = next[j];
          }
        }
      }
    }

    // finish Lk: its live variables get their degrees and go back to the degree lists
    let q = pk1;
    for (let pk = pk1; pk < pk2; pk++) {
      const i = Ci[pk];
      const nvi = -nv[i];
      if (nvi <= 0) continue;
      nv[i] = nvi;
      let d = degree[i] + dk - nvi;
      d = Math.min(d, n - nel - nvi);
      if (head[d] !== -1) last[head[d]] = i;
      next[i] = head[d];
      last[i] = -1;
      head[d] = i;
      mindeg = Math.min(mindeg, d);
      degree[i] = d;
      Ci[q++] = i;
    }
    nv[k] = nvk;
    len[k] = q - pk1;
    if (len[k] === 0) {
      Cp[k] = -1; // a root of the assembly tree
      w[k] = 0;
    }
    if (elenk !== 0) cnz = q;
  }

  // postorder the assembly tree: Cp[i] is now each node's parent (or -1)
  for (let i = 0; i < n; i++) Cp[i] = flip(Cp[i]);
  for (let j = 0; j <= n; j++) head[j] = -1;
  for (let j = n; j >= 0; j--) {
    if (nv[j] > 0) continue; // variables merged into others, children of their representative
    next[j] = head[Cp[j]];
    head[Cp[j]] = j;
  }
  for (let e = n; e >= 0; e--) {
    if (nv[e] <= 0) continue; // elements, children of the element that absorbed them
    if (Cp[e] !== -1) {
      next[e] = head[Cp[e]];
      head[Cp[e]] = e;
    }
  }
  let k = 0;
  for (let i = 0; i <= n; i++) if (Cp[i] === -1) k = treeDfs(i, k, head, next, order, w);
  // node n (the dense rows' root) comes last; the first n entries are the ordering
  perm.set(order.subarray(0, n));
  return perm;
}

/** A fresh mark value; resets the marks when they would overflow. */
function clearMarks(mark: number, lemax: number, w: Int32Array): number {
  if (mark < 2 || mark + lemax < 0 || mark + lemax > 0x3fffffff) {
    for (let k = 0; k < w.length; k++) if (w[k] !== 0) w[k] = 1;
    mark = 2;
  }
  return mark;
}

/** Postorders the subtree at root j into post[k..] (children lists head/next; stack of n + 1). */
function treeDfs(j: number, k: number, head: Int32Array, next: Int32Array, post: Int32Array, stack: Int32Array): number {
  let top = 0;
  stack[0] = j;
  while (top >= 0) {
    const p = stack[top];
    const i = head[p];
    if (i === -1) {
      top--;
      post[k++] = p;
    } else {
      head[p] = next[i];
      stack[++top] = i;
    }
  }
  return k;
}
