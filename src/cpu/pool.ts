import * as C from './control.js';
import { DisposedError, SimdglError } from '../errors.js';
import { nodeBuiltin } from '../node-builtins.js';
import { lazyModule } from '../lazy-module.js';
import type { OutArray } from './copy-out.js';

/**
 * The workers' script (one string, ≈ 2.3 KB minified), imported when a pool first starts, which is
 * asynchronous anyway: a chunk of its own in a page's bundle, off the page's first file (webpack's
 * 244 KiB size hint, docs/bundlers.md).
 */
const workerScript = lazyModule(() => import('./worker-source.generated.js'), 'the pool workers\' script');

/**
 * A worker of the CPU path's pool failed during a call (code `E_WORKER`): it threw, exited, or the call
 * ran past `createRuntime({ timeoutMs })`. The pending call rejects with it, naming the worker and the
 * cause; the pool is replaced and the next call works.
 *
 * @example
 * ```ts
 * // not run: a healthy pool does not fail (test/pool.test.ts makes workers crash on purpose)
 * import { createRuntime, WorkerError } from 'simdgl';
 *
 * const rt = await createRuntime({ workers: 4, timeoutMs: 10_000 });
 * try {
 *   await rt.spmv(A, x);
 * } catch (e) {
 *   if (!(e instanceof WorkerError)) throw e;
 *   await rt.spmv(A, x);                                                // the replaced pool runs it
 * }
 * ```
 */
export class WorkerError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WorkerError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message which worker failed and why
   */
  constructor(message: string) {
    super('E_WORKER', message);
  }
}

export interface PoolOptions {
  /** workers to start (the calling thread computes chunk 0 besides them when `callerComputes`) */
  workers: number;
  /** whether the calling thread runs a chunk itself (true where it may block: Node, workers) */
  callerComputes: boolean;
  /** how long idle workers spin before sleeping, in µs */
  spinUs: number;
  /** a call still running after this many ms rejects and the pool is replaced (0 = no limit) */
  timeoutMs: number;
  /** the calls worker 0 tiers up while idle at start (src/cpu/tier-up.ts) */
  tierUp?: [number, number[]][];
  /** copyOutSync's work (src/cpu/spgemm-fresh.ts, a chunk loaded with the pool); absent, the caller builds every array */
  copyOut?: typeof import('./spgemm-fresh.js').copyOutOnPool;
}

/** One job: a kernel with its arguments, split by `bounds` (chunk c is [bounds[c], bounds[c+1])). */
export interface PoolJob {
  kernel: number;
  args: number[];
  bounds: Int32Array;
  /** for reductions: 1 + index of the output-pointer argument (see control.ts) */
  outArg?: number;
  /** the workers' chunks are theirs alone: the caller waits for a late worker rather than run its chunk (which needs what that worker holds) */
  own?: boolean;
  /**
   * a claimed job: `bounds` has up to MAX_CHUNKS chunks, which the threads (the caller too) take one at a
   * time while any are left, so a late, slow or descheduled thread runs fewer; `outArg` is offset by
   * 16·(the chunk), `threadArg` (1 + an argument's index) by 16·(the thread running it: the caller 0,
   * worker w w + 1)
   */
  claimed?: boolean;
  threadArg?: number;
}

interface WorkerHandle {
  post(msg: unknown): void;
  terminate(): void;
  /** Node: takes the next message the worker posted on its copy-out port, synchronously */
  receive?: () => unknown;
  /** Node: posts a message on that port, which the worker takes synchronously in a job (copy-in.ts) */
  send?: (msg: unknown) => void;
}

/** Whether this thread may block in Atomics.wait (not a browser's main thread). */
function canBlock(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}
const isNode = typeof process !== 'undefined' && !!process.versions?.node;
/** The least a blocking caller spins for its workers (ms; see WorkerPool.spinDone). */
const SPIN_FLOOR_MS = 0.01;

