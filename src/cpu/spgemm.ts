import { components, type DType } from '../dtype.js';
import { MemoryLimitError, ShapeError, UnsupportedError } from '../errors.js';
import { CSRMatrix, markLongestRow, validateCanonical } from '../formats/csr.js';
import { checkPointers, checkValueArray } from '../formats/common.js';
import { reserveMemory } from '../memory-budget.js';
import type { GalerkinLimit, SparseSession } from '../solvers/amg/spgemm.js';
import { tridiagonalEigen } from '../solvers/precond/chebyshev.js';
import type { CpuBackend } from './backend.js';
import { freeTemporary, type Region } from './memory.js';
import { ARRAY_F32, ARRAY_F64, ARRAY_I32 } from './copy-out.js';
import { copyInOnPool, copyWords, type CopyIn } from './copy-in.js';
import { balancedBounds, claimedParts, evenBounds } from './partition.js';
import { amgBlocks } from '../solvers/amg/aggregate.js';
import { onePerRow, prolongOnePerRow, WIDEST } from './prolong.js';
import { longestRow, rowPointers } from './row-pointers.js';

/** Products with fewer entries in A than this run as one chunk on the calling thread. */
export const SPGEMM_POOL_FLOOR = 16384;
/**
 * Rows of a partial sum of the Lanczos kernels (assembly/lanczos.ts GROUP): a function of A alone, so
 * ρ, and the AMG hierarchy smoothed with it, are the same bits on any number of threads.
 */
const LANCZOS_GROUP = 1024;

/** A CSR matrix in the WebAssembly memory, values as f64 (cc = 1) or c128 pairs (cc = 2). */
export interface Resident {
  rows: number;
  cols: number;
  nnz: number;
  cc: number;
  ptr: number;
  idx: number;
  val: number;
  regions: Region[];
  /** √|aᵢᵢ| per row (amg_diagonal's), once diagonal() has run: aggregate() reads it */
  sd?: Region;
  /** a product kept past the session (retain): release() and dispose() leave its regions */
  held?: boolean;
  /** its longest row, where a pass measured it (keep()) */
  longest?: number;
}

/**
 * The CPU path's sparse kernels (assembly/spgemm.ts, assembly/lanczos.ts) for a host-side setup that calls them
 * synchronously (the AMG hierarchy inside rt.amg, rt.spgemm): each operand is copied into the
 * WebAssembly memory once per session, however many products and SpMVs read it, until release() or
 * dispose().
 *
 * SpGEMM is Gustavson's, in two passes over rows: the symbolic pass counts each row's columns and
 * multiply-adds (rows split over the pool by A's entries); the row pointers are summed here, and the
 * product's arrays are allocated (so checked against the memory budget in scope) before the numeric
 * pass fills the rows in ascending column order (rows split by their multiply-adds).
 */
export class CpuSparseSession implements SparseSession {
  private readonly uploads = new Map<CSRMatrix, Resident>();
  /** the regions kept since retain() (products, the setup's D⁻¹), which outlive the session */
  private held: Held[] | null = null;
  /**
   * Vectors handed out as views of regions here (ones(), aggregate()'s agg, the kept D⁻¹), where the
   * memory is shared (a growth detaches no view): a later kernel reads each there, or copies it on the
   * pool, instead of copying it from the host on this thread; `own`: the session frees the region
   */
  private readonly vectors = new Map<Float64Array | Int32Array, { region: Region; own: boolean }>();
  constructor(private readonly backend: CpuBackend) {}

  /** The chunks of a pass over `entries` entries: one on the calling thread below SPGEMM_POOL_FLOOR, else one a thread. */
  chunksFor(entries: number): number {
    return entries < SPGEMM_POOL_FLOOR ? 1 : this.backend.threads;
  }

  /** after retain(), where the memory is shared (a growth detaches no view): results are views of regions kept with the products */
  private get keepsViews(): boolean {
    return this.held !== null && this.backend.heap.shared;
  }

  isCanonical(M: CSRMatrix, dtype: DType): boolean {
    // the pointers first, as validateCanonical: the column pass reads each row's span
    checkPointers('CSR', 'rowPtr', M.rowPtr, 0, M.colIdx.length, 'colIdx.length');
    checkValueArray('CSR', M.dtype, M.values, M.colIdx.length);
    const r = this.upload(M, components(dtype));
    const chunks = this.chunksFor(M.nnz);
    const mp = M.rowPtr;
    const bounds = chunks === 1 ? Int32Array.of(0, M.rows) : balancedBounds(M.rows, chunks, (i) => mp[i] + i);
    const found = this.backend.heap.temporary(16 * chunks, (out) => {
      this.backend.runChunksSync('spgemm_check', [r.ptr, r.idx, M.cols, out.ptr], bounds, 3);
      const v = out.view('i32', 4 * chunks);
      return { outside: v.some((x, k) => k % 4 === 0 && x !== 0), unordered: v.some((x, k) => k % 4 === 1 && x !== 0) };
    });
    if (found.outside || found.unordered) this.release(M);
    // a column out of range: the JavaScript pass throws validateCanonical's error at the first one
    return found.outside ? validateCanonical(M) : !found.unordered;
  }

