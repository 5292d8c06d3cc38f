/**
 * Supernodal multifrontal Cholesky (LLᵀ): the columns of each supernode (consecutive columns of L with
 * one pattern) are factorized together in a dense frontal matrix holding A's entries of those columns
 * plus the update matrices of the child supernodes (extend-add); a dense partial factorization leaves
 * the supernode's columns of L and the update (Schur complement) its parent receives. The dense work
 * — the panel factorization and the rank-k update, four columns at a time — is where the flops go, in
 * contiguous column-major loops instead of the scattered row-by-row updates of the up-looking kernel.
 * Small fundamental supernodes are merged with their parent when the explicit zeros this adds stay few
 * (relaxed amalgamation), so fronts are rarely narrower than a few columns.
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
}

/** Children lists of a forest: the children of p are head[p], next[head[p]], … in increasing order. */
function childLists(parent: Int32Array): { head: Int32Array; next: Int32Array } {
  const head = new Int32Array(parent.length).fill(-1);
  const next = new Int32Array(parent.length).fill(-1);
  for (let s = parent.length - 1; s >= 0; s--) {
    const p = parent[s];
    if (p >= 0) {
      next[s] = head[p];
      head[p] = s;
    }
  }
  return { head, next };
}

/** Bytes of the numeric phase's workspace: the largest front (the pending updates come on top). */
export function supernodalFrontBytes(sym: SupernodalSymbolic): number {
  let mmax = 0;
  for (let s = 0; s + 1 < sym.rowPtr.length; s++) mmax = Math.max(mmax, sym.rowPtr[s + 1] - sym.rowPtr[s]);
  return 8 * mmax * mmax;
}

