/**
 * Sixth adversarial pass: operations take effect in the order they are called, and arrays given to a
 * call are read at the call. Before: an operation read its operands after its first await, so
 * `rt.spmv(A, x); x.fill(7)` multiplied the 7s; `v.read(); v.write(w)` read w; `rt.axpy(1, x, y);
 * rt.scal(0, x)` (not awaited in between) ran scal's kernel first and left y unchanged; a solve of a
 * resident b written right after the call solved for the new b — each without an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { DenseMatrix } from '../src/formats/dense.js';
import type { ResidentVector } from '../src/runtime/handles.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const P = poisson2D(12);
const n = P.rows;
const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i) + 1);
/** A·v in plain f64. */
function product(v: ArrayLike<number>): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) y[i] += P.values[k] * v[P.colIdx[k]];
  return y;
}
/** ‖b − A·x‖ / ‖b‖ in plain f64. */
function residual(x: ArrayLike<number>, rhs: ArrayLike<number>): number {
  const y = product(x);
  let [s, t] = [0, 0];
  for (let i = 0; i < n; i++) [s, t] = [s + (rhs[i] - y[i]) ** 2, t + rhs[i] ** 2];
  return Math.sqrt(s / t);
}

describe('arrays given to a call are read at the call', () => {
  it('rt.spmv: x (and y with beta) changed right after the call are not seen', async () => {
    const A = rt.upload(P);
    const x = b.slice();
    const p = rt.spmv(A, x);
    x.fill(7);
    expect(Array.from(await p)).toEqual(Array.from(product(b)));
    const y = new Float64Array(n).fill(1);
    const q = rt.spmv(A, b, { y, beta: 1 });
    y.fill(100);
    await q;
    expect(Array.from(y)).toEqual(Array.from(product(b), (v) => v + 1));
  });
  it('rt.gemm: DenseMatrix operands changed right after the call are not seen', async () => {
    const M = new DenseMatrix(2, 2, 'f64', new Float64Array([1, 2, 3, 4]));
    const p = rt.gemm(M, M);
    M.values.fill(0);
    expect(Array.from(((await p) as DenseMatrix).values)).toEqual([7, 10, 15, 22]);
  });
  it('a solve: b and x0 changed right after the call are not seen (host and resident)', async () => {
    const A = rt.upload(P);
    for (const resident of [false, true]) {
      const bh = b.slice();
      const x0h = new Float64Array(n);
      const bv = resident ? rt.vector(bh) : bh;
      const x0v = resident ? rt.vector(x0h) : x0h;
      const p = rt.cg(A, bv, { x0: x0v, tol: 1e-10 });
      if (resident) {
        (bv as ResidentVector).write(new Float64Array(n).fill(7));
        (x0v as ResidentVector).write(new Float64Array(n).fill(1e6));
      } else {
        bh.fill(7);
        x0h.fill(1e6);
      }
      const r = await p;
      expect(r.converged, `resident ${resident}`).toBe(true);
      expect(residual(r.x, b), `resident ${resident}`).toBeLessThan(1e-9);
    }
  });
});

