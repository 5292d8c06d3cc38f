/**
 * The CPU path's measured pool-or-inline choice (src/cpu/dispatch.ts, createRuntime's default
 * `inlineThreshold: 'auto'`), with synthetic times so every expectation is exact: the floor, the
 * learning order, the choice with its margin, the bounded cost of re-measuring a way that loses (and
 * its backoff where the loss is clear, bounded in time), that a lasting change is followed, that one
 * outlier (a slow learning trial, a lone stall) does not send a pool that wins inline; and, on real
 * runtimes, that a reduction's bits do not depend on the way the timing chose.
 */
import { describe, expect, it } from 'vitest';
import { DispatchPolicy, EXPLORE_SHARE, MAX_WAIT_MS, POOL_FLOOR, POOL_MARGIN } from '../src/cpu/dispatch.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { Prng } from '../src/generators/prng.js';

/** The inline time (ms) between consecutive pooled calls, over `calls` decisions with fixed times. */
function poolGaps(p: DispatchPolicy, calls: number, cost: number, inlineMs: number, poolMs: number): number[] {
  const gaps: number[] = [];
  let since = 0;
  for (let k = 0; k < calls; k++) {
    const d = p.choose('dot_f64', cost);
    if (d.pooled) {
      gaps.push(since);
      since = 0;
    } else since += inlineMs;
    d.done(d.pooled ? poolMs : inlineMs);
  }
  return gaps;
}

/** Runs `calls` decisions of one kernel at `cost`, timing inline at `inlineMs` and pooled at `poolMs` (per call); returns the pooled share of calls and of time. */
function simulate(p: DispatchPolicy, calls: number, cost: number, inlineMs: number, poolMs: number): { pooledCalls: number; timeMs: number; poolTimeMs: number } {
  let pooledCalls = 0;
  let timeMs = 0;
  let poolTimeMs = 0;
  for (let k = 0; k < calls; k++) {
    const d = p.choose('dot_f64', cost);
    const ms = d.pooled ? poolMs : inlineMs;
    if (d.pooled) {
      pooledCalls++;
      poolTimeMs += ms;
    }
    timeMs += ms;
    d.done(ms);
  }
  return { pooledCalls, timeMs, poolTimeMs };
}

