/**
 * Seventh adversarial pass on the call-order queue (src/runtime/handles.ts inOrder): sequences called
 * without awaiting in which operations fail in the middle (a vector disposed while operations on it
 * are queued, a matrix disposed after the call, an operand of the wrong length), with reads and
 * solves in between. Each failed operation must reject its own promise with a typed error and leave
 * every vector as it was; the others take effect in call order, as if run one after another (reads
 * and solves see the contents at their call); nothing waits forever. Found: on the WebGPU path a
 * vector disposed while an operation on it waited for the shaders (or read its copy from another
 * path) failed that operation with a TypeError ("Cannot read properties of undefined (reading
 * 'view')"), not DisposedError (handles.ts on() now checks after each await).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { DisposedError, ShapeError } from '../src/errors.js';
import type { MatrixHandle, ResidentVector } from '../src/runtime/handles.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

const S = poisson2D(4);
const m = S.rows;
const K = 3;

/** y = A·x in plain f64. */
function product(x: readonly number[]): number[] {
  return Array.from({ length: m }, (_, r) => {
    let s = 0;
    for (let k = S.rowPtr[r]; k < S.rowPtr[r + 1]; k++) s += S.values[k] * x[S.colIdx[k]];
    return s;
  });
}

type Op =
  | readonly ['axpy', number, number, number]
  | readonly ['scal', number, number]
  | readonly ['copy', number, number]
  | readonly ['write', number, number]
  | readonly ['read', number]
  | readonly ['spmv', number, number, number]
  | readonly ['dispose', number]
  | readonly ['disposeA']
  | readonly ['short', number]
  | readonly ['cg', number];

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(fc.constant('axpy' as const), fc.integer({ min: -2, max: 2 }), fc.nat(K - 1), fc.nat(K - 1)),
  fc.tuple(fc.constant('scal' as const), fc.integer({ min: -2, max: 2 }), fc.nat(K - 1)),
  fc.tuple(fc.constant('copy' as const), fc.nat(K - 1), fc.nat(K - 1)),
  fc.tuple(fc.constant('write' as const), fc.integer({ min: -5, max: 5 }), fc.nat(K - 1)),
  fc.tuple(fc.constant('read' as const), fc.nat(K - 1)),
  fc.tuple(fc.constant('spmv' as const), fc.integer({ min: -1, max: 1 }), fc.nat(K - 1), fc.nat(K - 1)),
  fc.tuple(fc.constant('dispose' as const), fc.nat(K - 1)),
  fc.constant(['disposeA'] as const),
  fc.tuple(fc.constant('short' as const), fc.nat(K - 1)),
  fc.tuple(fc.constant('cg' as const), fc.nat(K - 1)),
);

/** Runs ops on rt without awaiting; returns what each call gave (settled) and the vectors' contents after. */
async function runSequence(rt: Runtime, ops: readonly Op[], path?: 'webgpu') {
  const A: MatrixHandle = rt.upload(S);
  const init = Array.from({ length: K }, (_, k) => Array.from({ length: m }, (_, i) => ((i * (k + 2)) % 7) - 3));
  const vs: ResidentVector[] = init.map((v) => rt.vector(Float64Array.from(v)));
  const calls: Promise<unknown>[] = [];
  for (const o of ops) {
    // every call returns a promise (none throws at the call); write() and dispose() return nothing
    const call = (f: () => unknown) => {
      try {
        calls.push(Promise.resolve(f()));
      } catch (e) {
        calls.push(Promise.reject(e));
      }
    };
    switch (o[0]) {
      case 'axpy': call(() => rt.axpy(o[1], vs[o[2]], vs[o[3]])); break;
      case 'scal': call(() => rt.scal(o[1], vs[o[2]])); break;
      case 'copy': call(() => rt.copy(vs[o[1]], vs[o[2]])); break;
      case 'write': call(() => vs[o[2]].write(new Float64Array(m).fill(o[1]))); break;
      case 'read': call(() => vs[o[1]].read()); break;
      case 'spmv': call(() => rt.spmv(A, vs[o[2]], { y: vs[o[3]], beta: o[1], path })); break;
      case 'dispose': call(() => vs[o[1]].dispose()); break;
      case 'disposeA': call(() => A.dispose()); break;
      case 'short': call(() => rt.axpy(1, rt.vector(new Float64Array(m - 1)), vs[o[1]])); break;
      case 'cg': call(() => rt.cg(A, vs[o[1]], { tol: 1e-12, path })); break;
    }
  }
  const settled = await Promise.allSettled(calls);
  const after = await Promise.all(vs.map((v) => (v.disposed ? null : v.read().then((a) => Array.from(a, (e) => e + 0)))));
  for (const v of vs) v.dispose();
  A.dispose();
  return { init, settled, after };
}