  spgemm(A: CSRMatrix, B: CSRMatrix, dtype: DType, out?: CSRMatrix): CSRMatrix {
    const cc = components(dtype);
    const [a, b] = [this.upload(A, cc), this.upload(B, cc)];
    // fresh arrays whose first touches a worker takes during the numeric pass (Node's pool: a chunk loaded with it)
    const fresh = out ? undefined : this.backend.spgemmFresh;
    if (fresh && A.nnz >= SPGEMM_POOL_FLOOR && fresh.suits(this.backend, A, B)) return fresh.freshProduct(this.backend, dtype, A.rows, B.cols, cc, (numeric) => this.multiply(a, b, 0, true, numeric), free);
    const once = this.multiplyOnce(a, b, A, B, dtype, out);
    if (once) return once;
    const C = this.multiply(a, b);
    try {
      return hostCopy(C, dtype, false, out);
    } finally {
      free(C);
    }
  }

  /**
   * A·B for rt.spgemm of two handles: the two-pass product, allocated at its size, left in the
   * WebAssembly memory. Its regions (rowPtr, colIdx, values) go to the caller (this session's dispose()
   * does not free them) with the host matrix over them: views where the memory is shared (a growth
   * detaches no buffer), a copy where it is not. Single precision (the kernels sum in f64): a rounded
   * copy alone, no regions.
   */
  residentProduct(A: CSRMatrix, B: CSRMatrix, dtype: DType): { host: CSRMatrix; regions: Region[] | null } {
    const cc = components(dtype);
    const C = this.multiply(this.upload(A, cc), this.upload(B, cc));
    try {
      if (dtype === 'f32' || dtype === 'c64') return { host: hostCopy(C, dtype), regions: null };
      return { host: hostCopy(C, dtype, this.backend.heap.shared), regions: C.regions.splice(0) };
    } finally {
      free(C);
    }
  }

  /**
   * A·B as a host CSRMatrix in one pass over the rows, for a product copied out at once: each chunk
   * appends its rows to arrays sized by its multiply-adds (a bound on its entries, from A's pattern and
   * B's row lengths), so no symbolic pass, and the copy joins the chunks' arrays. Undefined where
   * those arrays or the copy would pass the memory budget (the two-pass product, allocated at its
   * exact size, then runs): they are given back to the budget either way. With `out` (its shape and
   * dtype the product's), its arrays are filled instead, if it has the product's entries.
   */
  private multiplyOnce(a: Resident, b: Resident, A: CSRMatrix, B: CSRMatrix, dtype: DType, out?: CSRMatrix): CSRMatrix | undefined {
    const backend = this.backend;
    const [m, n, cc] = [A.rows, B.cols, a.cc];
    const chunks = this.chunksFor(A.nnz);
    const ap = A.rowPtr;
    const split = (prefix: (i: number) => number) => (chunks === 1 ? Int32Array.of(0, m) : balancedBounds(m, chunks, prefix, 1));
    // multiply-adds before each row (each row's from the pool, summed by a kernel)
    const fl = backend.heap.alloc(8 * (m + 1));
    let bounds: Int32Array;
    let flops: number[];
    try {
      backend.runChunksSync('spgemm_flops', [a.ptr, a.idx, b.ptr, fl.ptr], split((i) => ap[i] + i));
      if (backend.kernel('spgemm_flops_before')(fl.ptr, m) > 0x7fffffff) return undefined;
      const before = fl.view('f64', m + 1);
      bounds = split((i) => before[i] + i);
      flops = Array.from({ length: chunks }, (_, c) => before[bounds[c + 1]] - before[bounds[c]]);
    } finally {
      fl.dispose();
    }
    const work: Region[] = [];
    const arrays: Region[] = [];
    try {
      const slots = backend.heap.alloc(16 * chunks);
      work.push(slots);
      const cp = backend.heap.alloc(4 * (m + 1));
      work.push(cp);
      for (let c = 0; c < chunks; c++) {
        work.push(backend.heap.alloc(backend.kernel('spgemm_workspace')(n, cc)));
        arrays.push(backend.heap.alloc(4 * flops[c]));
        arrays.push(backend.heap.alloc(8 * cc * flops[c]));
      }
      const slotView = slots.view('i32');
      for (let c = 0; c < chunks; c++) slotView.set([work[2 + c].ptr, arrays[2 * c].ptr, arrays[2 * c + 1].ptr], 4 * c);
      if (cc === 2) backend.runChunksSync('spgemm_c128', [a.ptr, a.idx, a.val, b.ptr, b.idx, b.val, n, 1, slots.ptr, cp.ptr, 0, 0], bounds, 8);
      else backend.runChunksSync('spgemm_f64', [a.ptr, a.idx, a.val, b.ptr, b.idx, b.val, n, 0, 1, 1, slots.ptr, cp.ptr, 0, 0, 0, 0], bounds, 10);
      // row pointers from the counts; each chunk's entries follow the previous chunk's
      const nnz = backend.kernel('spgemm_row_pointers')(cp.ptr, m);
      const single = dtype === 'f32' || dtype === 'c64';
      if (out) checkEntries(out, nnz);
      else reserveMemory(4 * (m + 1) + nnz * 4 + nnz * cc * (single ? 4 : 8), `spgemm: ${nnz} entries of the ${m}×${n} product`);
      const pv = cp.view('i32', m + 1);
      const lengths = Array.from({ length: chunks }, (_, c) => pv[bounds[c + 1]] - pv[bounds[c]]);
      // the values (the largest) last: a worker builds them while this thread builds the others (a
      // product small enough to run on one chunk is copied here as well)
      const [rowPtr, colIdx, values] = backend.copyOut([
        { kind: ARRAY_I32, length: m + 1, segments: [[cp.ptr, m + 1]] },
        { kind: ARRAY_I32, length: nnz, segments: lengths.map((len, c) => [arrays[2 * c].ptr, len]) },
        { kind: single ? ARRAY_F32 : ARRAY_F64, length: cc * nnz, segments: lengths.map((len, c) => [arrays[2 * c + 1].ptr, cc * len]) },
      ], chunks > 1, out && [out.rowPtr, out.colIdx, out.values]);
      return out ?? new CSRMatrix(m, n, dtype, rowPtr as Int32Array, colIdx as Int32Array, values as Float32Array | Float64Array);
    } catch (e) {
      if (e instanceof MemoryLimitError) return undefined;
      throw e;
    } finally {
      for (const r of work) r.dispose();
      for (const r of arrays) freeTemporary(r);
    }
  }

