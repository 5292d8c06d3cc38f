/**
 * Dense matrices on the WebGPU path: a WebGpuDense is one storage buffer, row-major array<E>
 * (wgsl/dt_*.wgsl; f64 and c128 as double-single). Kernels: gemm tiled through workgroup memory
 * (64×64 tiles of C per 16×16 workgroup, 4×4 per thread, K in steps of 8; wgsl/gemm.wgsl), add
 * (elementwise), transpose through 16×16 shared-memory tiles. Every dtype runs every kernel. An
 * operand that is also the output is read from a scratch copy (engine.ts), so gemm(A, A, A) is fine.
 * Limits: rows·cols elements within maxStorageBufferBindingSize; gemm and transpose grids within
 * 65,535 workgroups a side (4.19 M rows or columns).
 *
 * Device loss: on a new device every live WebGpuDense gets a new buffer: the host DenseMatrix it was
 * uploaded from again when it has not been written since (do not modify that matrix while the
 * WebGpuDense lives), zeros with contentsLost = true otherwise.
 */
import { isComplex, toComplex, type DType, type Scalar } from '../dtype.js';
import { DisposedError, ShapeError, UnsupportedError } from '../errors.js';
import { DenseMatrix } from '../formats/dense.js';
import type { Engine } from './engine.js';
import { decodeValues, encodeScalar, floatsPerElement, isZeroScalar, streamBytes, writeStream } from './encoding.js';

export interface WebGpuGemmOptions {
  /** default 1 */
  alpha?: Scalar;
  /** default 0: C is then not read */
  beta?: Scalar;
}

export interface WebGpuAddOptions {
  /** default 1; 0: A is not read */
  alpha?: Scalar;
  /** default 1; 0: B is not read */
  beta?: Scalar;
}

export interface WebGpuTransposeOptions {
  /** conjugate too (Aᴴ) for complex data */
  conj?: boolean;
}

/** What the dense kernels need from the backend. */
export interface DenseHost {
  readonly engine: Engine;
  readonly bindingLimit: number;
  live(): void;
  track(bytes: number, obj: WebGpuDense): void;
}

export class WebGpuDense {
  #buffer: GPUBuffer | null;
  /** @internal bumped by every kernel that writes it */
  version = 0;
  /** true after a device restore that could not bring the contents back */
  contentsLost = false;

  /** @internal */
  constructor(
    private readonly host: DenseHost,
    readonly dtype: DType,
    readonly rows: number,
    readonly cols: number,
    buffer: GPUBuffer,
    /** @internal the host matrix it was uploaded from (null: made zero) */
    readonly source: DenseMatrix | null,
  ) {
    this.#buffer = buffer;
    host.track(buffer.size, this);
  }

  /** bytes of the buffer */
  get bytes(): number {
    return this.buffer.size;
  }

