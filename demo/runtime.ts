// The part of the runtime API the demo uses, typed here so that the page builds against the runtime
// of any version: the CPU parts exist, the GPU parts (backend 'gpu', capabilities().gpu, explain,
// upload format 'auto', gemm, transpose) are used when present and reported as missing otherwise.
import { createRuntime } from '../src/index.js';
import type { DType, ValueArray } from '../src/dtype.js';
import type { DenseMatrix, SparseMatrix } from '../src/formats/index.js';
import { acquireContext, probeCapabilities } from '../src/gpu/index.js';

export type Path = 'cpu' | 'gpu';

export interface GpuCaps {
  available: boolean;
  reason?: string | null;
  renderer?: string;
  vendor?: string;
  maxTextureSize?: number;
  colorBufferFloat?: boolean;
  floatReadback?: boolean;
  [k: string]: unknown;
}

export interface Caps {
  wasm: 'simd' | 'plain';
  simd: boolean;
  sharedMemory: boolean;
  threads: number;
  workers: boolean;
  crossOriginIsolated?: boolean;
  notes: string[];
  gpu?: GpuCaps;
}

export interface Handle {
  format: string;
  dtype: DType;
  rows: number;
  cols: number;
  nnz: number;
  storageBytes: number;
  dispose(): void;
}

export interface Vec {
  read(): Promise<ValueArray>;
  dispose(): void;
}

export interface Explanation {
  /** a path id: 'cpu', 'webgpu' or 'webgl2' */
  path: string;
  format: string;
  reasons: string[];
  estimates: Partial<Record<'cpu' | 'webgpu' | 'webgl2', { ms: number; format: string }>>;
  features?: Record<string, unknown>;
}

export interface SolveResult {
  x: ValueArray;
  iterations: number;
  relativeResidual: number;
  converged: boolean;
  reason: string;
  history: number[];
}

export interface DemoRuntime {
  capabilities(): Caps;
  upload(m: SparseMatrix, o?: { format?: string }): Handle;
  vector(data: ValueArray | number, dtype?: DType): Vec;
  spmv(A: Handle, x: Vec | ValueArray, o?: { y?: Vec }): Promise<unknown>;
  cg(A: Handle, b: ValueArray, o: { tol?: number; maxIter?: number; onIteration?: (it: number, r: number) => void | Promise<void> }): Promise<SolveResult>;
  setWorkers(n: number): Promise<void>;
  explain?(op: 'spmv', m: SparseMatrix): Explanation;
  gemm?(A: DenseMatrix, B: DenseMatrix, o?: { alpha?: number; beta?: number; C?: DenseMatrix }): unknown;
  transpose?(A: DenseMatrix): unknown;
  dispose(): void;
}

export type Made = { rt: DemoRuntime; reason?: undefined } | { rt: null; reason: string };

/**
 * A runtime for one path. For 'gpu', a runtime that cannot run on the GPU is closed again and the
 * reason is returned, so the GPU panel says why instead of silently running on the CPU.
 */
export async function makeRuntime(path: Path | 'auto', workers: number, canvas?: HTMLCanvasElement): Promise<Made> {
  let rt: DemoRuntime;
  try {
    rt = (await createRuntime({ backend: path, workers, canvas } as never)) as unknown as DemoRuntime;
  } catch (e) {
    return { rt: null, reason: e instanceof Error ? e.message : String(e) };
  }
  if (path === 'gpu') {
    const gpu = rt.capabilities().gpu;
    if (!gpu || !gpu.available) {
      rt.dispose();
      return { rt: null, reason: gpu?.reason ?? 'this runtime does not report a GPU path' };
    }
  }
  return { rt };
}

/**
 * The GPU half of the device report when no runtime reports it: probes WebGL2 directly with the
 * library's own probe (renderer, float render targets, float read-back, texture size).
 */
export function probeGpu(): GpuCaps {
  const canvas = document.createElement('canvas');
  const got = acquireContext({ canvas } as never);
  const caps = probeCapabilities(got.gl, 'reason' in got ? got.reason : undefined);
  (got.gl?.getExtension('WEBGL_lose_context') as { loseContext(): void } | null)?.loseContext();
  return { ...caps, available: caps.reason === null, reason: caps.reason };
}

/** Values of whatever a dense operation returned: a DenseMatrix, a resident matrix, or an array. */
export async function denseValues(out: unknown): Promise<ArrayLike<number>> {
  const o = (await out) as { values?: ArrayLike<number>; read?: () => Promise<unknown> } | ArrayLike<number>;
  if (o && typeof (o as { read?: unknown }).read === 'function') return denseValues(await (o as { read(): Promise<unknown> }).read());
  if (o && (o as { values?: ArrayLike<number> }).values) return (o as { values: ArrayLike<number> }).values;
  return o as ArrayLike<number>;
}