/**
 * Checks a run against the sequential model: the calls that were fulfilled applied in call order,
 * the rejected ones applying nothing; a rejection must be a typed error that says why.
 */
function checkAgainstModel(ops: readonly Op[], r: Awaited<ReturnType<typeof runSequence>>): void {
  const model = r.init.map((v) => v.slice());
  const gone = new Set<number>();
  let aGone = false;
  ops.forEach((o, c) => {
    const s = r.settled[c];
    const uses = (...ks: number[]) => ks.some((k) => gone.has(k));
    if (s.status === 'rejected') {
      const e = s.reason as Error;
      // a disposed vector or matrix (before or while the operation was queued), or the short operand
      if (o[0] === 'short' && !gone.has(o[1])) expect(e, `call ${c} ${o[0]}`).toBeInstanceOf(ShapeError);
      else expect(e, `call ${c} ${o.join(' ')}: ${String(e)}`).toBeInstanceOf(DisposedError);
      return;
    }
    // a call fulfilled: none of its handles was disposed before it was called
    switch (o[0]) {
      case 'axpy': {
        expect(uses(o[2], o[3]), `call ${c}`).toBe(false);
        const x = model[o[2]].slice();
        model[o[3]] = model[o[3]].map((y, i) => o[1] * x[i] + y);
        break;
      }
      case 'scal': model[o[2]] = model[o[2]].map((e) => o[1] * e); break;
      case 'copy': model[o[2]] = model[o[1]].slice(); break;
      case 'write': model[o[2]] = new Array(m).fill(o[1]); break;
      case 'read': expect(Array.from(s.value as Float64Array, (e) => e + 0), `read ${c}`).toEqual(model[o[1]].map((e) => e + 0)); break;
      case 'spmv': {
        expect(aGone, `call ${c}: spmv after A's dispose`).toBe(false);
        const y = product(model[o[2]]);
        model[o[3]] = y.map((e, i) => e + o[1] * model[o[3]][i]);
        break;
      }
      case 'dispose': gone.add(o[1]); break;
      case 'disposeA': aGone = true; break;
      case 'short': throw new Error(`call ${c}: a short operand was accepted`);
      case 'cg': {
        // solved for b as it was at the call
        const b = model[o[1]];
        const x = (s.value as { x: Float64Array }).x;
        const ax = product(Array.from(x));
        const bn = Math.hypot(...b);
        const rn = Math.hypot(...ax.map((e, i) => e - b[i]));
        expect(rn, `cg ${c}`).toBeLessThanOrEqual(1e-9 * Math.max(bn, 1e-300) + (bn === 0 ? 0 : 0));
        break;
      }
    }
  });
  model.forEach((v, k) => {
    if (gone.has(k)) expect(r.after[k], `vector ${k}`).toBeNull();
    else expect(r.after[k], `vector ${k}`).toEqual(v.map((e) => e + 0));
  });
}

describe('call order with failures in the middle (CPU path)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ workers: 2, backend: 'cpu' });
  });
  afterAll(() => rt.dispose());

  it('property: random un-awaited sequences with disposals and failing calls give the sequential model of the calls that succeeded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 16 }), async (ops) => checkAgainstModel(ops, await runSequence(rt, ops))),
      { seed: 7, numRuns: 150 },
    );
  });
});