  smoothedProlongator(A: CSRMatrix, T: CSRMatrix, scale: Float64Array): CSRMatrix {
    if (A.rows !== A.cols || A.cols !== T.rows || scale.length !== A.rows) throw new Error(`internal: smoothedProlongator of a ${A.rows}×${A.cols} A, a ${T.rows}-row T and ${scale.length} scales`);
    const [a, t] = [this.upload(A, 1), this.upload(T, 1)];
    const sc = this.backend.heap.alloc(8 * A.rows);
    try {
      sc.view('f64', A.rows).set(scale);
      if (!onePerRow(A, T)) return this.keep(this.multiply(a, t, sc.ptr));
      // the constant's T: a gather per entry of A (src/cpu/prolong.ts), the same bits
      const P: Resident = { rows: A.rows, cols: T.cols, nnz: 0, cc: 1, ptr: 0, idx: 0, val: 0, regions: [] };
      try {
        const chunks = this.chunksFor(A.nnz);
        Object.assign(P, prolongOnePerRow(this.backend, A, a, T.cols, t, sc.ptr, chunks, (bytes) => this.alloc(P, bytes)));
      } catch (e) {
        free(P);
        throw e;
      }
      return this.keep(P);
    } finally {
      sc.dispose();
    }
  }

  smoothedTentative(A: CSRMatrix, agg: Int32Array, count: number, b: Float64Array, dinv: Float64Array, w: number): { P: CSRMatrix; coarse: Float64Array } | undefined {
    const n = A.rows;
    if (A.cols !== n || agg.length !== n || b.length !== n || dinv.length !== n) throw new Error(`internal: smoothedTentative of a ${A.rows}×${A.cols} A, ${agg.length} nodes, ${b.length} and ${dinv.length} values`);
    if (n === 0 || count === 0) return undefined;
    const a = this.upload(A, 1);
    const backend = this.backend;
    const chunks = this.chunksFor(A.nnz);
    const ap = A.rowPtr;
    const bounds = chunks === 1 ? Int32Array.of(0, n) : balancedBounds(n, chunks, (i) => ap[i] + i, 1);
    // T where the product reads it: its row pointers, columns (agg) and values, never on the host
    const T: Resident = { rows: n, cols: count, nnz: n, cc: 1, ptr: 0, idx: 0, val: 0, regions: [] };
    const work: Region[] = [];
    const scratch = scratchIn(backend, work);
    try {
      const [nr, out] = [scratch(8 * count), scratch(16 * chunks)];
      const [tp, ti, tv] = [4 * (n + 1), 4 * n, 8 * n].map((bytes) => this.alloc(T, bytes));
      [T.ptr, T.idx, T.val] = [tp.ptr, ti.ptr, tv.ptr];
      // agg and b read where they are when the session handed them out (the fill writes T's columns
      // from agg), else copied in; the scale is overwritten (w·D⁻¹), so always a copy
      const ag = this.regionOf(agg) ?? this.filled(ti, agg);
      const bv = this.regionOf(b) ?? this.filled(scratch(8 * n), b);
      const sc = this.filled(scratch(8 * n), dinv);
      backend.prefault(nr);
      if (backend.kernel('amg_tentative_norms')(ag.ptr, bv.ptr, nr.ptr, n, count) > 0) return undefined;
      const coarse = nr.view('f64', count).slice();
      backend.runChunksSync('amg_tentative_fill', [ag.ptr, bv.ptr, nr.ptr, a.ptr, w, sc.ptr, tp.ptr, ti.ptr, tv.ptr, out.ptr], bounds, 9);
      const widest = out.view('i32', 4 * chunks).reduce((m, x, k) => (k % 4 === 0 ? Math.max(m, x) : m), 0);
      if (widest > WIDEST) return { P: this.keep(this.multiply(a, T, sc.ptr)), coarse };
      const P: Resident = { rows: n, cols: count, nnz: 0, cc: 1, ptr: 0, idx: 0, val: 0, regions: [] };
      try {
        Object.assign(P, prolongOnePerRow(backend, A, a, count, T, sc.ptr, chunks, (bytes) => this.alloc(P, bytes)));
      } catch (e) {
        free(P);
        throw e;
      }
      return { P: this.keep(P), coarse };
    } finally {
      for (const r of work) r.dispose();
      free(T);
    }
  }

