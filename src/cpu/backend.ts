import type { DType } from '../dtype.js';
import type { SpmvScalars } from '../backend-types.js';
import type { SparseMatrix } from '../formats/index.js';
import { WasmHeap } from './memory.js';
import { compileKernels, hasSharedMemory, hasWasmSimd, instantiateKernels, type KernelExports, type WasmFlavor } from './wasm.js';
import { CpuMatrix, CpuVector } from './resident.js';
import { hasTransposedKernels, spmvSteps, uploadMatrix, type KernelStep } from './spmv-plan.js';

export interface CpuBackendOptions {
  /** 'auto' (default) uses the SIMD build when the engine validates SIMD; false forces the plain build */
  simd?: boolean | 'auto';
  /** upper bound of the WebAssembly memory in MiB (default 2048, at most 4096) */
  maxMemoryMB?: number;
}

/** The CPU path: AssemblyScript kernels over one WebAssembly memory. */
export class CpuBackend {
  private constructor(
    readonly heap: WasmHeap,
    readonly kernels: KernelExports,
    readonly flavor: WasmFlavor,
  ) {}

  static async create(options: CpuBackendOptions = {}): Promise<CpuBackend> {
    const simdOk = hasWasmSimd();
    if (options.simd === true && !simdOk) throw new Error('WebAssembly SIMD was requested but this engine lacks it');
    const flavor: WasmFlavor = options.simd === false || !simdOk ? 'plain' : 'simd';
    const shared = hasSharedMemory();
    const maxPages = Math.floor(((options.maxMemoryMB ?? 2048) * 1048576) / 65536);
    const heap = new WasmHeap({ shared, maxPages });
    const kernels = await instantiateKernels(await compileKernels(flavor, shared), heap.memory);
    return new CpuBackend(heap, kernels, flavor);
  }

  upload(A: SparseMatrix): CpuMatrix {
    return uploadMatrix(this.heap, A);
  }

  vector(dtype: DType, length: number): CpuVector {
    return new CpuVector(this.heap, dtype, length);
  }

  /** y = α·op(A)·x + β·y on resident data. Formats without transposed kernels go through CSR. */
  spmv(M: CpuMatrix, x: CpuVector, y: CpuVector, s: SpmvScalars): void {
    let target = M;
    if (s.op !== 'N' && !hasTransposedKernels(M.format)) {
      target = M.transposeFallback ??= uploadMatrix(this.heap, M.host.toCSR());
    }
    this.run(spmvSteps(target, x.ptr, y.ptr, s));
  }

  /** Runs kernel steps on the calling thread, each over its whole range. */
  run(steps: KernelStep[]): void {
    for (const st of steps) {
      const fn = this.kernels[st.kernel];
      if (!fn) throw new Error(`internal: kernel ${st.kernel} is missing from the wasm module`);
      if (st.end > st.start) fn(...st.args, st.start, st.end);
    }
  }
}
