import { components, type DType, type ValueArray } from '../dtype.js';
import { DisposedError, ShapeError } from '../errors.js';
import { vectorData } from '../vector-data.js';
import type { FormatName, SparseMatrix } from '../formats/index.js';
import { DenseMatrix } from '../formats/dense.js';
import type { Path, PathDense, PathId, PathMatrix, PathVector } from '../path.js';

/** The runtime a handle belongs to: told when a handle is disposed; hands out its paths. */
export interface HandleOwner {
  forget(handle: object): void;
  /** the path where uploads and new vectors land (the CPU path) */
  readonly home: Path;
  /** the path of that id, if this runtime has it */
  pathById(id: PathId): Path | undefined;
}

/**
 * A sparse matrix uploaded to a runtime by {@link Runtime.upload}: a validated private copy in the
 * runtime's memory (later changes to the original cannot reach it), copied to a GPU path the first
 * time an operation runs there. Pass it to `rt.spmv`, `rt.cg`, `rt.bicgstab` and `rt.explain`; its data
 * stays resident until `dispose()` (or the runtime's).
 *
 * @example
 * ```js
 * import { createRuntime, poisson3D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson3D(8), { format: 'ell' });
 * assert.deepEqual([A.rows, A.cols, A.nnz, A.dtype, A.format], [512, 512, 3200, 'f64', 'ell']);
 * const before = rt.memoryInUse;
 * A.dispose();                                   // frees its memory now
 * assert.ok(rt.memoryInUse < before && A.disposed);
 * rt.dispose();
 * ```
 */