describe('solves and the queue', () => {
  it('onIteration (awaited by the solver) runs operations on b, a nested solve with the same preconditioner, and a product: each as called; the outer solve solves the b of its call', async () => {
    const rt = await createRuntime({ workers: 2, backend: 'cpu' });
    try {
      const A = rt.upload(poisson2D(12));
      const n = A.rows;
      const bv = rt.vector(new Float64Array(n).fill(1));
      const M = rt.preconditioner(A, { kind: 'ic0' });
      const log: unknown[] = [];
      const r = await rt.cg(A, bv, {
        preconditioner: M,
        tol: 1e-10,
        onIteration: async (k) => {
          if (k === 1) {
            bv.write(new Float64Array(n).fill(5));
            await rt.scal(2, bv);
            log.push((await bv.read())[0]);
          }
          if (k === 2) log.push((await rt.cg(A, bv, { preconditioner: M, tol: 1e-10 })).converged);
        },
      });
      expect(log).toEqual([10, true]);
      expect(r.converged).toBe(true);
      const ax = await rt.spmv(A, r.x);
      expect(Math.max(...Array.from(ax, (e) => Math.abs(e - 1)))).toBeLessThan(1e-8);
    } finally {
      rt.dispose();
    }
  });
  it('the runtime disposed with operations queued: every call settles, rejected with DisposedError', async () => {
    const rt = await createRuntime({ workers: 2, backend: 'cpu' });
    const A = rt.upload(poisson2D(12));
    const n = A.rows;
    const x = rt.vector(new Float64Array(n).fill(1));
    const y = rt.vector(new Float64Array(n).fill(1));
    const calls = [rt.spmv(A, x, { y }), rt.axpy(1, x, y), rt.scal(2, y), y.read(), rt.cg(A, y), rt.solve(A, x), rt.dot(x, y)];
    rt.dispose();
    for (const s of await Promise.allSettled(calls)) expect(s.status === 'rejected' && s.reason).toBeInstanceOf(DisposedError);
  });
  it('an AbortSignal already aborted with b queued behind a write: aborted at iteration 0, x = x0; the write still lands', async () => {
    const rt = await createRuntime({ workers: 1, backend: 'cpu' });
    try {
      const A = rt.upload(poisson2D(6));
      const n = A.rows;
      const bv = rt.vector(new Float64Array(n).fill(1));
      const pending = rt.scal(3, bv);
      bv.write(new Float64Array(n).fill(2));
      const r = await rt.cg(A, bv, { signal: AbortSignal.abort(), x0: new Float64Array(n).fill(0.5) });
      await pending;
      expect([r.reason, r.iterations]).toEqual(['aborted', 0]);
      expect(Array.from(r.x)).toEqual(new Array(n).fill(0.5));
      expect(Array.from(await bv.read())).toEqual(new Array(n).fill(2));
    } finally {
      rt.dispose();
    }
  });
});

describe('the same on the WebGPU path (Dawn + SwiftShader)', () => {
  it("a vector disposed while an operation on it waits for the path's shaders or another operation: DisposedError (was a TypeError reading an undefined copy)", async () => {
    pointDawnAtSwiftShader();
    const gpu = await createRuntime({ workers: 1, backend: 'webgpu' });
    try {
      const v = gpu.vector(new Float64Array(16).fill(1));
      const p = gpu.axpy(0, v, v);
      v.dispose();
      await expect(p).rejects.toThrow(DisposedError);
      const w = gpu.vector(new Float64Array(16).fill(1));
      await gpu.scal(2, w);
      const q = gpu.scal(2, w);
      const r = w.read();
      w.dispose();
      for (const z of await Promise.allSettled([q, r])) expect(z.status === 'rejected' && z.reason).toBeInstanceOf(DisposedError);
      // the runtime goes on
      const u = gpu.vector(new Float64Array([1, 2]));
      await gpu.scal(3, u);
      expect(Array.from(await u.read())).toEqual([3, 6]);
    } finally {
      gpu.dispose();
    }
  });

  it('property: products and solves on the GPU (the vectors follow them there), disposals and failing calls in between', async () => {
    pointDawnAtSwiftShader();
    const gpu = await createRuntime({ workers: 1, backend: 'webgpu' });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
          const r = await runSequence(gpu, ops, 'webgpu');
          // double-single: compare to rounding, then the model as the CPU path
          r.after = r.after.map((v) => v && v.map((e) => Math.round(e * 2 ** 20) / 2 ** 20 + 0));
          r.settled = r.settled.map((s) => (s.status === 'fulfilled' && s.value instanceof Float64Array ? { ...s, value: s.value.map((e) => Math.round(e * 2 ** 20) / 2 ** 20) } : s));
          checkAgainstModel(ops, r);
        }),
        { seed: 7, numRuns: 12 },
      );
    } finally {
      gpu.dispose();
    }
  });
});