/**
 * Workers over one shared WebAssembly memory, fed through a control block with Atomics. A job is
 * published by bumping EPOCH; the caller runs chunk 0 and every chunk no worker has claimed yet
 * (control.ts) — of a claimed job, chunks from the shared counter as the workers do —, then waits for
 * DONE: spinning briefly, then
 * blocking in bounded Atomics.wait slices where allowed, then asynchronously, so that a worker's exit
 * (an event) is noticed and no wait is unbounded.
 */
export class WorkerPool {
  readonly blocking = canBlock();
  private workers: WorkerHandle[] = [];
  private ready: Promise<void> = Promise.resolve();
  private fault: string | null = null;
  private disposed = false;
  private busy = false;
  /** when the last job ended (performance.now(); -Infinity: none yet): idle workers sleep spinUs after it */
  endedAt = -Infinity;
  /** whether every worker has started and none has failed since (runSync needs them) */
  private up = false;
  /** bumped whenever the set of workers is replaced, so exits of old workers are ignored */
  private generation = 0;
  private readonly ctl: () => Int32Array;
  private readonly args: () => Float64Array;

  constructor(
    private readonly module: WebAssembly.Module,
    readonly memory: WebAssembly.Memory,
    private readonly controlPtr: number,
    private readonly kernelNames: string[],
    private readonly runInline: (job: PoolJob, start: number, end: number) => void,
    readonly options: PoolOptions,
  ) {
    // views are re-made per use: growth of a shared memory keeps the bytes but not the old view's length
    this.ctl = () => new Int32Array(memory.buffer, controlPtr, C.CONTROL_BYTES / 4);
    this.args = () => new Float64Array(memory.buffer, controlPtr + C.ARGS_F64 * 8, C.MAX_ARGS);
    const ctl = this.ctl();
    ctl.fill(0);
    Atomics.store(ctl, C.SPIN_US, options.spinUs);
    this.ready = this.spawnAll();
  }

  get size(): number {
    return this.options.workers;
  }

  /** Number of chunks a job is split into (workers + the caller's chunk 0). */
  get chunks(): number {
    return this.options.workers + 1;
  }

  setSpin(us: number): void {
    Atomics.store(this.ctl(), C.SPIN_US, us);
  }

  /** Test hook: worker `index` throws, exits or stalls (30 s) on its next job. */
  failNext(index: number, mode: 'throw' | 'exit' | 'stall'): void {
    const ctl = this.ctl();
    Atomics.store(ctl, C.FAIL_MODE, { throw: 1, exit: 2, stall: 3 }[mode]);
    Atomics.store(ctl, C.FAIL_AT, index + 1);
  }

  async run(job: PoolJob): Promise<void> {
    if (this.disposed) throw new DisposedError('worker pool');
    // CpuBackend runs one operation at a time, so this only guards against misuse of the pool itself
    if (this.busy) throw new SimdglError('E_BUSY', 'internal: the worker pool is already running a call');
    this.busy = true;
    try {
      await this.ready;
      if (this.disposed) throw new DisposedError('worker pool');
      const ctl = this.ctl();
      const t0 = performance.now();
      const callerError = this.start(ctl, job);
      await this.waitDone(ctl, performance.now() - t0);
      this.finish(ctl, callerError);
    } finally {
      this.busy = false;
      this.endedAt = performance.now();
    }
  }

  /**
   * run() for a caller that cannot await (the AMG setup inside the synchronous rt.amg and rt.spgemm):
   * the same job, waited for by blocking (spinning where this thread may not block) for at most
   * timeoutMs. Returns false, having run nothing, while the pool is busy or its workers are not all
   * up: the caller then runs the chunks itself.
   */
  runSync(job: PoolJob, inline = this.runInline): boolean {
    if (this.disposed || this.busy || !this.up || this.fault) return false;
    this.busy = true;
    try {
      const ctl = this.ctl();
      const t0 = performance.now();
      const callerError = this.start(ctl, job, inline);
      const want = this.options.workers;
      this.spinDone(ctl, performance.now() - t0);
      const deadline = this.options.timeoutMs > 0 ? performance.now() + this.options.timeoutMs : Infinity;
      let d;
      while ((d = Atomics.load(ctl, C.DONE)) < want) {
        if (performance.now() > deadline) {
          this.recover(`a worker did not finish within ${this.options.timeoutMs} ms`);
          break;
        }
        if (this.blocking) Atomics.wait(ctl, C.DONE, d, 5);
      }
      this.finish(ctl, callerError);
      return true;
    } finally {
      this.busy = false;
      this.endedAt = performance.now();
    }
  }

