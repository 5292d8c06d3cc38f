/**
 * Whether an operation runs on the worker pool or inline on the calling thread, by measurement
 * (createRuntime's default, `inlineThreshold: 'auto'`). A fixed size threshold cannot be right on
 * every machine: whether splitting pays depends on the kernel (a streaming dot saturates memory with
 * one core where an SpMV's index arithmetic does not), on where the data sits in the caches, on the
 * cost of waking workers and on what else the cores are running. On a 2-vCPU machine shared with
 * other work, the pool lost 2–3× to one thread for 100,000-element vector operations and won 1.2×
 * for a million-row SpMV (bench/defaults.ts).
 *
 * So each kernel, in half-octave buckets of its cost (entries + rows, or elements), keeps the measured
 * time per cost unit of both ways: the first calls run inline, then on the pool (three each, the median
 * kept, so one cold or preempted call does not decide; a second pooled call slower than LOSS_STOP ×
 * inline's time ends the pool's trials, as the median would lose too, so a loaded machine pays two slow
 * calls, not three, and one outlier does not end them: it did with its own time as the pool's estimate,
 * and the next trial came that ÷ EXPLORE_SHARE later — one 2 ms trial kept a 0.1 ms update inline for ≈
 * 700 calls, several solves), then the faster one runs — the pool only when it measured POOL_MARGIN
 * faster, as its times vary more (a worker can be preempted while the calling thread is not) — and the
 * other is measured again once the time spent since its last trial reaches its estimated cost divided
 * by EXPLORE_SHARE, so exploring costs at most about EXPLORE_SHARE of the time however badly it loses
 * (a worker preempted by another process can cost a whole time slice). Where it loses clearly (by
 * CLEAR× or more), each trial that says so again doubles that interval, up to 2^MAX_BACKOFF times but
 * never past MAX_WAIT_MS of the kernel's time: a 27 µs pool trial every 0.9 ms against a 4.8 µs inline
 * dot cost a page 5% (7.6 against 7.2 µs per call with the runtime's own overhead), and once confirmed
 * it now comes every 29 ms. Each new sample moves an estimate by a share of the difference — inline's
 * capped at 4× the estimate, so one outlier cannot shut it out for long; the pool's whole, as its mean
 * is what it costs, stalled workers included (the cap let a pool that stalled in 1 call of 30 stay
 * chosen while it lost 1.5× on average) — unless the pool still wins with the stall spread over the
 * pooled calls since the previous one (a lone stall; taken whole, stalls sent a 16-core host's f32 CG
 * update, 0.07 ms pooled against 0.32 inline, inline in 337 of 525 calls): then it adds that share only
 * —, and for STALL_MEMORY pooled samples after a stall taken whole a fast trial does not bring the pool
 * straight back (each did, so a page's pool that stalled for 100 ms in 1% of calls lost 8% on the
 * whole; the price: once such stalls end, the pool's raised estimate decays one trial at a time, about
 * 2 s of the kernel's time); a re-measured way that now takes under half its estimate is measured again
 * on the next call, and a trial that finds it close (under CLEAR×), or a change of which way wins, ends
 * the backoff, so a lasting change (load elsewhere starting or ending) is followed within calls after
 * at most MAX_WAIT_MS (or one base interval, if longer) of the kernel's time.
 */

import { median } from '../metrics.js';

/** Below this cost (entries + rows, or elements) an operation always runs inline: no pool can win there. */
export const POOL_FLOOR = 16384;
/** Share of a kernel's time spent re-measuring the way that lost. */
export const EXPLORE_SHARE = 0.03;
/** A re-measured way this many times slower than the chosen one's estimate confirms that it loses clearly. */
const CLEAR = 1.5;
/** Confirmations that double the interval between trials of a way that loses clearly. */
const MAX_BACKOFF = 5;
/** However often a loss was confirmed, the other way is measured again after this much time on the chosen one (ms). */
export const MAX_WAIT_MS = 200;
/** A pooled call this many times its estimate is a stall (a worker preempted by another process). */
const STALL = 4;
/** Pooled samples after a stall during which a fast trial does not bring the pool straight back. */
const STALL_MEMORY = 20;
/** Samples of each way before the faster is chosen. */
const LEARN = 3;
/** A second pooled trial this many times slower than inline ends the pool's trials. */
const LOSS_STOP = 2;
/** The pool is chosen when its time per unit is below this share of inline's. */
export const POOL_MARGIN = 0.85;
/** Weight of a new sample in a settled estimate. */
const ALPHA = 0.3;

