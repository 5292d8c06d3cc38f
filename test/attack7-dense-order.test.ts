/**
 * Seventh adversarial pass, the call-order queue on dense handles (rt.dense): gemm into a handle,
 * add, transpose, write(), read() and dispose() called without awaiting, on the CPU and WebGPU
 * (Dawn + SwiftShader) paths, against the sequential model of the calls that were fulfilled: reads see
 * the contents at their call, a disposed handle's calls reject with DisposedError and touch nothing
 * else. (No defect found; pinned.)
 */
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime } from '../src/runtime/runtime.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
type Op = ['gemm', number, number, number] | ['add', number, number, number] | ['tr', number, number] | ['write', number, number] | ['read', number] | ['dispose', number];
const K = 3, S = 3;
const mul = (a: number[], b: number[]) => Array.from({ length: S * S }, (_, q) => { const i = Math.floor(q / S), j = q % S; let s = 0; for (let k = 0; k < S; k++) s += a[i * S + k] * b[k * S + j]; return s; });
it('property: un-awaited dense operations, writes, reads and disposals on the CPU and WebGPU paths give the sequential model', async () => {
  pointDawnAtSwiftShader();
  for (const backend of ['cpu', 'webgpu'] as const) {
    const rt = await createRuntime({ workers: 1, backend });
    await fc.assert(fc.asyncProperty(fc.array(fc.oneof(
      fc.tuple(fc.constant('gemm' as const), fc.nat(K - 1), fc.nat(K - 1), fc.nat(K - 1)),
      fc.tuple(fc.constant('add' as const), fc.nat(K - 1), fc.nat(K - 1), fc.nat(K - 1)),
      fc.tuple(fc.constant('tr' as const), fc.nat(K - 1), fc.nat(K - 1)),
      fc.tuple(fc.constant('write' as const), fc.integer({ min: -3, max: 3 }), fc.nat(K - 1)),
      fc.tuple(fc.constant('read' as const), fc.nat(K - 1)),
      fc.tuple(fc.constant('dispose' as const), fc.nat(K - 1))), { minLength: 1, maxLength: 10 }), async (ops) => {
      const init = Array.from({ length: K }, (_, k) => Array.from({ length: S * S }, (_, i) => ((i * (k + 2)) % 5) - 2));
      const hs = init.map((v) => rt.dense(new DenseMatrix(S, S, 'f64', Float64Array.from(v))));
      const calls: Promise<unknown>[] = [];
      const call = (f: () => unknown) => { try { calls.push(Promise.resolve(f())); } catch (e) { calls.push(Promise.reject(e)); } };
      for (const o of ops) {
        switch (o[0]) {
          case 'gemm': call(() => o[3] === o[1] || o[3] === o[2] ? rt.gemm(hs[o[1]], hs[o[2]]) : rt.gemm(hs[o[1]], hs[o[2]], { C: hs[o[3]] })); break;
          case 'add': call(() => rt.add(hs[o[1]], hs[o[2]])); break;
          case 'tr': call(() => rt.transpose(hs[o[1]])); break;
          case 'write': call(() => hs[o[2]].write(new DenseMatrix(S, S, 'f64', new Float64Array(S * S).fill(o[1])))); break;
          case 'read': call(() => hs[o[1]].read()); break;
          case 'dispose': call(() => hs[o[1]].dispose()); break;
        }
      }
      const settled = await Promise.allSettled(calls);
      const model = init.map((v) => v.slice());
      const gone = new Set<number>();
      ops.forEach((o, c) => {
        const s = settled[c];
        if (s.status === 'rejected') {
          expect((s.reason as Error).name, `call ${c} ${o.join(' ')}: ${String(s.reason)}`).toBe('DisposedError');
          return;
        }
        switch (o[0]) {
          // into C, or (C would alias an operand, which gemm refuses) a new handle the model does not follow
          case 'gemm': if (!(o[3] === o[1] || o[3] === o[2])) model[o[3]] = mul(model[o[1]], model[o[2]]); break;
          case 'write': model[o[2]] = new Array(S * S).fill(o[1]); break;
          case 'read': { const got = Array.from((s.value as DenseMatrix).values, (e) => e + 0); const want = model[o[1]].map((e) => e + 0); if (got.some((g, i) => Math.abs(g - want[i]) > 1e-9 * (1 + Math.abs(want[i])))) throw new Error(`read ${c} of ${o[1]}: ${got} want ${want} ops ${JSON.stringify(ops)}`); break; }
          case 'dispose': gone.add(o[1]); break;
        }
      });
      for (let k = 0; k < K; k++) {
        if (gone.has(k)) continue;
        const got = Array.from((await hs[k].read()).values);
        if (got.some((g, i) => Math.abs(g - model[k][i]) > 1e-9 * (1 + Math.abs(model[k][i])))) throw new Error(`final ${k}: ${got} want ${model[k]} ops ${JSON.stringify(ops)}`);
      }
      for (const h of hs) h.dispose();
    }), { numRuns: backend === 'cpu' ? 150 : 25, seed: 7 });
    rt.dispose();
  }
});
