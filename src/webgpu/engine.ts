/**
 * The WebGPU plumbing under the backend: buffers, the pipeline cache, the parameter block of each
 * dispatch, batching, read-back and GPU timestamps.
 *
 * Batching. dispatch() and copy() only record; flush() (called by every read, by kernelTime, and
 * every MAX_PENDING records) writes the parameter blocks of the whole batch with one
 * queue.writeBuffer into one uniform buffer (one 256-byte slot per dispatch), encodes every record
 * into one command encoder — consecutive dispatches share one compute pass (each dispatch is its own
 * synchronisation scope there, so they see each other's writes) — and submits once. The queue is
 * waited on only by reads (mapAsync). Bind groups are cached by pipeline, slot and buffers, so an
 * iterative solver that repeats one sequence of calls creates none after its first iteration. A
 * buffer the engine destroys takes the bind groups that name it out of the cache, and only those (it
 * used to be the whole cache: one buffer destroyed, every dispatch's bind group made again, 30–50 ms
 * of a 2 M-row solve's host time on an H100 host); past bindGroupsKept the least recently used go.
 *
 * Aliasing. WebGPU forbids binding one buffer both read-only and writable in a dispatch; a read
 * binding whose buffer is also bound for writing is copied to a scratch buffer first (y = A·y,
 * gemm(A, A, A), axpy(x, x)).
 *
 * Buffers given back with release() are destroyed after the next submit (a recorded dispatch may
 * still name them). A read copies into a mappable staging buffer that is kept, unmapped, for the next
 * read of its size (STAGING_KEPT at most): making one cost more than the copy itself. Likewise a large
 * write() goes through a kept MAP_WRITE buffer, mapped again as soon as its copy is submitted, so the
 * next write of its size is a memcpy into it (queue.writeBuffer makes Dawn allocate a staging buffer
 * for every write beyond its 4 MB ring: 16 MB cost ≈ 15 ms of host time on an H100 host).
 *
 * Shared buffers (share(): a caller's buffer a vector wraps, or a vector's buffer handed out) are
 * submitted as soon as a record names them: other code on the device's queue (TF.js, ONNX Runtime)
 * then sees work in call order — what it submits after a simdgl call returns runs after that call's
 * kernels, and a buffer it recycles afterwards is no longer read by work still waiting here.
 */
import { DisposedError } from '../errors.js';
import type { DType } from '../dtype.js';
import { WebGpuDeviceLostError, WebGpuLimitError } from './errors.js';
import type * as wgsl from './wgsl.generated.js';
import { wgslSources } from './shader-source.js';

/** GPUBufferUsage / GPUMapMode values (the spec's numbers; the globals are missing in Node). */
export const USAGE = { MAP_READ: 1, MAP_WRITE: 2, COPY_SRC: 4, COPY_DST: 8, UNIFORM: 64, STORAGE: 128, QUERY_RESOLVE: 512 } as const;
const MAP_READ_MODE = 1;
const MAP_WRITE_MODE = 2;

export type KernelName = (typeof wgsl.KERNEL_NAMES)[number];

/** One dispatch's parameters (wgsl/common.wgsl, struct Params). */
export interface Params {
  n?: number;
  m?: number;
  k?: number;
  w?: number;
  alpha?: Float32Array;
  beta?: Float32Array;
  conj?: number;
  useBeta?: boolean;
  /** a kernel's flags in use_beta's slot, where it has no beta step (wgsl/spmv_cheb.wgsl) */
  flags?: number;
}

export interface Binding {
  binding: number;
  buffer: GPUBuffer;
  /** the kernel writes it */
  write?: boolean;
}

interface DispatchRecord {
  kind: 'dispatch';
  pipeline: GPUComputePipeline;
  key: string;
  bindings: Binding[];
  slot: number;
  grid: [number, number, number];
}

interface CopyRecord {
  kind: 'copy';
  src: GPUBuffer;
  dst: GPUBuffer;
  bytes: number;
  srcOffset?: number;
  dstOffset?: number;
}

/**
 * One buffer's contents for Engine.stream(): `bytes` (a multiple of 4) written piece by piece;
 * `fill(mapped, at, from, len)` writes bytes [from, from + len) of the contents into `mapped` at byte
 * `at` (from and at multiples of 16).
 */
export interface StreamJob {
  dst: GPUBuffer;
  bytes: number;
  fill(mapped: ArrayBuffer, at: number, from: number, len: number): void;
}

