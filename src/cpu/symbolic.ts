import type { MinimumDegreeKernel } from '../solvers/direct/amd.js';
import type { SymbolicKernels } from '../solvers/direct/symbolic.js';
import type { BlockTriangular } from '../solvers/direct/btf.js';
import type { CpuBackend } from './backend.js';
import { copyF64, copyI32, Layout, putF64, putI32 } from './memory.js';

type Kernels = Pick<CpuBackend, 'heap' | 'kernels'>;

/** Each backend's symbolic kernels, made once (stateless closures over it: rt.solve plans each new matrix with them). */
const made = new WeakMap<Kernels, SymbolicKernels>();

/** The symbolic phase's kernels on the CPU path (assembly/amd.ts, assembly/symbolic.ts), run at once on the calling thread's instance. */
export function cpuSymbolicKernels(B: Kernels): SymbolicKernels {
  let k = made.get(B);
  if (!k) made.set(B, (k = symbolicKernels(B)));
  return k;
}

function symbolicKernels(B: Kernels): SymbolicKernels {
  return {
    columns: (A) => {
      const n = A.rows;
      const nnz = A.nnz;
      // colPtr and rowIdx one after the other (copied out as views of one array), then the values
      const { at, bytes } = Layout.of([4 * (n + 1), 4 * nnz, 8 * nnz, 4 * (n + 1 + nnz), 8 * nnz, 4 * n, 12]);
      return B.heap.temporary(bytes, (region) => {
        const P = at.map((a) => region.ptr + a);
        putI32(B.heap, P[0], A.rowPtr.subarray(0, n + 1));
        putI32(B.heap, P[1], A.colIdx.subarray(0, nnz));
        putF64(B.heap, P[2], A.values.subarray(0, nnz));
        B.kernels.sym_columns(n, P[0], P[1], P[2], P[3], P[3] + 4 * (n + 1), P[4], P[5], P[6]);
        const ints = copyI32(B.heap, P[3], n + 1 + nnz);
        const [matched, off, diagonal] = copyI32(B.heap, P[6], 3);
        return {
          C: { n, colPtr: ints.subarray(0, n + 1), rowIdx: ints.subarray(n + 1), values: copyF64(B.heap, P[4], nnz), complex: false },
          symmetry: { symmetry: off === 0 ? 1 : matched / off, diagonal },
        };
      });
    },
    minimumDegree: cpuMinimumDegree(B),
    btf: (A, rows, orderFrom) => {
      const n = A.n;
      const nnz = A.colPtr[n];
      let r = 0;
      // the graph's room is 2·nnz words; only its ptr[n] are copied out (set once the kernel has run),
      // and only where the kernel made no ordering (the graph is what one would be made from). Two
      // copies: colOf, blk, the ordering and `above` (kept with the analysis), and the graph. The work:
      // btf_analyze's 5n words, or the ordering's block (amd.ts minimumDegree's words for lists of at
      // most 2·nnz entries, then reused: 13n + 1)
      const lengths = [n, n, 4 * n, 3, n + 1, 2 * nnz];
      const work = Math.max(5 * n, 2 * nnz + ((2 * nnz) / 5 | 0) + 13 * n + 12);
      const [colOf, blk, order, above, ptr, adj] = run(B, [A.colPtr.subarray(0, n + 1), A.rowIdx.subarray(0, nnz), rows.rowPtr.subarray(0, n + 1), rows.colIdx.subarray(0, nnz)], lengths,
        (p, out, w) => {
          // (at most n blocks: n + 1 stands for any larger orderFrom, Infinity included, which i32 would read as 0)
          r = B.kernels.btf_order(n, ...p, out[0], out[1], out[4], out[5], out[3], out[2], Math.min(orderFrom, n + 1), w);
          if (r >= orderFrom) lengths[4] = lengths[5] = 0;
          else if (r >= 0) lengths[5] = B.heap.words.i32[(out[4] >> 2) + n];
        }, work, [0, 4]);
      if (r === -2 - n) throw outOfPivots(n);
      if (r < 0) return -1 - r;
      const bt: BlockTriangular = { colOf, blk, blocks: r, above: above[0], largest: above[1], singletons: above[2] };
      if (r >= orderFrom) bt.order = { perm: order.subarray(0, n), pinv: order.subarray(n, 2 * n), parent: order.subarray(2 * n, 3 * n), counts: order.subarray(3 * n) };
      else bt.graph = { n, ptr, adj };
      return bt;
    },
    eliminationTree: (g, perm, pinv) => {
      const n = g.n;
      return run(B, [g.ptr.subarray(0, n + 1), g.adj.subarray(0, g.ptr[n]), perm, pinv], [n], (p, out, work) => B.kernels.sym_etree(n, ...p, ...out, work), 2 * n)[0];
    },
    postorder: (parent) => {
      const n = parent.length;
      return run(B, [parent], [n], (p, out, work) => B.kernels.sym_postorder(n, ...p, ...out, work), 3 * n)[0];
    },
    graphTree: (g, perm, pinv) => {
      const n = g.n;
      const [parent, post, counts] = run(B, [g.ptr.subarray(0, n + 1), g.adj.subarray(0, g.ptr[n]), perm, pinv], [n, n, n], (p, out, work) => B.kernels.sym_graph(n, ...p, ...out, work), 6 * n);
      return { parent, post, counts };
    },
    countsOfLists: (ptr, idx, head, next, pinv, parent, post) => {
      const n = parent.length;
      const lists = ptr.length - 1;
      return run(B, [ptr.subarray(0, lists + 1), idx.subarray(0, ptr[lists]), head, next, pinv, parent, post], [n], (p, out, work) => B.kernels.sym_counts(n, ...p, ...out, work), 5 * n)[0];
    },
  };
}

