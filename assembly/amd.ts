// Approximate minimum degree: the quotient-graph elimination of src/solvers/direct/amd.ts (which fills
// the lists and documents the method), run here so that an ordering computed in a process's first
// calls does not wait for the JavaScript engine to optimize a large function (494_bus's ordering took
// 1.1 ms per call for its first 30 calls as JavaScript against 0.14 ms warm).
//
// amd_eliminate(all, n, m, size, cnz, dense, denseBy) — `all` is one block of i32 words laid out as
//   Ci (size), then Cp, len, elen, degree, w (N = n + 1 + m each), then nv, next, head, hhead, last,
//   order (n + 1 each). The caller wrote every node's list into Ci (a variable's elements first, elen
//   of them, then its variables; cnz words used), Cp, len, elen (−2 for an element) and the variables'
//   first degrees. denseBy is the byte address of the array compared with `dense` (a variable's
//   degree or its rows). On return the ordering (the postorder of the assembly tree, node n left out)
//   is in all[0 .. n); the result is 0, or −1 when the degree lists ran empty before every node was
//   eliminated (a corrupt input).
//   Integer sums that may pass 2³¹ (hash keys, marks) are taken in i64, so the ordering is the one
//   exact integer arithmetic gives.

import { ld, st, treeDfs } from './words';

// @ts-ignore: decorator
@inline function flip(i: i32): i32 {
  return -i - 2;
}

/** A fresh mark value; resets the marks (w, N entries) when they would overflow. */
function clearMarks(mark: i64, lemax: i32, w: usize, N: i32): i32 {
  const top = mark + <i64>lemax;
  if (mark < 2 || top < 0 || top > 0x3fffffff) {
    for (let k = 0; k < N; k++) if (ld(w, k) != 0) st(w, k, 1);
    return 2;
  }
  return <i32>mark;
}

