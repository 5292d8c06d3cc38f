import type { DType, ValueArray } from '../dtype.js';
import { components, componentBytes } from '../dtype.js';
import { DisposedError } from '../errors.js';
import type { WasmHeap, Region } from './memory.js';
import type { SparseMatrix, FormatName } from '../formats/index.js';

/** A vector living in the runtime's WebAssembly memory. */
export class CpuVector {
  readonly region: Region;
  constructor(
    heap: WasmHeap,
    readonly dtype: DType,
    /** number of elements (complex counts as one) */
    readonly length: number,
  ) {
    this.region = heap.alloc(length * components(dtype) * componentBytes(dtype));
  }
  get ptr(): number {
    if (this.region.isDisposed) throw new DisposedError('vector');
    return this.region.ptr;
  }
  /** A fresh typed-array view (views are re-created because memory growth replaces the buffer). */
  view(): ValueArray {
    return this.region.view(componentBytes(this.dtype) === 4 ? 'f32' : 'f64', this.length * components(this.dtype));
  }
  dispose(): void {
    this.region.dispose();
  }
}

/** A row-major dense matrix living in the runtime's WebAssembly memory. */
export class CpuDense {
  readonly region: Region;
  constructor(
    heap: WasmHeap,
    readonly dtype: DType,
    readonly rows: number,
    readonly cols: number,
  ) {
    this.region = heap.alloc(rows * cols * components(dtype) * componentBytes(dtype));
  }
  get ptr(): number {
    if (this.region.isDisposed) throw new DisposedError('dense matrix');
    return this.region.ptr;
  }
  /** A fresh typed-array view of the values (row-major, interleaved re/im). */
  view(): ValueArray {
    return this.region.view(componentBytes(this.dtype) === 4 ? 'f32' : 'f64', this.rows * this.cols * components(this.dtype));
  }
  dispose(): void {
    this.region.dispose();
  }
}

/**
 * A matrix uploaded to the WebAssembly memory: its arrays copied into regions, plus the scalar
 * layout parameters the kernels take. `host` is kept for the cost prefixes of partitioning and to
 * derive, once, the CSR forms of products that would otherwise scatter.
 */
export class CpuMatrix {
  readonly format: FormatName;
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly nnz: number;
  /** op = 'T' / 'H' products run on it (their CSR forms are derived on first need) */
  readonly hasTranspose = true;
  disposed = false;
  /** CSR forms derived from this matrix on first need (see gatherForm), disposed with it */
  private readonly derived = new Map<string, CpuMatrix>();
  /** chunk bounds per kernel step and chunk count, computed once (see CpuBackend.run) */
  readonly partitions = new Map<string, Int32Array>();
  constructor(
    readonly host: SparseMatrix,
    readonly regions: Record<string, Region>,
    readonly params: Record<string, number>,
    // another dtype than the host's: a view (src/cpu/refine.ts wideView)
    dtype: DType = host.dtype,
  ) {
    this.format = host.format;
    this.dtype = dtype;
    this.rows = host.rows;
    this.cols = host.cols;
    this.nnz = host.nnz;
  }
  derive(key: string, make: () => CpuMatrix): CpuMatrix {
    if (this.disposed) throw new DisposedError(`${this.format} matrix`);
    let d = this.derived.get(key);
    if (!d) this.derived.set(key, (d = make()));
    return d;
  }
  ptr(name: string): number {
    if (this.disposed) throw new DisposedError(`${this.format} matrix`);
    return this.regions[name].ptr;
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const r of Object.values(this.regions)) r.dispose();
    for (const d of this.derived.values()) d.dispose();
  }
}