  galerkin(R: CSRMatrix, A: CSRMatrix, P: CSRMatrix, limit?: GalerkinLimit): CSRMatrix {
    // a limit refuses, from each product's lower bound or its count before its entries are made, a level
    // whose products fill in (a hub's dense row of P; a graph with hubs, whose coarse levels become dense)
    const refusal = (what: string): Refusal | undefined =>
      limit && {
        entries: limit.entries,
        error: (least) => new UnsupportedError(`amg: level ${limit.level}'s Galerkin product ${what} (${A.rows} rows) would hold at least ${least} entries, more than ${limit.entries} (${limit.entries / limit.fine} times the fine level's entries and rows): its levels fill in where a row of A is coupled to most others (a hub); use 'jacobi', 'ic0' or 'chebyshev'`),
      };
    const AP = this.multiply(this.upload(A, 1), this.upload(P, 1), 0, false, undefined, refusal('A·P'));
    try {
      return this.keep(this.multiply(this.upload(R, 1), AP, 0, true, undefined, refusal('R·(A·P)')));
    } finally {
      free(AP);
    }
  }

  transpose(M: CSRMatrix): CSRMatrix {
    const m = this.upload(M, 1);
    const backend = this.backend;
    const chunks = this.chunksFor(M.nnz);
    const n = M.cols;
    const T: Resident = { rows: n, cols: M.rows, nnz: M.nnz, cc: 1, ptr: 0, idx: 0, val: 0, regions: [] };
    const work: Region[] = [];
    try {
      const slots = backend.heap.alloc(16 * chunks);
      work.push(slots);
      const counts: Region[] = [];
      for (let c = 0; c < chunks; c++) {
        const r = backend.heap.alloc(4 * n || 4);
        work.push(r);
        counts.push(r);
      }
      const tp = this.alloc(T, 4 * (n + 1));
      const ti = this.alloc(T, 4 * M.nnz);
      const tv = this.alloc(T, 8 * M.nnz);
      const slotView = slots.view('i32');
      for (let c = 0; c < chunks; c++) slotView[4 * c] = counts[c].ptr;
      const mp = M.rowPtr;
      const bounds = chunks === 1 ? Int32Array.of(0, M.rows) : balancedBounds(M.rows, chunks, (i) => mp[i] + i);
      backend.runChunksSync('spgemm_transpose_count', [m.ptr, m.idx, n, slots.ptr], bounds, 3);
      // each chunk's first position in each column; the transpose's row pointers
      if (!backend.poolScans?.transposeStarts(backend, slots.ptr, chunks, n, tp.ptr, M.nnz)) backend.kernel('spgemm_transpose_offsets')(slots.ptr, chunks, n, tp.ptr);
      backend.runChunksSync('spgemm_transpose_fill', [m.ptr, m.idx, m.val, slots.ptr, ti.ptr, tv.ptr], bounds, 3);
      [T.ptr, T.idx, T.val] = [tp.ptr, ti.ptr, tv.ptr];
    } catch (e) {
      free(T);
      throw e;
    } finally {
      for (const r of work) r.dispose();
    }
    return this.keep(T);
  }

  lanczosBounds(A: CSRMatrix, dinv: Float64Array, steps: number): { min: number; max: number } {
    const M = this.upload(A, 1);
    const B = this.backend;
    const n = A.rows;
    const ap = A.rowPtr;
    const chunks = this.chunksFor(A.nnz);
    // claimed chunks of whole groups: the kernels' partial sums are per group of rows, added here in order
    const bounds = chunks === 1 ? Int32Array.of(0, n) : balancedBounds(n, claimedParts(chunks), (i) => ap[i] + i, LANCZOS_GROUP);
    const groups = Math.ceil(n / LANCZOS_GROUP);
    // s = D^-1/2, x, y, u = S·x (lanczos_apply's vectors) and a partial sum per group
    const regions = [0, 1, 2, 3].map(() => B.heap.alloc(8 * n));
    const out = B.heap.alloc(8 * groups || 8);
    try {
      // the start vector by a kernel, then s = √D⁻¹, u and y = 0 on the pool (JavaScript loops over a
      // large level's rows took tens of ms of the setup's one thread)
      this.filled(regions[0], dinv);
      // the start's pages faulted in on the pool, not one by one on this thread
      B.prefault(regions[1]);
      const c0 = 1 / Math.sqrt(B.kernel('lanczos_start')(regions[1].ptr, n));
      const u = regions[3].ptr;
      B.runClaimedSync('lanczos_scale', [regions[0].ptr, regions[1].ptr, u, regions[2].ptr], bounds);
      const partials = out.view('f64', groups);
      const sum = (): number => {
        let r = 0;
        for (let g = 0; g < groups; g++) r += partials[g];
        return r;
      };
      // the current vector is c·(x's region), the previous one cPrev·(y's region); y becomes the next
      let [xr, yr] = [regions[1].ptr, regions[2].ptr];
      let c = c0;
      let bp = 0;
      const alpha: number[] = [];
      const beta: number[] = [];
      for (let j = 0; j < Math.min(steps, n); j++) {
        B.runClaimedSync('lanczos_apply', [M.ptr, M.idx, M.val, regions[0].ptr, xr, u, yr, c, bp, out.ptr], bounds);
        const a = sum();
        B.runClaimedSync('lanczos_orth', [xr, yr, regions[0].ptr, u, a * c, out.ptr], bounds);
        const b = Math.sqrt(sum());
        alpha.push(a);
        if (!(b > 1e-12 * Math.abs(a))) break;
        beta.push(b);
        bp = b * c;
        c = 1 / b;
        [xr, yr] = [yr, xr];
      }
      return { min: tridiagonalEigen(alpha, beta, 'min'), max: tridiagonalEigen(alpha, beta, 'max') };
    } finally {
      for (const r of [...regions, out]) r.dispose();
    }
  }