/** The numeric factor: the dense blocks of L, one per supernode. */
export interface SupernodalFactor {
  sym: SupernodalSymbolic;
  Lx: Float64Array;
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
 * counts; `lowerPtr/lowerIdx` give the rows > j of A's column j (the permuted lower triangle).
 */
export function supernodalSymbolic(
  parent: Int32Array, counts: Int32Array, starts: Int32Array, lowerPtr: Int32Array, lowerIdx: Int32Array,
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
  // row patterns: own columns, A's rows below them, the children's rows below the child
  const { head: childHead, next: childNext } = childLists(sparent);
  const mark = new Int32Array(n).fill(-1);
  const rowPtr = new Int32Array(ns + 1);
  const parts: Int32Array[] = [];
  const valPtr = new Float64Array(ns + 1);
  let total = 0;
  for (let s = 0; s < ns; s++) {
    const f = sup[s];
    const l = sup[s + 1];
    const list: number[] = [];
    for (let j = f; j < l; j++) {
      mark[j] = s;
      list.push(j);
    }
    for (let j = f; j < l; j++) {
      for (let p = lowerPtr[j]; p < lowerPtr[j + 1]; p++) {
        const i = lowerIdx[p];
        if (mark[i] !== s) {
          mark[i] = s;
          list.push(i);
        }
      }
    }
    for (let c = childHead[s]; c >= 0; c = childNext[c]) {
      const rc = parts[c];
      const kc = sup[c + 1] - sup[c];
      for (let t = kc; t < rc.length; t++) {
        const i = rc[t];
        if (mark[i] !== s) {
          mark[i] = s;
          list.push(i);
        }
      }
    }
    const below = Int32Array.from(list.slice(l - f)).sort();
    const r = new Int32Array(list.length);
    for (let t = 0; t < l - f; t++) r[t] = f + t;
    r.set(below, l - f);
    parts.push(r);
    rowPtr[s + 1] = rowPtr[s] + r.length;
    valPtr[s] = total;
    total += r.length * (l - f);
  }
  valPtr[ns] = total;
  const rows = new Int32Array(rowPtr[ns]);
  for (let s = 0; s < ns; s++) rows.set(parts[s], rowPtr[s]);
  return { n, super: sup, rowPtr, rows, valPtr, parent: sparent };
}

/**
 * The numeric factorization. Lower triangle of the permuted A by columns (diagonal included) in
 * Ap/Ai/Ax. Returns the factor, or the first column (permuted numbering) whose pivot is not positive.
 */
export function supernodalCholesky(sym: SupernodalSymbolic, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array): SupernodalFactor | number {
  const { n, super: sup, rowPtr, rows, valPtr, parent } = sym;
  const ns = sup.length - 1;
  const Lx = new Float64Array(valPtr[ns]);
  const rel = new Int32Array(n);
  // one front workspace, as large as the largest front
  let mmax = 0;
  for (let s = 0; s < ns; s++) mmax = Math.max(mmax, rowPtr[s + 1] - rowPtr[s]);
  const front = new Float64Array(mmax * mmax);
  // update matrices waiting for their parent (postorder: a parent comes after all its children)
  const updates: (Float64Array | null)[] = new Array(ns).fill(null);
  const { head: childHead, next: childNext } = childLists(parent);
  for (let s = 0; s < ns; s++) {
    const f = sup[s];
    const k = sup[s + 1] - f;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    for (let t = 0; t < m; t++) rel[rows[r0 + t]] = t;
    const F = front;
    F.fill(0, 0, m * m);
    // A's columns
    for (let c = 0; c < k; c++) {
      const j = f + c;
      for (let p = Ap[j]; p < Ap[j + 1]; p++) F[rel[Ai[p]] + c * m] += Ax[p];
    }
    // extend-add of the children's updates (lower triangles)
    for (let ch = childHead[s]; ch >= 0; ch = childNext[ch]) {
      const U = updates[ch]!;
      const kc = sup[ch + 1] - sup[ch];
      const rc = rowPtr[ch] + kc;
      const u = rowPtr[ch + 1] - rc;
      for (let b = 0; b < u; b++) {
        const cb = rel[rows[rc + b]] * m;
        for (let a = b; a < u; a++) F[rel[rows[rc + a]] + cb] += U[a + b * u];
      }
      updates[ch] = null;
    }
    // the panel: left-looking within the supernode's k columns
    for (let c = 0; c < k; c++) {
      const cc = c * m;
      for (let p = 0; p < c; p++) {
        const pp = p * m;
        const t = F[c + pp];
        if (t !== 0) for (let i = c; i < m; i++) F[i + cc] -= F[i + pp] * t;
      }
      const d = F[c + cc];
      if (!(d > 0 && d < Infinity)) return f + c;
      const sd = Math.sqrt(d);
      F[c + cc] = sd;
      const inv = 1 / sd;
      for (let i = c + 1; i < m; i++) F[i + cc] *= inv;
    }
    Lx.set(F.subarray(0, m * k), valPtr[s]);
    // the update: U = F22 − L21·L21ᵀ (lower), four columns of L21 at a time
    const u = m - k;
    if (u > 0 && parent[s] >= 0) {
      const U = new Float64Array(u * u);
      for (let b = 0; b < u; b++) {
        const cb = (k + b) * m;
        const ub = b * u;
        for (let a = b; a < u; a++) U[a + ub] = F[k + a + cb];
        let p = 0;
        for (; p + 3 < k; p += 4) {
          const c0 = p * m, c1 = c0 + m, c2 = c1 + m, c3 = c2 + m;
          const t0 = F[k + b + c0], t1 = F[k + b + c1], t2 = F[k + b + c2], t3 = F[k + b + c3];
          for (let a = b; a < u; a++) {
            const i = k + a;
            U[a + ub] -= F[i + c0] * t0 + F[i + c1] * t1 + F[i + c2] * t2 + F[i + c3] * t3;
          }
        }
        for (; p < k; p++) {
          const c0 = p * m;
          const t0 = F[k + b + c0];
          for (let a = b; a < u; a++) U[a + ub] -= F[k + a + c0] * t0;
        }
      }
      updates[s] = U;
    }
  }
  return { sym, Lx };
}

/** y ← (L·Lᵀ)⁻¹·y in place (y already permuted). */
export function supernodalSolveInPlace(f: SupernodalFactor, y: Float64Array): void {
  const { super: sup, rowPtr, rows, valPtr } = f.sym;
  const Lx = f.Lx;
  const ns = sup.length - 1;
  for (let s = 0; s < ns; s++) {
    const first = sup[s];
    const k = sup[s + 1] - first;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    const v = valPtr[s];
    for (let c = 0; c < k; c++) {
      const col = v + c * m;
      const yc = (y[first + c] /= Lx[col + c]);
      if (yc !== 0) for (let i = c + 1; i < m; i++) y[rows[r0 + i]] -= Lx[col + i] * yc;
    }
  }
  for (let s = ns - 1; s >= 0; s--) {
    const first = sup[s];
    const k = sup[s + 1] - first;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    const v = valPtr[s];
    for (let c = k - 1; c >= 0; c--) {
      const col = v + c * m;
      let t = y[first + c];
      for (let i = c + 1; i < m; i++) t -= Lx[col + i] * y[rows[r0 + i]];
      y[first + c] = t / Lx[col + c];
    }
  }
}
