import type { DType, ValueArray } from '../dtype.js';
import { components } from '../dtype.js';
import { DisposedError, ShapeError } from '../errors.js';
import type { FormatName } from '../formats/index.js';
import type { CpuMatrix, CpuVector } from '../cpu/resident.js';

/** The runtime a handle belongs to; told when the handle is disposed so it stops tracking it. */
export interface HandleOwner {
  forget(handle: MatrixHandle | ResidentVector): void;
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
  constructor(cpu: CpuMatrix, readonly owner: HandleOwner) {
    this.cpu = cpu;
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
    this.owner.forget(this);
  }
}

/** A vector resident in a runtime's memory; operations read and write it without copies. */
export class ResidentVector {
  readonly dtype: DType;
  /** number of elements (a complex element counts once) */
  readonly length: number;
  /** @internal */
  cpu: CpuVector | null;
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
  /** A copy of the contents (interleaved re/im for complex). */
  async read(): Promise<ValueArray> {
    return this.resident().view().slice();
  }
  /** Overwrites the contents; `data` must hold length × (1 or 2) numbers. */
  write(data: ArrayLike<number>): void {
    const v = this.resident().view();
    if (data.length !== v.length) {
      throw new ShapeError(`write: got ${data.length} numbers, the ${this.dtype} vector of ${this.length} elements holds ${this.length * components(this.dtype)}`);
    }
    v.set(data);
  }
  dispose(): void {
    this.cpu?.dispose();
    this.cpu = null;
    this.owner.forget(this);
  }
}