/**
 * One kernel call over one region of the runtime's memory: `inputs` copied in, `outputs` (their
 * lengths) and `workWords` of work after them; returns copies of the outputs (as long as `outputs`
 * says after the call: `call` may shorten one to what the kernel wrote). The outputs from each index
 * in `copies` to the next are copied out as one array, each a view of it: fewer arrays to allocate
 * and collect (west0479's rt.solve made 40 a call, 25 since); a group shortened to no words is not copied.
 * The region is a temporary: freed, and given back to the operation's memory budget, on return.
 */
function run(B: Kernels, inputs: Int32Array[], outputs: number[], call: (inputs: number[], outputs: number[], work: number) => void, workWords: number, copies: number[] = [0]): Int32Array[] {
  const words = [...inputs.map((a) => a.length), ...outputs, workWords];
  return B.heap.temporary(4 * words.reduce((s, w) => s + w, 0), (region) => {
    const all = region.view('i32');
    let at = 0;
    const ptrs = words.map((w) => {
      const p = at;
      at += w;
      return p;
    });
    inputs.forEach((a, i) => all.set(a, ptrs[i]));
    const addr = (i: number): number => region.ptr + 4 * ptrs[i];
    const outAt = outputs.map((_, i) => inputs.length + i);
    call(inputs.map((_, i) => addr(i)), outAt.map(addr), addr(words.length - 1));
    const views: Int32Array[] = [];
    copies.forEach((first, c) => {
      const last = (copies[c + 1] ?? outputs.length) - 1;
      // a group left with no words (call shortened each of its outputs to 0) is not copied
      if (outputs.slice(first, last + 1).every((w) => w === 0)) {
        for (let o = first; o <= last; o++) views.push(new Int32Array(0));
        return;
      }
      // from the group's first output to its last one's end (only a group's last output may be shortened: the copy is one range)
      const from = ptrs[outAt[first]];
      const copy = all.slice(from, ptrs[outAt[last]] + outputs[last]);
      for (let o = first; o <= last; o++) views.push(copy.subarray(ptrs[outAt[o]] - from, ptrs[outAt[o]] - from + outputs[o]));
    });
    return views;
  });
}

/**
 * The minimum degree orderings' elimination on the CPU path (assembly/amd.ts), on the calling
 * thread's instance: the block is a region of the runtime's memory, zeroed, filled by the ordering,
 * run over, read back, freed and given back to the operation's memory budget.
 */
export function cpuMinimumDegree(B: Kernels): MinimumDegreeKernel {
  return (words, n, fill) => {
    return B.heap.temporary(4 * words, (region) => {
      const all = region.view('i32', words);
      all.fill(0);
      const a = fill(all);
      const status = B.kernels.amd_eliminate(region.ptr, n, a.m, a.size, a.cnz, a.dense, region.ptr + 4 * a.denseBy);
      if (status !== 0) throw outOfPivots(n);
      return region.view('i32', n).slice();
    });
  };
}

const outOfPivots = (n: number): Error => new Error(`internal: the minimum degree elimination ran out of pivots (n = ${n})`);
