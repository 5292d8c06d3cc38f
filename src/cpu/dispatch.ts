/**
 * Whether an operation runs on the worker pool or inline on the calling thread, by measurement
 * (createRuntime's default, `inlineThreshold: 'auto'`). A fixed size threshold cannot be right on
 * every machine: whether splitting pays depends on the kernel (a streaming dot saturates memory with
 * one core where an SpMV's index arithmetic does not), on where the data sits in the caches, on the
 * cost of waking workers and on what else the cores are running. On a 2-vCPU machine shared with
 * other work, the pool lost 2–3× to one thread for 100,000-element vector operations and won 1.2×
 * for a million-row SpMV (bench/defaults.ts).
 *
 * So each kernel, in half-octave buckets of its cost (entries + rows, or elements), keeps the
 * measured time per cost unit of both ways: the first calls run inline, then on the pool (three each,
 * the median kept, so one cold or preempted call does not decide; a pooled call slower than
 * LOSS_STOP × inline's time ends the pool's trials at once, so a loaded machine pays one slow call,
 * not three), then the faster one runs — the pool
 * only when it measured POOL_MARGIN faster, as its times vary more (a worker can be preempted while
 * the calling thread is not) — and the other is
 * measured again only once the time spent since its last trial reaches EXPLORE_SHARE⁻¹ times its
 * estimated cost, so exploring costs about EXPLORE_SHARE of the time however badly it loses (a
 * worker preempted by another process can cost a whole time slice). Each new sample moves an
 * estimate by a share of the difference, capped at 4× the estimate, so one outlier cannot shut a
 * way out for long; a re-measured way that now takes under half its estimate is measured again on
 * the next call, so a lasting change (load elsewhere starting or ending) is followed within calls.
 */

import { median } from '../metrics.js';

/** Below this cost (entries + rows, or elements) an operation always runs inline: no pool can win there. */
export const POOL_FLOOR = 16384;
/** Share of a kernel's time spent re-measuring the way that lost. */
export const EXPLORE_SHARE = 0.03;
/** Samples of each way before the faster is chosen. */
const LEARN = 3;
/** A pooled trial this many times slower than inline ends the pool's trials. */
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

const INLINE_UNMEASURED: Dispatch = { pooled: false, done: () => {} };

export class DispatchPolicy {
  private readonly stats = new Map<string, KernelStats>();

  constructor(readonly floor = POOL_FLOOR) {}

  /** Where an operation of `kernel` with `cost` runs, and the hook that records its time. */
  choose(kernel: string, cost: number): Dispatch {
    if (cost < this.floor) return INLINE_UNMEASURED;
    const key = `${kernel}:${Math.round(2 * Math.log2(cost))}`;
    let s = this.stats.get(key);
    if (!s) this.stats.set(key, (s = { inline: { n: 0, perUnit: 0, first: [] }, pool: { n: 0, perUnit: 0, first: [] }, spent: 0 }));
    const stats = s;
    let pooled: boolean;
    if (s.inline.n < LEARN || s.pool.n < LEARN) pooled = s.inline.n >= LEARN;
    else {
      const best = poolWins(s);
      const other = best ? s.inline : s.pool;
      pooled = best;
      if (s.spent * EXPLORE_SHARE >= other.perUnit * cost) {
        pooled = !best;
        s.spent = 0;
      }
    }
    return {
      pooled,
      done(ms: number) {
        const way = pooled ? stats.pool : stats.inline;
        const u = ms / cost;
        if (way.n < LEARN) {
          way.first.push(u);
          way.perUnit = way.first.length === LEARN ? median(way.first) : Math.min(...way.first);
          if (pooled && u > LOSS_STOP * stats.inline.perUnit) [way.n, way.perUnit] = [LEARN - 1, Math.max(way.perUnit, u)];
        } else {
          // a re-measured way that now takes under half its estimate is measured again next call:
          // a lasting change is followed in a few calls, a lucky one is corrected by the next
          const chosen = pooled === poolWins(stats);
          if (!chosen && u < 0.5 * way.perUnit) stats.spent = Infinity;
          way.perUnit += ALPHA * (Math.min(u, 4 * way.perUnit) - way.perUnit);
        }
        way.n++;
        if (pooled === poolWins(stats) && stats.spent !== Infinity) stats.spent += ms;
      },
    };
  }

  /** What has been measured: per kernel and cost bucket, µs per 1,000 cost units of each way (for tests and benchmarks). */
  snapshot(): Record<string, { inline: number; pool: number; samples: [number, number] }> {
    const out: Record<string, { inline: number; pool: number; samples: [number, number] }> = {};
    for (const [k, s] of this.stats) out[k] = { inline: s.inline.perUnit * 1e6, pool: s.pool.perUnit * 1e6, samples: [s.inline.n, s.pool.n] };
    return out;
  }
}
