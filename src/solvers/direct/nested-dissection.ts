/**
 * Nested dissection for grid- and mesh-like graphs (George 1973; the level-structure form of George &
 * Liu): a breadth-first level structure rooted at a pseudo-peripheral node, the thinnest level near
 * the middle as the vertex separator (less the nodes with no neighbour on the far side, which need no
 * separating), the two halves dissected recursively and the separator numbered after both. Parts of at
 * most LEAF nodes are ordered by AMD on their own subgraph. On a k×k grid the separators are the
 * O(k) anti-diagonals, so the fill is O(n log n) in 2-D and O(n^(4/3)) in 3-D instead of the
 * O(n^(3/2)) and O(n^(5/3)) of a profile ordering.
 */
import { amdOrder, type MinimumDegreeKernel } from './amd.js';
import type { Graph } from './pattern.js';
import { finish, type Steps } from './steps.js';

/** parts of at most this many nodes go to AMD */
const LEAF = 200;

/**
 * A nested-dissection ordering of the graph: perm[k] is the node eliminated k-th. Indistinguishable
 * nodes (the same neighbours and each other: the unknowns of one mesh node, as in elasticity) are
 * merged first when that shrinks the graph by a tenth or more, dissected as one, and numbered
 * together. The leaves are ordered by AMD (its elimination `md`).
 */
export function ndOrder(g: Graph, md: MinimumDegreeKernel): Int32Array {
  return finish(ndOrderSteps(g, md));
}

/** ndOrder as steps (steps.ts): it yields between parts and between the searches of a part's levels. */
export function* ndOrderSteps(g: Graph, md: MinimumDegreeKernel): Steps<Int32Array> {
  const c = compressGraph(g);
  yield;
  if (!c) return yield* dissect(g, md);
  const order = yield* dissect(c.graph, md);
  const perm = new Int32Array(g.n);
  let k = 0;
  for (let t = 0; t < order.length; t++) {
    const v = order[t];
    for (let p = c.memberPtr[v]; p < c.memberPtr[v + 1]; p++) perm[k++] = c.members[p];
  }
  return perm;
}

/**
 * The graph with indistinguishable nodes merged (closed neighbourhoods equal: found by hashing and
 * compared by marks), and the original nodes of each merged one; null when fewer than a tenth of the
 * nodes would go.
 */
export function compressGraph(g: Graph): { graph: Graph; memberPtr: Int32Array; members: Int32Array } | null {
  const { n, ptr, adj } = g;
  const hash = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    let h = v;
    for (let p = ptr[v]; p < ptr[v + 1]; p++) h = (h + adj[p]) | 0;
    hash[v] = h;
  }
  // nodes bucketed by hash (a counting sort); only nodes of one bucket and degree are compared
  const bucketPtr = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) bucketPtr[(hash[v] >>> 0) % n + 1]++;
  for (let b = 0; b < n; b++) bucketPtr[b + 1] += bucketPtr[b];
  const at = bucketPtr.slice(0, n);
  const byHash = new Int32Array(n);
  for (let v = 0; v < n; v++) byHash[at[(hash[v] >>> 0) % n]++] = v;
  const rep = new Int32Array(n).fill(-1);
  const mark = new Int32Array(n).fill(-1);
  let merged = 0;
  for (let b = 0; b < n; b++) {
    const e = bucketPtr[b + 1];
    for (let a = bucketPtr[b]; a < e - 1; a++) {
      const i = byHash[a];
      if (rep[i] >= 0) continue;
      const d = ptr[i + 1] - ptr[i];
      mark[i] = i;
      for (let p = ptr[i]; p < ptr[i + 1]; p++) mark[adj[p]] = i;
      for (let c = a + 1; c < e; c++) {
        const j = byHash[c];
        if (rep[j] >= 0 || hash[j] !== hash[i] || ptr[j + 1] - ptr[j] !== d || mark[j] !== i) continue;
        let same = true;
        for (let p = ptr[j]; same && p < ptr[j + 1]; p++) same = mark[adj[p]] === i;
        if (same) {
          rep[j] = i;
          merged++;
        }
      }
    }
  }
  if (merged < n / 10) return null;
  // the merged graph: one node per representative, in the order of the originals
  const id = new Int32Array(n);
  let m = 0;
  for (let v = 0; v < n; v++) id[v] = rep[v] < 0 ? m++ : -1;
  for (let v = 0; v < n; v++) if (rep[v] >= 0) id[v] = id[rep[v]];
  const memberPtr = new Int32Array(m + 1);
  for (let v = 0; v < n; v++) memberPtr[id[v] + 1]++;
  for (let t = 0; t < m; t++) memberPtr[t + 1] += memberPtr[t];
  const fillAt = memberPtr.slice(0, m);
  const members = new Int32Array(n);
  for (let v = 0; v < n; v++) members[fillAt[id[v]]++] = v;
  const cptr = new Int32Array(m + 1);
  const cadj = new Int32Array(adj.length);
  mark.fill(-1);
  let q = 0;
  for (let t = 0; t < m; t++) {
    const v = members[memberPtr[t]];
    mark[t] = t;
    for (let p = ptr[v]; p < ptr[v + 1]; p++) {
      const u = id[adj[p]];
      if (mark[u] !== t) {
        mark[u] = t;
        cadj[q++] = u;
      }
    }
    cptr[t + 1] = q;
  }
  return { graph: { n: m, ptr: cptr, adj: cadj.slice(0, q) }, memberPtr, members };
}

