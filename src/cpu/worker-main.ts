/**
 * The code each pool worker runs (bundled into a string at build time and started from it, so no
 * worker file has to be found). It instantiates the shared kernel module over the shared memory, then
 * loops: spin briefly, sleep on the control block, run its range of the current job, report.
 */
import * as C from './control.js';
import { arrayClass, buildArray, fits, touched, type OutArray } from './copy-out.js';
import { copyWords, type CopyInMessage } from './copy-in.js';
import { TIER_UP_REPS } from './tier-up.js';

type Post = (msg: unknown) => void;

/**
 * Starts the worker loop once the init message arrives. `take` (Node): the next message the calling
 * thread posted on init.port, taken synchronously (a copy-in job's), else undefined.
 */
export async function workerMain(init: C.WorkerInit, post: Post, exit: (code: number) => void, take?: () => unknown): Promise<void> {
  const instance = await WebAssembly.instantiate(init.module, {
    env: {
      memory: init.memory,
      abort(_m: number, _f: number, line: number, col: number) {
        throw new Error(`kernel aborted at ${line}:${col}`);
      },
    },
  });
  const exports = instance.exports as Record<string, (...a: number[]) => number>;
  const fns = init.kernels.map((k) => exports[k]);
  const ctl = new Int32Array(init.memory.buffer, init.control, C.CONTROL_BYTES / 4);
  const args = new Float64Array(init.memory.buffer, init.control + C.ARGS_F64 * 8, C.MAX_ARGS);
  const me = init.index;
  // read the job counter before saying ready: the caller publishes the next job only after that
  let seen = Atomics.load(ctl, C.EPOCH);
  post({ type: 'ready' });
  if (init.tierUp) tierUp(init.tierUp, fns, ctl, me, seen);
  const call: number[] = [];
  // a fresh-array job's array (C.FRESH), for this worker's next copy-out array of its kind and length
  let kept: OutArray | null = null;
  for (;;) {
    // Spin for a while after each job: the next call of an iterative solver usually comes within
    // microseconds, and waking from Atomics.wait costs tens of them. Then sleep until notified.
    const spinUntil = performance.now() + Atomics.load(ctl, C.SPIN_US) / 1000;
    while (Atomics.load(ctl, C.EPOCH) === seen && performance.now() < spinUntil);
    while (Atomics.load(ctl, C.EPOCH) === seen) Atomics.wait(ctl, C.EPOCH, seen);
    seen = Atomics.load(ctl, C.EPOCH);
    if (Atomics.load(ctl, C.COMMAND) === C.CMD_STOP) break;
    // chunk 0 belongs to the calling thread; worker `me` takes chunk me + 1 (of a claimed job: its slot,
    // then chunks from the shared counter), unless the caller has already claimed it (this worker woke
    // late): then there is nothing to do for this job
    if (!C.claim(ctl, me + 1, seen)) continue;
    const start = ctl[C.RANGES + 2 * (me + 1)];
    const end = ctl[C.RANGES + 2 * (me + 1) + 1];
    try {
      if (Atomics.load(ctl, C.FAIL_AT) === me + 1) {
        const mode = Atomics.load(ctl, C.FAIL_MODE);
        if (mode === 1) throw new Error(`worker ${me} failed on purpose (test hook)`);
        if (mode === 2) exit(3);
        if (mode === 3) Atomics.wait(ctl, C.FAIL_MODE, mode, 30_000);
      }
      const claimed = ctl[C.CHUNKS] > 0;
      if (claimed || end > start) {
        const n = ctl[C.NARGS];
        call.length = 0;
        for (let i = 0; i < n; i++) call.push(args[i]);
        const out = ctl[C.OUT_ARG];
        if (claimed) {
          // chunks one at a time while any are left, each chunk's partial at 16·c, this worker's
          // workspace in THREAD_ARG
          const base = out > 0 ? call[out - 1] : 0;
          const own = ctl[C.THREAD_ARG];
          if (own > 0) call[own - 1] += 16 * (me + 1);
          const fn = fns[ctl[C.KERNEL]];
          C.claimChunks(ctl, (c, s, e) => {
            if (out > 0) call[out - 1] = base + 16 * c;
            call[n] = s;
            call[n + 1] = e;
            fn(...call);
          });
        } else {
          if (out > 0) call[out - 1] += 16 * (me + 1);
          const kernel = ctl[C.KERNEL];
          if (kernel === C.COPY_OUT) {
            const spare = kept;
            kept = null;
            const buffer = init.memory.buffer;
            const built = Array.from({ length: end - start }, (_, k) => buildArray(buffer, args[0], start + k, fits(spare, buffer, args[0], start + k) ? spare : undefined));
            // posted before DONE: the caller takes them once the job is done
            init.port!.postMessage(built, built.map((a) => a.buffer as ArrayBuffer));
          } else if (kernel === C.COPY_IN) {
            // (a message of an earlier job that never ran is dropped: it would hold its arrays)
            let m: CopyInMessage | undefined;
            while ((m = take?.() as CopyInMessage | undefined) && m.tag !== args[0]);
            if (!m) throw new Error(`internal: copy-in job ${args[0]} found no message`);
            copyWords(init.memory.buffer, m.sources, m.to, start, end);
          } else if (kernel === C.FRESH) {
            if (me + 1 === args[2]) {
              kept = null; // the last one dropped before the next is allocated
              kept = touched(new (arrayClass(args[0]))(args[1]));
            }
            // then blocks of rows, claimed one at a time from the counter shared with the other threads
            const blocks = new Int32Array(init.memory.buffer, args[3]);
            const rows = call.slice(5);
            for (let b; (b = Atomics.add(blocks, 0, 1)) < blocks[1]; ) fns[args[4]](...rows, blocks[2 + b], blocks[3 + b]);
          } else {
            call.push(start, end);
            fns[kernel](...call);
          }
        }
      }
    } catch (e) {
      Atomics.compareExchange(ctl, C.ERROR, 0, me + 2);
      post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    }
    Atomics.add(ctl, C.DONE, 1);
    Atomics.notify(ctl, C.DONE);
  }
}

/**
 * Runs each call TIER_UP_REPS times (src/cpu/tier-up.ts), until a job has rows for this worker's
 * chunk: that job is not kept waiting (and the caller runs an unclaimed chunk itself meanwhile).
 */
function tierUp(calls: [number, number[]][], fns: ((...a: number[]) => number)[], ctl: Int32Array, me: number, seen: number): void {
  const range = C.RANGES + 2 * (me + 1);
  try {
    for (const [k, args] of calls) {
      for (let i = 0; i < TIER_UP_REPS; i++) {
        if (Atomics.load(ctl, C.EPOCH) !== seen && ctl[range + 1] > ctl[range]) return;
        fns[k](...args);
      }
    }
  } catch {
    // a tier-up call is never needed: whatever it hit, the worker goes on to its jobs
  }
}
