/**
 * The CPU backend runs a small vector operation at once on the calling thread when nothing else is in
 * flight (CpuBackend.inlineNow): the order of operations, the event loop's turns and the errors stay
 * as through the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { DisposedError } from '../src/errors.js';
import { CpuBackend } from '../src/cpu/backend.js';
import type { CpuVector } from '../src/cpu/resident.js';
import * as blas from '../src/cpu/blas1.js';

let rt: Runtime;
beforeAll(async () => {
  // a fixed threshold: 200 000 elements go to the pool, 10 run inline
  rt = await createRuntime({ workers: 2, inlineThreshold: 50_000 });
});
afterAll(() => rt.dispose());

describe('small vector operations on the calling thread', () => {
  it('wait for a pooled operation in flight on the same memory', async () => {
    const B = await CpuBackend.create({ threads: 2, inlineThreshold: 1000 });
    try {
      const big = B.vector('f64', 100_000);
      big.view().fill(1);
      // the first 10 entries of big, as a vector of its own
      const head = { ptr: big.ptr, length: 10, dtype: 'f64' } as unknown as CpuVector;
      const scaled = blas.scal(B, [3, 0], big);
      // issued while the pooled scal is in flight: it must see its result (9·10), not the ones (10)
      const d = blas.dot(B, head, head, false);
      await scaled;
      expect(await d).toEqual([90, 0]);
      // nothing in flight: at once, in order
      await blas.scal(B, [2, 0], head);
      expect(await blas.dot(B, head, head, false)).toEqual([360, 0]);
      big.dispose();
    } finally {
      B.dispose();
    }
  });

  it('wait for the operations issued before them (a pooled one in flight)', async () => {
    const big = rt.vector(new Float64Array(200_000).fill(1));
    const s = rt.vector(new Float64Array(10).fill(1));
    // not awaited one by one: the scal of s queues behind the pooled scal, and the dot must see it
    const [, , d] = await Promise.all([rt.scal(3, big), rt.scal(2, s), rt.dot(s, s)]);
    expect(d).toBe(40);
    // and with nothing in flight, the same chain awaited one by one
    await rt.scal(0.5, s);
    expect(await rt.dot(s, s)).toBe(10);
    expect(Array.from(await s.read())).toEqual(new Array(10).fill(1));
    expect((await big.read())[123_456]).toBe(3);
    big.dispose();
    s.dispose();
  });

  it('give the reference results (f64 and c128, below and at the threshold)', async () => {
    for (const n of [7, 1000, 49_999]) {
      const x0 = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
      const y0 = Float64Array.from({ length: n }, (_, i) => Math.cos(3 * i));
      const x = rt.vector(x0);
      const y = rt.vector(y0);
      await rt.axpy(-1.5, x, y);
      const got = await y.read();
      let dot = 0;
      let abs = 0;
      for (let i = 0; i < n; i++) {
        expect(got[i]).toBe(-1.5 * x0[i] + y0[i]);
        dot += x0[i] * got[i];
        abs += Math.abs(x0[i] * got[i]);
      }
      expect(Math.abs(((await rt.dot(x, y)) as number) - dot)).toBeLessThanOrEqual(2 * n * 2 ** -53 * abs);
      x.dispose();
      y.dispose();
    }
    const z = rt.vector(new Float64Array([1, 2, 3, -4]), 'c128');
    expect(await rt.dot(z, z, { conj: true })).toEqual([30, 0]);
    z.dispose();
  });

  it('let timers run during a long chain of them', async () => {
    const s = rt.vector(new Float64Array(16).fill(1));
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const t0 = performance.now();
    let ops = 0;
    // back-to-back small operations for 300 ms: the slice (50 ms) must hand the event loop a turn
    while (!fired && performance.now() - t0 < 300) {
      await rt.dot(s, s);
      ops++;
    }
    expect(fired).toBe(true);
    expect(ops).toBeGreaterThan(0);
    s.dispose();
  });

  it('reject (not throw) on a disposed vector or runtime', async () => {
    const s = rt.vector(new Float64Array(4).fill(1));
    s.dispose();
    let p: Promise<unknown> | undefined;
    expect(() => (p = rt.dot(s, s))).not.toThrow();
    await expect(p).rejects.toThrow(DisposedError);
    const other = await createRuntime({ workers: 1 });
    const v = other.vector(new Float64Array(4).fill(2));
    other.dispose();
    await expect(other.dot(v, v)).rejects.toThrow(DisposedError);
  });
});
