import type { DType } from '../dtype.js';
import { DisposedError } from '../errors.js';
import type { TileLayout } from './encoding.js';

/** What a resident GPU object needs from its backend. */
export interface GpuOwner {
  /** deletes a texture (or returns a ping-pong target to the pool) */
  releaseTexture(tex: WebGLTexture, layout: TileLayout | null): void;
  /** a resident object is born (bytes > 0) or disposed (bytes < 0): accounting, and dispose() of the backend */
  track(bytes: number, obj: GpuVector | GpuMatrix): void;
}

/**
 * A vector resident on the GPU: RGBA32F, four elements per texel, tiled (see encoding.ts). Kernels
 * that write it render into a second texture of the same layout and swap (a texture cannot be read and
 * written in one pass), so `texture` changes from call to call; hold the GpuVector, not the texture.
 */
export class GpuVector {
  #texture: WebGLTexture | null;

  /** @internal made by GpuBackend.vector() */
  constructor(
    private readonly owner: GpuOwner,
    readonly dtype: DType,
    readonly length: number,
    readonly layout: TileLayout,
    texture: WebGLTexture,
    readonly bytes: number,
  ) {
    this.#texture = texture;
    owner.track(bytes, this);
  }

  /** @internal the current texture */
  get texture(): WebGLTexture {
    if (this.#texture === null) throw new DisposedError('GpuVector');
    return this.#texture;
  }

  /** @internal swaps in the texture just rendered; returns the previous one */
  swap(next: WebGLTexture): WebGLTexture {
    const prev = this.texture;
    this.#texture = next;
    return prev;
  }

  get disposed(): boolean {
    return this.#texture === null;
  }

  dispose(): void {
    if (this.#texture === null) return;
    this.owner.releaseTexture(this.#texture, null);
    this.#texture = null;
    this.owner.track(-this.bytes, this);
  }
}

export interface GpuTexture {
  readonly texture: WebGLTexture;
  readonly layout: TileLayout;
}

/** CSR on the GPU: rowPtr RGBA32I (4 per texel), colIdx R32I and values R32F (1 per texel). */
export interface GpuCSRData {
  readonly format: 'csr';
  readonly rowPtr: GpuTexture;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
}

/** ELL on the GPU: colIdx RGBA32I and values RGBA32F, 4 slots (4 consecutive rows) per texel. */
export interface GpuELLData {
  readonly format: 'ell';
  readonly width: number;
  readonly stride: number;
  readonly colIdx: GpuTexture;
  readonly values: GpuTexture;
}

export type GpuMatrixData = GpuCSRData | GpuELLData;

/** A matrix resident on the GPU; upload once, run many products. */
export class GpuMatrix {
  #data: GpuMatrixData | null;

  /** @internal made by GpuBackend.upload() */
  constructor(
    private readonly owner: GpuOwner,
    readonly dtype: DType,
    readonly rows: number,
    readonly cols: number,
    readonly nnz: number,
    data: GpuMatrixData,
    /** bytes of GPU texture memory this matrix holds (padding included) */
    readonly bytes: number,
  ) {
    this.#data = data;
    owner.track(bytes, this);
  }

  get format(): GpuMatrixData['format'] {
    return this.data.format;
  }

  /** @internal the textures */
  get data(): GpuMatrixData {
    if (this.#data === null) throw new DisposedError('GpuMatrix');
    return this.#data;
  }

  get disposed(): boolean {
    return this.#data === null;
  }

  dispose(): void {
    const d = this.#data;
    if (d === null) return;
    for (const t of d.format === 'csr' ? [d.rowPtr, d.colIdx, d.values] : [d.colIdx, d.values]) this.owner.releaseTexture(t.texture, null);
    this.#data = null;
    this.owner.track(-this.bytes, this);
  }
}