  /** A's copy here (row pointers, columns, values: f64), made once per session */
  resident(A: CSRMatrix): number[] {
    const M = this.upload(A, 1);
    return [M.ptr, M.idx, M.val];
  }

  diagonal(A: CSRMatrix): { dinv: Float64Array; positive: boolean } {
    const M = this.upload(A, 1);
    const B = this.backend;
    const n = A.rows;
    const ap = A.rowPtr;
    const chunks = this.chunksFor(A.nnz);
    const bounds = chunks === 1 ? Int32Array.of(0, n) : balancedBounds(n, chunks, (i) => ap[i] + i);
    M.sd ??= B.heap.alloc(8 * n || 8);
    const dr = B.heap.alloc(8 * n || 8);
    // kept with the products (retain) where views of the memory stay valid, D⁻¹ is a view of its region:
    // the fine level's 16 MB copy into fresh pages cost ≈ 11 ms of the H100 host's setup, and the WebGPU
    // cycle's D⁻¹ operator takes the view as it is (src/solvers/amg/cycle.ts diagonal)
    const keep = this.keepsViews;
    if (keep) this.held!.push({ regions: [dr] });
    const out = B.heap.alloc(16 * chunks);
    try {
      B.runChunksSync('amg_diagonal', [M.ptr, M.idx, M.val, dr.ptr, M.sd.ptr, out.ptr], bounds, 5);
      const bad = out.view('i32', 4 * chunks).reduce((s, x, k) => (k % 4 === 0 ? s + x : s), 0);
      const dinv = dr.view('f64', n);
      if (keep) this.vectors.set(dinv, { region: dr, own: false });
      return { dinv: keep ? dinv : dinv.slice(), positive: n > 0 && bad === 0 };
    } finally {
      if (!keep) dr.dispose();
      out.dispose();
    }
  }

  aggregate(A: CSRMatrix, theta: number, blocks = amgBlocks(A.rows)): { agg: Int32Array; count: number } {
    const M = this.upload(A, 1);
    if (!M.sd) this.diagonal(A);
    const B = this.backend;
    const n = A.rows;
    const nb = blocks.length - 1;
    // passes 1 and 3: blocks over the threads (some chunks empty where there are fewer blocks), one
    // block on this thread; pass 2: claimed chunks of rows split by their entries
    const chunks = nb === 1 ? 1 : B.threads;
    const byBlock = evenBounds(nb, chunks);
    const ap = A.rowPtr;
    const byRow = A.nnz < SPGEMM_POOL_FLOOR ? Int32Array.of(0, n) : balancedBounds(n, claimedParts(B.threads), (i) => ap[i] + i);
    const ag = B.heap.alloc(4 * n || 4);
    const bb = B.heap.alloc(4 * (nb + 1));
    const counts = B.heap.alloc(8 * nb);
    let kept = false;
    try {
      bb.view('i32', nb + 1).set(blocks);
      const args = [M.ptr, M.idx, M.val, M.sd!.ptr, theta, ag.ptr];
      const c = counts.view('i32', 2 * nb);
      // each block's first aggregate number, after `count` others, into the second half of counts
      let count = 0;
      const bases = () => {
        for (let b = 0; b < nb; b++) {
          c[nb + b] = count;
          count += c[b];
        }
        return counts.ptr + 4 * nb;
      };
      B.runChunksSync('amg_aggregate_roots', [...args, bb.ptr, counts.ptr], byBlock);
      const offsets = bases();
      if (nb > 1) B.runChunksSync('amg_aggregate_offset', [ag.ptr, bb.ptr, offsets], byBlock);
      B.runClaimedSync('amg_aggregate_join', args, byRow);
      B.runChunksSync('amg_aggregate_rest', [...args, bb.ptr, counts.ptr], byBlock);
      B.runChunksSync('amg_aggregate_final', [ag.ptr, bb.ptr, bases()], byBlock);
      // a view of its region where views stay valid (the tentative prolongator reads it there), else a copy
      if (!B.heap.shared) return { agg: ag.view('i32', n).slice(), count };
      const agg = ag.view('i32', n);
      this.vectors.set(agg, { region: ag, own: true });
      kept = true;
      return { agg, count };
    } finally {
      for (const r of [bb, counts]) r.dispose();
      if (!kept) ag.dispose();
    }
  }

