import { components, type DType } from '../dtype.js';
import { MemoryLimitError } from '../errors.js';
import { CSRMatrix } from '../formats/csr.js';
import { reserveMemory } from '../memory-budget.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { balancedBounds } from './partition.js';

/** Products with fewer entries in A than this run as one chunk on the calling thread. */
const SPGEMM_POOL_FLOOR = 16384;

/**
 * C = A·B on the CPU path (assembly/spgemm.ts), synchronously: the operands are copied into the
 * WebAssembly memory (values widened to f64, or to c128 pairs for a complex `dtype`); the symbolic
 * pass counts each row's columns and multiply-adds (rows split over the pool by A's entries), the
 * row pointers are summed here and the product's size checked against the memory budget in scope,
 * then the numeric pass fills the rows in ascending column order (rows split by their multiply-adds).
 * `dtype` is the product's; f32/c64 results are rounded from the f64 accumulators. A and B canonical
 * CSR with A.cols = B.rows.
 */
export function cpuSpgemm(backend: CpuBackend, A: CSRMatrix, B: CSRMatrix, dtype: DType): CSRMatrix {
  const m = A.rows;
  const n = B.cols;
  const cc = components(dtype);
  const chunks = A.nnz < SPGEMM_POOL_FLOOR ? 1 : backend.threads;
  const split = (prefix: (i: number) => number) => (chunks === 1 ? Int32Array.of(0, m) : balancedBounds(m, chunks, prefix, 1));
  const regions: Region[] = [];
  const alloc = (bytes: number): Region => {
    const r = backend.heap.alloc(bytes);
    regions.push(r);
    return r;
  };
  try {
    const [pa, pb] = [operand(A, cc, alloc), operand(B, cc, alloc)];
    const wsBytes = (Math.ceil((4 * n) / 16) * 16 + 8 * cc * n) || 16;
    const slots = alloc(16 * chunks);
    const slotView = slots.view('i32');
    for (let c = 0; c < chunks; c++) slotView[4 * c] = alloc(wsBytes).ptr;
    const cp = alloc(4 * (m + 1));
    const fl = alloc(8 * m);
    const ap = A.rowPtr;
    backend.runChunksSync('spgemm_count', [pa.ptr, pa.idx, pb.ptr, pb.idx, n, slots.ptr, cp.ptr, fl.ptr], split((i) => ap[i] + i), 5);
    const rowPtr = cp.view('i32', m + 1);
    const flops = fl.view('f64', m);
    // row pointers from the counts, and the multiply-adds before each row (in place)
    rowPtr[0] = 0;
    let nnz = 0;
    let work = 0;
    for (let i = 0; i < m; i++) {
      rowPtr[i + 1] = nnz += rowPtr[i + 1];
      const f = flops[i];
      flops[i] = work;
      work += f + 1;
    }
    if (nnz > 0x7fffffff) throw new MemoryLimitError(nnz * (4 + 8 * cc), `spgemm: the ${m}×${n} product has ${nnz} entries, more than 32-bit row pointers index`);
    const single = dtype === 'f32' || dtype === 'c64';
    // the result's arrays here and their copies out of the WebAssembly memory
    reserveMemory(nnz * 4 + nnz * cc * (single ? 4 : 8), `spgemm: ${nnz} entries of the ${m}×${n} product`);
    const bounds = split((i) => (i < m ? flops[i] : work));
    const ci = alloc(4 * nnz);
    const cv = alloc(8 * cc * nnz);
    backend.runChunksSync(cc === 2 ? 'spgemm_c128' : 'spgemm_f64', [pa.ptr, pa.idx, pa.val, pb.ptr, pb.idx, pb.val, n, slots.ptr, cp.ptr, ci.ptr, cv.ptr], bounds, 7);
    const values = cv.view('f64', cc * nnz);
    return new CSRMatrix(m, n, dtype, cp.view('i32', m + 1).slice(), ci.view('i32', nnz).slice(), single ? Float32Array.from(values) : values.slice());
  } finally {
    for (const r of regions) r.dispose();
  }
}

/** An operand's arrays in the WebAssembly memory, values as f64 (cc = 1) or c128 pairs (cc = 2). */
function operand(M: CSRMatrix, cc: number, alloc: (bytes: number) => Region): { ptr: number; idx: number; val: number } {
  const ptr = alloc(M.rowPtr.byteLength);
  ptr.view('i32', M.rows + 1).set(M.rowPtr);
  const idx = alloc(4 * M.nnz);
  idx.view('i32', M.nnz).set(M.colIdx.subarray(0, M.nnz));
  const val = alloc(8 * cc * M.nnz);
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
  return { ptr: ptr.ptr, idx: idx.ptr, val: val.ptr };
}