describe('operations on resident vectors take effect in call order', () => {
  it('read then write: the read gives the contents at its call', async () => {
    const v = rt.vector(b);
    const p = v.read();
    v.write(new Float64Array(n));
    expect(Array.from(await p)).toEqual(Array.from(b));
    expect((await v.read()).every((e) => e === 0)).toBe(true);
  });
  it('spmv of a resident x, then a write of x: the product of the x before', async () => {
    const A = rt.upload(P);
    const v = rt.vector(b);
    const p = rt.spmv(A, v);
    v.write(new Float64Array(n).fill(7));
    expect(Array.from(await p)).toEqual(Array.from(product(b)));
  });
  it('axpy(1, x, y) then scal(0, x), not awaited in between: y = x + y', async () => {
    const x = rt.vector(new Float64Array([1, 2, 3]));
    const y = rt.vector(new Float64Array([10, 10, 10]));
    await Promise.all([rt.axpy(1, x, y), rt.scal(0, x)]);
    expect(Array.from(await y.read())).toEqual([11, 12, 13]);
    expect(Array.from(await x.read())).toEqual([0, 0, 0]);
  });
  it('a dense handle: gemm, then a write of its operand, then read', async () => {
    const M = rt.dense(new DenseMatrix(2, 2, 'f64', new Float64Array([1, 2, 3, 4])));
    const p = rt.gemm(M, M);
    M.write(new DenseMatrix(2, 2, 'f64', new Float64Array(4)));
    const q = M.read();
    const C = (await p) as unknown as { read(): Promise<DenseMatrix> };
    expect(Array.from((await C.read()).values)).toEqual([7, 10, 15, 22]);
    expect(Array.from((await q).values)).toEqual([0, 0, 0, 0]);
  });

  type Op = readonly ['axpy' | 'aypx', number, number, number] | readonly ['scal', number, number] | readonly ['copy', number, number] | readonly ['write', number, number] | readonly ['dot', number, number] | readonly ['spmv', number, number, number];
  const K = 3;
  const m = 16;
  const S = poisson2D(4);
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.tuple(fc.constantFrom('axpy' as const, 'aypx' as const), fc.integer({ min: -3, max: 3 }), fc.nat(K - 1), fc.nat(K - 1)),
    fc.tuple(fc.constant('scal' as const), fc.integer({ min: -2, max: 2 }), fc.nat(K - 1)),
    fc.tuple(fc.constant('copy' as const), fc.nat(K - 1), fc.nat(K - 1)),
    fc.tuple(fc.constant('write' as const), fc.integer({ min: -5, max: 5 }), fc.nat(K - 1)),
    fc.tuple(fc.constant('dot' as const), fc.nat(K - 1), fc.nat(K - 1)),
    fc.tuple(fc.constant('spmv' as const), fc.integer({ min: -1, max: 1 }), fc.nat(K - 1), fc.nat(K - 1)),
  );
  it('property: any sequence of operations called without awaiting gives the sequential result', async () => {
    const A = rt.upload(S);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const model = Array.from({ length: K }, (_, k) => Array.from({ length: m }, (_, i) => ((i * (k + 2)) % 7) - 3));
        const vs = model.map((v) => rt.vector(Float64Array.from(v)));
        const dots: [Promise<unknown>, number][] = [];
        const all: Promise<unknown>[] = [];
        for (const o of ops) {
          switch (o[0]) {
            case 'axpy': case 'aypx': {
              const [, a, i, j] = o;
              all.push(rt[o[0]](a, vs[i], vs[j]));
              const [x, y] = [model[i].slice(), model[j]];
              for (let e = 0; e < m; e++) y[e] = o[0] === 'axpy' ? a * x[e] + y[e] : x[e] + a * y[e];
              break;
            }
            case 'scal':
              all.push(rt.scal(o[1], vs[o[2]]));
              model[o[2]] = model[o[2]].map((e) => o[1] * e);
              break;
            case 'copy':
              all.push(rt.copy(vs[o[1]], vs[o[2]]));
              model[o[2]] = model[o[1]].slice();
              break;
            case 'write':
              vs[o[2]].write(new Float64Array(m).fill(o[1]));
              model[o[2]] = new Array(m).fill(o[1]);
              break;
            case 'dot': {
              const p = rt.dot(vs[o[1]], vs[o[2]]);
              all.push(p);
              dots.push([p, model[o[1]].reduce((s, e, k) => s + e * model[o[2]][k], 0)]);
              break;
            }
            case 'spmv': {
              const [, beta, i, j] = o;
              all.push(rt.spmv(A, vs[i], { y: vs[j], beta }));
              const x = model[i].slice();
              const y = model[j];
              for (let r = 0; r < m; r++) {
                let s = 0;
                for (let k = S.rowPtr[r]; k < S.rowPtr[r + 1]; k++) s += S.values[k] * x[S.colIdx[k]];
                y[r] = s + beta * y[r];
              }
              break;
            }
          }
        }
        await Promise.all(all);
        for (const [p, want] of dots) expect((await p) as number + 0).toBe(want + 0);
        // −0 and 0 alike (scal by 0 of a negative entry)
        for (let k = 0; k < K; k++) expect(Array.from(await vs[k].read(), (e) => e + 0)).toEqual(model[k].map((e) => e + 0));
        for (const v of vs) v.dispose();
      }),
      { seed: 6, numRuns: 150 },
    );
  });
});

describe('the same on the WebGPU path (Dawn + SwiftShader)', () => {
  it("host x on the path's first operation (its shaders awaited), resident x then a write, axpy then scal, read then write of a GPU-current y, gemm then a write", async () => {
    pointDawnAtSwiftShader();
    const gpu = await createRuntime({ workers: 1, backend: 'webgpu' });
    try {
      const A = gpu.upload(P);
      const want = product(b);
      const near = (got: ArrayLike<number>) => expect(Array.from(got, (v, i) => Math.abs(v - want[i]) <= 1e-9 * (1 + Math.abs(want[i])))).not.toContain(false);
      const x = b.slice();
      const p = gpu.spmv(A, x);
      x.fill(7);
      near(await p);
      const v = gpu.vector(b);
      const q = gpu.spmv(A, v);
      v.write(new Float64Array(n).fill(7));
      near(await q);
      const [s, t] = [gpu.vector(new Float64Array([1, 2, 3])), gpu.vector(new Float64Array([10, 10, 10]))];
      await Promise.all([gpu.axpy(1, s, t), gpu.scal(0, s)]);
      expect(Array.from(await t.read())).toEqual([11, 12, 13]);
      const y = gpu.vector(new Float64Array(n));
      await gpu.spmv(A, gpu.vector(b), { y });
      const r = y.read();
      y.write(new Float64Array(n));
      near(await r);
      const M = gpu.dense(new DenseMatrix(2, 2, 'f32', new Float32Array([1, 2, 3, 4])));
      const g = gpu.gemm(M, M);
      M.write(new DenseMatrix(2, 2, 'f32', new Float32Array(4)));
      const G = (await g) as unknown as { read(): Promise<DenseMatrix> };
      expect(Array.from((await G.read()).values)).toEqual([7, 10, 15, 22]);
    } finally {
      gpu.dispose();
    }
  });
});