describe('DispatchPolicy', () => {
  it('runs everything below the floor inline, unmeasured', () => {
    const p = new DispatchPolicy();
    for (let k = 0; k < 50; k++) {
      const d = p.choose('axpy_f64', POOL_FLOOR - 1);
      expect(d.pooled).toBe(false);
      d.done(1);
    }
    expect(p.snapshot()).toEqual({});
  });

  it('learns inline first (three calls), then the pool, then keeps the faster', () => {
    const p = new DispatchPolicy();
    const ways: boolean[] = [];
    for (let k = 0; k < 8; k++) {
      const d = p.choose('dot_f64', 1e5);
      ways.push(d.pooled);
      d.done(d.pooled ? 0.02 : 0.05); // the pool 2.5× faster
    }
    expect(ways).toEqual([false, false, false, true, true, true, true, true]);
    const s = Object.values(p.snapshot())[0];
    expect(s.samples).toEqual([3, 5]);
    expect(s.pool).toBeCloseTo((0.02 / 1e5) * 1e6, 9);
  });

  it('keeps inline when the pool is faster by less than the margin, and when it loses', () => {
    for (const poolMs of [0.05 * (POOL_MARGIN + 0.05), 0.05, 0.2]) {
      const p = new DispatchPolicy();
      const r = simulate(p, 2000, 1e5, 0.05, poolMs);
      // the trials and the re-measurements only: EXPLORE_SHARE of the time, plus 3 trials
      expect(r.pooledCalls, `pool ${poolMs} ms`).toBeLessThanOrEqual(Math.ceil(3 + (2000 * 0.05 * EXPLORE_SHARE) / poolMs) + 1);
    }
  });

  it('stops the pool trials at the second pooled call that loses by 2× or more (the median of three would lose)', () => {
    const p = new DispatchPolicy();
    const ways: boolean[] = [];
    for (let k = 0; k < 8; k++) {
      const d = p.choose('dot_f64', 1e5);
      ways.push(d.pooled);
      d.done(d.pooled ? 1 : 0.05); // a loaded machine: every pooled call 20× slower
    }
    expect(ways).toEqual([false, false, false, true, true, false, false, false]);
    // and the trials after that stay at about EXPLORE_SHARE of the time
    expect(simulate(p, 20000, 1e5, 0.05, 1).pooledCalls).toBeLessThanOrEqual(Math.ceil((20000 * 0.05 * EXPLORE_SHARE) / 1) + 1);
  });

  it('does not let one slow pooled trial among the first three end the learning', () => {
    // the pool 3.5× faster (0.1 against 0.35 ms), one of its learning trials stalled for 2 ms, in each place
    for (const slow of [0, 1, 2]) {
      const p = new DispatchPolicy();
      const ways: boolean[] = [];
      let trial = 0;
      for (let k = 0; k < 20; k++) {
        const d = p.choose('dot_f64', 262144);
        ways.push(d.pooled);
        d.done(d.pooled ? (trial++ === slow ? 2 : 0.1) : 0.35);
      }
      expect(ways, `slow trial ${slow}`).toEqual([false, false, false, ...Array<boolean>(17).fill(true)]);
    }
  });

  it('keeps a pool that wins clearly through a lone stall, and through stalls rarer than its gain pays for', () => {
    // a 16-core host's f32 update: 0.1 ms pooled against 0.36 inline; a 3 ms stall once in 200 calls
    // costs 0.015 ms a call on the mean, the pool still wins 3×: it keeps (nearly) every call
    const p = new DispatchPolicy();
    simulate(p, 50, 262144, 0.36, 0.1);
    let inline = 0;
    for (let k = 0; k < 2000; k++) {
      const d = p.choose('dot_f64', 262144);
      if (!d.pooled) inline++;
      d.done(d.pooled ? (k % 200 === 199 ? 3 : 0.1) : 0.36);
    }
    expect(inline).toBeLessThanOrEqual(2000 * EXPLORE_SHARE); // only trials of inline, if any
    // ...but a stall the pool's gain since the previous one does not pay for is taken whole:
    // a 50 ms stall after 50 calls (1 ms a call on the mean) sends the calls inline
    const q = new DispatchPolicy();
    simulate(q, 50, 262144, 0.36, 0.1);
    q.choose('dot_f64', 262144).done(50);
    const after = Array.from({ length: 20 }, () => {
      const d = q.choose('dot_f64', 262144);
      d.done(d.pooled ? 0.1 : 0.36);
      return d.pooled;
    });
    expect(after.filter(Boolean).length).toBe(0);
  });

  it('spends about EXPLORE_SHARE of the time re-measuring the way that loses, however badly', () => {
    for (const poolMs of [0.08, 0.5, 5]) {
      const p = new DispatchPolicy();
      const r = simulate(p, 20000, 1e5, 0.05, poolMs);
      const inlineOnly = 20000 * 0.05;
      // the learning trials (at most 3 pooled calls) plus EXPLORE_SHARE of the rest
      expect(r.timeMs, `pool ${poolMs} ms`).toBeLessThanOrEqual(inlineOnly * (1 + EXPLORE_SHARE) + 3 * poolMs + 1e-9);
      expect(r.pooledCalls).toBeGreaterThan(1); // it does look again
    }
  });

  it('measures a way that loses clearly less and less often: a 27 µs pool trial against a 4.8 µs inline dot', () => {
    const p = new DispatchPolicy();
    const r = simulate(p, 200000, 29929, 0.0048, 0.027);
    const inlineOnly = 200000 * 0.0048;
    // three learning trials, a few at the base interval while the backoff grows, then 1/32 of EXPLORE_SHARE
    expect(r.poolTimeMs).toBeLessThanOrEqual(3 * 0.027 + (inlineOnly * EXPLORE_SHARE) / 16);
    expect(r.pooledCalls).toBeGreaterThan(10); // it keeps looking
  });

  it('never waits longer than MAX_WAIT_MS (or one base interval, if longer) before measuring the other way again', () => {
    for (const [inlineMs, poolMs] of [[0.05, 0.5], [0.05, 20], [0.01, 0.03]]) {
      const gaps = poolGaps(new DispatchPolicy(), 100000, 1e5, inlineMs, poolMs).slice(3);
      const base = poolMs / EXPLORE_SHARE;
      expect(Math.max(...gaps), `pool ${poolMs} ms`).toBeLessThanOrEqual(Math.max(MAX_WAIT_MS, base) + inlineMs + 1e-9);
      expect(Math.max(...gaps.slice(-3))).toBeGreaterThan(Math.min(MAX_WAIT_MS, 4 * base) - inlineMs); // the backoff did grow
    }
  });

  it('ends the backoff when a trial finds the other way close: back to EXPLORE_SHARE of the time', () => {
    const p = new DispatchPolicy();
    simulate(p, 50000, 1e5, 0.05, 0.5); // the pool loses 10×: trials back off
    const close = simulate(p, 20000, 1e5, 0.05, 0.06); // now it loses by 1.2×, under CLEAR
    // the first trial after the change comes within MAX_WAIT_MS; then trials at the base rate
    expect(close.poolTimeMs).toBeGreaterThan(((20000 * 0.05 - MAX_WAIT_MS) * EXPLORE_SHARE) / 2);
  });

  it('judges a pool that is usually faster but sometimes stalls (a preempted worker) by its mean', () => {
    // typical pooled call 0.03 ms against 0.05 inline; some calls stall for 2–4 ms: on the mean the pool loses
    for (const [share, stallMs] of [[0.1, 2], [0.03, 4], [0.01, 4]]) {
      const p = new DispatchPolicy();
      const rng = new Prng(7);
      let t = 0;
      for (let k = 0; k < 100000; k++) {
        const d = p.choose('dot_f64', 1e5);
        const ms = d.pooled ? (rng.next() < share ? stallMs : 0.03) : 0.05;
        t += ms;
        d.done(ms);
      }
      expect(t / (100000 * 0.05), `stalls ${share} × ${stallMs} ms`).toBeLessThan(1.1);
    }
    // no stalls: the pool keeps nearly every call
    expect(simulate(new DispatchPolicy(), 100000, 1e5, 0.05, 0.03).pooledCalls).toBeGreaterThan(99000);
  });

  it('does not let a pool that stalls now and then straight back in after one fast trial', () => {
    // a page's pooled SpMV under load: 0.3 ms against 0.37 inline, 1% of calls stalled for 100 ms;
    // were each fast trial after a stall to bring the pool back, it would lose 8% on the whole
    const p = new DispatchPolicy();
    const rng = new Prng(3);
    let t = 0;
    for (let k = 0; k < 100000; k++) {
      const d = p.choose('dia_f64', 180000);
      const ms = d.pooled ? (rng.next() < 0.01 ? 100 : 0.3) : 0.37;
      t += ms;
      d.done(ms);
    }
    expect(t / (100000 * 0.37)).toBeLessThan(1.05);
    // and once the stalls end (the load elsewhere with them), the pool, now 2× faster, takes over,
    // though slower than after a change without stalls: its estimate, raised by 100 ms stalls, decays
    // one trial at a time, in under 2.5 s of the kernel's time
    let pooled = 0;
    for (let k = 0; k < 20000; k++) {
      const d = p.choose('dia_f64', 180000);
      pooled += d.pooled ? 1 : 0;
      d.done(d.pooled ? 0.18 : 0.37);
    }
    expect(20000 - pooled).toBeLessThan(2500 / 0.37);
  });

  it('follows a lasting change: the pool, once it becomes faster, takes over', () => {
    const p = new DispatchPolicy();
    simulate(p, 500, 1e5, 0.05, 0.5); // loaded: the pool loses 10×
    const later = simulate(p, 20000, 1e5, 0.05, 0.02); // quiet again: 2.5× faster
    expect(later.pooledCalls).toBeGreaterThan(19000);
    // and after the backoff has grown as far as it goes, within MAX_WAIT_MS of inline time and a few calls
    const q = new DispatchPolicy();
    simulate(q, 100000, 1e5, 0.05, 0.5);
    const after = simulate(q, 20000, 1e5, 0.05, 0.02);
    expect(after.pooledCalls).toBeGreaterThan(20000 - MAX_WAIT_MS / 0.05 - 10);
  });

  it('keeps kernels and sizes (half-octave buckets) apart', () => {
    const p = new DispatchPolicy();
    for (const [k, c] of [['dot_f64', 1e5], ['dot_f64', 1.2e5], ['dot_f64', 1e6], ['axpy_f64', 1e5]] as const) p.choose(k, c).done(0.01);
    expect(Object.keys(p.snapshot()).sort()).toEqual(['axpy_f64:33', 'dot_f64:33', 'dot_f64:34', 'dot_f64:40']);
  });
});

