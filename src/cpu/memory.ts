import { MemoryLimitError, DisposedError } from '../errors.js';
import { releaseMemory, reserveMemory, withMemoryBudget } from '../memory-budget.js';

const PAGE = 65536;
const ALIGN = 16;
/** Page 0 is left to the AssemblyScript module's own static data; our regions start above it. */
const HEAP_BASE = PAGE;
/** wasm32 addresses: the module declares 65536 pages (4 GiB) as its maximum. */
export const MAX_PAGES = 65536;

export type TypedArrayKind = 'f32' | 'f64' | 'i32' | 'i16' | 'u8';
type ArrayOf<K extends TypedArrayKind> = K extends 'f32'
  ? Float32Array
  : K extends 'f64'
    ? Float64Array
    : K extends 'i32'
      ? Int32Array
      : K extends 'i16'
        ? Int16Array
        : Uint8Array;
const CTOR = { f32: Float32Array, f64: Float64Array, i32: Int32Array, i16: Int16Array, u8: Uint8Array } as const;
const BYTES = { f32: 4, f64: 8, i32: 4, i16: 2, u8: 1 } as const;

/**
 * A region of the runtime's WebAssembly memory: 16-byte aligned, `bytes` long. `view()` returns a
 * typed array over it, re-created when the memory has grown (growth detaches or replaces the buffer).
 */
export class Region {
  constructor(
    private readonly heap: WasmHeap,
    readonly ptr: number,
    readonly bytes: number,
  ) {}
  private disposed = false;
  /** bytes at the region's end that nothing had written when it was handed out (CpuBackend.prefault reads it) */
  unwritten = 0;
  view<K extends TypedArrayKind>(kind: K, length = Math.floor(this.bytes / BYTES[kind])): ArrayOf<K> {
    if (this.disposed) throw new DisposedError('memory region');
    return new CTOR[kind](this.heap.memory.buffer, this.ptr, length) as ArrayOf<K>;
  }
  /** freed, or its runtime disposed (rt.dispose() releases everything, a kept factor's region too) */
  get isDisposed(): boolean {
    return this.disposed || this.heap.closed;
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.heap.free(this);
  }
}

/**
 * Frees a region an operation allocated as a temporary and gives its bytes back to the operation's
 * memory budget (alloc counted them), so the count follows what the operation still holds.
 */
export function freeTemporary(r: Region): void {
  r.dispose();
  releaseMemory(r.bytes);
}

/** `src` copied into the heap's memory from byte address `at` (a multiple of 4). */
export function putI32(heap: WasmHeap, at: number, src: ArrayLike<number>): void {
  heap.words.i32.set(src, at >> 2);
}

/** `src` copied into the heap's memory from byte address `at` (a multiple of 8). */
export function putF64(heap: WasmHeap, at: number, src: ArrayLike<number>): void {
  heap.words.f64.set(src, at >> 3);
}

/** A copy of `length` i32 words of the heap's memory from byte address `at` (a multiple of 4). */
export function copyI32(heap: WasmHeap, at: number, length: number): Int32Array {
  return heap.words.i32.slice(at >> 2, (at >> 2) + length);
}

/** A copy of `length` f64 of the heap's memory from byte address `at` (a multiple of 8). */
export function copyF64(heap: WasmHeap, at: number, length: number): Float64Array {
  return heap.words.f64.slice(at >> 3, (at >> 3) + length);
}

/** Byte offsets of 16-byte aligned pieces laid out one after another, and their total. */
export class Layout {
  bytes = 0;
  place(b: number): number {
    const at = this.bytes;
    this.bytes += Math.ceil(b / 16) * 16;
    return at;
  }
  /** The offsets of `sizes` placed in turn, and the bytes they take. */
  static of(sizes: number[]): { at: number[]; bytes: number } {
    const l = new Layout();
    const at = sizes.map((s) => l.place(s));
    return { at, bytes: l.bytes };
  }
}

/**
 * A small first-fit allocator over one WebAssembly.Memory, with coalescing of free neighbours.
 * Kernels never allocate; everything they touch lives in regions handed out here.
 */
export class WasmHeap {
  readonly memory: WebAssembly.Memory;
  readonly shared: boolean;
  readonly maxPages: number;
  /** Free blocks sorted by address: [ptr, bytes]. */
  private freeList: Array<[number, number]> = [];
  private top = HEAP_BASE;
  private live = 0;
  /** while an operation runs (hold() > release()), freed regions wait here: workers may still use them */
  private holds = 0;
  private deferred: Region[] = [];

  constructor(options: { shared: boolean; initialPages?: number; maxPages?: number }) {
    this.shared = options.shared;
    this.maxPages = Math.min(options.maxPages ?? 32768, MAX_PAGES);
    const initial = Math.max(2, options.initialPages ?? 16);
    // A shared memory must declare a maximum; an unshared one gets it too so limits behave alike.
    this.memory = new WebAssembly.Memory({ initial, maximum: this.maxPages, shared: options.shared } as WebAssembly.MemoryDescriptor);
  }

  /** The memory budget in MiB: the most the memory may grow to. */
  get budgetMB(): number {
    return (this.maxPages * PAGE) / 1048576;
  }

  /** Bytes handed out and not yet freed. */
  get liveBytes(): number {
    return this.live;
  }

  /** set by the backend's dispose(): nothing is allocated after it, and every region reads as disposed */
  closed = false;
  /** the end of the highest region ever handed out: nothing has written the memory above it */
  private written = HEAP_BASE;

