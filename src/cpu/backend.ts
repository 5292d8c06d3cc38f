import { runtimeMemoryDefaultMB } from '../memory-budget.js';
import { nextTask } from '../next-task.js';
import type { DType } from '../dtype.js';
import type { SpmvScalars } from '../backend-types.js';
import type { SparseMatrix } from '../formats/index.js';
import { WasmHeap, type Region } from './memory.js';
import { compileKernels, hasSharedMemory, hasWasmSimd, instantiateKernels, type KernelExports, type WasmFlavor } from './wasm.js';
import { CpuMatrix, CpuVector } from './resident.js';
import { gatherForm, spmvSteps, uploadMatrix, type KernelStep } from './spmv-plan.js';
import { flagUniformF32 } from './uniform-f32.js';
import { balancedBounds } from './partition.js';
import { lowerBound } from '../formats/sort.js';
import { CONTROL_BYTES } from './control.js';
import { WorkerPool } from './pool.js';
import { buildArray, describe, type OutArray, type OutSpec } from './copy-out.js';
import { lazyModule } from '../lazy-module.js';
import { nodeBuiltin } from '../node-builtins.js';
import { DisposedError, UnsupportedError } from '../errors.js';
import { nextTouchX, type CacheTilesOption } from './tiles.js';
import { DispatchPolicy, POOL_FLOOR, type Dispatch } from './dispatch.js';

/** the tier-up set (src/cpu/tier-up.ts), imported when a pool first starts: off a page's first file */
const tierUp = lazyModule(() => import('./tier-up.js'), 'the pool\'s tier-up calls');
/** rt.spgemm's product into fresh arrays with a worker's help (spgemm-fresh.ts): only a pool runs it, so it loads with one */
const spgemmFresh = lazyModule(() => import('./spgemm-fresh.js'), 'the pool\'s fresh-array SpGEMM');
const poolScans = lazyModule(() => import('./scan.js'), 'the pool\'s scans');

export interface CpuBackendOptions {
  /** 'auto' (default) uses the SIMD build when the engine validates SIMD; false forces the plain build */
  simd?: boolean | 'auto';
  /** upper bound of the WebAssembly memory in MiB (default 2048, at most 4096) */
  maxMemoryMB?: number;
  /** threads that compute, the calling thread included (default 1: no workers) */
  threads?: number;
  /**
   * operations costing less than this (entries + rows, or elements) run on the calling thread alone,
   * the others on the pool; 'auto' (default): SpMV and vector operations go where they measure faster
   * (src/cpu/dispatch.ts), the rest by DEFAULT_INLINE_THRESHOLD
   */
  inlineThreshold?: number | 'auto';
  /** how long idle workers spin before they sleep, in µs */
  spinUs?: number;
  /** a pool call still running after this many ms rejects and the pool is replaced (0 = never) */
  timeoutMs?: number;
  /** whether and how CSR matrices run in cache tiles (src/cpu/tiles.ts; default 'auto') */
  cacheTiles?: CacheTilesOption;
}