interface ClearRecord {
  kind: 'clear';
  dst: GPUBuffer;
  bytes: number;
}

const PARAM_BYTES = 64;

/** Workgroups of a reduction's first pass at most (a second pass sums their partials). */
export const REDUCE_GROUPS = 1024;
/** Elements per thread of a reduction's first pass (fewer workgroups: fewer barrier rounds). */
const REDUCE_ITEMS = 8;

/** The workgroups (of 256 threads) of the first pass of a reduction over n elements (dot.wgsl, cg_update.wgsl). */
export function reduceGroups(n: number): number {
  return Math.max(1, Math.min(REDUCE_GROUPS, Math.ceil(n / (256 * REDUCE_ITEMS))));
}
const MAX_PENDING = 512;
/** Staging buffers read() keeps for later reads (a solve reads a few sizes: its blocks, scalars, x). */
const STAGING_KEPT = 8;
/** From this size on, write() goes through a kept mapped buffer (below it Dawn's ring buffer serves). */
const MAPPED_WRITE_FROM = 1 << 20;
/** Mapped upload buffers write() keeps (a solve writes one size: b). */
const UPLOADS_KEPT = 2;
/** Small solver buffers (a resident solve's state and partial sums) kept for the next solve. */
const SMALL_KEPT = 8;
const MAX_GROUPS = 65535;
const DS_SPLIT = 8193;

export interface EngineStats {
  dispatches: number;
  submits: number;
  uploads: number;
  uploadBytes: number;
  readbacks: number;
  /** bind groups made (the cache's misses) */
  bindGroups: number;
}

/** Kernels that use subgroup operations: their source starts with `enable subgroups;`. */
const SUBGROUP_KERNELS: ReadonlySet<string> = new Set(['csr_vector_sg']);

export class Engine {
  readonly slotBytes: number;
  /** subgroup size every subgroup has at least; 0 when the device has no 'subgroups' (set by the backend) */
  subgroupSize = 0;
  /**
   * Workgroups of a fused SpMV + dot at most (spmv.ts; each strides over its rows): about one wave of
   * 128-thread workgroups on a large GPU (H100: 132 SMs × 16), few enough partials for the one
   * workgroup of the scalar kernel to sum fast. Lowered for tests by the backend's maxDotGroups.
   */
  dotGroups = 2048;
  /**
   * Bytes of each staging buffer of stream(): large enough that a round trip (unmap, copy, map again)
   * per buffer costs little, small enough that the fresh pinned memory a first stream touches is few
   * MB (a 300 MB mappedAtCreation upload spent ≈ 230 ms of an H100 host in Dawn's createBuffer).
   * Lowered for tests by the backend's stagingBytes.
   */
  streamBytes = 16 << 20;
  /** Mapped staging buffers stream() keeps (one filled while the others' copies run). */
  streamBuffers = 2;
  /** Bind groups the cache keeps at most, the least recently used dropped first (a solve's blocks use a few hundred); lowered for tests. */
  bindGroupsKept = 4096;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  /** shader modules by kernel and dtype */
  private readonly modules = new Map<string, GPUShaderModule>();
  /** pipelines prewarm() is making, by key: each settles when Dawn answers (or the engine is abandoned) */
  private readonly compiling = new Map<string, { settled: Promise<void>; settle: () => void }>();
  /** by pipeline, slot and buffers; the least recently used first */
  private readonly bindGroups = new Map<string, { group: GPUBindGroup; ids: number[] }>();
  /** the keys of bindGroups that name each buffer (by idOf), so a destroyed one's go with it */
  private readonly bindGroupsOf = new Map<number, Set<string>>();
  private readonly ids = new WeakMap<GPUBuffer, number>();
  private nextId = 1;
  private records: (DispatchRecord | CopyRecord | ClearRecord)[] = [];
  private params: ArrayBuffer;
  private slots = 0;
  /** the batch's slots by a hash of their 16 words: a dispatch whose parameters equal an earlier one's shares its slot */
  private readonly slotsByHash = new Map<number, number[]>();
  private uniform: GPUBuffer | null = null;
  private toDestroy: GPUBuffer[] = [];
  /** unmapped MAP_READ buffers of earlier reads, by size, least recently used size first */
  private readonly staging = new Map<number, GPUBuffer[]>();
  /** MAP_WRITE buffers of earlier writes, mapped and ready, oldest first */
  private uploads: GPUBuffer[] = [];
  /** MAP_WRITE buffers being mapped again after their copy */
  private readonly remapping = new Set<GPUBuffer>();
  /** stream()'s staging buffers: mapped ones with their range, ready; or being mapped again */
  private streamReady: { buf: GPUBuffer; mapped: ArrayBuffer }[] = [];
  private streamMapping: Promise<{ buf: GPUBuffer; mapped: ArrayBuffer } | null>[] = [];
  /** small storage buffers given back with keep(), oldest first */
  private small: GPUBuffer[] = [];
  private readonly shared = new WeakSet<GPUBuffer>();
  private timing: { querySet: GPUQuerySet; begun: boolean } | null = null;
  /** rejects every pending read (device loss, dispose) */
  readonly pending = new Set<(e: Error) => void>();
  /** validation / out-of-memory errors the device reported (uncapturederror), newest last */
  readonly errors: string[] = [];