  gaussSeidelOnZero(A: CSRMatrix, x: Float64Array, sweeps: number, blocks = amgBlocks(A.rows)): void {
    // on A's resident copy (the Lanczos steps read it next); sequential within a block, the blocks over
    // the threads, each half-sweep after a copy of x (assembly/candidates.ts). Not claimed: a claimed
    // chunk per block measured slower, 31 → 34 ms of poisson3D(128)'s setup on 16 threads (its 16 blocks
    // moving between threads from sweep to sweep; bench/device/results-2026-11-28-twelfth/pooldyn)
    const M = this.upload(A, 1);
    const B = this.backend;
    const n = A.rows;
    const nb = blocks.length - 1;
    const chunks = nb === 1 ? 1 : B.threads;
    const byBlock = evenBounds(nb, chunks);
    // x in place where the session handed it out (ones()), else a copy in and back
    const here = this.regionOf(x);
    const regions = [here ? 0 : 8 * n, 8 * n, 4 * (nb + 1)].map((bytes) => B.heap.alloc(bytes || 8));
    try {
      const [, xo, bb] = regions;
      const xr = here ?? this.filled(regions[0], x);
      bb.view('i32', nb + 1).set(blocks);
      for (let s = 0; s < 2 * sweeps; s++) {
        if (nb > 1) B.runChunksSync('amg_copy_blocks', [xr.ptr, xo.ptr, bb.ptr], byBlock);
        B.runChunksSync('gauss_seidel_zero_blocks', [M.ptr, M.idx, M.val, xr.ptr, xo.ptr, bb.ptr, s % 2 === 0 ? 1 : 0], byBlock);
      }
      if (!here) x.set(xr.view('f64', n));
    } finally {
      for (const r of regions) r.dispose();
    }
  }

  release(M: CSRMatrix | Float64Array | Int32Array): void {
    if (!(M instanceof CSRMatrix)) {
      const v = this.vectors.get(M);
      if (v?.own) v.region.dispose();
      this.vectors.delete(M);
      return;
    }
    const r = this.uploads.get(M);
    if (r) drop(r);
    this.uploads.delete(M);
  }

  dispose(): void {
    for (const r of this.uploads.values()) drop(r);
    this.uploads.clear();
    for (const v of [...this.vectors.keys()]) this.release(v);
  }

  ones(n: number): Float64Array {
    const B = this.backend;
    if (!B.heap.shared) return new Float64Array(n).fill(1);
    const r = B.heap.alloc(8 * n || 8);
    B.prefault(r);
    const v = r.view('f64', n).fill(1);
    this.vectors.set(v, { region: r, own: true });
    return v;
  }

  /** The region holding v, where the session handed v out as a view of it. */
  private regionOf(v: Float64Array | Int32Array): Region | undefined {
    const r = this.vectors.get(v)?.region;
    return r && !r.isDisposed ? r : undefined;
  }

  /**
   * Region r (fresh, at least v's bytes) with v's contents, returned: copied on the pool from the region
   * holding v where the session handed it out, else faulted in on the pool and copied from the host here.
   */
  private filled(r: Region, v: Float64Array | Int32Array): Region {
    const B = this.backend;
    const n = v.length;
    const from = this.regionOf(v);
    if (from) {
      const chunks = this.chunksFor(n);
      B.runChunksSync(v instanceof Float64Array ? 'copy_f64' : 'copy_f32', [from.ptr, r.ptr], evenBounds(n, chunks));
      return r;
    }
    B.prefault(r);
    if (v instanceof Float64Array) r.view('f64', n).set(v);
    else r.view('i32', n).set(v);
    return r;
  }

  retain(): () => void {
    const held: Held[] = (this.held = []);
    return () => {
      for (const r of held.splice(0)) free(r);
    };
  }

  /**
   * A product made here as a host CSRMatrix, which stays resident as that matrix's copy: after
   * retain(), where the memory is shared (a growth detaches no view), the matrix is views of the
   * product's regions, which outlive the session; else a copy.
   */
  private keep(C: Resident): CSRMatrix {
    try {
      const views = this.keepsViews;
      // its longest row by a pass here: a WebGPU upload's kernel choice reads it (formats/csr.ts)
      C.longest = longestRow(this.backend, C.ptr, C.rows);
      const M = markLongestRow(hostCopy(C, 'f64', views), C.longest);
      if (views) {
        C.held = true;
        this.held!.push(C);
      }
      this.uploads.set(M, C);
      return M;
    } catch (e) {
      free(C);
      throw e;
    }
  }

