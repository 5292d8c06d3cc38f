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

function largestFront(sym: SupernodalSymbolic): number {
  let mmax = 0;
  for (let s = 0; s + 1 < sym.rowPtr.length; s++) mmax = Math.max(mmax, sym.rowPtr[s + 1] - sym.rowPtr[s]);
  return mmax;
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
  // row patterns: own columns, A's rows below them, the children's rows below the child; each
  // supernode's rows are gathered in `list` and only the rows below its columns are sorted
  const { head: childHead, next: childNext } = childLists(sparent);
  const mark = new Int32Array(n).fill(-1);
  const rowPtr = new Int32Array(ns + 1);
  const list = new Int32Array(n);
  let rows = new Int32Array(Math.max(16, 2 * lowerPtr[n] + n));
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
      for (let p = lowerPtr[j]; p < lowerPtr[j + 1]; p++) {
        const i = lowerIdx[p];
        if (mark[i] !== s) {
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

/**
 * The numeric factorization. Lower triangle of the permuted A by columns (diagonal included) in
 * Ap/Ai/Ax. Returns the factor, or the first column (permuted numbering) whose pivot is not positive.
 */
export function supernodalCholesky(sym: SupernodalSymbolic, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array): SupernodalFactor | number {
  const { n, super: sup, rowPtr, rows, valPtr, parent } = sym;
  const ns = sup.length - 1;
  const Lx = new Float64Array(valPtr[ns]);
  const rel = new Int32Array(n);
  const relc = new Int32Array(n);
  // one front workspace, as large as the largest front, and the stack of pending updates
  const mmax = largestFront(sym);
  const F = new Float64Array(mmax * mmax);
  const stack = new Float64Array(sym.stackPeak);
  let top = 0;
  const { head: childHead, next: childNext } = childLists(parent);
  for (let s = 0; s < ns; s++) {
    const f = sup[s];
    const k = sup[s + 1] - f;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    for (let t = 0; t < m; t++) rel[rows[r0 + t]] = t;
    for (let c = 0; c < m; c++) F.fill(0, c * m + c, (c + 1) * m);
    // A's columns
    for (let c = 0; c < k; c++) {
      const j = f + c;
      for (let p = Ap[j]; p < Ap[j + 1]; p++) F[rel[Ai[p]] + c * m] += Ax[p];
    }
    // extend-add of the children's updates (lower triangles), popped off the stack last child first
    for (let ch = childHead[s]; ch >= 0; ch = childNext[ch]) top = extendAdd(F, m, rel, rows, rowPtr[ch] + sup[ch + 1] - sup[ch], rowPtr[ch + 1], stack, top, relc);
    const bad = partialCholesky(F, m, k);
    if (bad >= 0) return f + bad;
    Lx.set(F.subarray(0, m * k), valPtr[s]);
    const u = m - k;
    if (u > 0 && parent[s] >= 0) {
      // the update (Schur complement, lower triangle) goes on the stack
      for (let b = 0; b < u; b++) {
        const fb = k + (k + b) * m;
        const ub = top + b * u;
        for (let a = b; a < u; a++) stack[ub + a] = F[fb + a];
      }
      top += u * u;
    }
  }
  return { sym, Lx };
}

/**
 * Adds the update on top of the stack (ending at `top`: a u×u lower triangle for rows rows[r1..r2))
 * into the front F (m×m, rows placed by rel; relc is scratch of u entries). Returns the new top (the
 * update popped).
 */
function extendAdd(F: Float64Array, m: number, rel: Int32Array, rows: Int32Array, r1: number, r2: number, stack: Float64Array, top: number, relc: Int32Array): number {
  const u = r2 - r1;
  const U = top - u * u;
  // the child's rows in the front, looked up once
  for (let a = 0; a < u; a++) relc[a] = rel[rows[r1 + a]];
  for (let b = 0; b < u; b++) {
    const cb = relc[b] * m;
    const ub = U + b * u;
    for (let a = b; a < u; a++) F[relc[a] + cb] += stack[ub + a];
  }
  return U;
}

/**
 * The dense partial Cholesky of a front (m×m column-major, lower triangle): its first k columns
 * become L's (left-looking, four earlier columns at a time) and the trailing (m−k)×(m−k) lower
 * triangle the Schur complement F22 − L21·L21ᵀ (two columns × four terms at a time, so each entry
 * of L21 loaded serves four multiply-adds). Returns -1, or the column whose pivot is not positive.
 */
export function partialCholesky(F: Float64Array, m: number, k: number): number {
  for (let c = 0; c < k; c++) {
    const cc = c * m;
    let p = 0;
    for (; p + 3 < c; p += 4) {
      const c0 = p * m, c1 = c0 + m, c2 = c1 + m, c3 = c2 + m;
      const t0 = F[c + c0], t1 = F[c + c1], t2 = F[c + c2], t3 = F[c + c3];
      for (let i = c; i < m; i++) F[i + cc] -= F[i + c0] * t0 + F[i + c1] * t1 + F[i + c2] * t2 + F[i + c3] * t3;
    }
    for (; p < c; p++) {
      const pp = p * m;
      const t = F[c + pp];
      for (let i = c; i < m; i++) F[i + cc] -= F[i + pp] * t;
    }
    const d = F[c + cc];
    if (!(d > 0 && d < Infinity)) return c;
    const sd = Math.sqrt(d);
    F[c + cc] = sd;
    const inv = 1 / sd;
    for (let i = c + 1; i < m; i++) F[i + cc] *= inv;
  }
  // the Schur complement: columns b, b + 1 of F22 at once
  let b = k;
  for (; b + 1 < m; b += 2) {
    const cb0 = b * m;
    const cb1 = cb0 + m;
    let p = 0;
    for (; p + 3 < k; p += 4) {
      const c0 = p * m, c1 = c0 + m, c2 = c1 + m, c3 = c2 + m;
      const x0 = F[b + c0], x1 = F[b + c1], x2 = F[b + c2], x3 = F[b + c3];
      const y0 = F[b + 1 + c0], y1 = F[b + 1 + c1], y2 = F[b + 1 + c2], y3 = F[b + 1 + c3];
      F[b + cb0] -= x0 * x0 + x1 * x1 + x2 * x2 + x3 * x3;
      for (let i = b + 1; i < m; i++) {
        const l0 = F[i + c0], l1 = F[i + c1], l2 = F[i + c2], l3 = F[i + c3];
        F[i + cb0] -= l0 * x0 + l1 * x1 + l2 * x2 + l3 * x3;
        F[i + cb1] -= l0 * y0 + l1 * y1 + l2 * y2 + l3 * y3;
      }
    }
    for (; p < k; p++) {
      const cp = p * m;
      const x = F[b + cp];
      const y = F[b + 1 + cp];
      F[b + cb0] -= x * x;
      for (let i = b + 1; i < m; i++) {
        const l = F[i + cp];
        F[i + cb0] -= l * x;
        F[i + cb1] -= l * y;
      }
    }
  }
  if (b < m) {
    // the last column alone: its diagonal entry
    const cb = b * m;
    for (let p = 0; p < k; p++) F[b + cb] -= F[b + p * m] * F[b + p * m];
  }
  return -1;
}

/**
 * y ← (L·Lᵀ)⁻¹·y in place (y already permuted). A supernode's own columns are contiguous in y; the
 * rows below them are gathered into `t` once per supernode instead of once per column.
 */
export function supernodalSolveInPlace(f: SupernodalFactor, y: Float64Array): void {
  const { super: sup, rowPtr, rows, valPtr } = f.sym;
  const Lx = f.Lx;
  const ns = sup.length - 1;
  const t = new Float64Array(largestFront(f.sym));
  for (let s = 0; s < ns; s++) {
    const first = sup[s];
    const k = sup[s + 1] - first;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    const v = valPtr[s];
    t.fill(0, 0, m - k);
    // two columns at a time: each pass over the rows below serves both
    let c = 0;
    for (; c + 1 < k; c += 2) {
      const c0 = v + c * m;
      const c1 = c0 + m;
      const y0 = (y[first + c] /= Lx[c0 + c]);
      const y1 = (y[first + c + 1] = (y[first + c + 1] - Lx[c0 + c + 1] * y0) / Lx[c1 + c + 1]);
      for (let i = c + 2; i < k; i++) y[first + i] -= Lx[c0 + i] * y0 + Lx[c1 + i] * y1;
      for (let i = k; i < m; i++) t[i - k] += Lx[c0 + i] * y0 + Lx[c1 + i] * y1;
    }
    if (c < k) {
      const c0 = v + c * m;
      const y0 = (y[first + c] /= Lx[c0 + c]);
      for (let i = k; i < m; i++) t[i - k] += Lx[c0 + i] * y0;
    }
    for (let i = k; i < m; i++) y[rows[r0 + i]] -= t[i - k];
  }
  for (let s = ns - 1; s >= 0; s--) {
    const first = sup[s];
    const k = sup[s + 1] - first;
    const r0 = rowPtr[s];
    const m = rowPtr[s + 1] - r0;
    const v = valPtr[s];
    for (let i = k; i < m; i++) t[i - k] = y[rows[r0 + i]];
    // two columns at a time, the last first: each pass over the rows below serves both
    let c = k - 1;
    for (; c >= 1; c -= 2) {
      const c1 = v + c * m;
      const c0 = c1 - m;
      let s1 = y[first + c];
      let s0 = y[first + c - 1];
      for (let i = c + 1; i < k; i++) {
        const yi = y[first + i];
        s1 -= Lx[c1 + i] * yi;
        s0 -= Lx[c0 + i] * yi;
      }
      for (let i = k; i < m; i++) {
        const ti = t[i - k];
        s1 -= Lx[c1 + i] * ti;
        s0 -= Lx[c0 + i] * ti;
      }
      const y1 = (y[first + c] = s1 / Lx[c1 + c]);
      y[first + c - 1] = (s0 - Lx[c0 + c] * y1) / Lx[c0 + c - 1];
    }
    if (c === 0) {
      let s0 = y[first];
      for (let i = 1; i < k; i++) s0 -= Lx[v + i] * y[first + i];
      for (let i = k; i < m; i++) s0 -= Lx[v + i] * t[i - k];
      y[first] = s0 / Lx[v];
    }
  }
}
