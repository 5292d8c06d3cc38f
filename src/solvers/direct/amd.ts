/**
 * Approximate minimum degree ordering (Amestoy, Davis & Duff 1996; the form of Davis, "Direct Methods
 * for Sparse Linear Systems", ch. 7): elimination on the quotient graph, where eliminated nodes become
 * elements and a variable's degree is bounded by |Le \ Lk| sums instead of computed exactly;
 * indistinguishable variables merge into supervariables (found by hashing), variables left with no
 * external degree are eliminated with the pivot (mass elimination), elements covered by the new one are
 * absorbed (aggressive absorption), and dense rows (degree > 10√n) are ordered last. The elimination
 * (assembly) tree is postordered at the end, so the result also suits the supernodal factorization.
 */
import type { Graph, Rows } from './pattern.js';

/** An AMD ordering of the graph: perm[k] is the node eliminated k-th. */
export function amdOrder(g: Graph, md: MinimumDegreeKernel): Int32Array {
  const n = g.n;
  const nnzG = g.ptr[n];
  return minimumDegree(n, 0, nnzG, md, (Ci, Cp, len, elen, degree) => {
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
export function columnAmdOrder(A: { n: number; colPtr: Int32Array; rowIdx: Int32Array }, rows: Rows, skip: Uint8Array | null, md: MinimumDegreeKernel): Int32Array {
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
  return minimumDegree(n, m, 2 * nnzKept, md, (Ci, Cp, len, elen, degree) => {
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
 * The quotient-graph elimination (assembly/amd.ts, run by the CPU path's WebAssembly: as JavaScript,
 * a process's first orderings waited for the engine to optimize it, 494_bus 1.1 ms a call against
 * 0.14 ms warm), given as a block of `words` 32-bit integers in the kernels' memory (zeroed) that
 * `fill` writes before the kernel runs over it. `fill` returns the kernel's arguments: elements m,
 * list space `size`, lists' end `cnz`, the dense threshold and the word offset in the block of the
 * array compared with it. Returns the block's first n words after the run: the ordering.
 */
export type MinimumDegreeKernel = (words: number, n: number, fill: (all: Int32Array) => MinimumDegreeArgs) => Int32Array;

/** What the elimination is told besides the block (see {@link MinimumDegreeKernel}). */
export interface MinimumDegreeArgs {
  m: number;
  size: number;
  cnz: number;
  dense: number;
  denseBy: number;
}

/**
 * The elimination shared by both orderings: n variables and m elements given from the start (ids
 * n + 1 … n + m; node n collects the dense variables). `fill` writes every node's list into Ci (a
 * variable's elements first, elen of them, then its variables) with Cp, len, elen (−2 for an element)
 * and the variables' first degrees, and returns the lists' end and the measure compared with the
 * dense threshold (a variable's degree, or its rows). The block's layout is assembly/amd.ts's.
 */
function minimumDegree(
  n: number, m: number, nnzLists: number, md: MinimumDegreeKernel,
  fill: (Ci: Int32Array, Cp: Int32Array, len: Int32Array, elen: Int32Array, degree: Int32Array) => { cnz: number; denseBy: Int32Array },
): Int32Array {
  if (n === 0) return new Int32Array(0);
  // elbow room for the new elements written past the end of the lists
  const size = nnzLists + (nnzLists / 5 | 0) + 2 * n + 1;
  const n1 = n + 1;
  const N = n1 + m;
  // rows denser than this are ordered last
  const dense = Math.min(n - 2, Math.max(16, 10 * Math.sqrt(n)) | 0);
  return md(size + 6 * n1 + 5 * N, n, (all) => {
    // Ci, then Cp, len, elen, degree (each N words), then the kernel's own work vectors
    const at = (k: number): Int32Array => all.subarray(size + k * N, size + (k + 1) * N);
    const len = at(1);
    const given = fill(all.subarray(0, size), at(0), len, at(2), at(3));
    return { m, size, cnz: given.cnz, dense, denseBy: given.denseBy === len ? size + N : size + 2 * N };
  });
}