  constructor(
    readonly device: GPUDevice,
    readonly stats: EngineStats,
    readonly live: () => void,
  ) {
    this.slotBytes = Math.max(PARAM_BYTES, device.limits.minUniformBufferOffsetAlignment);
    this.params = new ArrayBuffer(this.slotBytes * 64);
    device.addEventListener('uncapturederror', this.onError);
  }

  private readonly onError = (ev: Event): void => {
    const msg = (ev as GPUUncapturedErrorEvent).error?.message ?? 'unknown error';
    this.errors.push(msg);
    if (this.errors.length > 20) this.errors.shift();
  };

  // ---- buffers ----------------------------------------------------------------------------------

  /**
   * A storage buffer holding `data` (its bytes) or `bytes` zero bytes. WebGpuLimitError past the
   * device's maxStorageBufferBindingSize (or `limit`, lowered for tests): `what` names it.
   */
  buffer(what: string, data: ArrayBufferView | number, limit: number, extraUsage = 0): GPUBuffer {
    if (typeof data === 'number') return this.filledBuffer(what, data, limit, null, extraUsage);
    const bytes = data.byteLength;
    return this.filledBuffer(what, bytes, limit, (mapped) => new Uint8Array(mapped, 0, bytes).set(new Uint8Array(data.buffer, data.byteOffset, bytes)), extraUsage);
  }