  /** @internal */
  get buffer(): GPUBuffer {
    if (this.#buffer === null) throw new DisposedError('WebGpuDense');
    return this.#buffer;
  }

  /** @internal after a device restore */
  restore(buffer: GPUBuffer, contentsLost: boolean): void {
    this.#buffer = buffer;
    this.contentsLost = contentsLost;
  }

  get disposed(): boolean {
    return this.#buffer === null;
  }

  dispose(): void {
    if (this.#buffer === null) return;
    this.host.engine.release(this.#buffer);
    this.host.track(-this.#buffer.size, this);
    this.#buffer = null;
  }
}

function bytesOf(dt: DType, rows: number, cols: number): number {
  return rows * cols * floatsPerElement(dt) * 4;
}

/** A's values encoded straight into a new buffer's mapped range. */
function encodedBuffer(h: DenseHost, what: string, A: DenseMatrix, limit: number): GPUBuffer {
  return h.engine.filledBuffer(what, streamBytes(A.dtype, A.values.length), limit, (m) => writeStream(A.dtype, A.values, m, false));
}

export function uploadDense(h: DenseHost, A: DenseMatrix): WebGpuDense {
  h.live();
  A.validate();
  const buf = encodedBuffer(h, `a ${A.rows}×${A.cols} ${A.dtype} dense matrix`, A, h.bindingLimit);
  return new WebGpuDense(h, A.dtype, A.rows, A.cols, buf, A);
}

export function denseMatrix(h: DenseHost, dtype: DType, rows: number, cols: number): WebGpuDense {
  h.live();
  for (const [name, v] of [['rows', rows], ['cols', cols]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new ShapeError(`WebGPU dense matrix: ${name} = ${v} must be a nonnegative integer`);
  }
  const buf = h.engine.buffer(`a ${rows}×${cols} ${dtype} dense matrix`, bytesOf(dtype, rows, cols), h.bindingLimit);
  return new WebGpuDense(h, dtype, rows, cols, buf, null);
}

/** A buffer for `A` on a new device (see the file comment). */
export function restoreDense(h: DenseHost, A: WebGpuDense): void {
  const keep = A.source !== null && A.version === 0;
  const what = `a ${A.rows}×${A.cols} ${A.dtype} dense matrix`;
  const buf = keep ? encodedBuffer(h, what, A.source!, Infinity) : h.engine.buffer(what, bytesOf(A.dtype, A.rows, A.cols), Infinity);
  A.restore(buf, !keep);
}

export async function readDense(h: DenseHost, A: WebGpuDense): Promise<DenseMatrix> {
  h.live();
  check(h, 'readDense', A);
  const comps = A.rows * A.cols * (isComplex(A.dtype) ? 2 : 1);
  const floats = new Float32Array(await h.engine.read(A.buffer, bytesOf(A.dtype, A.rows, A.cols)));
  const values = decodeValues(A.dtype, floats, comps);
  return new DenseMatrix(A.rows, A.cols, A.dtype, values);
}

function check(h: DenseHost, where: string, ...ms: WebGpuDense[]): void {
  for (const m of ms) {
    if (m.disposed) throw new DisposedError('WebGpuDense');
    if ((m as unknown as { host: DenseHost }).host !== h) throw new UnsupportedError(`WebGPU ${where}: a matrix of another WebGpuBackend`);
    if (m.dtype !== ms[0].dtype) throw new UnsupportedError(`WebGPU ${where}: dtypes ${ms.map((x) => x.dtype).join(', ')} differ`);
  }
}

function scalar(dt: DType, s: Scalar, name: string): { enc: Float32Array; zero: boolean } {
  const [re, im] = toComplex(s);
  if (im !== 0 && !isComplex(dt)) throw new UnsupportedError(`WebGPU path: ${name} has imaginary part ${im}, but the data is ${dt}`);
  return { enc: encodeScalar(dt, re, im), zero: isZeroScalar(dt, re, im) };
}

export function gemm(h: DenseHost, A: WebGpuDense, B: WebGpuDense, C: WebGpuDense, opts: WebGpuGemmOptions = {}): void {
  h.live();
  check(h, 'gemm', A, B, C);
  if (A.cols !== B.rows || C.rows !== A.rows || C.cols !== B.cols) {
    throw new ShapeError(`WebGPU gemm: A ${A.rows}×${A.cols} · B ${B.rows}×${B.cols} into C ${C.rows}×${C.cols}`);
  }
  const alpha = scalar(A.dtype, opts.alpha ?? 1, 'alpha');
  const beta = scalar(A.dtype, opts.beta ?? 0, 'beta');
  h.engine.dispatch('gemm', A.dtype, [Math.ceil(C.cols / 64), Math.ceil(C.rows / 64)], { n: A.rows, k: A.cols, m: B.cols, alpha: alpha.enc, beta: beta.enc, useBeta: !beta.zero }, [
    { binding: 1, buffer: A.buffer },
    { binding: 2, buffer: B.buffer },
    { binding: 3, buffer: C.buffer, write: true },
  ]);
  C.version++;
}

export function add(h: DenseHost, A: WebGpuDense, B: WebGpuDense, C: WebGpuDense, opts: WebGpuAddOptions = {}): void {
  h.live();
  check(h, 'add', A, B, C);
  if (A.rows !== B.rows || A.cols !== B.cols || C.rows !== A.rows || C.cols !== A.cols) {
    throw new ShapeError(`WebGPU add: A ${A.rows}×${A.cols} + B ${B.rows}×${B.cols} into C ${C.rows}×${C.cols}`);
  }
  const alpha = scalar(A.dtype, opts.alpha ?? 1, 'alpha');
  const beta = scalar(A.dtype, opts.beta ?? 1, 'beta');
  const n = A.rows * A.cols;
  h.engine.dispatch('add', A.dtype, Math.ceil(n / 256), { n, w: alpha.zero ? 0 : 1, alpha: alpha.enc, beta: beta.enc, useBeta: !beta.zero }, [
    { binding: 1, buffer: A.buffer },
    { binding: 2, buffer: B.buffer },
    { binding: 3, buffer: C.buffer, write: true },
  ]);
  C.version++;
}

export function transpose(h: DenseHost, A: WebGpuDense, B: WebGpuDense, opts: WebGpuTransposeOptions = {}): void {
  h.live();
  check(h, 'transpose', A, B);
  if (B.rows !== A.cols || B.cols !== A.rows) throw new ShapeError(`WebGPU transpose: A ${A.rows}×${A.cols} into B ${B.rows}×${B.cols}`);
  h.engine.dispatch('transpose', A.dtype, [Math.ceil(A.cols / 16), Math.ceil(A.rows / 16)], { n: A.rows, m: A.cols, conj: opts.conj && isComplex(A.dtype) ? -1 : 1 }, [
    { binding: 1, buffer: A.buffer },
    { binding: 2, buffer: B.buffer, write: true },
  ]);
  B.version++;
}