  /** M in the WebAssembly memory with cc components (once per session and width). */
  private upload(M: CSRMatrix, cc: number): Resident {
    const had = this.uploads.get(M);
    if (had?.cc === cc) return had;
    if (had) this.release(M);
    const r: Resident = { rows: M.rows, cols: M.cols, nnz: M.nnz, cc, ptr: 0, idx: 0, val: 0, regions: [] };
    try {
      const ptr = this.alloc(r, 4 * (M.rows + 1));
      const idx = this.alloc(r, 4 * M.nnz);
      const val = this.alloc(r, 8 * cc * M.nnz);
      [r.ptr, r.idx, r.val] = [ptr.ptr, idx.ptr, val.ptr];
      // the values copied as words where they are f64 of the width asked, else converted below
      const words = M.values instanceof Float64Array && components(M.dtype) === cc;
      const items: CopyIn[] = [
        { src: M.rowPtr.subarray(0, M.rows + 1), to: ptr.ptr },
        { src: M.colIdx.subarray(0, M.nnz), to: idx.ptr },
        ...(words ? [{ src: (M.values as Float64Array).subarray(0, cc * M.nnz), to: val.ptr }] : []),
      ];
      // the fine level's copy (≈ 175 MB for poisson3D(128)): by the pool's threads from an upload's private
      // copy on SharedArrayBuffers (formats/owned.ts), else here, its fresh pages faulted in on the pool first
      const pool = this.backend.workerPool;
      const shared = typeof SharedArrayBuffer === 'function' ? items.filter((i) => i.src.buffer instanceof SharedArrayBuffer) : [];
      const pooled = shared.length > 0 && !!pool && copyInOnPool(pool, shared);
      const memory = this.backend.heap.memory;
      for (const [k, region] of [ptr, idx, val].entries()) {
        const item = items[k];
        if (pooled && shared.includes(item)) continue;
        this.backend.prefault(region);
        if (item) copyWords(memory.buffer, [item.src], [item.to], 0, item.src.byteLength >> 2);
      }
      if (!words) {
        const v = val.view('f64', cc * M.nnz);
        const src = M.values;
        if (components(M.dtype) === cc) v.set(src.subarray(0, cc * M.nnz));
        else {
          // a real operand of a complex product: imaginary parts 0 (the region may hold old bytes)
          for (let k = 0; k < M.nnz; k++) {
            v[2 * k] = src[k];
            v[2 * k + 1] = 0;
          }
        }
      }
    } catch (e) {
      free(r);
      throw e;
    }
    this.uploads.set(M, r);
    return r;
  }

  private alloc(r: Resident, bytes: number): Region {
    const region = this.backend.heap.alloc(bytes);
    r.regions.push(region);
    return region;
  }

  /**
   * A·B in the WebAssembly memory (the caller frees it); with `scale` (an f64 per row of a square A)
   * B + diag(scale)·A·B; `ordered` false leaves each row's columns unsorted (f64: an intermediate that
   * only another product reads).
   */
  private multiply(A: Resident, B: Resident, scale = 0, ordered = true, numeric?: (pass: NumericPass) => void, refusal?: Refusal): Resident {
    const backend = this.backend;
    const [m, n, cc] = [A.rows, B.cols, A.cc];
    const chunks = this.chunksFor(A.nnz);
    const C: Resident = { rows: m, cols: n, nnz: 0, cc, ptr: 0, idx: 0, val: 0, regions: [] };
    const work: Region[] = [];
    const scratch = scratchIn(backend, work);
    try {
      refuseUnfit(A, B, backend, refusal);
      const wsBytes = backend.kernel('spgemm_workspace')(n, cc);
      const slots = scratch(16 * chunks);
      const slotView = slots.view('i32');
      for (let c = 0; c < chunks; c++) slotView[4 * c] = scratch(wsBytes).ptr;
      const fl = scratch(8 * (m + 1));
      const cp = this.alloc(C, 4 * (m + 1));
      // the symbolic pass's rows split by A's entries (a view made after the last allocation before it),
      // both passes in claimed chunks (a workspace per thread, in `slots`: threadArg)
      const ap = new Int32Array(backend.heap.memory.buffer, A.ptr, m + 1);
      const parts = claimedParts(chunks);
      const split = (prefix: (i: number) => number) => (parts === 1 ? Int32Array.of(0, m) : balancedBounds(m, parts, prefix, 1));
      const countBounds = split((i) => ap[i] + i);
      // spgemm_shifts' flags (a row is the one before shifted by a column) of A's rows and B's (one
      // array where A is B): the passes take a stencil's row from the row before (not with a scale: addB)
      const sa = scale ? 0 : scratch(m || 1).ptr;
      const sb = B === A || !sa ? sa : scratch(B.rows || 1).ptr;
      if (sa) backend.runClaimedSync('spgemm_shifts', [A.ptr, A.idx, sa, B.ptr, B.idx, sb, m, B.rows], countBounds);
      backend.runClaimedSync('spgemm_count', [A.ptr, A.idx, B.ptr, B.idx, n, scale ? 1 : 0, slots.ptr, cp.ptr, fl.ptr, sa, sb], countBounds, undefined, 6);
      // row pointers from the counts, and the multiply-adds before each row (in place, by kernels)
      const nnz = rowPointers(backend, cp.ptr, m, fl.ptr);
      if (nnz > 0x7fffffff) throw new MemoryLimitError(nnz * (4 + 8 * cc), `spgemm: the ${m}×${n} product has ${nnz} entries, more than 32-bit row pointers index`);
      if (refusal && nnz > refusal.entries) throw refusal.error(nnz);
      const before = fl.view('f64', m + 1);
      const bounds = split((i) => before[i] + i);
      const ci = this.alloc(C, 4 * nnz);
      const cv = this.alloc(C, 8 * cc * nnz);
      const c2 = cc === 2;
      const pass: NumericPass = { kernel: c2 ? 'spgemm_c128' : 'spgemm_f64', args: [A.ptr, A.idx, A.val, B.ptr, B.idx, B.val, n, ...(c2 ? [0] : [scale, ordered ? 1 : 0, 0]), slots.ptr, cp.ptr, ci.ptr, cv.ptr, ...(c2 ? [] : [sa, sb])], chunkArg: c2 ? 8 : 10, bounds, before: fl, nnz };
      if (numeric) numeric(pass);
      else backend.runClaimedSync(pass.kernel, pass.args, bounds, undefined, pass.chunkArg);
      [C.nnz, C.ptr, C.idx, C.val] = [nnz, cp.ptr, ci.ptr, cv.ptr];
      return C;
    } catch (e) {
      free(C);
      throw e;
    } finally {
      for (const r of work) r.dispose();
    }
  }
}