describe("reductions under 'auto'", () => {
  it('give the same bits whichever way each call ran: those of the pool with the same threads', async () => {
    const auto = await createRuntime({ workers: 2, backend: 'cpu' });
    const pooled = await createRuntime({ workers: 2, backend: 'cpu', inlineThreshold: 0 });
    try {
      const n = 3 * POOL_FLOOR + 7;
      const rng = new Prng(5);
      const a = Float64Array.from({ length: n }, () => rng.next() * 2 - 1);
      const b = Float64Array.from({ length: n }, () => rng.next() * 2 - 1);
      const [xa, ya, xp, yp] = [auto.vector(a), auto.vector(b), pooled.vector(a), pooled.vector(b)];
      const want = [await pooled.dot(xp, yp), await pooled.nrm2(xp)];
      // the trials run both ways, and later calls whichever measured faster
      for (let k = 0; k < 12; k++) expect([await auto.dot(xa, ya), await auto.nrm2(xa)]).toEqual(want);
      const seen = Object.entries(auto.cpuBackend.dispatchStats!).filter(([k]) => k.startsWith('dot_f64'));
      expect(seen.length).toBe(1);
      expect(seen[0][1].samples[0]).toBeGreaterThanOrEqual(3); // inline ran
      expect(seen[0][1].samples[1]).toBeGreaterThanOrEqual(1); // so did the pool
      expect(pooled.cpuBackend.dispatchStats).toBeNull(); // a fixed threshold measures nothing
    } finally {
      auto.dispose();
      pooled.dispose();
    }
  });

  it("setInlineThreshold switches between a fixed threshold and 'auto'; other values are refused", async () => {
    const rt = await createRuntime({ workers: 2, backend: 'cpu' });
    try {
      expect(rt.cpuBackend.dispatchStats).toEqual({});
      rt.setInlineThreshold(0);
      expect(rt.cpuBackend.dispatchStats).toBeNull();
      rt.setInlineThreshold('auto');
      expect(rt.cpuBackend.dispatchStats).toEqual({});
      expect(() => rt.setInlineThreshold('fast' as 'auto')).toThrow(TypeError);
      await expect(createRuntime({ inlineThreshold: 'never' as 'auto' })).rejects.toThrow(TypeError);
    } finally {
      rt.dispose();
    }
  });
});
