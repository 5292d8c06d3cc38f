/**
 * The pool's start-up tier-up (src/cpu/tier-up.ts): each call names a kernel of both builds with its
 * parameter count (the backend leaves out a call that does not match, so a changed signature would
 * silently drop it: it must fail here) and writes nowhere outside its region; and a pool whose worker 0
 * is still tiering up runs the first jobs right (the worker stops for a job with rows for it, the caller
 * runs an unclaimed chunk), against a plain f64 reference.
 */
import { describe, expect, it } from 'vitest';
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';
import { TIER_UP_BYTES, TIER_UP_REPS, tierUpCalls } from '../src/cpu/tier-up.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import { trueResidual } from './solve-reference.js';

describe('the tier-up calls', () => {
  for (const flavor of ['simd', 'plain'] as const) {
    it(`name ${flavor} kernels with their parameter counts and write only inside their region`, async () => {
      const heap = new WasmHeap({ shared: true });
      const kernels = await instantiateKernels(await compileKernels(flavor, true), heap.memory);
      const before = heap.alloc(4096);
      const region = heap.alloc(TIER_UP_BYTES);
      const after = heap.alloc(4096);
      const calls = tierUpCalls(heap, region.ptr);
      expect(calls.length).toBeGreaterThan(10);
      for (const [name, args] of calls) expect([name, kernels[name]?.length]).toEqual([name, args.length]);
      // everything outside the region: a pattern, then the same bytes after every call has run
      const bytes = new Uint8Array(heap.memory.buffer);
      for (let i = before.ptr; i < after.ptr + after.bytes; i++) if (i < region.ptr || i >= region.ptr + region.bytes) bytes[i] = (i * 7 + 3) & 255;
      const snapshot = bytes.slice();
      // as often as worker 0 calls them (a call's writes may feed the next)
      for (const [name, args] of calls) for (let k = 0; k < TIER_UP_REPS; k++) kernels[name](...args);
      const outside = (i: number) => i < region.ptr || i >= region.ptr + region.bytes;
      let changed = -1;
      for (let i = 0; i < bytes.length && changed < 0; i++) if (outside(i) && bytes[i] !== snapshot[i]) changed = i;
      expect(changed).toBe(-1);
    });
  }
});

describe('a pool tiering up at start', () => {
  it('runs its first jobs right: SpMV and CG on the pool at once after createRuntime', async () => {
    const A = poisson3D(24);
    const x = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.1 * i) + 1);
    const ref = new Float64Array(A.rows);
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) ref[i] += (A.values[k] as number) * x[A.colIdx[k]];
    for (let round = 0; round < 3; round++) {
      // inlineThreshold 0: every call goes to the pool, the first while worker 0 is tiering up
      const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
      try {
        const h = rt.upload(A);
        const y = await rt.spmv(h, x);
        let worst = 0;
        for (let i = 0; i < A.rows; i++) worst = Math.max(worst, Math.abs(y[i] - ref[i]));
        expect(worst).toBeLessThanOrEqual(1e-12);
        const r = await rt.cg(h, x, { tol: 1e-10, preconditioner: 'jacobi' });
        expect(r.converged).toBe(true);
        expect(trueResidual(A, r.x, x)).toBeLessThanOrEqual(1e-10);
      } finally {
        rt.dispose();
      }
    }
  });
});
