import { isComplex } from '../dtype.js';
import { isPrivateCanonical, type CSRMatrix } from '../formats/csr.js';
import type { SpmvScalars } from '../backend-types.js';
import type { SparseMatrix } from '../formats/index.js';
import type { WasmHeap, Region } from './memory.js';
import { CpuMatrix } from './resident.js';
import { compactValues, type DIAMatrix } from '../formats/dia.js';
import { pointerPrefix, uniformPrefix } from './partition.js';
import { lowerBound } from '../formats/sort.js';
import { cacheTiles, cacheTilesFor, type CacheTilesOption } from './tiles.js';
import { chooseCsrLayout, countUniform, writeGroupedLayout } from './csr-layout.js';

/**
 * One kernel call over a range [start, end) of output rows (the kernels' last two arguments), with
 * the cost prefix the pool partitions it by. `entries`, when set, maps row bounds to entry bounds
 * (HYB's row-sorted COO remainder): chunks then never split a row, so no two threads add into one y.
 */
export interface KernelStep {
  kernel: string;
  args: number[];
  start: number;
  end: number;
  prefix: (i: number) => number;
  entries?: Int32Array;
  /** chunk boundaries are multiples of this (default 4: the row groups of the grouped kernels) */
  align?: number;
}

/**
 * Copies a host matrix's arrays into the heap (`threads`: the pool's, for the cache tiles' band height;
 * `tiles`: createRuntime's cacheTiles).
 */
export function uploadMatrix(heap: WasmHeap, A: SparseMatrix, threads = 1, tiles: CacheTilesOption = 'auto', compactDia = true): CpuMatrix {
  const regions: Record<string, Region> = {};
  const params: Record<string, number> = {};
  // each region is recorded as soon as it exists, so a failure part-way frees every one before it
  const put = (arrays: Record<string, Uint8Array | Int16Array | Int32Array | Float32Array | Float64Array>): void => {
    for (const [name, a] of Object.entries(arrays)) regions[name] = heap.allocCopy(a);
  };
  // CSR/CSC (CSC's columns are the rows of its gather): the grouped layout where it pays (csr-layout.ts),
  // else as they are, with the rows' regularity for the choice of the 4-row or row-by-row kernel
  // `sorted`: a canonical CSR the library holds (its rows ascending; a user's may not be)
  const putRows = (ptr: Int32Array, idx: Int32Array, val: Float32Array | Float64Array, sorted = false): void => {
    const { kind, groups } = chooseCsrLayout(A.dtype, ptr, idx, sorted);
    // the grouped layout's index width in bits (params hold numbers only): 16 → csr16_*, 32 → csrg_*, 0 → none
    params.grouped = kind === 'csr16' ? 16 : kind === 'csrg' ? 32 : 0;
    params.rowwise = irregularRows(ptr) ? 1 : 0;
    if (kind === 'plain') return put({ ptr, idx, val });
    put({ ptr, grp: groups });
    // written straight into the heap; both regions exist before any view (a growth detaches older views)
    regions.idx = heap.alloc(idx.length * (kind === 'csr16' ? 2 : 4));
    regions.val = heap.alloc(val.byteLength);
    const valKind = val instanceof Float32Array ? 'f32' : 'f64';
    writeGroupedLayout(ptr, idx, val, groups, regions.idx.view(kind === 'csr16' ? 'i16' : 'i32', idx.length), regions.val.view(valKind, val.length));
    params.uniform = countUniform(groups);
  };
  try {
    switch (A.format) {
      case 'coo':
        put({ row: A.rowIdx, col: A.colIdx, val: A.values });
        break;
      case 'csr': {
        const shape = cacheTilesFor(A, tiles, threads);
        if (shape) {
          const T = cacheTiles(A, shape);
          put({ bandPtr: T.bandPtr, tilePtr: T.tilePtr, tileCol: T.tileCol, rc: T.rc, val: T.values });
          // one accumulator per row: bands are disjoint, so threads never share one
          regions.work = heap.alloc(A.rows * A.values.BYTES_PER_ELEMENT);
          // touchX −1: whether each tile reads its x slice first is measured on the first products (nextTouchX)
          Object.assign(params, { tiled: 1, R: T.R, W: T.W, bands: T.bands, touchX: -1 });
          break;
        }
        putRows(A.rowPtr, A.colIdx, A.values, isPrivateCanonical(A));
        break;
      }
      case 'csc':
        putRows(A.colPtr, A.rowIdx, A.values);
        break;
      case 'mrs':
        put({ index: A.index, val: A.values });
        params.ndiag = Math.min(A.rows, A.cols);
        break;
      case 'dia':
        Object.assign(params, { ndiag: A.offsets.length, pitch: A.pitch });
        put({ offsets: A.offsets });
        // f64 values that are all exactly f32 (stencils, graph Laplacians, small integers) are kept as
        // f32 and widened on load by the kernels (…_f64f32): the same bits from half the matrix's
        // bytes. Else (or `compactDia` false: tests) as they are
        if (compactDia && compactValues(A)) {
          regions.data = heap.alloc(4 * A.data.length);
          const to = regions.data.view('f32', A.data.length);
          // a square one's 4-row groups of constant coefficients flagged in the same pass, for the CG
          // product kernels (its region allocated after `to`'s last use: a growth detaches views)
          const u = A.rows === A.cols ? compactUniform(A, to) : (to.set(A.data), null);
          params.compact = 1;
          if (u) {
            put({ uni: u.flags, consts: u.consts });
            params.uniform = 1;
          }
        } else put({ data: A.data });
        break;
      case 'ell':
        put({ idx: A.colIdx, val: A.values });
        Object.assign(params, { width: A.width, stride: A.stride });
        break;
      case 'jds':
        put({ perm: A.perm, jdPtr: A.jdPtr, idx: A.colIdx, val: A.values });
        // per-position accumulators of the jagged-diagonal kernel, one element per row
        regions.work = heap.alloc(A.rows * A.values.BYTES_PER_ELEMENT * (isComplex(A.dtype) ? 2 : 1));
        params.njd = A.jdPtr.length - 1;
        break;
      case 'sell':
        put({ slicePtr: A.slicePtr, perm: A.perm, idx: A.colIdx, val: A.values });
        // σ = 1 leaves rows in place: the kernel then writes y without going through perm
        Object.assign(params, { C: A.sliceHeight, ident: A.sortWindow === 1 ? 1 : 0, slices: A.slices });
        break;
      case 'hyb':
        put({ idx: A.ell.colIdx, val: A.ell.values, cooRow: A.coo.rowIdx, cooCol: A.coo.colIdx, cooVal: A.coo.values });
        Object.assign(params, { width: A.ell.width, stride: A.ell.stride, cooNnz: A.coo.nnz });
        break;
      case 'dense':
        put({ val: A.values });
        break;
    }
  } catch (e) {
    // a failed upload (memory limit) must not leak the regions already copied
    for (const r of Object.values(regions)) r.dispose();
    throw e;
  }
  return new CpuMatrix(A, regions, params);
}

