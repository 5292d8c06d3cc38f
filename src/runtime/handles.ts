import { components, type DType, type ValueArray } from '../dtype.js';
import { DisposedError, GpuUnavailableError, ShapeError } from '../errors.js';
import { checkOptions } from '../options-check.js';
import { checkLayout, GPU_BUFFER_LAYOUT_KEYS, type GpuBufferLayout } from './gpu-buffers.js';
import { checkSingleRange, vectorData } from '../vector-data.js';
import type { FormatName, SparseMatrix } from '../formats/index.js';
import { DenseMatrix } from '../formats/dense.js';
import { CSRMatrix } from '../formats/csr.js';
import type { Path, PathDense, PathId, PathMatrix, PathVector } from '../path.js';

/** The runtime a handle belongs to: told when a handle is disposed; hands out its paths. */
export interface HandleOwner {
  forget(handle: object): void;
  /** the path where uploads and new vectors land (the CPU path) */
  readonly home: Path;
  /** the path of that id, if this runtime has it */
  pathById(id: PathId): Path | undefined;
  /** why this runtime lacks the path of that id */
  missing(id: PathId): string;
}

/**
 * A sparse matrix uploaded to a runtime by {@link Runtime.upload} (or a product made by
 * {@link Runtime.spgemm} of two handles, its CSR kept where the kernels wrote it): a validated private copy (later
 * changes to the original cannot reach it), copied into the runtime's memory in its resident format by
 * the first operation that needs it there (at upload for a format named at upload), and to a GPU path
 * the first time an operation runs there. Pass it to `rt.spmv`, `rt.cg`, `rt.bicgstab` and `rt.explain`; its data
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
  /** @internal the uploads, per path and format (key `path:format`), made on first use there */
  readonly copies = new Map<string, PathMatrix>();
  /** @internal handles made from this one (a GPU solve's scaled copy), disposed with it */
  readonly derived: { dispose(): void }[] = [];
  #disposed = false;
  #format: FormatName | null;
  #host: SparseMatrix | null;
  /** rt.solve calls running on it */
  #solving = 0;
  /** read by something other than rt.solve (see share) */
  #shared = false;
  /**
   * @internal `source` is the validated private copy upload kept: the matrix in its resident format,
   * or (`lazy`, format 'auto') its canonical CSR, whose format is chosen and whose copy in that format
   * (and on the home path) is made by `lazy` the first time an operation needs them. A solve that
   * factorizes never does: it reads the CSR. `home` is the copy on the owner's home path, if made.
   */
  constructor(
    /** @internal */
    readonly source: SparseMatrix,
    home: PathMatrix | null,
    /** @internal */
    readonly owner: HandleOwner,
    /** @internal the format the caller asked for at upload, if any */
    readonly requestedFormat: FormatName | null = null,
    /** @internal for an 'auto' upload: the format the runtime chooses, and the source converted to it */
    private readonly lazy: { format(): FormatName; convert(format: FormatName): SparseMatrix } | null = null,
  ) {
    this.dtype = source.dtype;
    this.rows = source.rows;
    this.cols = source.cols;
    this.#format = lazy ? null : source.format;
    this.#host = lazy ? null : source;
    if (home) this.copies.set(`${owner.home.id}:${source.format}`, home);
  }
  /** the storage format on the home (CPU) path: the one asked for at upload, else the runtime's choice */
  get format(): FormatName {
    return (this.#format ??= this.lazy!.format());
  }
  /** @internal the matrix in its resident format (converted from the source on first use) */
  get host(): SparseMatrix {
    return (this.#host ??= this.format === this.source.format ? this.source : this.lazy!.convert(this.format));
  }
  /** @internal the matrix in its resident format where it is made already (no conversion), else null */
  get madeHost(): SparseMatrix | null {
    return this.#host;
  }
  /** @internal the canonical CSR kept by an 'auto' upload, else null */
  get canonicalCsr(): SparseMatrix | null {
    return this.lazy ? this.source : null;
  }
  /** entries the format represents (padding excluded) */
  get nnz(): number {
    return this.host.nnz;
  }
  /** bytes of the stored arrays (for bandwidth figures) */
  get storageBytes(): number {
    return this.host.storageBytes();
  }
  /**
   * @internal Marks it read by an operation other than rt.solve — a preconditioner, a factorization, a
   * product, explain — which may keep its host arrays past its dispose(): they are then never reused.
   */
  share(): this {
    this.#shared = true;
    return this;
  }
  /** @internal An rt.solve on it starts (+1) or ends (−1). */
  solving(by: 1 | -1): void {
    this.#solving += by;
  }
  /**
   * @internal An 'auto' upload only rt.solve has read, none of them running: once it is disposed its
   * host arrays (the CSR copy, the copy in its format made of it) are read by nothing, and the runtime
   * may fill their memory again (Runtime.keepSpares).
   */
  get recyclable(): boolean {
    return this.lazy !== null && !this.#shared && this.#solving === 0;
  }
  /** whether `dispose()` has run (on the handle or its runtime) */
  get disposed(): boolean {
    return this.#disposed;
  }
  /**
   * The matrix read back: a canonical CSR (rows sorted, duplicates summed) in arrays of the caller's
   * own, whatever the handle's format — how to see a matrix the runtime made, such as `rt.spgemm`'s
   * product of two handles, whose arrays live in the runtime's memory. Later changes to the copy or
   * to the handle reach nothing on the other side.
   *
   * @throws {@link DisposedError} once the handle or its runtime is disposed.
   *
   * @example
   * ```js
   * import { createRuntime, CSRMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * // A = [[1, 2], [0, 3]]
   * const A = rt.upload(new CSRMatrix(2, 2, 'f64', new Int32Array([0, 2, 3]), new Int32Array([0, 1, 1]), new Float64Array([1, 2, 3])));
   * const C = rt.spgemm(A, A);                       // a handle: both operands are handles
   * const c = C.toCSR();                              // A² = [[1, 8], [0, 9]]
   * assert.deepEqual([Array.from(c.rowPtr), Array.from(c.colIdx), Array.from(c.values)], [[0, 2, 3], [0, 1, 1], [1, 8, 9]]);
   * C.dispose();
   * rt.dispose();
   * ```
   */
  toCSR(): CSRMatrix {
    const A = this.live().source.toCSR();
    return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice());
  }
  /** @internal throws DisposedError once disposed */
  live(): this {
    if (this.#disposed) throw new DisposedError(`${this.#format ?? 'uploaded'} matrix handle`);
    return this;
  }
  /** Frees the matrix on every path; later use throws {@link DisposedError}. A second call does nothing. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const m of this.copies.values()) m.dispose();
    this.copies.clear();
    for (const d of this.derived) d.dispose();
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
  /**
   * @internal the path whose copy is a GPUBuffer shared with code outside simdgl (wrapped by
   * rt.fromGPUBuffer or handed out by gpuBuffer()): it holds the contents after every operation.
   */
  pinned: PathId | null = null;
  /** @internal the last operation called on it ({@link inOrder}) */
  last: Turn | null = null;
  /** @internal whether an operation called on it has not yet settled */
  get pending(): boolean {
    return this.last !== null && !this.last.done;
  }
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

  /**
   * @internal the copy on `path` with the current contents (brought over from another path when
   * needed). A pinned vector's copies elsewhere are refreshed from its buffer every time: code outside
   * simdgl may have written the buffer since.
   */
  async on(path: Path): Promise<C> {
    this.live();
    if (this.lost) throw this.lost;
    // a GPU path's shaders load with its first operation (live() again after each await: a dispose()
    // meanwhile left no copies, and reading one failed with a TypeError)
    if (path.prepare) {
      await path.prepare();
      this.live();
    }
    const have = this.copies.get(path.id);
    const trusted = this.pinned === null || this.pinned === path.id;
    if (have && trusted && this.current.has(path.id)) return have;
    const sources = trusted ? [...this.current] : [this.pinned!];
    const from = sources.map((id) => this.owner.pathById(id)!).find((p) => p.usable);
    if (!from) throw this.owner.pathById(sources[0])!.lostError(`the ${this.what} is current only on a lost path`);
    const data = await this.readFrom(from, this.copies.get(from.id)!);
    this.live();
    const copy = this.copies.get(path.id);
    if (copy) this.writeOn(path, copy, data);
    else this.copies.set(path.id, this.makeOn(path, data));
    if (trusted) this.current.add(path.id);
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
    if (this.current.size === 0 || this.pinned === path.id) {
      this.current.clear();
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
    data: ValueArray | number | { path: Path; copy: PathVector },
  ) {
    super(owner);
    const at = typeof data === 'object' && 'copy' in data ? data : { path: owner.home, copy: owner.home.vector(dtype, data) };
    this.copies.set(at.path.id, at.copy);
    this.current.add(at.path.id);
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
  read(): Promise<ValueArray> {
    return inOrder([this], async () => {
      const home = this.owner.home;
      return (await home.read(await this.on(home))).slice();
    });
  }
  /**
   * Overwrites the contents; `data` must hold length × (1 or 2) numbers (interleaved re/im for complex).
   *
   * @throws {@link ShapeError} when `data` has another length.
   * @throws {@link InputRangeError} for an f32 or c64 vector, at a value f32 cannot hold (beyond ±3.4e38, or nonzero below 1.4e-45).
   * @throws {@link DisposedError} once the vector or its runtime is disposed.
   */
  write(data: ArrayLike<number> | BigInt64Array | BigUint64Array): void {
    this.live();
    const values = vectorData(data, 'write: data');
    const want = this.length * components(this.dtype);
    if (values.length !== want) {
      throw new ShapeError(`write: got ${values.length} numbers, the ${this.dtype} vector of ${this.length} elements holds ${want}`);
    }
    checkSingleRange(values, this.dtype, 'write: data');
    afterPending(this, values, (v) => {
      // a pinned vector is written in its buffer
      const p = this.pinned ? this.owner.pathById(this.pinned)! : this.owner.home;
      p.write(this.target(p), v);
      super.wrote(p);
    });
  }

  /**
   * @internal an operation on `path` wrote the vector; a pinned vector's contents go back into its
   * buffer before the operation resolves (an upload, after an operation forced onto another path)
   */
  override async wrote(path: Path): Promise<void> {
    super.wrote(path);
    if (this.pinned === null || this.pinned === path.id) return;
    await this.on(this.owner.pathById(this.pinned)!);
    this.current.clear();
    this.current.add(this.pinned);
  }

  /**
   * The GPUBuffer that holds this vector on the runtime's WebGPU device, for a pipeline that goes on
   * on the GPU (a TF.js tensor made with `tf.tensor({ buffer }, [n])`, an ONNX Runtime Web input):
   * the contents are brought there if they are elsewhere (an upload, never a read-back), and the work
   * simdgl recorded on it is submitted, so what you submit on the device's queue afterwards sees it.
   * From now on the buffer holds the vector: operations on the vector run on the WebGPU path, and
   * `read()` reads the buffer, so writes into it from outside simdgl are seen. Layout: f32 plain, c64
   * (re, im) interleaved f32; f64 and c128 are double-single (hi, lo) f32 pairs on the GPU and need
   * `{ layout: 'double-single' }` (docs/interop.md).
   *
   * The buffer stays simdgl's: `dispose()` (of the vector or the runtime) destroys it, unless it was
   * yours ({@link Runtime.fromGPUBuffer}, which returns that same buffer here). Do not destroy it
   * yourself, and dispose what uses it without a copy (a TF.js tensor made with `zeroCopy: true`)
   * first.
   *
   * @throws {@link GpuUnavailableError} when the runtime has no WebGPU path.
   * @throws {@link UnsupportedError} for an f64 / c128 vector without `{ layout: 'double-single' }`.
   * @throws {@link WebGpuDeviceLostError} while the device is lost.
   * @throws {@link DisposedError} once the vector or its runtime is disposed.
   *
   * @example
   * ```ts
   * // not run: Dawn on SwiftShader crashes at process exit after compute work here (test/webgpu-interop.test.ts runs these calls)
   * // A vector's own GPUBuffer, for other code on the same device (Dawn in Node here)
   * import { createRuntime } from 'simdgl';
   * import { create, globals } from 'webgpu';
   * import assert from 'node:assert/strict';
   *
   * Object.assign(globalThis, globals);                // GPUBufferUsage, GPUMapMode in Node
   * const device = await (await create([]).requestAdapter()).requestDevice();
   * const rt = await createRuntime({ webgpu: { device } });
   * const y = rt.vector(new Float32Array([1, 2, 3]));
   * const buffer = await y.gpuBuffer();                // uploaded there, submitted
   * assert.equal(buffer.size >= 12, true);
   * // read it as any WebGPU code would: copy to a mappable buffer
   * const staging = device.createBuffer({ size: 12, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
   * const enc = device.createCommandEncoder();
   * enc.copyBufferToBuffer(buffer, 0, staging, 0, 12);
   * device.queue.submit([enc.finish()]);
   * await staging.mapAsync(GPUMapMode.READ);
   * assert.deepEqual(Array.from(new Float32Array(staging.getMappedRange())), [1, 2, 3]);
   * rt.dispose();                                      // destroys y's buffer; the device stays yours
   * device.destroy();
   * ```
   */
  async gpuBuffer(options: GpuBufferLayout = {}): Promise<GPUBuffer> {
    this.live();
    checkOptions('gpuBuffer', options, GPU_BUFFER_LAYOUT_KEYS);
    checkLayout('gpuBuffer', this.dtype, options.layout);
    const p = this.owner.pathById('webgpu');
    if (!p?.bufferOf) throw new GpuUnavailableError(`gpuBuffer: this runtime has no WebGPU path (${this.owner.missing('webgpu')})`);
    return inOrder([this], async () => {
      const copy = await this.on(p);
      this.pinned = p.id;
      this.current.clear();
      this.current.add(p.id);
      return p.bufferOf!(copy);
    });
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
  read(): Promise<DenseMatrix> {
    return inOrder([this], async () => {
      const home = this.owner.home;
      return home.readDense(await this.on(home));
    });
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
    afterPending(this, from, (m) => {
      const home = this.owner.home;
      home.writeDense(this.target(home), m);
      this.wrote(home);
    });
  }
}

/**
 * @internal Runs `op` on resident handles in the order the calls were made: an operation called while
 * others on one of its handles are still running waits until they have settled (a later call's kernel
 * ran first: rt.axpy(1, x, y) then rt.scal(0, x) without awaiting gave y unchanged), and a write() or
 * read() waits its turn as well. Handles no operation is running on start at once, as before.
 */
export function inOrder<T>(handles: readonly (Replicated<PathVector | PathDense, unknown> | null | undefined)[], op: () => Promise<T>): Promise<T> {
  const turn: Turn = { done: false, waiters: null };
  let before: Turn[] | null = null;
  for (const h of handles) {
    if (!h || h.last === turn) continue;
    if (h.last && !h.last.done) (before ??= []).push(h.last);
    h.last = turn;
  }
  const settle = () => {
    turn.done = true;
    if (turn.waiters) for (const w of turn.waiters) w();
  };
  const started = before ? Promise.all(before.map((t) => new Promise<void>((r) => (t.done ? r() : (t.waiters ??= []).push(r))))).then(op) : op();
  started.then(settle, settle);
  return started;
}

/** An operation's place in the order of calls on its handles (inOrder): settled, and who waits for it. */
export interface Turn {
  done: boolean;
  waiters: (() => void)[] | null;
}

/** A write of `data` into h now, or, while operations called before it run, a copy of it once they have settled. */
function afterPending<D extends ValueArray | DenseMatrix>(h: Replicated<PathVector | PathDense, unknown>, data: D, write: (d: D) => void): void {
  if (!h.pending) return write(data);
  const copy = (data instanceof DenseMatrix ? new DenseMatrix(data.rows, data.cols, data.dtype, data.values.slice()) : data.slice()) as D;
  // a handle disposed before its turn has nothing left to write (its users reject with DisposedError)
  void inOrder([h], async () => write(copy)).catch(() => undefined);
}