export class MatrixHandle {
  /** element type */
  readonly dtype: DType;
  /** number of rows */
  readonly rows: number;
  /** number of columns */
  readonly cols: number;
  /** entries the format represents (padding excluded) */
  readonly nnz: number;
  /** bytes of the stored arrays (for bandwidth figures) */
  readonly storageBytes: number;
  /** @internal the uploads, per path and format (key `path:format`), made on first use there */
  readonly copies = new Map<string, PathMatrix>();
  #disposed = false;
  /**
   * @internal `host` is the matrix as uploaded (kept for uploads to other paths and the Jacobi
   * diagonal), `home` its copy on the owner's home path
   */
  constructor(
    /** @internal */
    readonly host: SparseMatrix,
    home: PathMatrix,
    /** @internal */
    readonly owner: HandleOwner,
    /** @internal the format the caller asked for at upload, if any */
    readonly requestedFormat: FormatName | null = null,
  ) {
    this.dtype = host.dtype;
    this.rows = host.rows;
    this.cols = host.cols;
    this.nnz = host.nnz;
    this.storageBytes = host.storageBytes();
    this.copies.set(`${owner.home.id}:${host.format}`, home);
  }
  /** the storage format as uploaded */
  get format(): FormatName {
    return this.host.format;
  }
  /** whether `dispose()` has run (on the handle or its runtime) */
  get disposed(): boolean {
    return this.#disposed;
  }
  /** @internal throws DisposedError once disposed */
  live(): this {
    if (this.#disposed) throw new DisposedError(`${this.format} matrix handle`);
    return this;
  }
  /** Frees the matrix on every path; later use throws {@link DisposedError}. A second call does nothing. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const m of this.copies.values()) m.dispose();
    this.copies.clear();
    this.owner.forget(this);
  }
}

/**
 * Contents that live on one or more paths: a copy per path that has run an operation on them, and
 * the set of paths whose copy is current. A copy is brought up to date (through the host) only when
 * an operation on its path needs it; a write on one path makes the others stale.
 */
abstract class Replicated<C extends PathVector | PathDense, T> {
  /** @internal one copy per path */
  readonly copies = new Map<PathId, C>();
  /** @internal the paths whose copy holds the current contents */
  readonly current = new Set<PathId>();
  /** @internal set when the only current copy died with its path's device; cleared by the next write */
  lost: Error | null = null;
  #disposed = false;

  constructor(
    /** @internal */
    readonly owner: HandleOwner,
  ) {}

  protected abstract readFrom(path: Path, copy: C): Promise<T>;
  protected abstract makeOn(path: Path, data: T | null): C;
  protected abstract writeOn(path: Path, copy: C, data: T): void;
  protected abstract readonly what: string;

  /** whether `dispose()` has run (on the handle or its runtime) */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** @internal throws DisposedError once disposed */
  live(): this {
    if (this.#disposed) throw new DisposedError(this.what);
    return this;
  }

  /** @internal the copy on `path` with the current contents (brought over from another path when needed) */
  async on(path: Path): Promise<C> {
    this.live();
    if (this.lost) throw this.lost;
    const have = this.copies.get(path.id);
    if (have && this.current.has(path.id)) return have;
    const from = [...this.current].map((id) => this.owner.pathById(id)!).find((p) => p.usable);
    if (!from) throw this.owner.pathById([...this.current][0])!.lostError(`the ${this.what} is current only on a lost path`);
    const data = await this.readFrom(from, this.copies.get(from.id)!);
    const copy = this.copies.get(path.id);
    if (copy) this.writeOn(path, copy, data);
    else this.copies.set(path.id, this.makeOn(path, data));
    this.current.add(path.id);
    return this.copies.get(path.id)!;
  }

  /** @internal the copy on `path` as the output of an operation about to overwrite it (call wrote() after) */
  target(path: Path): C {
    this.live();
    let copy = this.copies.get(path.id);
    if (!copy) this.copies.set(path.id, (copy = this.makeOn(path, null)));
    return copy;
  }

  /** @internal an operation on `path` wrote the contents there */
  wrote(path: Path): void {
    this.current.clear();
    this.current.add(path.id);
    this.lost = null;
  }

  /** @internal `path` lost its device: its copy is stale, and if it was the only current one, the contents are gone */
  pathLost(path: Path): void {
    if (!this.current.delete(path.id)) return;
    if (this.current.size === 0) {
      this.current.add(path.id);
      this.lost = path.lostError(`the ${this.what} was last written on the ${path.label} path, whose device was lost: its contents are gone`);
    }
  }

  /** Frees the contents on every path; later use throws {@link DisposedError}. A second call does nothing. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const c of this.copies.values()) c.dispose();
    this.copies.clear();
    this.owner.forget(this);
  }
}

/**
 * A vector resident in a runtime ({@link Runtime.vector}); `spmv`, the BLAS-1 operations and the
 * solvers' internals read and write it without copies. It lives on the home (CPU) path and, once an
 * operation has run elsewhere, on that path too; the runtime tracks which copies are current and brings
 * the others up to date only when an operation on their path needs it.
 *
 * @example
 * ```js
 * import { createRuntime } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const v = rt.vector(new Float64Array([1, 2, 3]));
 * v.write([4, 5, 6]);                                   // any array-like of length × (1 or 2) numbers
 * await rt.scal(2, v);
 * assert.deepEqual(Array.from(await v.read()), [8, 10, 12]);
 * assert.deepEqual([v.dtype, v.length], ['f64', 3]);
 * rt.dispose();
 * ```
 */
export class ResidentVector extends Replicated<PathVector, ValueArray> {
  protected readonly what = 'resident vector';
  /** @internal use rt.vector() */
  constructor(
    /** element type */
    readonly dtype: DType,
    /** number of elements (a complex element counts once) */
    readonly length: number,
    owner: HandleOwner,
    data: ValueArray | number,
  ) {
    super(owner);
    this.copies.set(owner.home.id, owner.home.vector(dtype, data));
    this.current.add(owner.home.id);
  }
  protected readFrom(path: Path, copy: PathVector): Promise<ValueArray> {
    return path.read(copy);
  }
  protected makeOn(path: Path, data: ValueArray | null): PathVector {
    return path.vector(this.dtype, data ?? this.length);
  }
  protected writeOn(path: Path, copy: PathVector, data: ValueArray): void {
    path.write(copy, data);
  }
  /**
   * A copy of the contents (interleaved re/im for complex), read back from the path that holds them.
   *
   * @throws {@link DisposedError} once the vector or its runtime is disposed.
   * @throws the lost path's error ({@link GpuContextLostError} on WebGL2) when the contents were last
   * written only on a GPU path whose device was lost since.
   */
  async read(): Promise<ValueArray> {
    const home = this.owner.home;
    return (await home.read(await this.on(home))).slice();
  }
  /**
   * Overwrites the contents; `data` must hold length × (1 or 2) numbers (interleaved re/im for complex).
   *
   * @throws {@link ShapeError} when `data` has another length.
   * @throws {@link DisposedError} once the vector or its runtime is disposed.
   */
  write(data: ArrayLike<number> | BigInt64Array | BigUint64Array): void {
    this.live();
    const values = vectorData(data, 'write: data');
    const want = this.length * components(this.dtype);
    if (values.length !== want) {
      throw new ShapeError(`write: got ${values.length} numbers, the ${this.dtype} vector of ${this.length} elements holds ${want}`);
    }
    const home = this.owner.home;
    home.write(this.target(home), values);
    this.wrote(home);
  }
}

/**
 * A dense matrix resident in a runtime ({@link Runtime.dense}): `gemm`, `add` and `transpose` take it
 * and return new ones without copying through the host; `read()` brings the contents back as a
 * {@link DenseMatrix}. Like {@link ResidentVector}, it keeps a copy on each path that used it.
 *
 * @example
 * ```js
 * import { createRuntime, DenseMatrix } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.dense({ dtype: 'f32', rows: 2, cols: 2 });         // zeros
 * A.write(new DenseMatrix(2, 2, 'f32', new Float32Array([1, 2, 3, 4])));
 * const T = await rt.transpose(A);                                 // a new handle
 * assert.deepEqual(Array.from((await T.read()).values), [1, 3, 2, 4]);
 * rt.dispose();
 * ```
 */
export class DenseHandle extends Replicated<PathDense, DenseMatrix> {
  protected readonly what = 'dense matrix handle';
  /** always `'dense'` */
  readonly format = 'dense' as const;
  /** @internal use rt.dense() */
  constructor(
    /** element type */
    readonly dtype: DType,
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    owner: HandleOwner,
    path: Path,
    copy: PathDense,
  ) {
    super(owner);
    this.copies.set(path.id, copy);
    this.current.add(path.id);
  }
  protected readFrom(path: Path, copy: PathDense): Promise<DenseMatrix> {
    return path.readDense(copy);
  }
  protected makeOn(path: Path, data: DenseMatrix | null): PathDense {
    return path.dense(data ?? { dtype: this.dtype, rows: this.rows, cols: this.cols });
  }
  protected writeOn(path: Path, copy: PathDense, data: DenseMatrix): void {
    path.writeDense(copy, data);
  }
  /**
   * The contents as a new DenseMatrix, read back from the path that holds them.
   *
   * @throws {@link DisposedError} once the handle or its runtime is disposed.
   * @throws the lost path's error ({@link GpuContextLostError} on WebGL2) when the contents were last
   * written only on a GPU path whose device was lost since.
   */
  async read(): Promise<DenseMatrix> {
    const home = this.owner.home;
    return home.readDense(await this.on(home));
  }
  /**
   * Overwrites the contents with those of a DenseMatrix of the same shape and dtype.
   *
   * @throws {@link ShapeError} when `from` is not a DenseMatrix of this shape and dtype.
   * @throws {@link DisposedError} once the handle or its runtime is disposed.
   */
  write(from: DenseMatrix): void {
    this.live();
    if (!(from instanceof DenseMatrix) || from.dtype !== this.dtype || from.rows !== this.rows || from.cols !== this.cols) {
      throw new ShapeError(`write: expected a ${this.rows}×${this.cols} ${this.dtype} DenseMatrix`);
    }
    const home = this.owner.home;
    home.writeDense(this.target(home), from);
    this.wrote(home);
  }
}
