/**
 * Fourteenth attack pass, createRuntime's `webgpu.device` (a GPUDevice of the caller's): something that
 * is not one — a number, a string, {}, an object with features but no queue — threw V8's TypeError
 * "opts.device.features is not iterable" (or, past that, GpuUnavailableError "device.addEventListener is
 * not a function"), naming neither the option nor what it got. It is now an InputTypeError naming
 * webgpu.device and the value, before anything is made; a real device still runs (Dawn + SwiftShader).
 */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputTypeError } from '../src/errors.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

describe('attack14: createRuntime({ webgpu: { device } }) with something that is not a GPUDevice', () => {
  it('InputTypeError naming webgpu.device and the value, for every backend that would use it', async () => {
    const bad: [unknown, RegExp][] = [
      [5, /got the number 5/],
      ['device', /got the string "device"/],
      [{}, /got an object/],
      [{ features: new Set(), limits: {} }, /got an object/],
      [[1, 2], /got an array/],
    ];
    for (const [device, got] of bad) {
      for (const backend of ['webgpu', 'auto'] as const) {
        const err = await createRuntime({ backend, webgpu: { device: device as GPUDevice } }).then(
          (rt) => (rt.dispose(), null),
          (e: unknown) => e,
        );
        expect(err, `${backend}: ${String(device)}`).toBeInstanceOf(InputTypeError);
        expect(String((err as Error).message)).toMatch(/^createRuntime: webgpu\.device: expected a GPUDevice/);
        expect(String((err as Error).message)).toMatch(got);
      }
    }
  });

  it("a real GPUDevice is taken as before: the product runs on it", { timeout: 60000 }, async () => {
    pointDawnAtSwiftShader();
    const { create, globals } = await import('webgpu');
    Object.assign(globalThis, globals);
    const gpu = create([]);
    const adapter = await gpu.requestAdapter();
    const device = await adapter!.requestDevice();
    const rt = await createRuntime({ backend: 'webgpu', webgpu: { device } });
    const A = poisson2D(4);
    const h = rt.upload(A);
    const y = await rt.spmv(h, new Float64Array(16).fill(1), { path: 'webgpu' });
    // A·1 of the 5-point Laplacian: 4 − (neighbours) per row, by a plain loop
    for (let i = 0; i < 16; i++) {
      let s = 0;
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += A.values[k];
      expect(y[i]).toBe(s);
    }
    rt.dispose();
    device.destroy();
  });
});