/** Nested dissection of the graph as it is (yielding after each part and search). */
function* dissect(g: Graph, md: MinimumDegreeKernel): Steps<Int32Array> {
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
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  const stack: Int32Array[] = [all];
  const place = (nodes: ArrayLike<number>) => {
    for (let t = nodes.length - 1; t >= 0; t--) {
      perm[--back] = nodes[t];
      part[nodes[t]] = -1;
    }
  };
  // scratch for the two halves and the separator of the part being split
  const half = new Int32Array(n);
  const sepNodes = new Int32Array(n);
  while (stack.length) {
    yield;
    const nodes = stack.pop()!;
    const m = nodes.length;
    const id = part[nodes[0]];
    if (m <= LEAF) {
      place(leafOrder(g, nodes, part, id, local, queue, md));
      continue;
    }
    // one breadth-first search finds whether the part is connected and starts the search for a
    // pseudo-peripheral root; a disconnected part is split into its components first
    for (let t = 0; t < m; t++) level[nodes[t]] = -1;
    let count = bfs(g, nodes[0], part, id, level, queue);
    if (count < m) {
      for (let t = 0; t < m; t++) {
        const v = nodes[t];
        if (t > 0 && level[v] >= 0) continue;
        if (t > 0) yield;
        const c = t === 0 ? count : bfs(g, v, part, id, level, queue);
        // an isolated node is numbered at once, not made a part of its own (an empty 3·10⁷×3·10⁷
        // matrix's 3·10⁷ one-node parts filled V8's heap: Node crashed out of memory)
        if (c === 1) {
          place(queue.subarray(0, 1));
          continue;
        }
        const comp = queue.slice(0, c);
        const cid = nextId++;
        for (let u = 0; u < c; u++) part[comp[u]] = cid;
        stack.push(comp);
      }
      continue;
    }
    yield;
    count = yield* peripheralLevels(g, part, id, level, queue, count);
    const depth = level[queue[count - 1]] + 1;
    if (depth < 3) {
      // a clique-like part: no separator to find
      place(leafOrder(g, nodes, part, id, local, queue, md));
      continue;
    }
    const size = new Int32Array(depth);
    for (let t = 0; t < count; t++) size[level[queue[t]]]++;
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
    // near side A from the front of `half`, far side B from its back, separator S apart
    let na = 0;
    let nb = 0;
    let ns = 0;
    for (let t = 0; t < count; t++) {
      const v = queue[t];
      const l = level[v];
      if (l < sep) half[na++] = v;
      else if (l > sep) half[m - ++nb] = v;
      else {
        // a separator node with no neighbour past the separator may join the near side
        let far = false;
        for (let p = g.ptr[v], e = g.ptr[v + 1]; p < e && !far; p++) {
          const u = g.adj[p];
          far = part[u] === id && level[u] === sep + 1;
        }
        if (far) sepNodes[ns++] = v;
        else half[na++] = v;
      }
    }
    const idA = nextId++;
    const idB = nextId++;
    for (let t = 0; t < na; t++) part[half[t]] = idA;
    for (let t = m - nb; t < m; t++) part[half[t]] = idB;
    place(sepNodes.subarray(0, ns));
    if (nb) stack.push(half.slice(m - nb, m));
    if (na) stack.push(half.slice(0, na));
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
 * Levels from a pseudo-peripheral root (Gibbs–Poole–Stockmeyer): given the level structure of a
 * connected part in level/queue (count nodes), search again from a node of least degree on the last
 * level while that lengthens the structure (at most a few times: each round is a full search, and
 * the first gains are the large ones). Leaves the deepest structure found in level/queue; returns
 * its count (the part's size).
 */
function* peripheralLevels(g: Graph, part: Int32Array, id: number, level: Int32Array, queue: Int32Array, count: number): Steps<number> {
  let depth = level[queue[count - 1]];
  for (let round = 0; round < 4; round++) {
    yield;
    let best = -1;
    let bestDeg = Infinity;
    for (let t = count - 1; t >= 0 && level[queue[t]] === depth; t--) {
      const v = queue[t];
      const d = g.ptr[v + 1] - g.ptr[v];
      if (d < bestDeg) {
        bestDeg = d;
        best = v;
      }
    }
    for (let t = 0; t < count; t++) level[queue[t]] = -1;
    // a search from a node of the last level reaches at least as deep as the one before
    bfs(g, best, part, id, level, queue);
    const d = level[queue[count - 1]];
    if (d <= depth) break;
    depth = d;
  }
  return count;
}

/** AMD on the subgraph a part induces; returns the part's nodes in that order (`scratch`: n entries). */
function leafOrder(g: Graph, nodes: Int32Array, part: Int32Array, id: number, local: Int32Array, scratch: Int32Array, md: MinimumDegreeKernel): Int32Array {
  const m = nodes.length;
  let edges = 0;
  for (let t = 0; t < m; t++) {
    local[nodes[t]] = t;
    edges += g.ptr[nodes[t] + 1] - g.ptr[nodes[t]];
  }
  const ptr = new Int32Array(m + 1);
  const adj = edges <= scratch.length ? scratch : new Int32Array(edges);
  let q = 0;
  for (let t = 0; t < m; t++) {
    const v = nodes[t];
    for (let p = g.ptr[v]; p < g.ptr[v + 1]; p++) {
      const u = g.adj[p];
      if (part[u] === id) adj[q++] = local[u];
    }
    ptr[t + 1] = q;
  }
  const order = amdOrder({ n: m, ptr, adj: adj.subarray(0, q) }, md);
  const out = new Int32Array(m);
  for (let t = 0; t < m; t++) {
    out[t] = nodes[order[t]];
    local[nodes[t]] = -1;
  }
  return out;
}
