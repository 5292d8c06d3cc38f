/**
 * The control block shared by the calling thread and the workers, in the runtime's shared memory.
 * One job at a time: the caller writes the kernel, its arguments and one range per chunk, then
 * bumps EPOCH and notifies. A chunk is run by whoever claims it first for the job's epoch (CLAIMS):
 * its worker, or the caller once it has finished chunk 0 — so a worker that has not been scheduled
 * yet (another process holds the core) delays nothing. Whoever runs a chunk adds one to DONE and
 * notifies; the job is done when DONE reaches the number of workers.
 *
 * Int32 words:
 *   EPOCH     job counter; workers wait on it changing
 *   DONE      chunks 1… of the current job finished
 *   COMMAND   RUN or STOP
 *   KERNEL    index of the kernel in the name table sent at start-up
 *   NARGS     number of arguments before the range
 *   ERROR     0, or 1 + index of the first worker whose kernel threw
 *   SPIN_US   how long an idle worker spins before it sleeps (µs)
 *   FAIL_AT   test hook: the worker with index FAIL_AT − 1 misbehaves on its next job (0 = off)…
 *   FAIL_MODE …by throwing (1), exiting (2) or stalling for 30 s (3)
 *   OUT_ARG   for reductions, 1 + the index of the argument holding the output pointer: each worker
 *             adds 16·(its index) to it, so partial results land side by side (0 = not a reduction)
 *   CHUNKS    0: chunk c is thread c's (the caller's chunk 0, worker c − 1's), run by whoever claims
 *             it in CLAIMS; k > 0: a claimed job (claimChunks) of k chunks, which every thread that holds
 *             a job slot in CLAIMS takes one at a time from NEXT, so a late or slow thread runs fewer
 *   NEXT      a claimed job's next chunk (its counter; reset before the job is published)
 *   THREAD_ARG for a claimed job, 1 + the index of an argument offset by 16·(the running thread: 0 the
 *             caller, worker w w + 1), a workspace of its own whichever chunks it runs (0 = none);
 *             OUT_ARG is offset by 16·(the chunk) there
 *   RANGES    [start, end] per chunk, from word RANGES
 *   CLAIMS    per chunk, the last epoch it was claimed for (chunk c claims word CLAIMS + c)
 * Float64 words from ARGS_F64: the kernel arguments (pointers and scalars are exact in f64).
 */
export const EPOCH = 0;
export const DONE = 1;
export const COMMAND = 2;
export const KERNEL = 3;
export const NARGS = 4;
export const ERROR = 5;
export const SPIN_US = 6;
export const FAIL_AT = 7;
export const OUT_ARG = 8;
export const FAIL_MODE = 9;
export const CHUNKS = 10;
export const NEXT = 11;
export const THREAD_ARG = 12;
export const RANGES = 16;
export const MAX_WORKERS = 256;
/** Most chunks a job has: RANGES holds a pair per chunk up to the caller's plus MAX_WORKERS. */
export const MAX_CHUNKS = MAX_WORKERS + 1;
export const CLAIMS = RANGES + 2 * MAX_WORKERS + 2;
export const ARGS_F64 = (CLAIMS + MAX_WORKERS + 2) / 2;
export const MAX_ARGS = 24;
export const CONTROL_BYTES = (ARGS_F64 + MAX_ARGS) * 8;

export const CMD_RUN = 1;
export const CMD_STOP = 2;

/** KERNEL of a copy-out job (copy-out.ts): chunk c builds the arrays [start, end) of the description at argument 0. */
export const COPY_OUT = -1;
/**
 * KERNEL of a fresh-array job (src/cpu/spgemm-fresh.ts): worker argument 2 − 1 allocates an array of
 * kind argument 0 (copy-out.ts) and length argument 1, faults its pages in and keeps it for its next
 * copy-out array of that kind and length; then every worker whose chunk is not empty runs kernel
 * argument 4 (its arguments after it, OUT_ARG offsetting its workspace) over blocks of rows claimed one
 * at a time from the i32 words at argument 3: a counter, the number of blocks to claim, the blocks' bounds.
 */
export const FRESH = -2;
/**
 * KERNEL of a copy-in job (copy-in.ts): each worker takes the message tagged argument 0 from its port
 * (arrays on SharedArrayBuffers, their destinations) and copies its chunk's 4-byte words of them.
 */
export const COPY_IN = -3;

/**
 * Claims chunk `c` of the job of epoch `e` for the calling thread: true for exactly one claimant, and
 * false once the chunk is claimed for e or a later job. A worker descheduled between reading EPOCH and
 * claiming can come back after the caller has claimed the chunk of the next job: it must not take that
 * job's chunk (it would run it a second time and add to the next job's DONE, which then could complete
 * while a chunk still runs). Epochs only grow (modulo 2³², hence the signed difference).
 */
export function claim(ctl: Int32Array, c: number, e: number): boolean {
  const was = Atomics.load(ctl, CLAIMS + c);
  return ((e - was) | 0) > 0 && Atomics.compareExchange(ctl, CLAIMS + c, was, e) === was;
}

/**
 * A claimed job's chunks (CHUNKS > 0) for a thread that holds a job slot (claim): takes chunk after chunk
 * from NEXT until none is left, calling run(c, start, end) for each non-empty one. Only holders of a slot
 * take chunks, and the job is done only when every slot is done, so NEXT is never read for another job:
 * the caller resets it before publishing the next one.
 */
export function claimChunks(ctl: Int32Array, run: (c: number, start: number, end: number) => void): void {
  const chunks = ctl[CHUNKS];
  for (let c; (c = Atomics.add(ctl, NEXT, 1)) < chunks; ) {
    const start = ctl[RANGES + 2 * c];
    const end = ctl[RANGES + 2 * c + 1];
    if (end > start) run(c, start, end);
  }
}

/** The message that starts a worker. */
export interface WorkerInit {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  control: number;
  index: number;
  kernels: string[];
  /** Node: where the worker posts the arrays a copy-out job built (the pool takes them synchronously) */
  port?: { postMessage(m: unknown, transfer: ArrayBuffer[]): void };
  /** calls [kernel index, arguments with the row range last] to run TIER_UP_REPS times while idle at start (src/cpu/tier-up.ts) */
  tierUp?: [number, number[]][];
}
