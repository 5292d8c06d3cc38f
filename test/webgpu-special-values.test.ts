/**
 * IEEE special values on the WebGPU path (Dawn + SwiftShader) against the CPU path (issue 23, finding
 * 2): ±Inf and NaN in A, x, y0, alpha and beta through every SpMV kernel, BLAS-1 and dense operation in
 * f32, c64, f64 and c128 (test/browser/special-values-checks.ts, which the WebGL2 page runs too), and
 * through the GPU-resident CG and BiCGSTAB. Double-single used to turn Inf into NaN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/index.js';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import { runSpecialValueChecks, sameClasses, SPECIAL_VALUE_CHECKS, type KernelUpload } from './browser/special-values-checks.js';
import { forKernel, inDType, pointDawnAtSwiftShader, WEBGPU_KERNELS, webgpuBackend } from './webgpu-helpers.js';
import { poisson2D } from '../src/generators/index.js';
import { record } from './browser/test-data.js';
import type { CheckResult } from './browser/checks.js';
import type { WebGpuMatrix } from '../src/webgpu/index.js';

let gpu: WebGpuBackend;
let cpu: Runtime;
const results: CheckResult[] = [];
beforeAll(async () => {
  gpu = await webgpuBackend();
  cpu = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => {
  gpu?.dispose();
  cpu?.dispose();
});

describe('WebGPU: Inf and NaN as on the CPU path', () => {
  beforeAll(async () => {
    const kernels = (A: CSRMatrix): KernelUpload<WebGpuMatrix>[] =>
      WEBGPU_KERNELS.map((k) => {
        const f = forKernel(A, k);
        return typeof f === 'string' ? f : { name: k, host: f.host, upload: (transpose: boolean) => gpu.upload(f.host, { ...f.opts, transpose }) };
      });
    await runSpecialValueChecks(gpu, cpu, (name, fn) => record(results, name, fn), kernels);
  }, 300_000);

  for (const name of SPECIAL_VALUE_CHECKS) {
    it(name, () => {
      const r = results.find((c) => c.name === name);
      expect(r, `${name} did not run`).toBeDefined();
      expect(r!.ok, r!.detail).toBe(true);
      console.log(`${name} (${r!.ms.toFixed(0)} ms): ${r!.detail}`);
      expect(gpu.deviceErrors).toEqual([]);
    });
  }
});

// The GPU-resident solvers (cg_scalars, bicgstab_scalars, cg_update in double-single) against the CPU
// path's solvers: the same stop reason and iteration count, and x in the same classes.
describe('WebGPU resident CG and BiCGSTAB: Inf in b or A as on the CPU path', () => {
  let rt: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    rt = await createRuntime({ backend: 'webgpu' });
  });
  afterAll(() => rt?.dispose());

  for (const dt of ['f32', 'c64', 'f64', 'c128'] as const) {
    it(dt, async () => {
      const A = inDType(poisson2D(8), dt);
      const c = dt === 'c64' || dt === 'c128' ? 2 : 1;
      const b = A.values.constructor === Float32Array ? new Float32Array(A.rows * c).fill(1) : new Float64Array(A.rows * c).fill(1);
      const cases: [string, CSRMatrix, typeof b][] = [];
      for (const s of [Infinity, -Infinity]) {
        const bs = b.slice();
        bs[5 * c] = s;
        cases.push([`b[5] = ${s}`, A, bs]);
      }
      const As = A.astype(dt) as CSRMatrix;
      As.values[3 * c] = Infinity;
      cases.push(['Inf in A', As, b]);
      const out: string[] = [];
      for (const [what, M, rhs] of cases) {
        for (const solver of ['cg', 'bicgstab'] as const) {
          const want = await cpu[solver](cpu.upload(M, { format: 'keep' }), rhs, { maxIter: 20 });
          const got = await rt[solver](rt.upload(M, { format: 'keep' }), rhs, { maxIter: 20 });
          expect(got.path).toBe('webgpu');
          expect({ reason: got.reason, iterations: got.iterations }, `${solver}, ${what}`).toEqual({ reason: want.reason, iterations: want.iterations });
          sameClasses(dt, got.x, want.x, `${solver}, ${what}`);
          out.push(`${solver} ${what}: ${want.reason} after ${want.iterations}`);
        }
      }
      console.log(`${dt}: ${out.join('; ')}`);
    }, 120_000);
  }
});