/**
 * The numeric pass of a two-pass product (the product's arrays allocated at its `nnz` entries): the
 * kernel over `bounds` with `args`, argument `chunkArg` (the chunks' workspaces) offset by 16·c bytes for
 * chunk c, as runChunksSync does; `before` holds the multiply-adds before each row (m + 1 f64).
 */
export interface NumericPass {
  kernel: string;
  args: number[];
  chunkArg: number;
  bounds: Int32Array;
  before: Region;
  nnz: number;
}

/**
 * A resident product as a host CSRMatrix of `dtype`, its size checked against the memory budget in
 * scope; `views` (f64, c128): over C's regions instead, nothing copied or reserved; `out` (the
 * product's shape and dtype): copied into its arrays, if it has the product's entries.
 */
function hostCopy(C: Resident, dtype: DType, views = false, out?: CSRMatrix): CSRMatrix {
  const [cp, ci, cv] = C.regions;
  if (views) return new CSRMatrix(C.rows, C.cols, dtype, cp.view('i32', C.rows + 1), ci.view('i32', C.nnz), cv.view('f64', C.cc * C.nnz));
  if (out) {
    checkEntries(out, C.nnz);
    out.rowPtr.set(cp.view('i32', C.rows + 1));
    out.colIdx.set(ci.view('i32', C.nnz));
    out.values.set(cv.view('f64', C.cc * C.nnz));
    return out;
  }
  const single = dtype === 'f32' || dtype === 'c64';
  reserveMemory(4 * (C.rows + 1) + C.nnz * 4 + C.nnz * C.cc * (single ? 4 : 8), `spgemm: ${C.nnz} entries of the ${C.rows}×${C.cols} product`);
  const values = cv.view('f64', C.cc * C.nnz);
  return new CSRMatrix(C.rows, C.cols, dtype, cp.view('i32', C.rows + 1).slice(), ci.view('i32', C.nnz).slice(), single ? Float32Array.from(values) : values.slice());
}

/** rt.spgemm's `out` must have the product's entries (its shape and dtype are checked before the product). */
function checkEntries(out: CSRMatrix, nnz: number): void {
  if (out.nnz !== nnz) throw new ShapeError(`spgemm: the product has ${nnz} entries and out has ${out.nnz}; out must have the product's entries`);
}

/** The most entries a product may hold for its caller, and the caller's error past them (with the entries found, or at least found). */
interface Refusal {
  entries: number;
  error: (entries: number) => Error;
}

/** What retain() keeps and its release frees: a product's regions (and √|aᵢᵢ|), or one region alone. */
type Held = Pick<Resident, 'regions' | 'sd'>;

/** Allocates regions of the heap, each listed in `work` (the caller frees them together). */
function scratchIn(backend: CpuBackend, work: Region[]): (bytes: number) => Region {
  return (bytes) => {
    const r = backend.heap.alloc(bytes);
    work.push(r);
    return r;
  };
}

export function free(r: Held): void {
  for (const region of r.regions) region.dispose();
  r.regions.length = 0;
  r.sd?.dispose();
  r.sd = undefined;
}

/** Frees r's regions, or only its √|aᵢᵢ| when it is a product kept past the session. */
function drop(r: Resident): void {
  if (!r.held) return free(r);
  r.sd?.dispose();
  r.sd = undefined;
}

/**
 * Refuses, before the count pass, a product that cannot fit: each row of A·B holds at least the longest
 * row of B that its row of A reaches, so their sum bounds C's entries from below (one pass over A's
 * columns, made only where nnz(A) × B's longest row, an upper bound, could be too many). An outer product
 * of two 7·10⁴ vectors counted its 4.9·10⁹ entries for 3–11 s before the row pointers refused it.
 * `refusal`: fewer entries the caller accepts, and its error past them (an AMG level's products).
 */
function refuseUnfit(A: Resident, B: Resident, backend: CpuBackend, refusal?: Refusal): void {
  const maxBytes = backend.heap.maxPages * 65536;
  const bytesEach = 4 + 8 * A.cc;
  const limit = Math.min(0x7fffffff, maxBytes / bytesEach, refusal?.entries ?? Infinity);
  // B's width bounds its longest row: most products (an AMG setup's coarse levels) need no pass at all
  if (A.nnz * B.cols <= limit || A.nnz * (B.longest ??= longestRow(backend, B.ptr, B.rows)) <= limit) return;
  const least = backend.kernel('spgemm_least')(A.ptr, A.idx, B.ptr, A.rows);
  if (refusal && least > refusal.entries) throw refusal.error(least);
  if (least > limit) {
    throw new MemoryLimitError(least * bytesEach, `spgemm: the ${A.rows}×${B.cols} product has at least ${least} entries (${Math.ceil((least * bytesEach) / 1048576)} MiB), more than ${least > 0x7fffffff ? '32-bit row pointers index' : `the WebAssembly memory's limit of ${Math.floor(maxBytes / 1048576)} MiB holds`}`);
  }
}
