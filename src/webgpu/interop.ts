/**
 * Sharing storage buffers with other code on the same GPUDevice (TF.js's WebGPU backend, ONNX Runtime
 * Web): the checks a caller's GPUBuffer must pass before a vector is laid over it. Layout: the vector's
 * elements from byte 0, floatsPerElement(dtype) f32 each (encoding.ts): f32 plain, c64 (re, im)
 * interleaved, f64 / c128 as double-single pairs (hi, lo). Bytes past the vector's length are never
 * read or written.
 */
import type { DType } from '../dtype.js';
import { InputTypeError, ShapeError, UnsupportedError } from '../errors.js';
import { shownTyped } from '../shown-value.js';
import { floatsPerElement } from './encoding.js';
import { USAGE } from './engine.js';
import { WebGpuLimitError } from './errors.js';

/** The usages a shared buffer needs: bound by the kernels, read back and copied from (x = y aliasing), written by write() and copy(). */
export const SHARED_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;

const USAGE_NAMES: [number, string][] = [
  [USAGE.STORAGE, 'STORAGE'],
  [USAGE.COPY_SRC, 'COPY_SRC'],
  [USAGE.COPY_DST, 'COPY_DST'],
];

/**
 * Checks that `buffer` can hold a vector of `length` `dtype` elements on `device`: a GPUBuffer, with
 * STORAGE | COPY_SRC | COPY_DST usage, unmapped, large enough, within the storage binding limit, and
 * made by this device (a bind group and an empty submit under an error scope: what the device
 * refuses — another device's buffer, a destroyed one — becomes an UnsupportedError now, not a
 * validation error on a later call).
 */
export async function checkSharedBuffer(device: GPUDevice, buffer: unknown, dtype: DType, length: number, bindingLimit: number): Promise<GPUBuffer> {
  const where = 'fromGPUBuffer';
  const b = buffer as GPUBuffer;
  if (b === null || typeof b !== 'object' || typeof b.size !== 'number' || typeof b.usage !== 'number' || typeof b.destroy !== 'function') {
    throw new InputTypeError(`${where}: expected a GPUBuffer, got ${shownTyped(buffer)}`);
  }
  const missing = USAGE_NAMES.filter(([bit]) => (b.usage & bit) === 0).map(([, name]) => name);
  if (missing.length) {
    throw new UnsupportedError(`${where}: the buffer's usage lacks ${missing.map((m) => `GPUBufferUsage.${m}`).join(' | ')} (simdgl binds it as storage, reads it back and copies it: create it with STORAGE | COPY_SRC | COPY_DST)`);
  }
  const need = length * floatsPerElement(dtype) * 4;
  if (b.size < need) {
    throw new ShapeError(`${where}: a buffer of ${b.size} bytes cannot hold ${length} ${dtype} elements (${need} bytes)`);
  }
  if (b.size > bindingLimit) {
    throw new WebGpuLimitError(`${where}: a buffer of ${b.size} bytes is over the device's maxStorageBufferBindingSize of ${bindingLimit} bytes (the kernels bind the whole buffer)`);
  }
  if (b.mapState !== undefined && b.mapState !== 'unmapped') {
    throw new UnsupportedError(`${where}: the buffer is ${b.mapState} (unmap it first: a mapped buffer cannot be used by the GPU)`);
  }
  device.pushErrorScope('validation');
  try {
    const layout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: 4 /* COMPUTE */, buffer: { type: 'storage' } }] });
    device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer: b } }] });
    const enc = device.createCommandEncoder();
    enc.clearBuffer(b, 0, 0);
    device.queue.submit([enc.finish()]);
  } finally {
    const error = await device.popErrorScope();
    if (error) throw new UnsupportedError(`${where}: the device refused the buffer (a buffer of another GPUDevice, or a destroyed one?): ${error.message}`);
  }
  return b;
}