  /** Whether the workers can hand arrays over (Node: the calling thread takes a message synchronously). */
  get handsOver(): boolean {
    return this.workers.every((w) => w.receive);
  }

  /**
   * The `count` arrays of the copy-out description at `desc` (copy-out.ts), built in one job: the
   * workers build the last ones, one each, and hand them over by transfer while this thread builds
   * the first, into `into`'s arrays where given (of their kinds and lengths); `own`: the job is
   * PoolJob.own (the workers hold fresh arrays for theirs). Null, having built nothing, where the
   * workers cannot hand arrays over (not Node), `into` has one of theirs, or runSync would refuse the
   * job (the caller then builds them all itself).
   */
  copyOutSync(desc: number, count: number, into?: (OutArray | undefined)[], own = false): OutArray[] | null {
    const body = this.options.copyOut;
    return body && this.handsOver ? body(this, (w) => this.workers[w]?.receive?.(), desc, count, into, own) : null;
  }

  /**
   * Posts `msg` on every worker's port for the next job, which takes it synchronously (copy-in.ts's
   * COPY_IN, a job of the workers' own: each takes its message); false, posting nothing, where the
   * workers have no port (not Node) or runSync would refuse a job now.
   */
  postSync(msg: unknown): boolean {
    if (this.disposed || this.busy || !this.up || this.fault || !this.workers.every((w) => w.send)) return false;
    for (const w of this.workers) w.send!(msg);
    return true;
  }

  /**
   * Publishes a job, then runs chunk 0 and every chunk no worker has claimed yet on this thread;
   * returns what the caller's chunks threw (null when nothing).
   */
  private start(ctl: Int32Array, job: PoolJob, inline = this.runInline): unknown {
    const args = this.args();
    for (let i = 0; i < job.args.length; i++) args[i] = job.args[i];
    ctl[C.KERNEL] = job.kernel;
    ctl[C.NARGS] = job.args.length;
    ctl[C.OUT_ARG] = job.outArg ?? 0;
    const claimed = job.claimed ? job.bounds.length - 1 : 0;
    if (claimed > C.MAX_CHUNKS) throw new Error(`internal: a claimed job of ${claimed} chunks, more than ${C.MAX_CHUNKS}`);
    for (let c = 0; c < (claimed || this.chunks); c++) {
      ctl[C.RANGES + 2 * c] = job.bounds[c];
      ctl[C.RANGES + 2 * c + 1] = job.bounds[c + 1];
    }
    ctl[C.CHUNKS] = claimed;
    ctl[C.THREAD_ARG] = job.threadArg ?? 0;
    Atomics.store(ctl, C.NEXT, 0);
    Atomics.store(ctl, C.ERROR, 0);
    Atomics.store(ctl, C.DONE, 0);
    Atomics.store(ctl, C.COMMAND, C.CMD_RUN);
    Atomics.add(ctl, C.EPOCH, 1);
    Atomics.notify(ctl, C.EPOCH);
    const epoch = Atomics.load(ctl, C.EPOCH);
    // a reduction's chunk c writes its partial 16·c bytes after the output pointer, as worker c − 1
    // would (the caller's workspace, a claimed job's threadArg, is at offset 0)
    const chunkArgs = (c: number) => (job.outArg && c > 0 ? job.args.map((v, i) => (i === job.outArg! - 1 ? v + 16 * c : v)) : job.args);
    try {
      if (claimed) C.claimChunks(ctl, (c, s, e) => inline({ ...job, args: chunkArgs(c) }, s, e));
      else if (job.bounds[1] > job.bounds[0]) inline(job, job.bounds[0], job.bounds[1]);
      // then every chunk no worker has claimed yet (of a claimed job, every job slot: its chunks are
      // all taken): a worker still waiting for a core costs nothing (not while a test hook makes a
      // worker fail: that worker must meet its job)
      if (Atomics.load(ctl, C.FAIL_AT) === 0 && !job.own) {
        for (let c = 1; c < this.chunks; c++) {
          if (!C.claim(ctl, c, epoch)) continue;
          if (!claimed && job.bounds[c + 1] > job.bounds[c]) inline({ ...job, args: chunkArgs(c) }, job.bounds[c], job.bounds[c + 1]);
          Atomics.add(ctl, C.DONE, 1);
        }
      }
    } catch (e) {
      return e;
    }
    return null;
  }