interface Way {
  /** samples taken */
  n: number;
  /** ms per cost unit (while learning: the samples' lowest) */
  perUnit: number;
  /** the learning samples */
  first: number[];
}

interface KernelStats {
  inline: Way;
  pool: Way;
  /** ms spent on the chosen way since the other was last measured */
  spent: number;
  /** trials in a row that found the other way CLEAR× slower (each doubles the interval between them) */
  backoff: number;
  /** which way won when last looked (a change ends the backoff) */
  poolWon: boolean;
  /** the pool's sample count at its last stall (a call STALL× its estimate) */
  lastStall: number;
  /** the pool's sample count at its last stall taken whole (not a lone one) */
  lastWhole: number;
  /** the cost of the call in flight (calls of one policy never overlap: the backend runs one at a time) */
  cost: number;
  /** see DispatchPolicy's poolCap */
  poolCap: number;
  /** the two answers, made once per bucket (a call allocates nothing: 0.1–0.4 µs mattered on an 8 µs dot) */
  inlineWay: Dispatch;
  poolWay: Dispatch;
}

/** One decision: where the operation runs, and what to tell when it is done. */
export interface Dispatch {
  pooled: boolean;
  /** call with the operation's measured time */
  done(ms: number): void;
}

function poolWins(s: KernelStats): boolean {
  return s.pool.perUnit < POOL_MARGIN * s.inline.perUnit;
}

/** Time (ms) on the chosen way before the other, whose trial is estimated at `trialMs`, is measured again. */
function exploreInterval(trialMs: number, backoff: number): number {
  const base = trialMs / EXPLORE_SHARE;
  return Math.min(base * 2 ** backoff, Math.max(MAX_WAIT_MS, base));
}

const INLINE_UNMEASURED: Dispatch = { pooled: false, done: () => {} };

function newStats(poolCap: number): KernelStats {
  const s: KernelStats = {
    poolCap,
    inline: { n: 0, perUnit: 0, first: [] },
    pool: { n: 0, perUnit: 0, first: [] },
    spent: 0,
    backoff: 0,
    poolWon: false,
    lastStall: -Infinity,
    lastWhole: -Infinity,
    cost: 0,
    inlineWay: { pooled: false, done: (ms) => record(s, false, ms) },
    poolWay: { pooled: true, done: (ms) => record(s, true, ms) },
  };
  return s;
}

/** Records a call's measured time on the way it ran (its cost: the bucket's call in flight). */
function record(stats: KernelStats, pooled: boolean, ms: number): void {
  const way = pooled ? stats.pool : stats.inline;
  let u = ms / stats.cost;
  if (way.n < LEARN) {
    way.first.push(u);
    way.perUnit = way.first.length === LEARN ? median(way.first) : Math.min(...way.first);
    // two pooled trials that lose by LOSS_STOP: the median of three loses at least by as much as the lower
    const losses = pooled && way.first.length < LEARN ? way.first.filter((v) => v > LOSS_STOP * stats.inline.perUnit) : [];
    if (losses.length === 2) [way.n, way.perUnit] = [LEARN - 1, Math.min(...losses)];
  } else {
    if (pooled) u = Math.min(u, stats.poolCap * way.perUnit);
    // a re-measured way that now takes under half its estimate is measured again next call:
    // a lasting change is followed in a few calls, a lucky one is corrected by the next
    const chosen = pooled === poolWins(stats);
    // a stall spread over the pooled calls since the previous one (or all of them) is its share of the
    // pool's mean; where the pool still wins with that share (never more than ALPHA of it, as taken
    // whole), it is a lone stall and adds that share only (only the chosen pool can stall alone: a
    // pool that does not win does not win with more)
    const stalled = pooled && u > STALL * way.perUnit;
    const share = stalled ? (u - way.perUnit) * Math.min(ALPHA, 1 / Math.min(way.n, way.n - stats.lastStall)) : 0;
    if (stalled) stats.lastStall = way.n;
    if (stalled && way.perUnit + share < POOL_MARGIN * stats.inline.perUnit) way.perUnit += share;
    else {
      if (stalled) stats.lastWhole = way.n;
      if (!chosen) {
        // ...unless the pool stalled (taken whole) within its last STALL_MEMORY samples: then a fast
        // trial is the pool between stalls, not a change, and it comes back only as its estimate decays
        if (u < 0.5 * way.perUnit && !(pooled && way.n - stats.lastWhole <= STALL_MEMORY)) stats.spent = Infinity;
        const winner = pooled ? stats.inline : stats.pool;
        stats.backoff = u >= CLEAR * winner.perUnit ? Math.min(MAX_BACKOFF, stats.backoff + 1) : 0;
      }
      // a pooled call's time counts whole: a stalled worker (preempted by another process) is part
      // of what the pool costs, and capping it let a pool that stalled in 1 call of 30 stay chosen
      // while it lost 1.5× on the mean
      way.perUnit += ALPHA * ((pooled ? u : Math.min(u, 4 * way.perUnit)) - way.perUnit);
    }
  }
  way.n++;
  if (pooled === poolWins(stats) && stats.spent !== Infinity) stats.spent += ms;
}

