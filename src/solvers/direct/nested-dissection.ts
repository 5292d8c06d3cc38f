/**
 * Nested dissection for grid- and mesh-like graphs (George 1973; the level-structure form of George &
 * Liu): a breadth-first level structure rooted at a pseudo-peripheral node, the thinnest level near
 * the middle as the vertex separator (less the nodes with no neighbour on the far side, which need no
 * separating), the two halves dissected recursively and the separator numbered after both. Parts of at
 * most LEAF nodes are ordered by AMD on their own subgraph. On a k×k grid the separators are the
 * O(k) anti-diagonals, so the fill is O(n log n) in 2-D and O(n^(4/3)) in 3-D instead of the
 * O(n^(3/2)) and O(n^(5/3)) of a profile ordering.
 */
import { amdOrder } from './amd.js';
import type { Graph } from './pattern.js';

/** parts of at most this many nodes go to AMD */
const LEAF = 200;

/** A nested-dissection ordering of the graph: perm[k] is the node eliminated k-th. */
export function ndOrder(g: Graph): Int32Array {
  const n = g.n;
  const perm = new Int32Array(n);
  // part[v]: the id of the part v belongs to, -1 once numbered
  const part = new Int32Array(n);
  const level = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  const local = new Int32Array(n).fill(-1);
  let nextId = 1;
  // numbers are handed out from the back: a separator is numbered before (so after) its halves
  let back = n;
  const stack: Int32Array[] = [Int32Array.from({ length: n }, (_, i) => i)];
  const place = (nodes: ArrayLike<number>) => {
    for (let t = nodes.length - 1; t >= 0; t--) {
      perm[--back] = nodes[t];
      part[nodes[t]] = -1;
    }
  };
  while (stack.length) {
    const nodes = stack.pop()!;
    const id = part[nodes[0]];
    if (nodes.length <= LEAF) {
      place(leafOrder(g, nodes, part, id, local));
      continue;
    }
    // split a disconnected part into its components first
    for (let t = 0; t < nodes.length; t++) level[nodes[t]] = -1;
    let count = bfs(g, nodes[0], part, id, level, queue);
    if (count < nodes.length) {
      for (let t = 0; t < nodes.length; t++) {
        const v = nodes[t];
        if (t > 0 && level[v] >= 0) continue;
        const m = t === 0 ? count : bfs(g, v, part, id, level, queue);
        const comp = queue.slice(0, m);
        const cid = nextId++;
        for (const u of comp) part[u] = cid;
        stack.push(comp);
      }
      continue;
    }
    for (let t = 0; t < count; t++) level[queue[t]] = -1;
    const root = peripheral(g, nodes[0], part, id, level, queue);
    count = bfs(g, root, part, id, level, queue);
    const depth = level[queue[count - 1]] + 1;
    const size = new Int32Array(depth);
    for (let t = 0; t < count; t++) size[level[queue[t]]]++;
    if (depth < 3) {
      // a clique-like part: no separator to find
      place(leafOrder(g, nodes, part, id, local));
      continue;
    }
    // the thinnest interior level with at least 30 % of the nodes on each side (else the middle
    // one); interior, so that both sides keep nodes and the level separates them
    let sep = -1;
    let before = size[0];
    let mid = 1;
    for (let l = 1; l < depth - 1; l++) {
      const after = count - before - size[l];
      if (before < count / 2) mid = l;
      if (before >= 0.3 * count && after >= 0.3 * count && (sep < 0 || size[l] < size[sep])) sep = l;
      before += size[l];
    }
    if (sep < 0) sep = mid;
    const idA = nextId++;
    const idB = nextId++;
    const A: number[] = [];
    const B: number[] = [];
    const S: number[] = [];
    for (let t = 0; t < count; t++) {
      const v = queue[t];
      const l = level[v];
      if (l < sep) A.push(v);
      else if (l > sep) B.push(v);
      else {
        // a separator node with no neighbour past the separator may join the near side
        let far = false;
        for (let p = g.ptr[v]; p < g.ptr[v + 1] && !far; p++) {
          const u = g.adj[p];
          if (part[u] === id && level[u] === sep + 1) far = true;
        }
        if (far) S.push(v);
        else A.push(v);
      }
    }
    for (const v of A) part[v] = idA;
    for (const v of B) part[v] = idB;
    place(S);
    if (B.length) stack.push(Int32Array.from(B));
    if (A.length) stack.push(Int32Array.from(A));
  }
  return perm;
}

/** Breadth-first levels from root within part `id`; returns how many nodes it reached (in queue). */
function bfs(g: Graph, root: number, part: Int32Array, id: number, level: Int32Array, queue: Int32Array): number {
  let tail = 0;
  queue[tail++] = root;
  level[root] = 0;
  for (let h = 0; h < tail; h++) {
    const v = queue[h];
    for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) {
      const u = g.adj[p];
      if (part[u] === id && level[u] < 0) {
        level[u] = level[v] + 1;
        queue[tail++] = u;
      }
    }
  }
  return tail;
}

/**
 * A pseudo-peripheral node of start's component (Gibbs–Poole–Stockmeyer): from start, repeatedly jump
 * to a node of least degree on the last level while that lengthens the level structure. Expects the
 * component's levels at -1 and leaves them so.
 */
function peripheral(g: Graph, start: number, part: Int32Array, id: number, level: Int32Array, queue: Int32Array): number {
  let root = start;
  let ecc = -1;
  for (let round = 0; round < 8; round++) {
    const count = bfs(g, root, part, id, level, queue);
    const last = level[queue[count - 1]];
    let best = root;
    let bestDeg = Infinity;
    for (let t = count - 1; t >= 0 && level[queue[t]] === last; t--) {
      const v = queue[t];
      const d = g.ptr[v + 1] - g.ptr[v];
      if (d < bestDeg) {
        bestDeg = d;
        best = v;
      }
    }
    for (let t = 0; t < count; t++) level[queue[t]] = -1;
    if (last <= ecc) break;
    ecc = last;
    root = best;
  }
  return root;
}

/** AMD on the subgraph a part induces; returns the part's nodes in that order. */
function leafOrder(g: Graph, nodes: Int32Array, part: Int32Array, id: number, local: Int32Array): Int32Array {
  const m = nodes.length;
  for (let t = 0; t < m; t++) local[nodes[t]] = t;
  const ptr = new Int32Array(m + 1);
  const adj: number[] = [];
  for (let t = 0; t < m; t++) {
    const v = nodes[t];
    for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) {
      const u = g.adj[p];
      if (part[u] === id) adj.push(local[u]);
    }
    ptr[t + 1] = adj.length;
  }
  const order = amdOrder({ n: m, ptr, adj: Int32Array.from(adj) });
  const out = new Int32Array(m);
  for (let t = 0; t < m; t++) {
    out[t] = nodes[order[t]];
    local[nodes[t]] = -1;
  }
  return out;
}