  /** After the workers are done: clears the test hooks, replaces the pool after a worker's error, rethrows. */
  private finish(ctl: Int32Array, callerError: unknown): void {
    Atomics.store(ctl, C.FAIL_AT, 0);
    Atomics.store(ctl, C.FAIL_MODE, 0);
    Atomics.notify(ctl, C.FAIL_MODE);
    const err = Atomics.load(ctl, C.ERROR);
    if (err) this.recover(`worker ${err - 2} threw: ${this.lastMessage ?? 'unknown error'}`);
    if (this.fault) throw new WorkerError(this.fault);
    if (callerError) throw callerError;
  }

  /** Stops the workers; a pending call rejects. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopWorkers();
  }

  /** Tells every worker to stop, terminates them, and forgets their exits (a new generation). */
  private stopWorkers(): void {
    this.generation++;
    this.up = false;
    const ctl = this.ctl();
    Atomics.store(ctl, C.COMMAND, C.CMD_STOP);
    Atomics.add(ctl, C.EPOCH, 1);
    Atomics.notify(ctl, C.EPOCH);
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }

  private lastMessage: string | null = null;

  /**
   * Spins while the workers' chunks should still be running — as long as the caller's own took (they
   * started together), at least SPIN_FLOOR_MS, never past the workers' idle spin (`spinUs`) — before the
   * caller blocks: a caller woken from Atomics.wait comes back late now and then (a 16-core host, a
   * pooled dot of 262 144 rows: the wait's 90th percentile 17–42 µs blocking at once, 6–11 spinning).
   * A worker late past that (preempted) costs a blocked caller, as before.
   */
  private spinDone(ctl: Int32Array, ownMs: number): void {
    const want = this.options.workers;
    const end = performance.now() + Math.min(this.options.spinUs / 1000, Math.max(ownMs, SPIN_FLOOR_MS));
    while (Atomics.load(ctl, C.DONE) < want && performance.now() < end);
  }

  private async waitDone(ctl: Int32Array, ownMs: number): Promise<void> {
    const want = this.options.workers;
    const deadline = this.options.timeoutMs > 0 ? performance.now() + this.options.timeoutMs : Infinity;
    if (!this.blocking) {
      // A browser's main thread cannot block, so it spins, for as long as Node blocks: an operation
      // inline would hold the thread as long, while each asynchronous wake-up costs a task of the
      // event loop (0.3 ms measured in Chromium, 15× a 100,000-element dot: bench/defaults.ts).
      const spinEnd = performance.now() + 50;
      while (Atomics.load(ctl, C.DONE) < want && performance.now() < spinEnd);
    } else {
      // Spin only while the workers should be computing (spinDone), then block: a caller spinning on
      // a core its workers need (more threads than free cores) delays them by a whole time slice.
      // Slices of 5 ms for up to 50 ms: most kernels finish within it; longer calls go asynchronous.
      this.spinDone(ctl, ownMs);
      const blockEnd = performance.now() + 50;
      let d;
      while ((d = Atomics.load(ctl, C.DONE)) < want && performance.now() < blockEnd) Atomics.wait(ctl, C.DONE, d, 5);
    }
    // then wait without blocking, so worker exits and dispose() are seen
    while (Atomics.load(ctl, C.DONE) < want) {
      if (this.disposed) throw new DisposedError('worker pool (disposed during a call)');
      if (this.fault) return;
      if (performance.now() > deadline) {
        this.recover(`a worker did not finish within ${this.options.timeoutMs} ms`);
        return;
      }
      const d = Atomics.load(ctl, C.DONE);
      const wa = (Atomics as { waitAsync?: (a: Int32Array, i: number, v: number, t: number) => { async: boolean; value: Promise<string> | string } }).waitAsync;
      if (wa && !isNode) {
        const r = wa(ctl, C.DONE, d, 10);
        if (r.async) await r.value;
      } else {
        await new Promise((res) => setTimeout(res, 1));
      }
    }
  }

