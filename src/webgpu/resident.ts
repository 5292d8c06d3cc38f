import type { DType } from '../dtype.js';
import { DeviceMatrix, DeviceVector } from '../device-resident.js';
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
 *
 * A vector over a caller's buffer (WebGpuBackend.wrapBuffer) does not own it: dispose() only lets go.
 */
export class WebGpuVector extends DeviceVector<GPUBuffer> {
  /** @internal made by WebGpuBackend.vector() or wrapBuffer() (owned = false: the caller's buffer, never destroyed here) */
  constructor(
    private readonly owner: WebGpuOwner,
    dtype: DType,
    length: number,
    buffer: GPUBuffer,
    bytes: number,
    shadow: Float32Array | null,
    /** @internal */
    public owned = true,
  ) {
    super(dtype, length, buffer, bytes, shadow, 'WebGpuVector');
    owner.track(bytes, this);
  }

  /** @internal */
  get buffer(): GPUBuffer {
    return this.handle;
  }

  protected free(buffer: GPUBuffer): void {
    if (this.owned) this.owner.releaseBuffer(buffer);
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
  /** array<E>, array<f32> when `compact`, bytes when `int8` */
  readonly values: GPUBuffer;
  /** real f64 values all exactly f32, stored as f32 and widened by the kernel (wgsl/dia_compact.wgsl) */
  readonly compact: boolean;
  /** compact values that are all integers in [-128, 127], stored one byte each (array<u32>, four a word; wgsl/dia_i8.wgsl) */
  readonly int8: boolean;
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
export class WebGpuMatrix extends DeviceMatrix<WebGpuMatrixData, HostMatrix> {
  /** @internal made by WebGpuBackend.upload() */
  constructor(
    private readonly owner: WebGpuOwner,
    dtype: DType,
    rows: number,
    cols: number,
    nnz: number,
    format: HostMatrix['format'],
    data: WebGpuMatrixData,
    source: { matrix: HostMatrix; options: object },
  ) {
    super(dtype, rows, cols, nnz, format, data, source, 'WebGpuMatrix');
    owner.track(data.bytes, this);
  }

  protected free(data: WebGpuMatrixData, bytes: number): void {
    for (const b of data.buffers) this.owner.releaseBuffer(b);
    this.owner.track(-bytes, this);
  }
}