/**
 * Copies a square f64 DIA matrix's values (all exactly f32) into `to` as f32 and finds the 4-row groups
 * in which every diagonal d holds one value, consts[d] (each diagonal's most frequent value among 64
 * rows spread over it), in each of the 4 rows — ±0 told apart, as the slots' own products would: a
 * constant-coefficient stencil's interior, whose rows the CG product kernels over compact storage
 * (…_f64f32u) read from consts instead of the slots, the same values. `flags`: a byte per group (1:
 * uniform) and two more (the kernels read a block's two groups at once); null where at most half the
 * groups are (nothing to gain over the slots). One pass: the copy's loop compares as it goes.
 */
export function compactUniform(A: DIAMatrix, to: Float32Array): { flags: Uint8Array; consts: Float64Array } | null {
  const { rows: n, offsets, pitch } = A;
  const data = A.data as Float64Array;
  const nd = offsets.length;
  const consts = uniformConsts(A);
  const groups = n >> 2;
  const flags = new Uint8Array(groups + 2);
  flags.fill(1, 0, groups);
  for (let d = 0, at = 0; d < nd; d++, at += pitch) {
    const c = consts[d];
    const rows = at + 4 * groups;
    if (c === 0) {
      for (let k = at; k < rows; k++) {
        const v = data[k];
        to[k] = v;
        if (!Object.is(v, c)) flags[(k - at) >> 2] = 0;
      }
    } else {
      for (let k = at; k < rows; k++) {
        const v = data[k];
        to[k] = v;
        if (v !== c) flags[(k - at) >> 2] = 0;
      }
    }
    for (let k = rows; k < at + pitch; k++) to[k] = data[k];
  }
  let uniform = 0;
  for (let g = 0; g < groups; g++) uniform += flags[g];
  return uniform > groups / 2 ? { flags, consts } : null;
}