  /** Replaces every worker after a failure: the next call waits for the fresh ones. */
  private recover(reason: string): void {
    this.fault = reason;
    this.stopWorkers();
    this.ready = this.spawnAll().then(() => {
      this.fault = null;
    });
  }

  private async spawnAll(): Promise<void> {
    await workerScript.load().catch((e: unknown) => {
      throw new WorkerError(`the pool workers' script failed to load: ${e instanceof Error ? e.message : String(e)}`);
    });
    const ctl = this.ctl();
    Atomics.store(ctl, C.COMMAND, C.CMD_RUN);
    Atomics.store(ctl, C.DONE, 0);
    // allSettled, not all: when one worker fails to start, the ones that did are terminated here
    // rather than left blocked on a control region no pool will use again
    const settled = await Promise.allSettled(Array.from({ length: this.options.workers }, (_, i) => this.spawn(i)));
    const started = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed || this.disposed) {
      for (const w of started) w.terminate();
      if (failed) throw failed.reason;
    } else {
      this.workers = started;
      this.up = true;
    }
  }

  private async spawn(index: number): Promise<WorkerHandle> {
    const tierUp = index === 0 ? this.options.tierUp : undefined;
    const init: C.WorkerInit = { module: this.module, memory: this.memory, control: this.controlPtr, index, kernels: this.kernelNames, ...(tierUp ? { tierUp } : {}) };
    const onMessage = (m: { type: string; message?: string }, resolve: () => void): void => {
      if (m.type === 'ready') resolve();
      if (m.type === 'error') this.lastMessage = m.message ?? null;
    };
    const gen = this.generation;
    const onExit = (code: number): void => {
      if (!this.disposed && gen === this.generation && this.fault === null) this.recover(`worker ${index} exited with code ${code}`);
    };
    const wt = nodeBuiltin('node:worker_threads');
    if (wt) {
      const { Worker, MessageChannel, receiveMessageOnPort } = wt;
      const w = new Worker(workerScript.get().workerSource, { eval: true });
      // the copy-out port (where the engine can take a message synchronously): no listener on this
      // side, so its messages wait for receiveMessageOnPort
      const channel = typeof receiveMessageOnPort === 'function' && typeof MessageChannel === 'function' ? new MessageChannel() : null;
      channel?.port1.unref();
      await new Promise<void>((resolve, reject) => {
        w.on('message', (m) => onMessage(m, resolve));
        w.once('error', (e: Error) => reject(new WorkerError(`worker ${index} failed to start: ${e.message}`)));
        w.on('exit', onExit);
        if (channel) w.postMessage({ ...init, port: channel.port2 }, [channel.port2]);
        else w.postMessage(init);
      });
      // Idle workers must never keep the process alive (pending calls keep it alive by their timers).
      // unref() only after the listeners: attaching one re-refs the worker's port.
      w.unref();
      return {
        post: (m) => w.postMessage(m),
        terminate: () => {
          channel?.port1.close();
          void w.terminate();
        },
        ...(channel && { receive: () => receiveMessageOnPort(channel.port1)?.message, send: (m: unknown) => channel.port1.postMessage(m) }),
      };
    }
    const url = URL.createObjectURL(new Blob([workerScript.get().workerSource], { type: 'text/javascript' }));
    const w = new Worker(url);
    await new Promise<void>((resolve, reject) => {
      w.onmessage = (e) => onMessage(e.data, resolve);
      w.onerror = (e) => {
        reject(new WorkerError(`worker ${index} failed: ${e.message}`));
        onExit(1);
      };
      w.postMessage(init);
    });
    URL.revokeObjectURL(url);
    return { post: (m) => w.postMessage(m), terminate: () => w.terminate() };
  }
}