export class DispatchPolicy {
  /** per kernel, per half-octave bucket of cost */
  private readonly stats = new Map<string, KernelStats[]>();

  /**
   * `poolCap`: a settled pooled sample counts as at most this many times the pool's estimate (Infinity:
   * whole, with the stall rules above). CpuBackend.step's policy caps at 2: a step is several pooled
   * calls, and a process's first solves stall some of them for milliseconds (the engine's compiler
   * threads on the workers' cores: 2.7–5.3 ms steps among 0.5 ms ones, poisson3D(64) on 2 threads),
   * which, taken whole, sent whole solves inline at twice the time; a lasting change still moves the
   * estimate by ALPHA of itself a step.
   */
  constructor(
    readonly floor = POOL_FLOOR,
    readonly poolCap = Infinity,
  ) {}

  /** Where an operation of `kernel` with `cost` runs, and the hook that records its time. */
  choose(kernel: string, cost: number): Dispatch {
    if (cost < this.floor) return INLINE_UNMEASURED;
    const s = this.bucket(kernel, cost);
    let pooled: boolean;
    if (s.inline.n < LEARN || s.pool.n < LEARN) pooled = s.inline.n >= LEARN;
    else {
      const best = poolWins(s);
      if (best !== s.poolWon) [s.poolWon, s.backoff] = [best, 0];
      const other = best ? s.inline : s.pool;
      pooled = best;
      if (s.spent >= exploreInterval(other.perUnit * cost, s.backoff)) {
        pooled = !best;
        s.spent = 0;
      }
    }
    return pooled ? s.poolWay : s.inlineWay;
  }

  /**
   * The pool's way for `kernel` at `cost`, measured as a pooled call whatever choose() would say:
   * CpuBackend.step's warm repeat of a pooled step that found the workers asleep (left unmeasured).
   */
  pooled(kernel: string, cost: number): Dispatch {
    return cost < this.floor ? INLINE_UNMEASURED : this.bucket(kernel, cost).poolWay;
  }

  private bucket(kernel: string, cost: number): KernelStats {
    const bucket = Math.round(2 * Math.log2(cost));
    let buckets = this.stats.get(kernel);
    if (!buckets) this.stats.set(kernel, (buckets = []));
    const s = buckets[bucket] ?? (buckets[bucket] = newStats(this.poolCap));
    s.cost = cost;
    return s;
  }

  /** What has been measured: per kernel and cost bucket, µs per 1,000 cost units of each way (for tests and benchmarks). */
  snapshot(): Record<string, { inline: number; pool: number; samples: [number, number] }> {
    const out: Record<string, { inline: number; pool: number; samples: [number, number] }> = {};
    for (const [kernel, buckets] of this.stats)
      buckets.forEach((s, b) => (out[`${kernel}:${b}`] = { inline: s.inline.perUnit * 1e6, pool: s.pool.perUnit * 1e6, samples: [s.inline.n, s.pool.n] }));
    return out;
  }
}