/** Each diagonal's most frequent value among 64 rows spread over it: compactUniform's consts (and src/cpu/refine.ts wideView's). */
export function uniformConsts(A: DIAMatrix): Float64Array {
  const { rows: n, offsets, pitch, data } = A;
  const nd = offsets.length;
  const consts = new Float64Array(nd);
  for (let d = 0; d < nd; d++) {
    const lo = Math.max(0, -offsets[d]);
    const hi = Math.min(n, A.cols - offsets[d]);
    const counts = new Map<number, number>();
    let best = 0;
    for (let k = 0; k < 64 && hi > lo; k++) {
      const v = data[d * pitch + lo + Math.floor(((hi - lo - 1) * k) / 63)] as number;
      const c = (counts.get(v) ?? 0) + 1;
      counts.set(v, c);
      if (c > best) (best = c), (consts[d] = v);
    }
  }
  return consts;
}

/** A CSR matrix whose arrays are already in the heap (`ptr`, `idx`, `val`: rt.spgemm's resident product; `host` over them), laid out as they are. */
export function residentCsr(host: CSRMatrix, [ptr, idx, val]: Region[]): CpuMatrix {
  return new CpuMatrix(host, { ptr, idx, val }, { grouped: 0, rowwise: irregularRows(host.rowPtr) ? 1 : 0 });
}

/**
 * Whether a CSR (or CSC) pointer array's rows are irregular enough for the row-by-row kernels
 * (csr_rows_*): fewer than half of the aligned 4-row groups have 4 equal lengths — the groups the
 * grouped kernels (csr_*) sum interleaved. Both give the same bits; only the speed differs.
 */
function irregularRows(ptr: Int32Array): boolean {
  const groups = (ptr.length - 1) >> 2;
  let equal = 0;
  for (let g = 0; g < groups; g++) {
    const i = 4 * g;
    const L = ptr[i + 1] - ptr[i];
    if (ptr[i + 2] - ptr[i + 1] === L && ptr[i + 3] - ptr[i + 2] === L && ptr[i + 4] - ptr[i + 3] === L) equal++;
  }
  return 2 * equal < groups;
}

/**
 * Which uploaded matrix computes op(A) by gathering rows: the matrix itself, or a CSR derived from
 * it once and cached with it. Products whose natural loop scatters (CSC and COO with op = N, CSR and
 * COO with op = T/H) and the transposed products of the other formats become a gather over CSR of A
 * or of Aᵀ, computed once — output-partitioned, so threads never write the same y and the result is
 * bitwise the same for any number of workers.
 */
export function gatherForm(M: CpuMatrix, op: SpmvScalars['op'], upload: (A: SparseMatrix) => CpuMatrix): CpuMatrix {
  if (op === 'N') {
    if (M.format !== 'csc' && M.format !== 'coo') return M;
    return M.derive('csr', () => upload(M.host.toCSR()));
  }
  if (M.format === 'csc') return M;
  return M.derive('csrT', () => upload(M.host.toCSR().transpose()));
}

/** Cost prefix of JDS positions: position p holds one entry per jagged diagonal longer than p. */
function jdsPrefix(jdPtr: Int32Array): (p: number) => number {
  return (p) => {
    let s = p;
    for (let k = 0; k + 1 < jdPtr.length; k++) {
      const len = jdPtr[k + 1] - jdPtr[k];
      if (len === 0) break;
      s += Math.min(p, len);
    }
    return s;
  };
}

/**
 * The kernel calls computing y = α·op(A)·x + β·y for a matrix in gather form (see gatherForm), with x
 * and y given as pointers. Every step is a gather over output rows that applies β itself, except HYB's
 * remainder, which adds into rows the ELL step has already finished. touchX is the tiles kernel's
 * (src/cpu/tiles.ts nextTouchX).
 */
