import { isComplex, type DType } from '../dtype.js';
import type { SpmvScalars } from '../backend-types.js';
import type { SparseMatrix } from '../formats/index.js';
import type { WasmHeap, Region } from './memory.js';
import { CpuMatrix } from './resident.js';

/**
 * One kernel call over a range. The range is the last two arguments of every kernel, so a worker
 * pool can split [start, end) into contiguous chunks. `scatter` marks kernels whose range is over
 * inputs (they add into arbitrary outputs), which cannot be split across threads without care.
 */
export interface KernelStep {
  kernel: string;
  args: number[];
  start: number;
  end: number;
  scatter: boolean;
}

/** Copies a host matrix's arrays into the heap. */
export function uploadMatrix(heap: WasmHeap, A: SparseMatrix): CpuMatrix {
  const put = (a: Int32Array | Float32Array | Float64Array): Region => heap.allocCopy(a);
  const regions: Record<string, Region> = {};
  const params: Record<string, number> = {};
  try {
    switch (A.format) {
      case 'coo':
        Object.assign(regions, { row: put(A.rowIdx), col: put(A.colIdx), val: put(A.values) });
        break;
      case 'csr':
        Object.assign(regions, { ptr: put(A.rowPtr), idx: put(A.colIdx), val: put(A.values) });
        break;
      case 'csc':
        Object.assign(regions, { ptr: put(A.colPtr), idx: put(A.rowIdx), val: put(A.values) });
        break;
      case 'mrs':
        Object.assign(regions, { index: put(A.index), val: put(A.values) });
        params.ndiag = Math.min(A.rows, A.cols);
        break;
      case 'dia':
        Object.assign(regions, { offsets: put(A.offsets), data: put(A.data) });
        Object.assign(params, { ndiag: A.offsets.length, pitch: A.pitch });
        break;
      case 'ell':
        Object.assign(regions, { idx: put(A.colIdx), val: put(A.values) });
        Object.assign(params, { width: A.width, stride: A.stride });
        break;
      case 'jds':
        Object.assign(regions, { perm: put(A.perm), jdPtr: put(A.jdPtr), idx: put(A.colIdx), val: put(A.values) });
        // per-position accumulators of the jagged-diagonal kernel, one element per row
        regions.work = heap.alloc(A.rows * (A.values.BYTES_PER_ELEMENT * (isComplex(A.dtype) ? 2 : 1)));
        params.njd = A.jdPtr.length - 1;
        break;
      case 'hyb':
        Object.assign(regions, {
          idx: put(A.ell.colIdx),
          val: put(A.ell.values),
          cooRow: put(A.coo.rowIdx),
          cooCol: put(A.coo.colIdx),
          cooVal: put(A.coo.values),
        });
        Object.assign(params, { width: A.ell.width, stride: A.ell.stride, cooNnz: A.coo.nnz });
        break;
      case 'dense':
        regions.val = put(A.values);
        break;
    }
  } catch (e) {
    // a failed upload (memory limit) must not leak the regions already copied
    for (const r of Object.values(regions)) r.dispose();
    throw e;
  }
  return new CpuMatrix(A, regions, params);
}

/** Whether a format has kernels for op = T/H of its own (the others fall back through CSR). */
export function hasTransposedKernels(format: SparseMatrix['format']): boolean {
  return format === 'csr' || format === 'csc' || format === 'coo';
}

/**
 * The kernel calls computing y = α·op(A)·x + β·y for an uploaded matrix, x and y given as pointers.
 * Gather kernels apply β themselves; scatter kernels are preceded by a scal of y by β.
 */
export function spmvSteps(M: CpuMatrix, x: number, y: number, s: SpmvScalars): KernelStep[] {
  const dt = M.dtype;
  const cplx = isComplex(dt);
  const conj = s.op === 'H' ? 1 : 0;
  const [ar, ai] = s.alpha;
  const [br, bi] = s.beta;
  // argument tails in the kernels' order: α[, αi], β[, βi][, conj] — or without β for scatters
  const ab = cplx ? [ar, ai, br, bi, conj] : [ar, br];
  const a = cplx ? [ar, ai, conj] : [ar];
  const scal = (n: number): KernelStep => step(`scal_${dt}`, [y, ...(cplx ? [br, bi] : [br])], n, false);
  const step = (kernel: string, args: number[], end: number, scatter: boolean, start = 0): KernelStep => ({
    kernel,
    args,
    start,
    end,
    scatter,
  });
  const p = (name: string): number => M.ptr(name);
  const { rows, cols } = M;
  if (s.op === 'N') {
    switch (M.format) {
      case 'csr':
        return [step(`csr_${dt}`, [p('ptr'), p('idx'), p('val'), x, y, ...ab], rows, false)];
      case 'csc':
        return [scal(rows), step(`csr_scatter_${dt}`, [p('ptr'), p('idx'), p('val'), x, y, ...a], cols, true)];
      case 'coo':
        return [scal(rows), step(`coo_${dt}`, [p('row'), p('col'), p('val'), x, y, ...a], M.nnz, true)];
      case 'mrs':
        return [step(`mrs_${dt}`, [p('index'), p('val'), M.params.ndiag, x, y, ...ab], rows, false)];
      case 'dia':
        return [step(`dia_${dt}`, [p('offsets'), M.params.ndiag, p('data'), M.params.pitch, cols, x, y, ...ab], rows, false)];
      case 'ell':
        return [step(`ell_${dt}`, [p('idx'), p('val'), M.params.width, M.params.stride, x, y, ...ab], rows, false)];
      case 'jds':
        return [step(`jds_${dt}`, [p('perm'), p('jdPtr'), M.params.njd, p('idx'), p('val'), x, y, p('work'), ...ab], rows, false)];
      case 'hyb':
        return [
          step(`ell_${dt}`, [p('idx'), p('val'), M.params.width, M.params.stride, x, y, ...ab], rows, false),
          step(`coo_${dt}`, [p('cooRow'), p('cooCol'), p('cooVal'), x, y, ...a], M.params.cooNnz, true),
        ];
      case 'dense':
        return [step(`dense_${dt}`, [p('val'), cols, x, y, ...ab], rows, false)];
    }
  }
  switch (M.format) {
    case 'csr':
      return [scal(cols), step(`csr_scatter_${dt}`, [p('ptr'), p('idx'), p('val'), x, y, ...a], rows, true)];
    case 'csc':
      return [step(`csr_${dt}`, [p('ptr'), p('idx'), p('val'), x, y, ...ab], cols, false)];
    case 'coo':
      return [scal(cols), step(`coo_${dt}`, [p('col'), p('row'), p('val'), x, y, ...a], M.nnz, true)];
    default:
      throw new Error(`internal: ${M.format} op=${s.op} must be routed through its CSR fallback`);
  }
}