  private whole: { i32: Int32Array; f64: Float64Array } | null = null;
  /**
   * Int32Array and Float64Array views of the whole memory (index = byte address / 4 or / 8), made again
   * after it grows (only ensure() grows it): copies in and out of regions through them, not through a
   * fresh view each (a view of a shared memory costs ≈ 0.6 µs, a measurable part of a small direct
   * solve's dozens). Read after the allocations a copy follows: an allocation may grow the memory.
   */
  get words(): { i32: Int32Array; f64: Float64Array } {
    if (!this.whole) {
      const buffer = this.memory.buffer;
      this.whole = { i32: new Int32Array(buffer), f64: new Float64Array(buffer) };
    }
    return this.whole;
  }

  alloc(bytes: number): Region {
    if (this.closed) throw new DisposedError('runtime');
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`cannot allocate ${bytes} bytes`);
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    // one budget with the JS side: inside an operation's scope (an upload) this counts toward it
    withMemoryBudget(this.budgetMB, () => reserveMemory(size, 'WebAssembly memory'));
    try {
      return this.place(size);
    } catch (e) {
      // what the runtime keeps only for speed (rt.solve's set-ups kept with their matrices) freed, and
      // the region placed again, where the memory could not grow
      if (!(e instanceof MemoryLimitError) || !this.relieve) throw e;
      const live = this.live;
      this.relieve();
      if (this.live === live) throw e;
      return this.place(size);
    }
  }

  /**
   * Set by the runtime: frees what it keeps only for speed (src/runtime/kept-setup.ts) when the memory
   * cannot grow for a region; what is in use by a running operation stays.
   */
  relieve: (() => void) | null = null;

  /** A region of `size` bytes (a multiple of ALIGN, counted against the budget) from the free list, else above the top. */
  private place(size: number): Region {
    for (let i = 0; i < this.freeList.length; i++) {
      const [ptr, len] = this.freeList[i];
      if (len >= size) {
        if (len === size) this.freeList.splice(i, 1);
        else this.freeList[i] = [ptr + size, len - size];
        this.live += size;
        return new Region(this, ptr, size);
      }
    }
    const ptr = this.top;
    this.ensure(ptr + size);
    this.top = ptr + size;
    this.live += size;
    const r = new Region(this, ptr, size);
    if (this.top > this.written) {
      r.unwritten = this.top - Math.max(ptr, this.written);
      this.written = this.top;
    }
    return r;
  }

  /** `use` run over a temporary region of `bytes`, freed with freeTemporary however it ends. */
  temporary<T>(bytes: number, use: (r: Region) => T): T {
    const r = this.alloc(bytes);
    try {
      return use(r);
    } finally {
      freeTemporary(r);
    }
  }

  /** A region holding a copy of `src`. */
  allocCopy(src: Float32Array | Float64Array | Int32Array | Int16Array | Uint8Array): Region {
    const r = this.alloc(src.byteLength);
    new Uint8Array(this.memory.buffer, r.ptr, src.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    return r;
  }

  /** Defers the reuse of freed regions until the matching release(). */
  hold(): void {
    this.holds++;
  }

  release(): void {
    if (--this.holds > 0) return;
    const d = this.deferred;
    this.deferred = [];
    for (const r of d) this.free(r);
  }

  /** Called by Region.dispose. */
  free(region: Region): void {
    if (this.holds > 0) {
      this.deferred.push(region);
      return;
    }
    const size = Math.max(ALIGN, Math.ceil(region.bytes / ALIGN) * ALIGN);
    this.live -= size;
    let ptr = region.ptr;
    let len = size;
    const list = this.freeList;
    let i = 0;
    while (i < list.length && list[i][0] < ptr) i++;
    // merge with the previous and next free block when adjacent
    if (i > 0 && list[i - 1][0] + list[i - 1][1] === ptr) {
      ptr = list[i - 1][0];
      len += list[i - 1][1];
      list.splice(--i, 1);
    }
    if (i < list.length && ptr + len === list[i][0]) {
      len += list[i][1];
      list.splice(i, 1);
    }
    if (ptr + len === this.top) this.top = ptr;
    else list.splice(i, 0, [ptr, len]);
  }

  private ensure(end: number): void {
    const have = this.memory.buffer.byteLength;
    if (end <= have) return;
    const needPages = Math.ceil(end / PAGE);
    if (needPages > this.maxPages) {
      throw new MemoryLimitError(
        end - have,
        // what is alive counts: kept factorizations, matrices and vectors nobody disposed hold their
        // memory until the garbage collector happens to free them
        `WebAssembly memory cannot grow to ${needPages} pages (${fmtMiB(needPages * PAGE)}): the limit is ${this.maxPages} pages (${fmtMiB(this.maxPages * PAGE)}), ` +
          `and ${fmtMiB(this.live)} of it is held by live matrices, vectors and kept factorizations; dispose() those no longer needed, or raise createRuntime({ maxMemoryMB })` +
          (this.relieve ? " (the set-ups rt.solve keeps with its matrices were freed first, where no solve was using them)" : ''),
      );
    }
    // grow geometrically to keep the number of grow calls (and view refreshes) small
    const target = Math.min(this.maxPages, Math.max(needPages, Math.ceil((have / PAGE) * 1.5)));
    this.whole = null;
    try {
      this.memory.grow(target - have / PAGE);
    } catch {
      try {
        this.memory.grow(needPages - have / PAGE);
      } catch (e) {
        throw new MemoryLimitError(end - have, `WebAssembly memory could not grow to ${fmtMiB(needPages * PAGE)}: ${(e as Error).message}`);
      }
    }
  }
}

function fmtMiB(bytes: number): string {
  return `${(bytes / 1048576).toFixed(0)} MiB`;
}
