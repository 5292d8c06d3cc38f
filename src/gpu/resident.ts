import type { DType } from '../dtype.js';
import { DeviceMatrix, DeviceVector } from '../device-resident.js';
import type { CSRMatrix, DIAMatrix, ELLMatrix, HYBMatrix, SELLMatrix } from '../formats/index.js';
import type { TileLayout } from './encoding.js';

/** What a resident GPU object needs from its backend. */
export interface GpuOwner {
  /** deletes a texture (or returns a ping-pong target to the pool) */
  releaseTexture(tex: WebGLTexture, layout: TileLayout | null): void;
  /** a resident object is born (bytes > 0) or disposed (bytes < 0): accounting, and dispose() of the backend */
  track(bytes: number, obj: GpuVector | GpuMatrix): void;
}

/**
 * A vector resident on the GPU: RGBA32F in the dtype's packing (encoding.ts: 4 f32, 2 c64, 2 f64
 * double-single or 1 c128 element per texel), tiled. Kernels that write it render into a second
 * texture of the same layout and swap (a texture cannot be read and written in one pass), so
 * `texture` changes from call to call; hold the GpuVector, not the texture.
 *
 * Context loss: the contents of a vector live only on the GPU and are lost with the context. When
 * the context comes back the vector gets a fresh texture: zero-filled with `contentsLost = true`,
 * unless it was made with `{ shadow: true }` and has not been written since its last read() (or its
 * creation): then the host shadow (the floats of that read) is uploaded again and nothing is lost.
 */
export class GpuVector extends DeviceVector<WebGLTexture> {
  /** @internal made by GpuBackend.vector() */
  constructor(
    private readonly owner: GpuOwner,
    dtype: DType,
    length: number,
    readonly layout: TileLayout,
    texture: WebGLTexture,
    bytes: number,
    shadow: Float32Array | null,
  ) {
    super(dtype, length, texture, bytes, shadow, 'GpuVector');
    owner.track(bytes, this);
  }

  /** @internal the current texture */
  get texture(): WebGLTexture {
    return this.handle;
  }

  /** @internal swaps in the texture just rendered; returns the previous one */
  swap(next: WebGLTexture): WebGLTexture {
    const prev = this.handle;
    this.handle = next;
    this.version++;
    return prev;
  }

  protected free(texture: WebGLTexture): void {
    this.owner.releaseTexture(texture, null);
    this.owner.track(-this.bytes, this);
  }
}

export interface GpuTexture {
  readonly texture: WebGLTexture;
  readonly layout: TileLayout;
}

/** CSR, one fragment per row group: rowPtr RGBA32I (4 per texel), colIdx R32I, values one element per texel. */
export interface GpuCSRRowPart {
  readonly kind: 'csr_row';
  readonly rows: number;
  readonly rowPtr: GpuTexture;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
}

/**
 * CSR with long rows split into segments of at most `segmentLength` entries (seed 000 kernel 2):
 * segBound (RGBA32I, segments + 1 entries) bounds the segments in the entry arrays, segPtr (RGBA32I,
 * rows + 1) gives each row its run of segments. Pass 1 sums each segment, pass 2 each row's partials.
 */
export interface GpuCSRSegmentedPart {
  readonly kind: 'csr_segmented';
  readonly rows: number;
  readonly segments: number;
  readonly segmentLength: number;
  readonly segBound: GpuTexture;
  readonly segPtr: GpuTexture;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
}

/** ELL: colIdx RGBA32I (4 slots per texel) and values RGBA32F in the dtype's packing. */
export interface GpuELLPart {
  readonly kind: 'ell';
  readonly width: number;
  readonly stride: number;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
}

/**
 * SELL-C-σ (sell.glsl): colIdx RGBA32I and values RGBA32F in the dtype's packing like ELL, each slice
 * laid out with `lanes` = C rounded up to a multiple of 4 (extra lanes are padding); slicePtr RGBA32I
 * (slices + 1 entries, in those slots). `pos` (RGBA32I, row → position in that layout) is there when
 * positions are not rows (σ > 1 or lanes ≠ C): then the product takes a second pass (sell_gather).
 */
export interface GpuSELLPart {
  readonly kind: 'sell';
  readonly lanes: number;
  /** slices × lanes: the elements of the first pass's output */
  readonly positions: number;
  readonly slicePtr: GpuTexture;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
  readonly pos: GpuTexture | null;
}

/** DIA: offsets stay on the host (they become a uniform array), data RGBA32F in the dtype's packing. */
export interface GpuDIAPart {
  readonly kind: 'dia';
  readonly offsets: Int32Array;
  readonly pitch: number;
  readonly values: GpuTexture;
}

/** HYB: the ELL part, and the COO remainder as CSR over all rows (per-row pointers, see hyb.glsl). */
export interface GpuHYBPart {
  readonly kind: 'hyb';
  readonly ell: GpuELLPart;
  readonly rest: GpuCSRRowPart;
}

export type GpuCSRPart = GpuCSRRowPart | GpuCSRSegmentedPart;
export type GpuPart = GpuCSRPart | GpuSELLPart | GpuELLPart | GpuDIAPart | GpuHYBPart;

export interface GpuMatrixData {
  /** what runs op = 'N' */
  readonly main: GpuPart;
  /** Aᵀ as CSR, for op = 'T' / 'H' (uploaded only with { transpose: true }) */
  readonly transposed: GpuCSRPart | null;
  /** every texture above */
  readonly textures: readonly GpuTexture[];
  readonly bytes: number;
}

export type HostMatrix = CSRMatrix | SELLMatrix | ELLMatrix | DIAMatrix | HYBMatrix;

/**
 * A matrix resident on the GPU; upload once, run many products. It keeps a reference to the host
 * matrix it was made from (not a copy: do not modify that matrix while the GpuMatrix lives), so it
 * can be uploaded again when a lost WebGL context is restored.
 */
export class GpuMatrix extends DeviceMatrix<GpuMatrixData, HostMatrix> {
  /** @internal made by GpuBackend.upload() */
  constructor(
    private readonly owner: GpuOwner,
    dtype: DType,
    rows: number,
    cols: number,
    nnz: number,
    format: HostMatrix['format'],
    data: GpuMatrixData,
    source: { matrix: HostMatrix; options: object },
  ) {
    super(dtype, rows, cols, nnz, format, data, source, 'GpuMatrix');
    owner.track(data.bytes, this);
  }

  protected free(data: GpuMatrixData, bytes: number): void {
    for (const t of data.textures) this.owner.releaseTexture(t.texture, null);
    this.owner.track(-bytes, this);
  }
}
