/**
 * Shared by the test/webgpu-*.test.ts suites: a WebGPU backend on Dawn (the `webgpu` package) in Node,
 * the test matrices (the generated edge cases of test/browser/checks.ts and the shared SuiteSparse
 * ones) and the comparison with the f64 reference under the bounds the WebGL2 suite asserts.
 *
 * The adapter: Dawn needs a Vulkan driver. Without a GPU, SwiftShader's (shipped with Debian's
 * chromium package) serves; VK_ICD_FILENAMES is pointed at it here before Dawn starts, unless it is
 * already set. No adapter is a failure, never a skip: CI must have one.
 */
import { existsSync } from 'node:fs';
import { CSRMatrix, DIAMatrix, ELLMatrix, HYBMatrix, SELLMatrix } from '../src/formats/index.js';
import { PaddingLimitError } from '../src/errors.js';
import { WebGpuBackend, type WebGpuBackendOptions, type HostMatrix, type WebGpuUploadOptions } from '../src/webgpu/index.js';
import { compareSpmv } from './browser/test-data.js';
import type { Op } from './reference.js';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export function pointDawnAtSwiftShader(): void {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
}

/** A backend, or a thrown error that says loudly why there is none. */
export async function webgpuBackend(opts: WebGpuBackendOptions = {}): Promise<WebGpuBackend> {
  pointDawnAtSwiftShader();
  const b = await WebGpuBackend.create(opts);
  if (!b.available) {
    throw new Error(`NO WEBGPU ADAPTER: the WebGPU suites need one (Dawn + a Vulkan driver; VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}): ${b.reason}`);
  }
  return b;
}

export const DTYPES = ['f32', 'c64', 'f64', 'c128'] as const;
export { fsum, generated, inDType, isDS, longRows, randomData, scalars } from './browser/test-data.js';
export { csrTriplets } from './reference.js';

/** Every SpMV kernel of the WebGPU path, forced. */
export const WEBGPU_KERNELS = ['csr_row', 'csr_vector', 'csr_adaptive', 'sell', 'ell', 'dia', 'hyb'] as const;
export type WebGpuKernel = (typeof WEBGPU_KERNELS)[number];

/** Padded formats past this many slots are skipped (CSR and HYB cover those matrices): SwiftShader runs double-single slowly. */
const MAX_PADDED_SLOTS = 4e5;

/** The host matrix and upload options that run kernel k, or why it is skipped (padding past 2 M slots). */
export function forKernel(A: CSRMatrix, k: WebGpuKernel): { host: HostMatrix; opts: WebGpuUploadOptions } | string {
  try {
    switch (k) {
      case 'csr_row': return { host: A, opts: { kernel: 'row' } };
      // 4 threads per row: the subgroup kernel wherever 'subgroups' is offered (every subgroup has ≥ 4 lanes)
      case 'csr_vector': return { host: A, opts: { kernel: 'vector', threadsPerRow: 4 } };
      // C = 32 and σ by the format's rule: sorted (perm) on the irregular matrices, σ = 1 on the regular ones
      case 'sell': return { host: SELLMatrix.fromCSR(A, { sliceHeight: 32, maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'csr_adaptive': return { host: A, opts: { kernel: 'adaptive' } };
      case 'ell': return { host: ELLMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'dia': return { host: DIAMatrix.fromCSR(A, { maxSlots: MAX_PADDED_SLOTS }), opts: {} };
      case 'hyb': return { host: HYBMatrix.fromCSR(A), opts: {} };
    }
  } catch (e) {
    if (e instanceof PaddingLimitError) return `skipped: ${k} would store ${e.required} slots (> ${MAX_PADDED_SLOTS}); csr and hyb cover this matrix`;
    throw e;
  }
}

/**
 * Compares a result with the f64 reference (compareSpmv of test/browser/test-data.ts): throws on a
 * violation; returns the worst ratio (|err|/bound for single, |err|/scale for double-single).
 */
export function compareRef(A: CSRMatrix, x: ArrayLike<number>, y0: ArrayLike<number> | null, alpha: number | [number, number], beta: number | [number, number], got: ArrayLike<number>, op: Op = 'N'): number {
  return compareSpmv(A, x, y0, alpha, beta, got, op).worst;
}
