/**
 * What both GPU paths keep on the device, written once: a resident vector (a WebGL2 texture in gpu/,
 * a WebGPU buffer in webgpu/), a resident matrix, and the loss/restore callbacks of a backend. Each
 * path's resident.ts only says what its handle is and how its backend frees it. Neutral ground: both
 * paths import it, neither imports the other.
 */
import type { DType } from './dtype.js';
import { DisposedError } from './errors.js';

/**
 * A vector resident on a GPU (GpuVector, WebGpuVector). Its contents live only on the device; after a
 * loss the backend gives it a new handle, filled from restorableShadow() or zeroed (contentsLost).
 */
export abstract class DeviceVector<H> {
  #handle: H | null;
  /** @internal bumped by every kernel that writes the vector */
  version = 0;
  /** @internal the floats of the last read() or of the upload (shadowed vectors only) */
  shadow: Float32Array | null;
  /** @internal version the shadow belongs to */
  shadowVersion = 0;
  /** true after a device (context) restore that could not bring the contents back (they are zero now) */
  contentsLost = false;

  protected constructor(
    /** the element type */
    readonly dtype: DType,
    /** elements (a complex element counts once) */
    readonly length: number,
    handle: H,
    /** bytes of GPU memory this vector holds */
    readonly bytes: number,
    shadow: Float32Array | null,
    /** the class name DisposedError reports */
    private readonly what: string,
  ) {
    this.#handle = handle;
    this.shadow = shadow;
  }

  /** the current handle; DisposedError after dispose() */
  protected get handle(): H {
    if (this.#handle === null) throw new DisposedError(this.what);
    return this.#handle;
  }

  protected set handle(next: H) {
    this.#handle = next;
  }

  /** @internal a new handle after a device restore (the old one died with the device) */
  restore(handle: H, contentsLost: boolean): void {
    this.#handle = handle;
    this.contentsLost = contentsLost;
    this.version++;
    if (!contentsLost) this.shadowVersion = this.version;
  }

  /** whether dispose() was called */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /** Frees the GPU memory now; later use throws DisposedError. Idempotent. */
  dispose(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    this.shadow = null;
    this.free(h);
  }

  /** hands the handle back to the backend and untracks this vector */
  protected abstract free(handle: H): void;
}

/** The floats a vector gets back after a device loss: its shadow while no kernel wrote it since; else null (zeroed, contents lost). */
export function restorableShadow(v: DeviceVector<unknown>): Float32Array | null {
  return v.shadow !== null && v.shadowVersion === v.version ? v.shadow : null;
}

/** What a path's resident matrix data has: the part that runs op = 'N', the transpose part if any, its bytes. */
export interface DeviceMatrixData {
  readonly main: { readonly kind: string };
  readonly transposed: unknown;
  readonly bytes: number;
}

/**
 * A matrix resident on a GPU (GpuMatrix, WebGpuMatrix); upload once, run many products. It keeps a
 * reference to the host matrix it was made from (not a copy: do not modify that matrix while it
 * lives), so it can be uploaded again after a device loss.
 */
export abstract class DeviceMatrix<Data extends DeviceMatrixData, Host extends { readonly format: string }> {
  #data: Data | null;
  #bytes: number;

  protected constructor(
    /** the element type */
    readonly dtype: DType,
    /** rows of the matrix */
    readonly rows: number,
    /** columns of the matrix */
    readonly cols: number,
    /** stored entries of the host matrix */
    readonly nnz: number,
    /** the host matrix's format */
    readonly format: Host['format'],
    data: Data,
    /** @internal the host matrix and options, for re-upload after a device loss */
    readonly source: { matrix: Host; options: object },
    /** the class name DisposedError reports */
    private readonly what: string,
  ) {
    this.#data = data;
    this.#bytes = data.bytes;
  }

  /** bytes of GPU memory this matrix holds (padding included) */
  get bytes(): number {
    return this.#bytes;
  }

  /** the kernel that runs op = 'N' (WebGL2: csr_row, csr_segmented, sell, ell, dia, hyb; WebGPU: csr_row, csr_vector, csr_adaptive, sell, ell, dia, hyb) */
  get kernel(): Data['main']['kind'] {
    return this.data.main.kind;
  }

  /** whether op = 'T' / 'H' can run (uploaded with { transpose: true }) */
  get hasTranspose(): boolean {
    return this.data.transposed !== null;
  }

  /** @internal the device objects */
  get data(): Data {
    if (this.#data === null) throw new DisposedError(this.what);
    return this.#data;
  }

  /** @internal new device objects after a restore (the backend adjusts its byte count) */
  restore(data: Data): void {
    this.#bytes = data.bytes;
    this.#data = data;
  }

  /** whether dispose() was called */
  get disposed(): boolean {
    return this.#data === null;
  }

  /** Frees the GPU memory now; later use throws DisposedError. Idempotent. */
  dispose(): void {
    const d = this.#data;
    if (d === null) return;
    this.#data = null;
    this.free(d, this.#bytes);
  }

  /** hands the device objects back to the backend and untracks `bytes` */
  protected abstract free(data: Data, bytes: number): void;
}

/** A backend's loss and restore callbacks; one that throws is logged and the others still run. */
export class LossHooks {
  readonly #lost = new Set<() => void>();
  readonly #restored = new Set<() => void>();

  /** adds a loss callback; returns its unsubscribe function */
  onLost(cb: () => void): () => void {
    return subscribe(this.#lost, cb);
  }

  /** adds a restore callback; returns its unsubscribe function */
  onRestored(cb: () => void): () => void {
    return subscribe(this.#restored, cb);
  }

  /** runs the loss callbacks */
  lost(): void {
    callAll(this.#lost, 'onContextLost');
  }

  /** runs the restore callbacks */
  restored(): void {
    callAll(this.#restored, 'onContextRestored');
  }
}

function subscribe(set: Set<() => void>, cb: () => void): () => void {
  set.add(cb);
  return () => set.delete(cb);
}

function callAll(set: Set<() => void>, what: string): void {
  for (const cb of [...set]) {
    try {
      cb();
    } catch (x) {
      console.error(`simdgl: an ${what} callback threw`, x);
    }
  }
}