export function amd_eliminate(all: usize, n: i32, m: i32, size: i32, cnz: i32, dense: i32, denseBy: usize): i32 {
  const n1 = n + 1;
  const N = n1 + m;
  const Ci = all;
  let off = all + (<usize>size << 2);
  const Cp = off; off += <usize>N << 2;
  const len = off; off += <usize>N << 2;
  const elen = off; off += <usize>N << 2;
  const degree = off; off += <usize>N << 2;
  const w = off; off += <usize>N << 2;
  const nv = off; off += <usize>n1 << 2;
  const next = off; off += <usize>n1 << 2;
  const head = off; off += <usize>n1 << 2;
  const hhead = off; off += <usize>n1 << 2;
  const last = off; off += <usize>n1 << 2;
  const order = off;

  st(len, n, 0);
  for (let i = 0; i <= n; i++) {
    st(head, i, -1);
    st(last, i, -1);
    st(next, i, -1);
    st(hhead, i, -1);
    st(nv, i, 1);
  }
  for (let i = 0; i < N; i++) st(w, i, 1);
  st(degree, n, 0);
  let mark = clearMarks(0, 0, w, N);
  // node n is the root element that collects the dense rows
  st(elen, n, -2);
  st(Cp, n, -1);
  st(w, n, 0);

  let nel = 0;
  for (let i = 0; i < n; i++) {
    const d = ld(degree, i);
    if (d == 0 && ld(len, i) == 0) {
      st(elen, i, -2);
      nel++;
      st(Cp, i, -1);
      st(w, i, 0);
    } else if (ld(denseBy, i) > dense) {
      st(nv, i, 0);
      st(elen, i, -1);
      nel++;
      st(Cp, i, flip(n));
      st(nv, n, ld(nv, n) + 1);
    } else {
      if (ld(head, d) != -1) st(last, ld(head, d), i);
      st(next, i, ld(head, d));
      st(head, d, i);
    }
  }

  let lemax = 0;
  for (let e = n1; e < N; e++) {
    let d = 0;
    for (let p = ld(Cp, e), pe = p + ld(len, e); p < pe; p++) d += ld(nv, ld(Ci, p));
    st(degree, e, d);
    if (d > lemax) lemax = d;
  }

  let mindeg = 0;
  while (nel < n) {
    let k = -1;
    for (; mindeg < n && (k = ld(head, mindeg)) == -1; mindeg++);
    if (k < 0) return -1;
    if (ld(next, k) != -1) st(last, ld(next, k), -1);
    st(head, mindeg, ld(next, k));
    const elenk = ld(elen, k);
    let nvk = ld(nv, k);
    nel += nvk;

    // compact the lists when the new element may not fit past the end
    if (elenk > 0 && cnz + mindeg >= size) {
      for (let j = 0; j < N; j++) {
        const p = ld(Cp, j);
        if (p >= 0) {
          st(Cp, j, ld(Ci, p));
          st(Ci, p, flip(j));
        }
      }
      let q = 0;
      for (let p = 0; p < cnz; ) {
        const j = flip(ld(Ci, p++));
        if (j >= 0) {
          st(Ci, q, ld(Cp, j));
          st(Cp, j, q++);
          for (let t = 0; t < ld(len, j) - 1; t++) st(Ci, q++, ld(Ci, p++));
        }
      }
      cnz = q;
    }

    // the new element Lk
    let dk = 0;
    st(nv, k, -nvk);
    let p = ld(Cp, k);
    const pk1 = elenk == 0 ? p : cnz;
    let pk2 = pk1;
    for (let k1 = 1; k1 <= elenk + 1; k1++) {
      let e: i32, pj: i32, ln: i32;
      if (k1 > elenk) {
        e = k;
        pj = p;
        ln = ld(len, k) - elenk;
      } else {
        e = ld(Ci, p++);
        pj = ld(Cp, e);
        ln = ld(len, e);
      }
      for (let k2 = 1; k2 <= ln; k2++) {
        const i = ld(Ci, pj++);
        const nvi = ld(nv, i);
        if (nvi <= 0) continue;
        dk += nvi;
        st(nv, i, -nvi);
        st(Ci, pk2++, i);
        const ni = ld(next, i);
        const li = ld(last, i);
        if (ni != -1) st(last, ni, li);
        if (li != -1) st(next, li, ni);
        else st(head, ld(degree, i), ni);
      }
      if (e != k) {
        st(Cp, e, flip(k));
        st(w, e, 0);
      }
    }
    if (elenk != 0) cnz = pk2;
    st(degree, k, dk);
    st(Cp, k, pk1);
    st(len, k, pk2 - pk1);
    st(elen, k, -2);

    // |Le \ Lk| for every element e next to a variable of Lk, kept in w[e] - mark
    mark = clearMarks(<i64>mark, lemax, w, N);
    for (let pk = pk1; pk < pk2; pk++) {
      const i = ld(Ci, pk);
      const eln = ld(elen, i);
      if (eln <= 0) continue;
      const nvi = -ld(nv, i);
      const wnvi = mark - nvi;
      for (let q = ld(Cp, i), qe = ld(Cp, i) + eln; q < qe; q++) {
        const e = ld(Ci, q);
        const we = ld(w, e);
        // (no branches: see the degrees' loop below) w[e] stays 0 for an absorbed element
        st(w, e, select<i32>(we - nvi, select<i32>(ld(degree, e) + wnvi, 0, we != 0), we >= mark));
      }
    }

    // approximate degrees of the variables of Lk; prune their lists; hash them for supervariables
    for (let pk = pk1; pk < pk2; pk++) {
      const i = ld(Ci, pk);
      const p1 = ld(Cp, i);
      const p2 = p1 + ld(elen, i) - 1;
      let pn = p1;
      let h: i64 = 0;
      let d = 0;
      // without branches on the entries (which elements and variables stay follows no pattern a
      // branch predictor learns): each is written at pn, which moves on past the kept ones only (pn ≤ q:
      // the places written were read); an element with no external part (we − mark ≤ 0, we ≠ 0; mark > 0)
      // is absorbed into k, one already absorbed (we = 0) left as it is
      for (let q = p1; q <= p2; q++) {
        const e = ld(Ci, q);
        const we = ld(w, e);
        const dext = we - mark;
        const keep = dext > 0;
        d += select<i32>(dext, 0, keep);
        st(Ci, pn, e);
        pn += <i32>keep;
        h += select<i64>(<i64>e, 0, keep);
        st(Cp, e, select<i32>(ld(Cp, e), flip(k), keep || we == 0));
        st(w, e, select<i32>(we, 0, keep));
      }
      st(elen, i, pn - p1 + 1);
      const p3 = pn;
      const p4 = p1 + ld(len, i);
      for (let q = p2 + 1; q < p4; q++) {
        const j = ld(Ci, q);
        const nvj = ld(nv, j);
        const keep = nvj > 0;
        d += select<i32>(nvj, 0, keep);
        st(Ci, pn, j);
        pn += <i32>keep;
        h += select<i64>(<i64>j, 0, keep);
      }
      if (d == 0) {
        st(Cp, i, flip(k));
        const nvi = -ld(nv, i);
        dk -= nvi;
        nvk += nvi;
        nel += nvi;
        st(nv, i, 0);
        st(elen, i, -1);
      } else {
        const di = ld(degree, i);
        st(degree, i, d < di ? d : di);
        st(Ci, pn, ld(Ci, p3));
        st(Ci, p3, ld(Ci, p1));
        st(Ci, p1, k);
        st(len, i, pn - p1 + 1);
        const hb = <i32>(h % <i64>n);
        st(next, i, ld(hhead, hb));
        st(hhead, hb, i);
        st(last, i, hb);
      }
    }
    st(degree, k, dk);
    if (dk > lemax) lemax = dk;
    mark = clearMarks(<i64>mark + <i64>lemax, lemax, w, N);

    // supervariables: variables of one hash bucket with the same lists merge
    for (let pk = pk1; pk < pk2; pk++) {
      let i = ld(Ci, pk);
      if (ld(nv, i) >= 0) continue;
      const h = ld(last, i);
      i = ld(hhead, h);
      st(hhead, h, -1);
      for (; i != -1 && ld(next, i) != -1; i = ld(next, i), mark++) {
        const ln = ld(len, i);
        const eln = ld(elen, i);
        const ci = ld(Cp, i);
        for (let q = ci + 1; q <= ci + ln - 1; q++) st(w, ld(Ci, q), mark);
        let jlast = i;
        for (let j = ld(next, i); j != -1; ) {
          let ok = ld(len, j) == ln && ld(elen, j) == eln;
          const cj = ld(Cp, j);
          for (let q = cj + 1; ok && q <= cj + ln - 1; q++) if (ld(w, ld(Ci, q)) != mark) ok = false;
          if (ok) {
            st(Cp, j, flip(i));
            st(nv, i, ld(nv, i) + ld(nv, j));
            st(nv, j, 0);
            st(elen, j, -1);
            j = ld(next, j);
            st(next, jlast, j);
          } else {
            jlast = j;
            j = ld(next, j);
          }
        }
      }
    }

    // finish Lk: its live variables get their degrees and go back to the degree lists
    let q = pk1;
    for (let pk = pk1; pk < pk2; pk++) {
      const i = ld(Ci, pk);
      const nvi = -ld(nv, i);
      if (nvi <= 0) continue;
      st(nv, i, nvi);
      let d = ld(degree, i) + dk - nvi;
      const cap = n - nel - nvi;
      if (cap < d) d = cap;
      if (ld(head, d) != -1) st(last, ld(head, d), i);
      st(next, i, ld(head, d));
      st(last, i, -1);
      st(head, d, i);
      if (d < mindeg) mindeg = d;
      st(degree, i, d);
      st(Ci, q++, i);
    }
    st(nv, k, nvk);
    st(len, k, q - pk1);
    if (q == pk1) {
      st(Cp, k, -1);
      st(w, k, 0);
    }
    if (elenk != 0) cnz = q;
  }

  // postorder the assembly tree: Cp[i] is now each node's parent (or -1)
  for (let i = 0; i < n; i++) st(Cp, i, flip(ld(Cp, i)));
  for (let j = 0; j <= n; j++) st(head, j, -1);
  for (let j = n; j >= 0; j--) {
    if (ld(nv, j) > 0) continue;
    st(next, j, ld(head, ld(Cp, j)));
    st(head, ld(Cp, j), j);
  }
  for (let e = n; e >= 0; e--) {
    if (ld(nv, e) <= 0) continue;
    if (ld(Cp, e) != -1) {
      st(next, e, ld(head, ld(Cp, e)));
      st(head, ld(Cp, e), e);
    }
  }
  let k = 0;
  for (let i = 0; i <= n; i++) if (ld(Cp, i) == -1) k = treeDfs(i, k, head, next, order, w);
  // node n (the dense rows' root) comes last: the first n entries are the ordering
  memory.copy(Ci, order, <usize>n << 2);
  return 0;
}