export const DEFAULT_INLINE_THRESHOLD = 32768;
export const DEFAULT_SPIN_US = 200;
/** The smallest fresh part CpuBackend.prefault faults in on the pool (256 pages of 4 KiB: their faults cost more than a pool call). */
const PREFAULT_MIN = 1 << 20;
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Longest run of back-to-back operations (a solver's iterations chain them through microtasks alone)
 * before one waits for the next event-loop task, so timers, I/O and a dispose() still get their turn.
 */
const SLICE_MS = 50;
/**
 * inlineNow reads the clock every this many calls: a read cost ≈ 0.2 µs on a 2-vCPU VM, several an
 * iteration of a small solve, and an inline operation is below the pool's floor (≈ 20 µs at most), so
 * a slice runs over by well under a millisecond.
 */
const CLOCK_EVERY = 16;
const INLINE: Dispatch = { pooled: false, done: () => {} };
const POOLED: Dispatch = { pooled: true, done: () => {} };
const NO_STEP = () => {};
/** DispatchPolicy's poolCap for steps */
const STEP_POOL_CAP = 2;
const PLAIN_PRODUCT: SpmvScalars = { alpha: [1, 0], beta: [0, 0], op: 'N' };

/** The CPU path: AssemblyScript kernels over one WebAssembly memory, on a pool of workers. */
export class CpuBackend {
  private pool: WorkerPool | null = null;
  private control: Region | null = null;
  private scratch: Region | null = null;
  /** runWideReduction's partials, `width` f64 a chunk */
  private wideScratch: Region | null = null;
  /** the tiny problem of the pool's tier-up calls (tierUpCalls) */
  private tierUpRegion: Region | null = null;
  /** the scratch's first two f64 (partialsInline) */
  private scratchView: Float64Array | null = null;
  /** equal chunks of vector lengths for the current pool, per length (a number key: a string made per call cost an 8 µs dot ~2%) */
  private readonly vectorBounds = new Map<number, Int32Array>();
  private readonly kernelIndex: Map<string, number>;
  /** the fixed threshold: createRuntime's, else DEFAULT_INLINE_THRESHOLD (dense ops and triangular solves use it under 'auto' too) */
  inlineThreshold: number;
  /** the measured choice of SpMV and vector operations ('auto'); null: inlineThreshold decides */
  private policy: DispatchPolicy | null;
  /** 'auto''s choice for steps (see step): its own kernels' names, pooled samples capped (STEP_POOL_CAP) */
  private stepPolicy: DispatchPolicy | null = null;
  /** the way of the step running (see step), null outside one */
  private stepWay: Dispatch | null = null;
  /** the key of a step left unmeasured, its workers found asleep: its next step runs pooled (see step) */
  private stepRepeat: string | null = null;
  timeoutMs = DEFAULT_TIMEOUT_MS;
  /** settles when the operation holding the backend ends (see exclusive) */
  private turn: Promise<void> = Promise.resolve();
  private disposed = false;
  /** createRuntime's cacheTiles */
  readonly cacheTiles: CacheTilesOption;
  /** when the current stretch of operations without an event-loop turn began (-1: none yet) */
  private sliceStart = -1;
  /** inlineNow's calls in the current slice, and whether one found it spent (then all do until the next slice) */
  private inlineLooks = 0;
  private sliceSpent = false;
  /** operations that have taken a turn so far (the automatic calibration drops a window another operation shared) */
  operations = 0;
  /** operations that took a turn and have not ended (see exclusive; inlineNow runs one only when none has) */
  private inFlight = 0;
  /** per matrix, the largest cost of its product's steps (see productInline) */
  private readonly productCost = new WeakMap<CpuMatrix, number>();

  private constructor(
    readonly heap: WasmHeap,
    readonly kernels: KernelExports,
    readonly flavor: WasmFlavor,
    private readonly module: WebAssembly.Module,
    options: CpuBackendOptions,
  ) {
    const names = WebAssembly.Module.exports(module).filter((e) => e.kind === 'function').map((e) => e.name);
    this.kernelIndex = new Map(names.map((n, i) => [n, i]));
    this.inlineThreshold = DEFAULT_INLINE_THRESHOLD;
    this.policy = null;
    this.setInlineThreshold(options.inlineThreshold ?? 'auto');
    this.cacheTiles = options.cacheTiles ?? 'auto';
  }

  static async create(options: CpuBackendOptions = {}): Promise<CpuBackend> {
    const simdOk = hasWasmSimd();
    if (options.simd === true && !simdOk) throw new UnsupportedError('createRuntime: simd: true asks for WebAssembly SIMD, which this engine lacks (simd: \'auto\' takes the plain kernels here)');
    const flavor: WasmFlavor = options.simd === false || !simdOk ? 'plain' : 'simd';
    const shared = hasSharedMemory();
    const maxPages = Math.floor(((options.maxMemoryMB ?? runtimeMemoryDefaultMB()) * 1048576) / 65536);
    const heap = new WasmHeap({ shared, maxPages });
    const module = await compileKernels(flavor, shared);
    const kernels = await instantiateKernels(module, heap.memory);
    const backend = new CpuBackend(heap, kernels, flavor, module, options);
    backend.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    await backend.setThreads(options.threads ?? 1, options.spinUs ?? DEFAULT_SPIN_US);
    return backend;
  }

  /** Threads that compute (1 = the calling thread alone). */
  get threads(): number {
    return this.pool ? this.pool.size + 1 : 1;
  }

  /**
   * Fresh arrays copied out of the memory (copy-out.ts): the workers build the last ones while this
   * thread builds the first, where they can hand them over (Node) and `pooled`; else all here. With
   * `into` (arrays of the specs' kinds and lengths, where given) they are filled instead, here (all
   * here where the workers' share has one); `own`, see WorkerPool.copyOutSync. Call it outside pool jobs.
   */
  copyOut(specs: OutSpec[], pooled: boolean, into?: (OutArray | undefined)[], own?: boolean): OutArray[] {
    if (this.disposed) throw new DisposedError('runtime');
    const words = describe(specs);
    return this.heap.temporary(4 * words.length, (r) => {
      r.view('i32', words.length).set(words);
      return (pooled ? this.pool?.copyOutSync(r.ptr, specs.length, into, own) : null) ?? specs.map((_, k) => buildArray(this.heap.memory.buffer, r.ptr, k, into?.[k]));
    });
  }

  /** A fixed threshold for every operation, or 'auto' (see CpuBackendOptions.inlineThreshold). */
  setInlineThreshold(t: number | 'auto'): void {
    this.policy = t === 'auto' ? new DispatchPolicy() : null;
    this.stepPolicy = t === 'auto' ? new DispatchPolicy(POOL_FLOOR, STEP_POOL_CAP) : null;
    this.inlineThreshold = t === 'auto' ? DEFAULT_INLINE_THRESHOLD : t;
  }

  /** What the 'auto' policy has measured so far (null under a fixed threshold). */
  get dispatchStats(): ReturnType<DispatchPolicy['snapshot']> | null {
    // the steps' (see step) named by their keys, which hold spaces: no kernel's name
    return this.policy ? { ...this.policy.snapshot(), ...this.stepPolicy?.snapshot() } : null;
  }

  /** Replaces the pool with one of `threads` threads (workers = threads − 1). Needs shared memory. */
  setThreads(threads: number, spinUs = this.pool?.options.spinUs ?? DEFAULT_SPIN_US): Promise<void> {
    return this.exclusive(() => this.startPool(threads, spinUs));
  }

  private async startPool(threads: number, spinUs: number): Promise<void> {
    // the tier-up set's, the fresh-array SpGEMM's and the scans' chunks first: the only wait before the pool is
    // made, so nothing below runs half-way on a runtime disposed meanwhile (a chunk that cannot be
    // fetched only skips the warm-up, or leaves rt.spgemm its one-pass product)
    if (threads > 1 && this.heap.shared) await Promise.all([tierUp.load(), spgemmFresh.load(), poolScans.load()].map((p) => p.catch(() => {})));
    if (this.disposed) return;
    this.closePool();
    this.vectorBounds.clear();
    // measurements of the old pool say nothing about the new one
    if (this.policy) [this.policy, this.stepPolicy] = [new DispatchPolicy(), new DispatchPolicy(POOL_FLOOR, STEP_POOL_CAP)];
    if (threads <= 1 || !this.heap.shared) return;
    this.control = this.heap.alloc(CONTROL_BYTES);
    const names = [...this.kernelIndex.keys()];
    this.pool = new WorkerPool(this.module, this.heap.memory, this.control.ptr, names, (job, s, e) => this.call(names[job.kernel], job.args, s, e), {
      workers: threads - 1,
      callerComputes: true,
      spinUs,
      timeoutMs: this.timeoutMs,
      tierUp: this.tierUpCalls(),
      copyOut: this.spgemmFresh?.copyOutOnPool,
    });
    await this.pool.run({ kernel: 0, args: [], bounds: new Int32Array(threads + 1) });
  }

  /**
   * Faults in, on the pool, the pages of r that nothing had written when it was handed out (its part
   * above the heap's high-water mark), before this thread copies into it: otherwise each 4 KiB page
   * is a fault taken one by one (the first AMG setup of poisson3D(128) copied ≈ 175 MB into fresh
   * memory). The kernel changes no byte; nothing happens where the pool is absent or busy, or for a
   * part under PREFAULT_MIN bytes.
   */
  prefault(r: Region): void {
    const bytes = r.unwritten;
    r.unwritten = 0;
    const pool = this.pool;
    if (!pool || bytes < PREFAULT_MIN || r.isDisposed) return;
    const to = r.ptr + r.bytes;
    const from = to - bytes;
    const first = Math.floor(from / 4096);
    const bounds = balancedBounds(Math.ceil(to / 4096) - first, pool.chunks, (i) => i, 1).map((b) => b + first);
    pool.runSync({ kernel: this.kernelIndex.get('memory_touch')!, args: [from, to], bounds });
  }

  /** spgemm-fresh.ts, once loaded with a pool (CpuSparseSession reads it here: the workers' script bundles that file, not this one) */
  get spgemmFresh(): typeof import('./spgemm-fresh.js') | undefined {
    return spgemmFresh.loaded() ? spgemmFresh.get() : undefined;
  }

  /** scan.ts, once loaded with a pool (a product's one-thread passes as pool passes) */
  get poolScans(): typeof import('./scan.js') | undefined {
    return poolScans.loaded() ? poolScans.get() : undefined;
  }

  /** The index of kernel `name` in the pool's name table (a pool job's `kernel`). */
  kernelIndexOf(name: string): number {
    return this.kernelIndex.get(name)!;
  }

  /**
   * Whether the pool's workers can copy arrays on SharedArrayBuffers into the memory (cpu/copy-in.ts:
   * Node's ports; a browser's workers cannot, and its WebGL uploads would then get shared arrays).
   */
  get copiesIn(): boolean {
    return !!this.pool?.handsOver && nodeBuiltin('node:worker_threads') !== null;
  }

  /** The pool, for configuration and the test hooks. */
  get workerPool(): WorkerPool | null {
    return this.pool;
  }

  /** `tiles`: the cache tiles' option for this matrix (default createRuntime's) */
  upload(A: SparseMatrix, tiles: CacheTilesOption = this.cacheTiles): CpuMatrix {
    const M = uploadMatrix(this.heap, A, this.pool?.chunks ?? 1, tiles);
    try {
      // a square f32 DIA copy's uniform groups (a compact f64 copy's are flagged as it is copied)
      flagUniformF32(this, M);
    } catch (e) {
      M.dispose();
      throw e;
    }
    return M;
  }

  vector(dtype: DType, length: number): CpuVector {
    return new CpuVector(this.heap, dtype, length);
  }

  /**
   * y = α·op(A)·x + β·y on resident data. x and y may be one vector (y = A·y): the kernels write y
   * while later rows still read x, so x is copied first, as every path computes it (src/path.ts).
   */
  spmv(M: CpuMatrix, x: CpuVector, y: CpuVector, s: SpmvScalars): Promise<void> {
    // a small product with nothing in flight: at once (the steps runSteps would run inline, in order)
    if (s.op === 'N' && apart(x, y) && this.productInline(M) && this.inlineNow(0)) {
      try {
        this.spmvInline(M, x, y, s);
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.exclusive(async () => {
      const xCopy = x.ptr === y.ptr ? this.vector(x.dtype, x.length) : null;
      try {
        xCopy?.view().set(x.view());
        // derived forms are uploaded as the backend uploads (the pool's threads, createRuntime's cacheTiles)
        const G = gatherForm(M, s.op, (A) => this.upload(A));
        // a tiled matrix's first products are timed (src/cpu/tiles.ts nextTouchX)
        const { touchX, record } = nextTouchX(G.params);
        const t0 = record ? performance.now() : 0;
        await this.runSteps(G.partitions, spmvSteps(G, (xCopy ?? x).ptr, y.ptr, s, touchX));
        record?.(performance.now() - t0);
      } finally {
        xCopy?.dispose();
      }
    });
  }

  /**
   * y = α·A·x + β·y (default A·x) on the calling thread alone, synchronously (the automatic
   * calibration times it: explain is synchronous; inline products and sequences run it). Not for
   * general use: it does not take a turn, so it must not overlap an operation; M is in gather form
   * (not CSC or COO), untiled or past its tiles' trials, and x and y are apart.
   */
  spmvInline(M: CpuMatrix, x: CpuVector, y: CpuVector, s: SpmvScalars = PLAIN_PRODUCT): void {
    for (const st of spmvSteps(M, x.ptr, y.ptr, s, 0)) {
      if (st.entries) this.call(st.kernel, st.args, lowerBound(st.entries, st.start), lowerBound(st.entries, st.end));
      else this.call(st.kernel, st.args, st.start, st.end);
    }
  }

  /**
   * Runs kernel steps in order: each on the pool in balanced chunks, or inline when small. `partitions`
   * caches the chunk bounds per kernel and chunk count (a matrix's cache: the bounds depend on it).
   */
  run(partitions: Map<string, Int32Array>, steps: () => KernelStep[]): Promise<void> {
    return this.exclusive(() => this.runSteps(partitions, steps()));
  }

  private async runSteps(partitions: Map<string, Int32Array>, steps: KernelStep[]): Promise<void> {
    for (const st of steps) {
      if (st.end <= st.start) continue;
      const cost = st.prefix(st.end) - st.prefix(st.start);
      const d = this.dispatch(st.kernel, cost);
      const t0 = performance.now();
      if (!this.pool || !d.pooled) {
        const [s, e] = st.entries ? [lowerBound(st.entries, st.start), lowerBound(st.entries, st.end)] : [st.start, st.end];
        this.call(st.kernel, st.args, s, e);
        d.done(performance.now() - t0);
        continue;
      }
      const key = `${st.kernel}/${this.pool.chunks}`;
      let bounds = partitions.get(key);
      if (!bounds) {
        bounds = balancedBounds(st.end, this.pool.chunks, st.prefix, st.align);
        if (st.entries) bounds = bounds.map((b) => lowerBound(st.entries!, b));
        partitions.set(key, bounds);
      }
      await this.pool.run({ kernel: this.kernelIndex.get(st.kernel)!, args: st.args, bounds });
      d.done(performance.now() - t0);
    }
  }

  /**
   * Whether every step of M's product (op 'N') runs inline whichever way dispatch would choose — its
   * cost below the pool's floor, or no pool — in M itself (no derived form, no cache tiles, whose
   * first products are timed): then spmv() may run it at once, with the same bits.
   */
  private productInline(M: CpuMatrix): boolean {
    if (M.disposed || M.format === 'csc' || M.format === 'coo' || M.params.tiled) return false;
    if (!this.pool) return true;
    let cost = this.productCost.get(M);
    if (cost === undefined) {
      cost = 0;
      for (const st of spmvSteps(M, 0, 0, PLAIN_PRODUCT, 0)) if (st.end > st.start) cost = Math.max(cost, st.prefix(st.end) - st.prefix(st.start));
      this.productCost.set(M, cost);
    }
    return cost < (this.policy ? this.policy.floor : this.inlineThreshold);
  }

  /**
   * Runs `body` at once, synchronously on the calling thread, and returns what it returns, where
   * operations on vectors of n elements and products of M (null: none) would each run inline now
   * (inlineNow, productInline): a chain of them without a promise; undefined, without running it,
   * where they would not. `body` calls only kernels over [0, n) (kernel, partialsInline) and
   * spmvInline, and returns a value other than undefined.
   */
  inlineBatch<T>(n: number, M: CpuMatrix | null, body: () => T): T | undefined {
    if ((M && !this.productInline(M)) || !this.inlineNow(n)) return undefined;
    return body();
  }

  /** The kernel of that name, to call at once inside inlineBatch (over [0, n), as runVector calls it inline). */
  kernel(name: string): (...args: number[]) => number {
    const fn = this.kernels[name];
    if (!fn) throw new Error(`internal: kernel ${name} is missing from the wasm module`);
    return fn;
  }

  /**
   * Inside inlineBatch, where a reduction over [0, n) writes its one chunk's (re, im) partials: the
   * scratch's first two f64, zeroed (as runReduction's scratch), their byteOffset the kernel's output
   * pointer; valid until the next reduction.
   */
  partialsInline(): Float64Array {
    if (!this.scratch || this.scratch.bytes < 16 * (this.threads + 1)) this.reductionScratch();
    const ptr = this.scratch!.ptr;
    // the view is kept (a shared memory's growth leaves it valid, an unshared one's detaches it: length 0)
    let out = this.scratchView;
    if (!out || out.length === 0 || out.byteOffset !== ptr) out = this.scratchView = this.scratch!.view('f64', 2);
    out[0] = out[1] = 0;
    return out;
  }

  /**
   * Under 'auto', starts a step (SolverOps.step: a solver iteration's operations): until the function
   * returned is called, every operation the policy would measure runs the way chosen for the step,
   * which is measured as one operation named `key` of cost n. The kernels of a CG iteration do not
   * cost the same alone as together: a pooled call after an inline one finds the workers asleep and
   * the vectors in the calling thread's cache, so each kernel's pool trial, made between inline calls
   * of the others, lost (poisson3D(64) on 2 threads: the f64 product 0.69–0.88 ms a pooled trial, 0.47
   * in a run of pooled steps, 0.67 inline) and the iteration stayed inline. A step already running
   * (overlapping solves) keeps its way, and the later step is not measured. A pooled step that finds
   * the workers asleep (idle past spinUs: a solve's first step after its set-up, or after host work
   * such as a residual replacement, or a trial of the pool between inline steps) pays their wake-up
   * once for the run of steps that follows, whichever way it goes: it is not measured, and the next
   * step runs pooled again and is (steps that are always cold — a caller that waits between
   * iterations — are so measured as they are, every other one).
   */
  step(key: string, n: number): () => void {
    const pool = this.pool;
    if (!pool || !this.stepPolicy || this.stepWay || n < this.stepPolicy.floor) return NO_STEP;
    const repeat = this.stepRepeat === key;
    this.stepRepeat = null;
    const d = repeat ? this.stepPolicy.pooled(key, n) : this.stepPolicy.choose(key, n);
    this.stepWay = d.pooled ? POOLED : INLINE;
    const t0 = performance.now();
    const skip = d.pooled && !repeat && t0 - pool.endedAt > pool.options.spinUs / 1000;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.stepWay = null;
      if (skip) this.stepRepeat = key;
      else d.done(performance.now() - t0);
    };
  }

  /** Whether an operation of `kernel` costing `cost` goes to the pool: measured ('auto'; a step's way, see step) or by the fixed threshold. */
  private dispatch(kernel: string, cost: number): Dispatch {
    if (!this.pool) return INLINE;
    if (this.stepWay && this.policy && cost >= this.policy.floor) return this.stepWay;
    if (this.policy) return this.policy.choose(kernel, cost);
    return cost < this.inlineThreshold ? INLINE : POOLED;
  }

  /**
   * One kernel over consecutive ranges in order (a level-scheduled triangular solve): a range given as
   * [start, end] runs inline on the calling thread, one given as pool.chunks + 1 bounds is split over
   * the pool there. Bounds made for another pool size run inline over their whole span (same result).
   */
  runRanges(kernel: string, args: () => number[], ranges: readonly Int32Array[]): Promise<void> {
    return this.exclusive(async () => {
      const a = args();
      const k = this.kernelIndex.get(kernel)!;
      for (const r of ranges) {
        if (this.pool && r.length === this.pool.chunks + 1) await this.pool.run({ kernel: k, args: a, bounds: r });
        else this.call(kernel, a, r[0], r[r.length - 1]);
      }
    });
  }

  /**
   * One kernel over `bounds` (threads + 1 boundaries), synchronously, for host-side setups that cannot
   * await (the AMG hierarchy inside rt.amg, rt.spgemm): on the pool when it is idle, else chunk by
   * chunk on the calling thread with the same arguments, so with the same result. Argument `chunkArg`
   * (an index into args), when given, is offset by 16·c bytes for chunk c, as the pool offsets a
   * reduction's output. It takes no turn: it runs between the steps of an operation in flight, never
   * inside one.
   */
  runChunksSync(kernel: string, args: number[], bounds: Int32Array, chunkArg?: number): void {
    if (this.disposed) throw new DisposedError('runtime');
    const k = this.kernelIndex.get(kernel);
    if (k === undefined) throw new Error(`internal: kernel ${kernel} is missing from the wasm module`);
    const outArg = chunkArg === undefined ? undefined : chunkArg + 1;
    if (this.pool && bounds.length === this.pool.chunks + 1 && this.pool.runSync({ kernel: k, args, bounds, outArg })) return;
    this.chunksInline(kernel, args, bounds, chunkArg);
  }

  /**
   * runChunksSync for a claimed job (PoolJob.claimed): `bounds` has any number of chunks up to
   * MAX_CHUNKS (claimedParts per thread), which the pool's threads take one at a time while any are
   * left, so a late or slow thread runs fewer. Argument `chunkArg` is offset by 16·c bytes for chunk c,
   * `threadArg` (a workspace per thread, `threads` of them) by 16·t for the thread t running it: the
   * kernel's result must not depend on which workspace it had. Where the pool is absent or busy, every
   * chunk runs in order on this thread (t = 0), with the same result.
   */
  runClaimedSync(kernel: string, args: number[], bounds: Int32Array, chunkArg?: number, threadArg?: number): void {
    if (this.disposed) throw new DisposedError('runtime');
    const k = this.kernelIndex.get(kernel);
    if (k === undefined) throw new Error(`internal: kernel ${kernel} is missing from the wasm module`);
    const job = { kernel: k, args, bounds, claimed: true, outArg: chunkArg === undefined ? undefined : chunkArg + 1, threadArg: threadArg === undefined ? undefined : threadArg + 1 };
    if (this.pool && bounds.length > 2 && this.pool.runSync(job)) return;
    this.chunksInline(kernel, args, bounds, chunkArg);
  }

  /** Every chunk of `bounds` in order on this thread, argument `chunkArg` offset by 16·c bytes for chunk c. */
  private chunksInline(kernel: string, args: number[], bounds: Int32Array, chunkArg?: number): void {
    const a = [...args];
    for (let c = 0; c + 1 < bounds.length; c++) {
      this.call(kernel, a, bounds[c], bounds[c + 1]);
      if (chunkArg !== undefined) a[chunkArg] += 16;
    }
  }

  /**
   * A vector kernel over elements [0, n), on the pool in equal contiguous chunks when n reaches the
   * inline threshold.
   */
  runVector(kernel: string, args: () => number[], n: number): Promise<number> {
    if (this.inlineNow(n)) {
      try {
        this.call(kernel, args(), 0, n);
        return Promise.resolve(1);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.exclusive(() => this.runVectorNow(kernel, args(), n));
  }

  /**
   * Whether a vector operation of n elements runs now, synchronously on the calling thread, without a
   * turn: nothing else in flight or waiting (so the order of operations is kept), one inline chunk
   * whichever way dispatch would choose (below the pool's floor: the same bits), and the slice of
   * back-to-back operations not yet spent. exclusive's promises, hold and timing cost ≈ 1 µs a call,
   * more than a vector of a few thousand entries: a third of MINRES's time on dwt_992 (992 rows).
   */
  private inlineNow(n: number): boolean {
    if (this.inFlight > 0 || this.disposed) return false;
    if (this.pool && n >= (this.policy ? this.policy.floor : this.inlineThreshold)) return false;
    if (this.sliceStart < 0) {
      this.sliceStart = performance.now();
      this.inlineLooks = 0;
      this.sliceSpent = false;
      void nextTask().then(() => (this.sliceStart = -1));
    } else if (this.sliceSpent) return false;
    else if (++this.inlineLooks % CLOCK_EVERY === 0 && performance.now() - this.sliceStart > SLICE_MS) {
      this.sliceSpent = true;
      return false;
    }
    this.operations++;
    return true;
  }

  /**
   * A reduction kernel whose last argument is the output pointer (appended here): each chunk writes two
   * f64 partials into the backend's scratch; returns the 2·chunks partials in chunk order (a copy,
   * taken before the next operation may reuse the scratch).
   */
  runReduction(kernel: string, args: () => number[], n: number): Promise<Float64Array> {
    if (this.inlineNow(n)) {
      try {
        const a = args();
        const out = this.reductionScratch();
        this.call(kernel, [...a, out.ptr], 0, n);
        return Promise.resolve(out.view('f64', 2).slice());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.exclusive(async () => {
      const a = args();
      const out = this.reductionScratch();
      const chunks = await this.runVectorNow(kernel, [...a, out.ptr], n, a.length);
      return out.view('f64', 2 * chunks).slice();
    });
  }

  /**
   * A reduction whose kernel writes `width` f64 partials a chunk (GMRES's Gram–Schmidt dots,
   * assembly/gram_schmidt.ts): its last three arguments, appended here, are a region of 8·width bytes a
   * chunk, the reduction scratch's start and the chunk's 16-byte slot of it (runReduction's output
   * pointer, which the pool offsets by 16·c for chunk c), from which the kernel finds its chunk. Returns
   * the width sums over the chunks, each in chunk order (as sumPartials adds runReduction's).
   */
  runWideReduction(kernel: string, args: () => number[], n: number, width: number): Promise<Float64Array> {
    const withOut = (): number[] => {
      const need = 8 * width * (this.threads + 1);
      if (!this.wideScratch || this.wideScratch.bytes < need) {
        this.wideScratch?.dispose();
        this.wideScratch = this.heap.alloc(need);
      }
      // an empty chunk writes nothing: its partials are these zeros
      this.wideScratch.view('u8').fill(0);
      const out = this.reductionScratch().ptr;
      return [...args(), this.wideScratch.ptr, out, out];
    };
    // read before the next operation may reuse the scratch
    const sums = (chunks: number): Float64Array => {
      const parts = this.wideScratch!.view('f64', width * chunks);
      const s = new Float64Array(width);
      for (let c = 0; c < chunks; c++) for (let j = 0; j < width; j++) s[j] += parts[c * width + j];
      return s;
    };
    if (this.inlineNow(n)) {
      try {
        this.call(kernel, withOut(), 0, n);
        return Promise.resolve(sums(1));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.exclusive(async () => {
      const a = withOut();
      return sums(await this.runVectorNow(kernel, a, n, a.length - 1));
    });
  }

  /**
   * Runs one operation at a time: operations that arrive while another runs (Promise.all, overlapping
   * solves) wait their turn in order, so they never share the pool, the reduction scratch or a JDS
   * matrix's work area, and give the results they give in series. `op` takes its pointers when its
   * turn comes (so a vector disposed meanwhile rejects with DisposedError), and memory freed while it
   * runs is reused only after it ends (workers may still touch it). After dispose(), waiting and new
   * operations reject with DisposedError.
   */
  private async exclusive<T>(op: () => Promise<T>): Promise<T> {
    this.operations++;
    this.inFlight++;
    const prev = this.turn;
    let release!: () => void;
    this.turn = new Promise((r) => (release = r));
    try {
      await prev;
      await this.yieldIfLong();
      if (this.disposed) throw new DisposedError('runtime (disposed while the operation waited)');
      this.heap.hold();
      try {
        return await op();
      } finally {
        this.heap.release();
      }
    } finally {
      this.inFlight--;
      release();
    }
  }

  /** Waits for the next task when operations have held the thread for SLICE_MS (see SLICE_MS). */
  private async yieldIfLong(): Promise<void> {
    const now = performance.now();
    if (this.sliceStart < 0) {
      this.sliceStart = now;
      // the first task to run after this ends the stretch
      void nextTask().then(() => (this.sliceStart = -1));
    } else if (now - this.sliceStart > SLICE_MS) {
      await nextTask();
    }
  }

  /**
   * runVector without taking a turn. For reductions, `outArg` is the index of the output-pointer
   * argument: each chunk writes its partial result 16 bytes after the previous one, and this returns
   * how many chunks ran.
   */
  private async runVectorNow(kernel: string, args: number[], n: number, outArg?: number): Promise<number> {
    const d = this.dispatch(kernel, n);
    const t0 = performance.now();
    // A reduction the 'auto' policy may send either way is summed in the pool's chunks inline too,
    // so its bits depend on the number of threads only, never on which way the timing chose.
    const chunked = this.pool && (d.pooled || (outArg !== undefined && this.policy && n >= this.policy.floor));
    if (!this.pool || !chunked) {
      this.call(kernel, args, 0, n);
      d.done(performance.now() - t0);
      return 1;
    }
    const chunks = this.pool.chunks;
    let bounds = this.vectorBounds.get(n);
    if (!bounds) {
      bounds = balancedBounds(n, chunks, (i) => i);
      if (this.vectorBounds.size > 64) this.vectorBounds.clear();
      this.vectorBounds.set(n, bounds);
    }
    if (d.pooled) await this.pool.run({ kernel: this.kernelIndex.get(kernel)!, args, bounds, outArg: outArg === undefined ? undefined : outArg + 1 });
    else {
      // as the pool would: chunk c writes its partial 16·c bytes after the output pointer (args is
      // this call's own array: runVector and runReduction make it fresh)
      for (let c = 0; c < chunks; c++, args[outArg!] += 16) this.call(kernel, args, bounds[c], bounds[c + 1]);
    }
    d.done(performance.now() - t0);
    return chunks;
  }

  /**
   * 16 bytes per chunk for the partial results of reductions, zeroed: a chunk with an empty range
   * writes nothing, and a zero is the neutral partial of both dot and nrm2.
   */
  private reductionScratch(): Region {
    const need = 16 * (this.threads + 1);
    if (!this.scratch || this.scratch.bytes < need) {
      this.scratch?.dispose();
      this.scratch = this.heap.alloc(need);
    }
    this.scratch.view('u8').fill(0);
    return this.scratch;
  }

  private call(kernel: string, args: number[], start: number, end: number): void {
    const fn = this.kernel(kernel);
    if (end > start) callWith(fn, args, start, end);
  }

  /** the pool's start-up chunk (src/cpu/tier-up.ts) where it has loaded (a pool of several threads on a shared memory) */
  get startChunk(): typeof import('./tier-up.js') | undefined {
    return tierUp.loaded() ? tierUp.get() : undefined;
  }

  /**
   * The calls worker 0 tiers up at start (src/cpu/tier-up.ts), over a region kept until dispose: a
   * replaced pool's worker may still run them while its successor's does (scratch both may scribble on).
   */
  private tierUpCalls(): [number, number[]][] {
    if (!tierUp.loaded()) return [];
    const { TIER_UP_BYTES, tierUpCalls } = tierUp.get();
    this.tierUpRegion ??= this.heap.alloc(TIER_UP_BYTES);
    return tierUpCalls(this.heap, this.tierUpRegion.ptr).flatMap(([name, args]): [number, number[]][] => {
      const k = this.kernelIndex.get(name);
      // a kernel whose parameters no longer match is left out, never called with shifted arguments
      return k !== undefined && this.kernel(name).length === args.length ? [[k, args]] : [];
    });
  }

  private closePool(): void {
    this.pool?.dispose();
    this.pool = null;
    this.control?.dispose();
    this.control = null;
  }

  dispose(): void {
    this.disposed = true;
    this.closePool();
    this.scratch?.dispose();
    this.scratch = null;
    this.wideScratch?.dispose();
    this.wideScratch = null;
    this.tierUpRegion?.dispose();
    this.tierUpRegion = null;
    // a kept factor (F.solve, F.refactor) outlives its runtime otherwise, still in its memory
    this.heap.closed = true;
  }
}

/** Two live vectors in different memory (a product may run inline from x into y). */
function apart(x: CpuVector, y: CpuVector): boolean {
  return !x.region.isDisposed && !y.region.isDisposed && x.region.ptr !== y.region.ptr;
}

/**
 * fn(...a, s, e) without the spread for the kernels' argument counts: a spread call of a wasm export
 * cost ≈ 130 ns against ≈ 20 (Node 20), ten times per small MINRES iteration.
 */
function callWith(fn: (...args: number[]) => number, a: number[], s: number, e: number): void {
  switch (a.length) {
    case 1: fn(a[0], s, e); break;
    case 2: fn(a[0], a[1], s, e); break;
    case 3: fn(a[0], a[1], a[2], s, e); break;
    case 4: fn(a[0], a[1], a[2], a[3], s, e); break;
    case 5: fn(a[0], a[1], a[2], a[3], a[4], s, e); break;
    case 6: fn(a[0], a[1], a[2], a[3], a[4], a[5], s, e); break;
    case 7: fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], s, e); break;
    case 8: fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], s, e); break;
    case 9: fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], s, e); break;
    case 10: fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], s, e); break;
    default: fn(...a, s, e);
  }
}