export function spmvSteps(M: CpuMatrix, x: number, y: number, s: SpmvScalars, touchX: number): KernelStep[] {
  const dt = M.dtype;
  const cplx = isComplex(dt);
  const conj = s.op === 'H' ? 1 : 0;
  const [ar, ai] = s.alpha;
  const [br, bi] = s.beta;
  // argument tails in the kernels' order: α[, αi], β[, βi][, conj] — without β for the COO add
  const ab = cplx ? [ar, ai, br, bi, conj] : [ar, br];
  const a = cplx ? [ar, ai, conj] : [ar];
  const p = (name: string): number => M.ptr(name);
  const H = M.host;
  // a gather form's output rows are its rows — CSC's are its columns (it only serves op = T/H)
  const outRows = H.format === 'csc' ? M.cols : M.rows;
  const step = (kernel: string, args: number[], prefix: (i: number) => number, entries?: Int32Array): KernelStep => ({
    kernel,
    args,
    start: 0,
    end: outRows,
    prefix,
    entries,
  });
  switch (H.format) {
    case 'csr':
    case 'csc': {
      if (H.format === 'csr' && M.params.tiled) {
        const { R, W, bands } = M.params;
        const rowPtr = H.rowPtr;
        // touchX 1: each tile reads its slice of x in order first (assembly/spmv_tiles.ts)
        const args = [p('bandPtr'), p('tilePtr'), p('tileCol'), p('rc'), p('val'), x, y, p('work'), R, W, M.rows, M.cols, touchX, ...ab];
        // bands balanced by their entries plus rows; any boundary will do (bands never share a row)
        const before = (b: number) => Math.min(b * R, M.rows);
        return [{ ...step(`tiles_${dt}`, args, (b) => rowPtr[before(b)] + before(b)), end: bands, align: 1 }];
      }
      // CSC's column pointers are the row pointers of Aᵀ (it only serves op = T/H)
      const prefix = pointerPrefix(H.format === 'csr' ? H.rowPtr : H.colPtr);
      if (M.params.grouped) {
        const kernel = M.params.grouped === 16 ? 'csr16' : 'csrg';
        return [step(`${kernel}_${dt}`, [p('ptr'), p('idx'), p('val'), p('grp'), x, y, ...ab], prefix)];
      }
      const csr = M.params.rowwise && !cplx ? 'csr_rows' : 'csr';
      return [step(`${csr}_${dt}`, [p('ptr'), p('idx'), p('val'), x, y, ...ab], prefix)];
    }
    case 'mrs': {
      const idx = H.index;
      return [step(`mrs_${dt}`, [p('index'), p('val'), M.params.ndiag, x, y, ...ab], (i) => idx[i] - idx[0] + 2 * i)];
    }
    case 'dia':
      return [step(`dia_${dt}${M.params.compact ? 'f32' : ''}`, [p('offsets'), M.params.ndiag, p('data'), M.params.pitch, M.cols, x, y, ...ab], uniformPrefix)];
    case 'ell':
      return [step(`ell_${dt}`, [p('idx'), p('val'), M.params.width, M.params.stride, x, y, ...ab], uniformPrefix)];
    case 'jds':
      return [step(`jds_${dt}`, [p('perm'), p('jdPtr'), M.params.njd, p('idx'), p('val'), x, y, p('work'), ...ab], jdsPrefix(H.jdPtr))];
    case 'sell': {
      // the pool splits slices (not rows), balanced by stored slots plus one per row
      const { C, ident, slices } = M.params;
      const ptr = H.slicePtr;
      const args = [p('slicePtr'), C, p('perm'), ident, p('idx'), p('val'), x, y, M.rows, ...ab];
      return [{ ...step(`sell_${dt}`, args, (s) => ptr[s] + s * C), end: slices }];
    }
    case 'hyb': {
      const rows = H.coo.rowIdx;
      return [
        step(`ell_${dt}`, [p('idx'), p('val'), M.params.width, M.params.stride, x, y, ...ab], uniformPrefix),
        step(`coo_${dt}`, [p('cooRow'), p('cooCol'), p('cooVal'), x, y, ...a], (i) => lowerBound(rows, i) + i, rows),
      ];
    }
    case 'dense':
      return [step(`dense_${dt}`, [p('val'), M.cols, x, y, ...ab], uniformPrefix)];
    case 'coo':
      throw new Error('internal: COO products run through their CSR gather form');
  }
}