  /**
   * A storage buffer of `bytes` bytes whose mapped range `fill` writes (the host encodes into it, with
   * no array of its own between), or zero (fill null, or 0 bytes: not called); limits as buffer(). If
   * fill throws, the buffer is destroyed.
   */
  filledBuffer(what: string, bytes: number, limit: number, fill: ((mapped: ArrayBuffer) => void) | null, extraUsage = 0): GPUBuffer {
    if (bytes > limit) {
      throw new WebGpuLimitError(`${what} needs ${bytes} bytes, over the device's maxStorageBufferBindingSize of ${limit} bytes`);
    }
    const mappedAtCreation = fill !== null && bytes > 0;
    const buf = this.device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST | extraUsage, mappedAtCreation });
    if (!mappedAtCreation) return buf;
    try {
      fill(buf.getMappedRange());
    } catch (e) {
      buf.unmap();
      buf.destroy();
      throw e;
    }
    buf.unmap();
    this.stats.uploads++;
    this.stats.uploadBytes += bytes;
    return buf;
  }

  /** Destroys the buffer after the next submit. */
  release(buf: GPUBuffer): void {
    this.toDestroy.push(buf);
  }

  /**
   * A small storage buffer holding `data` or `bytes` zero bytes, in call order: one that keep() took
   * back if one of its size is there (so the bind groups that named it are reused: a solve's first
   * block made ≈ 80 new ones, 2–3 ms of host time, for its fresh state and partial sums), else a new one.
   */
  smallBuffer(what: string, data: ArrayBufferView | number): GPUBuffer {
    const bytes = typeof data === 'number' ? data : data.byteLength;
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const at = this.small.findIndex((b) => b.size === size);
    if (at < 0) return this.buffer(what, data, Infinity);
    const buf = this.small.splice(at, 1)[0];
    if (typeof data === 'number') this.clear(buf, size);
    else this.write(buf, data);
    return buf;
  }

  /** Takes back a buffer of smallBuffer() for a later one (SMALL_KEPT at most; the oldest is released). */
  keep(buf: GPUBuffer): void {
    this.small.push(buf);
    if (this.small.length > SMALL_KEPT) this.release(this.small.shift()!);
  }

  /** Marks a buffer shared with other code on the device: from now on, work naming it is submitted at once; what was recorded so far is submitted now. */
  share(buf: GPUBuffer): void {
    this.shared.add(buf);
    this.flush();
  }

  private idOf(b: GPUBuffer): number {
    let id = this.ids.get(b);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(b, id);
    }
    return id;
  }

  // ---- pipelines --------------------------------------------------------------------------------

  pipeline(name: KernelName, dt: DType, constants: Record<string, number> = {}, entry = 'main'): { pipeline: GPUComputePipeline; key: string } {
    const { key, descriptor } = this.pipelineDescriptor(name, dt, constants, entry);
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.device.createComputePipeline(descriptor());
      this.pipelines.set(key, p);
    }
    return { pipeline: p, key };
  }

  /**
   * Starts making a pipeline in the background (createComputePipelineAsync: Dawn compiles it on its
   * worker threads), for a kernel about to run the first time, while the host does other work (an AMG
   * hierarchy's upload). A dispatch that comes first makes it as pipeline() does.
   */
  prewarm(name: KernelName, dt: DType, constants: Record<string, number> = {}, entry = 'main'): void {
    const { key, descriptor } = this.pipelineDescriptor(name, dt, constants, entry);
    if (this.pipelines.has(key) || this.compiling.has(key)) return;
    let settle!: () => void;
    const settled = new Promise<void>((res) => (settle = res));
    const entryOf = { settled, settle };
    this.compiling.set(key, entryOf);
    const done = () => {
      if (this.compiling.get(key) === entryOf) this.compiling.delete(key);
      settle();
    };
    this.device.createComputePipelineAsync(descriptor()).then(
      (p) => {
        // not after abandon() (a lost device's pipeline), nor over one a dispatch made meanwhile
        if (this.compiling.get(key) === entryOf && !this.pipelines.has(key)) this.pipelines.set(key, p);
        done();
      },
      done,
    );
  }

  /**
   * Settles once every pipeline prewarm() is making now is made (or failed: a dispatch then makes it);
   * null where none is. A solve awaits it before its first dispatch: one that came first would make its
   * pipeline again, synchronously, while Dawn's thread compiles the same.
   */
  prewarmed(): Promise<void> | null {
    if (this.compiling.size === 0) return null;
    return Promise.all([...this.compiling.values()].map((c) => c.settled)).then(() => undefined);
  }

  /**
   * A kernel's shader module in a dtype, made once: its entry points and override constants share it
   * (Dawn parses the WGSL on the calling thread, also for createComputePipelineAsync: 12 modules,
   * 20–27 ms of an H100 host's first solve of poisson3D(128), where 8 sources were distinct).
   */
  private shaderModule(name: KernelName, dt: DType): GPUShaderModule {
    const key = `${name}/${dt}`;
    let m = this.modules.get(key);
    if (!m) {
      const src = wgslSources();
      const code = (SUBGROUP_KERNELS.has(name) ? 'enable subgroups;\n' : '') + src[`dt_${dt}`] + src[name];
      m = this.device.createShaderModule({ code, label: key });
      this.modules.set(key, m);
    }
    return m;
  }

  private pipelineDescriptor(name: KernelName, dt: DType, constants: Record<string, number>, entry: string): { key: string; descriptor: () => GPUComputePipelineDescriptor } {
    const ck = Object.entries(constants).map(([k, v]) => `${k}=${v}`).join(',');
    const key = `${name}/${dt}/${ck}/${entry}`;
    const descriptor = () => ({ layout: 'auto' as const, label: key, compute: { module: this.shaderModule(name, dt), entryPoint: entry, constants } });
    return { key, descriptor };
  }

  // ---- recording --------------------------------------------------------------------------------

  /**
   * Records a dispatch of `groups` workgroups (laid out as a 2-D grid when over 65,535) or of an
   * explicit [x, y] grid, of the kernel's entry point `entry` (default main).
   */
  dispatch(name: KernelName, dt: DType, groups: number | [number, number], params: Params, bindings: Binding[], constants?: Record<string, number>, entry?: string): void {
    this.live();
    let grid: [number, number, number];
    if (typeof groups === 'number') {
      if (groups <= 0) return;
      const gx = Math.min(groups, MAX_GROUPS);
      grid = [gx, Math.ceil(groups / gx), 1];
    } else {
      if (groups[0] <= 0 || groups[1] <= 0) return;
      grid = [groups[0], groups[1], 1];
    }
    if (grid[0] > MAX_GROUPS || grid[1] > MAX_GROUPS) throw new WebGpuLimitError(`a dispatch of ${JSON.stringify(groups)} workgroups exceeds ${MAX_GROUPS}² workgroups`);
    const { pipeline, key } = this.pipeline(name, dt, constants, entry);
    // a buffer bound for reading and for writing is read from a scratch copy
    const written = new Set(bindings.filter((b) => b.write).map((b) => b.buffer));
    const copies = new Map<GPUBuffer, GPUBuffer>();
    const bound = bindings.map((b) => {
      if (b.write || !written.has(b.buffer)) return b;
      let c = copies.get(b.buffer);
      if (!c) {
        c = this.device.createBuffer({ size: b.buffer.size, usage: USAGE.STORAGE | USAGE.COPY_DST });
        this.copy(b.buffer, c, b.buffer.size);
        this.release(c);
        copies.set(b.buffer, c);
      }
      return { ...b, buffer: c };
    });
    const slot = this.writeParams(params);
    this.records.push({ kind: 'dispatch', pipeline, key, bindings: bound, slot, grid });
    this.stats.dispatches++;
    if (this.records.length >= MAX_PENDING || bindings.some((b) => this.shared.has(b.buffer))) this.flush();
  }

  /** Records a buffer-to-buffer copy of `bytes` (a multiple of 4). */
  copy(src: GPUBuffer, dst: GPUBuffer, bytes: number): void {
    this.live();
    if (bytes <= 0) return;
    this.records.push({ kind: 'copy', src, dst, bytes: Math.ceil(bytes / 4) * 4 });
    if (this.shared.has(src) || this.shared.has(dst)) this.flush();
  }

  /** Records zeroing the first `bytes` (a multiple of 4) of a buffer. */
  clear(dst: GPUBuffer, bytes: number): void {
    this.live();
    if (bytes <= 0) return;
    this.records.push({ kind: 'clear', dst, bytes: Math.ceil(bytes / 4) * 4 });
    if (this.shared.has(dst)) this.flush();
  }

  /**
   * Writes `data` (a whole number of 4-byte words) into the start of a buffer in call order: what was recorded before runs before
   * the write (it is submitted first), what is recorded after sees the data.
   */
  write(dst: GPUBuffer, data: ArrayBufferView): void {
    this.live();
    this.flush();
    this.stats.uploads++;
    this.stats.uploadBytes += data.byteLength;
    if (data.byteLength < MAPPED_WRITE_FROM) {
      this.device.queue.writeBuffer(dst, 0, data.buffer, data.byteOffset, data.byteLength);
      return;
    }
    const size = Math.ceil(data.byteLength / 16) * 16;
    const at = this.uploads.findIndex((b) => b.size === size);
    const up = at >= 0 ? this.uploads.splice(at, 1)[0] : this.device.createBuffer({ size, usage: USAGE.MAP_WRITE | USAGE.COPY_SRC, mappedAtCreation: true });
    new Uint8Array(up.getMappedRange(0, size)).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    up.unmap();
    this.copy(up, dst, data.byteLength);
    this.flush();
    // mapped again once the copy ran: ready for the next write of this size
    this.remapping.add(up);
    up.mapAsync(MAP_WRITE_MODE).then(
      () => {
        if (!this.remapping.delete(up)) return;
        this.uploads.push(up);
        while (this.uploads.length > UPLOADS_KEPT) this.uploads.shift()!.destroy();
      },
      () => {
        this.remapping.delete(up);
        up.destroy();
      },
    );
  }

  /**
   * Writes each job's contents into its buffer, in call order (after what was recorded before), through
   * streamBuffers kept MAP_WRITE buffers of streamBytes: while the copies out of one run, the host
   * fills the other, so the memory written is the same few MB every time. A buffer made with
   * mappedAtCreation instead makes Dawn allocate (pin) and zero a staging buffer of its size, freed after
   * the copy: ≈ 0.7 ms a MB on the H100 host, for memory touched once. If a fill throws, the staging
   * buffer in hand is dropped (what it held was never sent) and the error passes on.
   */
  async stream(jobs: readonly StreamJob[]): Promise<void> {
    this.live();
    const cap = this.streamBytes;
    type Staging = { buf: GPUBuffer; mapped: ArrayBuffer };
    let st: Staging | null = await this.streamStaging(cap);
    let at = 0;
    let pieces: CopyRecord[] = [];
    const send = () => {
      const s = st!;
      s.buf.unmap();
      for (const p of pieces) this.records.push(p);
      pieces = [];
      this.flush();
      this.streamMapping.push(
        s.buf.mapAsync(MAP_WRITE_MODE).then(
          () => ({ buf: s.buf, mapped: s.buf.getMappedRange(0, cap) }),
          () => {
            s.buf.destroy();
            return null;
          },
        ),
      );
    };
    try {
      for (const job of jobs) {
        this.stats.uploads++;
        this.stats.uploadBytes += job.bytes;
        let from = 0;
        while (from < job.bytes) {
          if (at >= cap) {
            send();
            st = null;
            st = await this.streamStaging(cap);
            at = 0;
          }
          const len = Math.min(job.bytes - from, cap - at);
          job.fill(st!.mapped, at, from, len);
          pieces.push({ kind: 'copy', src: st!.buf, srcOffset: at, dst: job.dst, dstOffset: from, bytes: Math.ceil(len / 4) * 4 });
          at += Math.ceil(len / 16) * 16;
          from += len;
        }
      }
      if (pieces.length > 0) send();
      else this.keepStream(st!);
    } catch (e) {
      if (st) {
        st.buf.unmap();
        st.buf.destroy();
      }
      throw e;
    }
  }

  /** A mapped staging buffer of `bytes` for stream(): a kept one, else one being mapped again, else a new one. */
  private async streamStaging(bytes: number): Promise<{ buf: GPUBuffer; mapped: ArrayBuffer }> {
    for (;;) {
      const ready = this.streamReady.pop();
      if (ready) {
        if (ready.buf.size === bytes) return ready;
        ready.buf.destroy();
        continue;
      }
      if (this.streamMapping.length < this.streamBuffers) {
        const buf = this.device.createBuffer({ size: bytes, usage: USAGE.MAP_WRITE | USAGE.COPY_SRC, mappedAtCreation: true });
        return { buf, mapped: buf.getMappedRange(0, bytes) };
      }
      const next = await this.streamMapping.shift()!;
      this.live();
      if (next) this.keepStream(next);
    }
  }

  private keepStream(s: { buf: GPUBuffer; mapped: ArrayBuffer }): void {
    if (this.streamReady.length < this.streamBuffers) this.streamReady.push(s);
    else s.buf.destroy();
  }

  /**
   * The slot of a dispatch's parameter block in this batch: a block equal to one written before in the
   * batch shares its slot, so the bind groups of an iteration's dispatches (cached by pipeline, slot and
   * buffers) are the same in every iteration of a block — a resident solve's block of 16 Chebyshev-CG
   * iterations made ≈ 240 of them, where 15 serve: the first solve of a fresh handle made each anew
   * (createBindGroup ≈ 12 ms of a 2 M-row solve's host time on the H200's host).
   */
  private writeParams(p: Params): number {
    const slot = this.slots;
    if (slot * this.slotBytes + PARAM_BYTES > this.params.byteLength) {
      const next = new ArrayBuffer(this.params.byteLength * 2);
      new Uint8Array(next).set(new Uint8Array(this.params));
      this.params = next;
    }
    const off = slot * this.slotBytes;
    const u = new Uint32Array(this.params, off, 16);
    const f = new Float32Array(this.params, off, 16);
    u[0] = p.n ?? 0;
    u[1] = p.m ?? 0;
    u[2] = p.k ?? 0;
    u[3] = p.w ?? 0;
    f.set(p.alpha ?? [1, 0, 0, 0], 4);
    f.set(p.beta ?? [0, 0, 0, 0], 8);
    f[12] = 1;
    f[13] = DS_SPLIT;
    f[14] = p.conj ?? 1;
    u[15] = p.flags ?? (p.useBeta ? 1 : 0);
    let h = 0x811c9dc5;
    for (let i = 0; i < 16; i++) h = Math.imul(h ^ u[i], 0x01000193);
    const same = this.slotsByHash.get(h);
    if (same) {
      for (const s of same) {
        const v = new Uint32Array(this.params, s * this.slotBytes, 16);
        let i = 0;
        while (i < 16 && v[i] === u[i]) i++;
        if (i === 16) return s;
      }
      same.push(slot);
    } else this.slotsByHash.set(h, [slot]);
    this.slots++;
    return slot;
  }

  // ---- submission -------------------------------------------------------------------------------

  /** Encodes and submits everything recorded (nothing waits for the GPU). */
  flush(): void {
    if (this.records.length === 0 && this.toDestroy.length === 0) return;
    const device = this.device;
    const need = Math.max(1, this.slots) * this.slotBytes;
    if (!this.uniform || this.uniform.size < need) {
      // every bind group names the uniform buffer: they go when it is destroyed below
      if (this.uniform) this.toDestroy.push(this.uniform);
      this.uniform = device.createBuffer({ size: Math.max(need, 64 * this.slotBytes), usage: USAGE.UNIFORM | USAGE.COPY_DST });
    }
    if (this.slots > 0) device.queue.writeBuffer(this.uniform, 0, this.params, 0, this.slots * this.slotBytes);
    const enc = device.createCommandEncoder();
    let pass: GPUComputePassEncoder | null = null;
    for (const r of this.records) {
      if (r.kind !== 'dispatch') {
        pass?.end();
        pass = null;
        if (r.kind === 'copy') enc.copyBufferToBuffer(r.src, r.srcOffset ?? 0, r.dst, r.dstOffset ?? 0, r.bytes);
        else enc.clearBuffer(r.dst, 0, r.bytes);
        continue;
      }
      if (!pass) {
        let timestampWrites: GPUComputePassTimestampWrites | undefined;
        if (this.timing) {
          timestampWrites = { querySet: this.timing.querySet, endOfPassWriteIndex: 1 };
          if (!this.timing.begun) timestampWrites.beginningOfPassWriteIndex = 0;
          this.timing.begun = true;
        }
        pass = enc.beginComputePass(timestampWrites ? { timestampWrites } : {});
      }
      pass.setPipeline(r.pipeline);
      pass.setBindGroup(0, this.bindGroup(r));
      pass.dispatchWorkgroups(r.grid[0], r.grid[1], r.grid[2]);
    }
    pass?.end();
    device.queue.submit([enc.finish()]);
    this.stats.submits++;
    this.records = [];
    this.slots = 0;
    this.slotsByHash.clear();
    for (const b of this.toDestroy) this.destroy(b);
    this.toDestroy = [];
  }

  /** Destroys a buffer now and drops the cached bind groups that name it (no recorded work may still name it). */
  destroy(buf: GPUBuffer): void {
    const id = this.ids.get(buf);
    if (id !== undefined) {
      for (const key of [...(this.bindGroupsOf.get(id) ?? [])]) this.dropBindGroup(key);
      this.bindGroupsOf.delete(id);
    }
    buf.destroy();
  }

  private dropBindGroup(key: string): void {
    const e = this.bindGroups.get(key);
    if (!e) return;
    this.bindGroups.delete(key);
    for (const id of e.ids) {
      const keys = this.bindGroupsOf.get(id);
      keys?.delete(key);
      if (keys?.size === 0) this.bindGroupsOf.delete(id);
    }
  }

  private bindGroup(r: DispatchRecord): GPUBindGroup {
    const ids = [this.idOf(this.uniform!), ...r.bindings.map((b) => this.idOf(b.buffer))];
    const key = `${r.key}|${ids[0]}:${r.slot}|${r.bindings.map((b, i) => `${b.binding}:${ids[i + 1]}`).join(',')}`;
    const hit = this.bindGroups.get(key);
    if (hit) {
      // most recently used last
      this.bindGroups.delete(key);
      this.bindGroups.set(key, hit);
      return hit.group;
    }
    const group = this.device.createBindGroup({
      layout: r.pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: this.uniform!, offset: r.slot * this.slotBytes, size: PARAM_BYTES } },
        ...r.bindings.map((b) => ({ binding: b.binding, resource: { buffer: b.buffer } })),
      ],
    });
    this.stats.bindGroups++;
    this.bindGroups.set(key, { group, ids });
    for (const id of ids) {
      let keys = this.bindGroupsOf.get(id);
      if (!keys) this.bindGroupsOf.set(id, (keys = new Set()));
      keys.add(key);
    }
    if (this.bindGroups.size > this.bindGroupsKept) this.dropBindGroup(this.bindGroups.keys().next().value!);
    return group;
  }

  /** @internal bind groups cached that name `buf` (tests: a destroyed buffer's are gone, others' kept) */
  cachedBindGroups(buf: GPUBuffer): number {
    const id = this.ids.get(buf);
    return id === undefined ? 0 : (this.bindGroupsOf.get(id)?.size ?? 0);
  }

  // ---- read-back --------------------------------------------------------------------------------

  /** The first `bytes` of a buffer, after everything recorded so far ran. */
  async read(src: GPUBuffer, bytes: number): Promise<ArrayBuffer> {
    this.live();
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    // a staging buffer of this size that an earlier read gave back, else a new one (creating a
    // mappable buffer costs the host more than the copy: 16 MB ≈ 10 ms through Dawn on an H100 host)
    const staging = this.staging.get(size)?.pop() ?? this.device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST });
    this.copy(src, staging, Math.min(size, src.size));
    this.flush();
    this.stats.readbacks++;
    return this.mapped(staging, bytes, true);
  }

  /** Keeps an unmapped staging buffer for the next read of its size (at most STAGING_KEPT of them, the oldest size dropped first). */
  private keepStaging(buf: GPUBuffer): void {
    const list = this.staging.get(buf.size) ?? [];
    this.staging.delete(buf.size);
    this.staging.set(buf.size, list);
    list.push(buf);
    let kept = 0;
    for (const l of this.staging.values()) kept += l.length;
    for (const [size, l] of this.staging) {
      if (kept <= STAGING_KEPT) break;
      while (l.length > 0 && kept > STAGING_KEPT) {
        l.shift()!.destroy();
        kept--;
      }
      if (l.length === 0) this.staging.delete(size);
    }
  }

  private mapped(staging: GPUBuffer, bytes: number, keep = false): Promise<ArrayBuffer> {
    return new Promise<ArrayBuffer>((resolve, reject) => {
      let done = false;
      const fail = (e: Error) => {
        if (done) return;
        done = true;
        this.pending.delete(fail);
        reject(e);
      };
      this.pending.add(fail);
      staging.mapAsync(MAP_READ_MODE).then(
        () => {
          if (done) return;
          done = true;
          this.pending.delete(fail);
          const out = staging.getMappedRange(0, staging.size).slice(0, bytes);
          staging.unmap();
          if (keep) this.keepStaging(staging);
          else staging.destroy();
          resolve(out);
        },
        (e: Error) => fail(new WebGpuDeviceLostError(`reading back failed: ${e?.message ?? String(e)}`)),
      );
    });
  }

  // ---- timing -----------------------------------------------------------------------------------

  /**
   * GPU time (ms) from the start of the first compute pass to the end of the last one recorded by
   * `fn`, from timestamp queries; null when the device has no 'timestamp-query'.
   */
  async kernelTime(fn: () => void, enabled: boolean): Promise<number | null> {
    this.live();
    this.flush();
    if (!enabled) {
      fn();
      this.flush();
      return null;
    }
    const querySet = this.device.createQuerySet({ type: 'timestamp', count: 2 });
    this.timing = { querySet, begun: false };
    try {
      fn();
      this.flush();
    } finally {
      this.timing = null;
    }
    const resolved = this.device.createBuffer({ size: 16, usage: USAGE.QUERY_RESOLVE | USAGE.COPY_SRC });
    const staging = this.device.createBuffer({ size: 16, usage: USAGE.MAP_READ | USAGE.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.resolveQuerySet(querySet, 0, 2, resolved, 0);
    enc.copyBufferToBuffer(resolved, 0, staging, 0, 16);
    this.device.queue.submit([enc.finish()]);
    const t = new BigInt64Array(await this.mapped(staging, 16));
    querySet.destroy();
    resolved.destroy();
    return Number(t[1] - t[0]) / 1e6;
  }

  /** Rejects pending reads with `e` and forgets every cached GPU object. */
  abandon(e: Error): void {
    for (const fail of [...this.pending]) fail(e);
    this.records = [];
    this.slots = 0;
    this.slotsByHash.clear();
    this.toDestroy = [];
    this.pipelines.clear();
    this.modules.clear();
    // a solve awaiting prewarmed() goes on (and meets the lost device), whether or not Dawn answers
    for (const c of this.compiling.values()) c.settle();
    this.compiling.clear();
    this.bindGroups.clear();
    this.bindGroupsOf.clear();
    this.uniform = null;
    this.staging.clear();
    this.uploads = [];
    this.remapping.clear();
    this.small = [];
    this.streamReady = [];
    this.streamMapping = [];
  }

  dispose(): void {
    this.uniform?.destroy();
    for (const l of this.staging.values()) for (const b of l) b.destroy();
    for (const b of [...this.uploads, ...this.remapping, ...this.small, ...this.streamReady.map((s) => s.buf)]) b.destroy();
    for (const m of this.streamMapping) void m.then((s) => s?.buf.destroy());
    this.abandon(new DisposedError('WebGpuBackend'));
    this.device.removeEventListener('uncapturederror', this.onError);
  }
}

