import type { DType } from '../dtype.js';
import { DisposedError } from '../errors.js';
import type { CSRMatrix, DIAMatrix, ELLMatrix, HYBMatrix, SELLMatrix } from '../formats/index.js';

/** What a resident WebGPU object needs from its backend. */
export interface WebGpuOwner {
  /** destroys a buffer once no recorded work names it */
  releaseBuffer(buf: GPUBuffer): void;
  /** a resident object is born (bytes > 0) or disposed (bytes < 0) */
  track(bytes: number, obj: WebGpuVector | WebGpuMatrix): void;
}

/**
 * A vector resident in a WebGPU storage buffer (array<E>, wgsl/dt_*.wgsl). Kernels write it in place.
 *
 * Device loss: the contents live only on the GPU. When a new device is obtained the vector gets a
 * fresh buffer: zero-filled with `contentsLost = true`, unless it was made with `{ shadow: true }`
 * and has not been written since its last read() (or its creation): then the host shadow is
 * uploaded again.
 */
export class WebGpuVector {
  #buffer: GPUBuffer | null;
  /** @internal bumped by every kernel that writes the vector */
  version = 0;
  /** @internal the floats of the last read() or of the upload (shadowed vectors only) */
  shadow: Float32Array | null;
  /** @internal version the shadow belongs to */
  shadowVersion = 0;
  /** true after a device restore that could not bring the contents back (they are zero now) */
  contentsLost = false;

  /** @internal made by WebGpuBackend.vector() */
  constructor(
    private readonly owner: WebGpuOwner,
    readonly dtype: DType,
    /** elements (a complex element counts once) */
    readonly length: number,
    buffer: GPUBuffer,
    readonly bytes: number,
    shadow: Float32Array | null,
  ) {
    this.#buffer = buffer;
    this.shadow = shadow;
    owner.track(bytes, this);
  }

  /** @internal */
  get buffer(): GPUBuffer {
    if (this.#buffer === null) throw new DisposedError('WebGpuVector');
    return this.#buffer;
  }

  /** @internal a new buffer after a device restore */
  restore(buffer: GPUBuffer, contentsLost: boolean): void {
    this.#buffer = buffer;
    this.contentsLost = contentsLost;
    this.version++;
    if (!contentsLost) this.shadowVersion = this.version;
  }

  get disposed(): boolean {
    return this.#buffer === null;
  }

  dispose(): void {
    if (this.#buffer === null) return;
    this.owner.releaseBuffer(this.#buffer);
    this.#buffer = null;
    this.shadow = null;
    this.owner.track(-this.bytes, this);
  }
}

/** CSR on the GPU: row pointers, column indices (u32) and values (array<E>). */
export interface WebGpuCSRArrays {
  readonly rows: number;
  readonly rowPtr: GPUBuffer;
  readonly colIdx: GPUBuffer;
  readonly values: GPUBuffer;
}

/** CSR, one thread per row (csr_row) or `tpr` threads per row (csr_vector). */
export interface WebGpuCSRSimplePart extends WebGpuCSRArrays {
  readonly kind: 'csr_row' | 'csr_vector';
  readonly tpr: number;
}

/** CSR in blocks of balanced nonzeros (csr_adaptive); rows cut into pieces are summed by csr_fixup. */
export interface WebGpuCSRAdaptivePart extends WebGpuCSRArrays {
  readonly kind: 'csr_adaptive';
  readonly blocks: GPUBuffer;
  readonly nBlocks: number;
  readonly fix: GPUBuffer;
  readonly nFix: number;
  readonly partials: GPUBuffer;
}

export interface WebGpuELLPart {
  readonly kind: 'ell';
  readonly rows: number;
  readonly width: number;
  readonly stride: number;
  readonly colIdx: GPUBuffer;
  readonly values: GPUBuffer;
}

export interface WebGpuDIAPart {
  readonly kind: 'dia';
  readonly rows: number;
  readonly cols: number;
  readonly ndiag: number;
  readonly pitch: number;
  readonly offsets: GPUBuffer;
  readonly values: GPUBuffer;
}

/** HYB: the ELL part and the COO remainder as CSR over all rows. */
export interface WebGpuHYBPart {
  readonly kind: 'hyb';
  readonly rows: number;
  readonly ell: WebGpuELLPart;
  readonly rest: WebGpuCSRArrays;
}

/** SELL-C-σ (wgsl/sell.wgsl): slices of C rows column-major; perm maps positions to rows (unused when σ = 1). */
export interface WebGpuSELLPart {
  readonly kind: 'sell';
  readonly rows: number;
  readonly sliceHeight: number;
  readonly permuted: boolean;
  readonly slicePtr: GPUBuffer;
  readonly colIdx: GPUBuffer;
  readonly values: GPUBuffer;
  readonly perm: GPUBuffer;
}

export type WebGpuCSRPart = WebGpuCSRSimplePart | WebGpuCSRAdaptivePart | WebGpuSELLPart;
export type WebGpuPart = WebGpuCSRPart | WebGpuELLPart | WebGpuDIAPart | WebGpuHYBPart;

export interface WebGpuMatrixData {
  /** what runs op = 'N' */
  readonly main: WebGpuPart;
  /** Aᵀ as CSR, for op = 'T' / 'H' (uploaded only with { transpose: true }) */
  readonly transposed: WebGpuCSRPart | null;
  readonly buffers: readonly GPUBuffer[];
  readonly bytes: number;
}

export type HostMatrix = CSRMatrix | ELLMatrix | DIAMatrix | HYBMatrix | SELLMatrix;

/**
 * A matrix resident on the GPU; upload once, run many products. It keeps a reference to the host
 * matrix it was made from (do not modify that matrix while the WebGpuMatrix lives), so it can be
 * uploaded again on a new device after a device loss.
 */
export class WebGpuMatrix {
  #data: WebGpuMatrixData | null;
  #bytes: number;

  /** @internal made by WebGpuBackend.upload() */
  constructor(
    private readonly owner: WebGpuOwner,
    readonly dtype: DType,
    readonly rows: number,
    readonly cols: number,
    readonly nnz: number,
    readonly format: HostMatrix['format'],
    data: WebGpuMatrixData,
    /** @internal the host matrix and options, for re-upload after a device loss */
    readonly source: { matrix: HostMatrix; options: object },
  ) {
    this.#data = data;
    this.#bytes = data.bytes;
    owner.track(data.bytes, this);
  }

  /** bytes of GPU buffers this matrix holds */
  get bytes(): number {
    return this.#bytes;
  }

  /** the kernel that runs op = 'N': csr_row, csr_vector, csr_adaptive, sell, ell, dia or hyb */
  get kernel(): WebGpuPart['kind'] {
    return this.data.main.kind;
  }

  /** whether op = 'T' / 'H' can run (uploaded with { transpose: true }) */
  get hasTranspose(): boolean {
    return this.data.transposed !== null;
  }

  /** @internal */
  get data(): WebGpuMatrixData {
    if (this.#data === null) throw new DisposedError('WebGpuMatrix');
    return this.#data;
  }

  /** @internal new buffers on a new device (the backend adjusts its byte count) */
  restore(data: WebGpuMatrixData): void {
    this.#bytes = data.bytes;
    this.#data = data;
  }

  get disposed(): boolean {
    return this.#data === null;
  }

  dispose(): void {
    const d = this.#data;
    if (d === null) return;
    for (const b of d.buffers) this.owner.releaseBuffer(b);
    this.#data = null;
    this.owner.track(-this.#bytes, this);
  }
}
