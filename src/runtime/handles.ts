import type { DType, ValueArray } from '../dtype.js';
import { components } from '../dtype.js';
import { DisposedError, ShapeError } from '../errors.js';
import type { FormatName } from '../formats/index.js';
import type { CpuMatrix, CpuVector } from '../cpu/resident.js';
import type { GpuMatrix, GpuVector } from '../gpu/index.js';

/** The runtime a handle belongs to: told when a handle is disposed; brings GPU contents home. */
export interface HandleOwner {
  forget(handle: MatrixHandle | ResidentVector): void;
  /** makes the CPU copy of a vector current (reads it back from the GPU when that copy is newer) */
  pullToCpu(v: ResidentVector): Promise<CpuVector>;
}

/** A matrix uploaded to a runtime. Data stays resident until `dispose()`. */
export class MatrixHandle {
  readonly format: FormatName;
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  /** entries the format represents (padding excluded) */
  readonly nnz: number;
  /** bytes of the stored arrays (for bandwidth figures) */
  readonly storageBytes: number;
  /** @internal */
  cpu: CpuMatrix | null;
  /** @internal the matrix uploaded to the GPU path, per GPU format (made on first use there) */
  readonly gpu = new Map<string, GpuMatrix>();
  /** @internal the format the caller asked for at upload, if any */
  readonly requestedFormat: FormatName | null;
  constructor(cpu: CpuMatrix, readonly owner: HandleOwner, requestedFormat: FormatName | null = null) {
    this.cpu = cpu;
    this.requestedFormat = requestedFormat;
    this.format = cpu.format;
    this.dtype = cpu.dtype;
    this.rows = cpu.rows;
    this.cols = cpu.cols;
    this.nnz = cpu.nnz;
    this.storageBytes = cpu.bytes;
  }
  get disposed(): boolean {
    return this.cpu === null;
  }
  /** @internal */
  resident(): CpuMatrix {
    if (!this.cpu) throw new DisposedError(`${this.format} matrix handle`);
    return this.cpu;
  }
  dispose(): void {
    this.cpu?.dispose();
    this.cpu = null;
    for (const g of this.gpu.values()) g.dispose();
    this.gpu.clear();
    this.owner.forget(this);
  }
}

/**
 * A vector resident in a runtime; operations read and write it without copies. It lives on the CPU
 * path and, once an operation has run there, on the GPU path too; `where` says which copy is current,
 * and the other is brought up to date only when an operation on that path needs it.
 */
export class ResidentVector {
  readonly dtype: DType;
  /** number of elements (a complex element counts once) */
  readonly length: number;
  /** @internal */
  cpu: CpuVector | null;
  /** @internal the GPU copy, if an operation ran there */
  gpu: GpuVector | null = null;
  /** @internal which copies hold the current contents */
  where: 'cpu' | 'gpu' | 'both' = 'cpu';
  constructor(cpu: CpuVector, readonly owner: HandleOwner) {
    this.cpu = cpu;
    this.dtype = cpu.dtype;
    this.length = cpu.length;
  }
  get disposed(): boolean {
    return this.cpu === null;
  }
  /** @internal */
  resident(): CpuVector {
    if (!this.cpu) throw new DisposedError('resident vector');
    return this.cpu;
  }
  /** A copy of the contents (interleaved re/im for complex), read back from the GPU if it is newer there. */
  async read(): Promise<ValueArray> {
    this.resident();
    return (await this.owner.pullToCpu(this)).view().slice();
  }
  /** Overwrites the contents; `data` must hold length × (1 or 2) numbers. */
  write(data: ArrayLike<number>): void {
    const v = this.resident().view();
    if (data.length !== v.length) {
      throw new ShapeError(`write: got ${data.length} numbers, the ${this.dtype} vector of ${this.length} elements holds ${this.length * components(this.dtype)}`);
    }
    v.set(data);
    this.where = 'cpu';
  }
  dispose(): void {
    this.cpu?.dispose();
    this.cpu = null;
    this.gpu?.dispose();
    this.gpu = null;
    this.owner.forget(this);
  }
}
