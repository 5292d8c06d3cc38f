import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import type { PathId } from '../path.js';
import { convert, FORMATS, type FormatName } from '../formats/index.js';
import type { CSRMatrix } from '../formats/csr.js';
import { parseMatrixMarket } from '../io/index.js';
import { poisson3D } from '../generators/poisson.js';
import { Prng } from '../generators/prng.js';
import { allocValues, componentBytes, components, isComplex, type DType, type ValueArray } from '../dtype.js';
import { GpuUnavailableError, InputRangeError, MemoryLimitError, SimdglError } from '../errors.js';
import { namingInput } from './exit-codes.js';
import { effectiveGBs, maxRelativeError, spmvGflops, timeMedianMs } from '../metrics.js';
import { jsCsrSpmv } from '../host-spmv.js';
import { storedBytes } from '../runtime/cost.js';
import { CPU_COST } from '../cpu/path.js';
import { timeResidentSpmv } from './timing.js';
import { memoryBudgetMB, runtimeMemoryDefaultMB } from '../memory-budget.js';

/** A matrix to compare on: a name and a loader returning canonical CSR in f64 or c128. */
export interface MatrixSource {
  name: string;
  load(): CSRMatrix;
}

/** The GPU paths compare can run SpMV on (besides 'cpu', which is the SIMD, plain and JS rows). */
export type GpuPathId = Exclude<PathId, 'cpu'>;

/** One measured (or skipped) combination. `impl` is the code that ran. */
export interface CompareRow {
  matrix: string;
  rows: number;
  cols: number;
  nnz: number;
  format: FormatName | 'js-csr';
  dtype: DType;
  /**
   * wasm-simd-mt: the SIMD build on the worker pool (`threads` threads, the calling one included);
   * webgpu / webgl2: that GPU path of the runtime, with resident x and y
   */
  impl: 'wasm-simd' | 'wasm-plain' | 'wasm-simd-mt' | 'js' | GpuPathId;
  /** on a GPU path: the format the product ran in where the path has no kernel for `format` (rt.explain) */
  ranAs?: FormatName;
  /** threads the row ran on (1 except for wasm-simd-mt) */
  threads?: number;
  kernelMs?: number;
  gflops?: number;
  gbs?: number;
  maxRelError?: number;
  skipped?: string;
}

/** A path asked for with `paths`: where it runs, or why it cannot run here. */
export interface ComparePath {
  path: PathId;
  available: boolean;
  reason?: string;
  /** the adapter or renderer (GPU paths), the kernel build (cpu) */
  device?: string;
  /** a software adapter: the shaders run on the CPU, so its speed is not a GPU's */
  software?: boolean;
}

export interface CompareOptions {
  formats?: readonly FormatName[];
  dtypes?: readonly DType[];
  /** minimum time spent timing each combination (ms) */
  minMs?: number;
  /** also run the SIMD build on a pool of this many threads (rows with impl 'wasm-simd-mt'); 1 = no */
  workers?: number;
  /** the paths to run (default ['cpu']): cpu = the SIMD, plain and JS rows; webgpu / webgl2 = SpMV on that path */
  paths?: readonly PathId[];
  /** called once, before any row, with every path asked for: its device, or why it is unavailable */
  onPaths?: (paths: ComparePath[]) => void;
  onProgress?: (done: number, total: number, what: string) => void;
}

/** The default workload of `npm start`: poisson3D_64 plus the shared SuiteSparse matrices when present. */
export function defaultSources(matrixDirs: string[]): MatrixSource[] {
  const sources: MatrixSource[] = [{ name: 'poisson3D_64', load: () => poisson3D(64) }];
  const dir = matrixDirs.find((d) => existsSync(d));
  if (dir) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.mtx')).sort()) sources.push(fileSource(join(dir, f)));
  }
  return sources;
}

export function fileSource(path: string): MatrixSource {
  return {
    name: basename(path, '.mtx'),
    load: () => {
      try {
        return parseMatrixMarket(readFileSync(path)).matrix.toCSR();
      } catch (e) {
        throw namingInput(e, path);
      }
    },
  };
}

/** A reproducible x in [-1, 1) for a dtype. */
export function randomVector(dtype: DType, n: number, seed: number): ValueArray {
  const v = allocValues(dtype, n);
  const rng = new Prng(seed);
  for (let i = 0; i < v.length; i++) v[i] = rng.next() * 2 - 1;
  return v;
}

type Impl = CompareRow['impl'];
const isGpu = (impl: Impl): impl is GpuPathId => impl === 'webgpu' || impl === 'webgl2';

/**
 * Runtimes for the paths asked for: for 'cpu' the SIMD build, the plain build and (threads > 1) the
 * SIMD build on a pool; for a GPU path a runtime forced onto it, or the reason it cannot run here.
 */
async function openPaths(paths: readonly PathId[], threads: number): Promise<{ runtimes: Array<[Impl, Runtime]>; info: ComparePath[] }> {
  const runtimes: Array<[Impl, Runtime]> = [];
  const info: ComparePath[] = [];
  try {
    for (const id of new Set(paths)) {
      if (id === 'cpu') {
        const simd = await createRuntime({ backend: 'cpu', simd: 'auto' });
        runtimes.push(['wasm-simd', simd], ['wasm-plain', await createRuntime({ backend: 'cpu', simd: false })]);
        if (threads > 1) runtimes.push(['wasm-simd-mt', await createRuntime({ backend: 'cpu', simd: 'auto', workers: threads })]);
        info.push({ path: id, available: true, device: simd.capabilities().wasm === 'simd' ? 'WebAssembly SIMD' : 'plain WebAssembly (no SIMD here)' });
        continue;
      }
      let rt: Runtime;
      try {
        rt = await createRuntime({ backend: id });
      } catch (e) {
        if (!(e instanceof GpuUnavailableError)) throw e;
        info.push({ path: id, available: false, reason: e.message.replace(/^createRuntime: (the \w+ path is unavailable: )?/, '') });
        continue;
      }
      runtimes.push([id, rt]);
      const caps = rt.capabilities().paths[id];
      info.push({ path: id, available: true, device: caps.device, software: caps.limits?.software === true });
    }
    return { runtimes, info };
  } catch (e) {
    for (const [, rt] of runtimes) rt.dispose();
    throw e;
  }
}

/**
 * Runs every format × dtype on each path asked for (default: the CPU path only) and yields a row per
 * combination: on 'cpu' the SIMD build, the plain build and the plain JavaScript CSR loop; on a GPU
 * path SpMV with resident vectors, in the format the path runs (formats it lacks run as rt.explain
 * says, in `ranAs`). Errors are measured against the f64 (c128) JavaScript CSR product.
 */
export async function* compare(sources: MatrixSource[], options: CompareOptions = {}): AsyncGenerator<CompareRow> {
  const formats = options.formats ?? FORMATS;
  const dtypes = options.dtypes ?? ['f32', 'f64', 'c64', 'c128'];
  const minMs = options.minMs ?? 100;
  const threads = options.workers ?? 1;
  const { runtimes, info } = await openPaths(options.paths ?? ['cpu'], threads);
  options.onPaths?.(info);
  const withCpu = runtimes.some(([impl]) => !isGpu(impl));
  // the rows that stand for a path when a whole combination is skipped
  const heads: Impl[] = runtimes.map(([impl]) => impl).filter((impl) => impl === 'wasm-simd' || isGpu(impl));
  const perFormat = runtimes.length;
  const perDtype = formats.length * perFormat + (withCpu ? 1 : 0);
  const total = runtimes.length ? sources.length * dtypes.length * perDtype : 0;
  let done = 0;
  const tick = (what: string): void => options.onProgress?.(++done, total, what);
  try {
    if (!runtimes.length) return;
    for (const src of sources) {
      const base = src.load();
      // the dtypes whose rows the memory cannot hold (rowsRefusal); none that it can: the input is refused
      const refused = dtypes.map((dtype) => rowsRefusal(base, dtype, runtimes.filter(([impl]) => !isGpu(impl)).length));
      if (refused.every(Boolean)) throw new MemoryLimitError(refused[0]!.requestedBytes, `${src.name}: ${refused[0]!.message}`);
      for (const [d, dtype] of dtypes.entries()) {
        const row = { matrix: src.name, rows: base.rows, cols: base.cols, nnz: base.nnz, dtype };
        if (isComplex(base.dtype) && !isComplex(dtype)) {
          done += perDtype;
          for (const impl of heads) yield { ...row, format: 'js-csr', impl: impl === 'wasm-simd' ? 'js' : impl, skipped: 'complex matrix, real dtype' };
          continue;
        }
        // a matrix f32 cannot hold (values past ±3.4e38 or below 1.4e-45), or one whose rows the memory
        // cannot hold (rowsRefusal: from sizes, before anything is allocated), is a skipped row, not the end of the run
        let A: CSRMatrix;
        try {
          if (refused[d]) throw refused[d];
          A = base.astype(dtype);
        } catch (e) {
          if (!(e instanceof InputRangeError || e instanceof MemoryLimitError)) throw e;
          done += perDtype;
          for (const impl of heads) yield { ...row, format: 'js-csr', impl: impl === 'wasm-simd' ? 'js' : impl, skipped: e.message };
          continue;
        }
        const cplx = isComplex(dtype);
        const ref64 = base.astype(cplx ? 'c128' : 'f64');
        const x64 = randomVector(ref64.dtype, base.cols, 7);
        const yRef = allocValues(ref64.dtype, base.rows);
        jsCsrSpmv(ref64, x64, yRef);
        const x = allocValues(dtype, base.cols);
        x.set(x64);
        const bytes = (fmtBytes: number): number => fmtBytes + (base.cols + base.rows) * components(dtype) * componentBytes(dtype);
        if (withCpu) {
          // the plain JavaScript loop on the same dtype's arrays
          const yJs = allocValues(dtype, base.rows);
          const jsMs = await timeMedianMs(() => jsCsrSpmv(A, x, yJs), minMs);
          tick(`${src.name} js ${dtype}`);
          yield { ...row, format: 'js-csr', impl: 'js', threads: 1, ...figures(jsMs, base.nnz, cplx, bytes(A.storageBytes()), yJs, yRef) };
        }
        for (const format of formats) {
          let M;
          try {
            M = convert(A, format);
          } catch (e) {
            // a format this matrix cannot take (padding, memory) is a skipped row, not the end of the run
            if (!(e instanceof SimdglError || e instanceof MemoryLimitError)) throw e;
            done += perFormat;
            for (const impl of heads) yield { ...row, format, impl, skipped: e.message };
            continue;
          }
          // the bytes the CPU path streams: f64 DIA values that are all exactly f32 are kept as f32 there
          // (src/cpu/spmv-plan.ts), half their f64 bytes (poisson3D's DIA GB/s read 1.64× too high)
          const cpuBytes = storedBytes(M, CPU_COST.compactDia);
          for (const [impl, rt] of runtimes) {
            // the format asked for, so that a GPU path lacking it runs what rt.explain says
            let h, xv, yv;
            try {
              h = rt.upload(M, { format });
              xv = rt.vector(x, dtype);
              yv = rt.vector(base.rows, dtype);
            } catch (e) {
              // the runtime's memory cannot hold this format's copy beside x and y: a skipped row
              h?.dispose();
              xv?.dispose();
              if (!(e instanceof MemoryLimitError)) throw e;
              tick(`${src.name} ${format} ${dtype} ${impl}`);
              yield { ...row, format, impl, skipped: e.message };
              continue;
            }
            try {
              if (!isGpu(impl)) {
                const ms = await timeMedianMs(() => rt.spmv(h, xv, { y: yv }), minMs);
                tick(`${src.name} ${format} ${dtype} ${impl}`);
                yield { ...row, format, impl, threads: impl === 'wasm-simd-mt' ? threads : 1, ...figures(ms, base.nnz, cplx, bytes(cpuBytes), await yv.read(), yRef) };
                continue;
              }
              const est = rt.explain('spmv', h, { x: xv, readBack: false }).estimates[impl];
              const ranAs = est && est.format !== format ? est.format : undefined;
              let ms: number;
              try {
                ms = await timeResidentSpmv(rt, h, xv, yv, impl, minMs);
              } catch (e) {
                if (!(e instanceof SimdglError)) throw e;
                tick(`${src.name} ${format} ${dtype} ${impl}`);
                yield { ...row, format, impl, ranAs, skipped: e.message };
                continue;
              }
              tick(`${src.name} ${format} ${dtype} ${impl}`);
              // bytes of the format that ran: the cost model's count where it is not the uploaded one
              const moved = ranAs ? est!.bytes : bytes(h.storageBytes);
              yield { ...row, format, impl, ranAs, threads: 1, ...figures(ms, base.nnz, cplx, moved, await yv.read(), yRef) };
            } finally {
              h.dispose();
              xv.dispose();
              yv.dispose();
            }
          }
        }
      }
    }
  } finally {
    for (const [, rt] of runtimes) rt.dispose();
  }
}

/**
 * The MemoryLimitError, from sizes alone, where a dtype's rows cannot fit (else null): each CPU runtime holds x, y and
 * A as CSR at least in its WebAssembly memory (within its maxMemoryMB), which grows by half again at a
 * time and stays grown; compare holds the reference x and y in f64 (c128), x and y in the dtype and the
 * matrix three times (the file's, the dtype's, the reference's) besides — all of it within the memory
 * budget (--max-memory). A 60-byte file declaring an empty 10⁸×10⁸ matrix ran 130 s of f32 rows at
 * 8.3 GB (over the 5.9 GiB budget) into the f64 rows' WebAssembly memory error.
 */
function rowsRefusal(A: CSRMatrix, dtype: DType, cpuRuntimes: number): MemoryLimitError | null {
  const MiB = 1048576;
  const eb = components(dtype) * componentBytes(dtype);
  const csr = (bytes: number) => 4 * (A.rows + 1) + A.nnz * (4 + bytes);
  const runtime = (A.rows + A.cols) * eb + csr(eb);
  const limit = runtimeMemoryDefaultMB() * MiB;
  const host = (A.rows + A.cols) * (components(dtype) * 8 + eb) + csr(eb) + 2 * csr(components(dtype) * 8) + cpuRuntimes * Math.min(limit, 1.5 * runtime);
  const [bytes, budget] = runtime > limit ? [runtime, limit] : [host, memoryBudgetMB() * MiB];
  if (!(bytes > budget)) return null;
  const what = runtime > limit ? "a CPU runtime's x, y and A" : "the reference vectors, the matrix's copies and the CPU runtimes' memory";
  return new MemoryLimitError(bytes, `${A.rows}×${A.cols} ${dtype}: ${what} take ${(bytes / MiB).toFixed(0)} MiB, over the memory budget of ${runtime > limit ? 'a runtime' : 'the run (--max-memory)'}, ${(budget / MiB).toFixed(0)} MiB`);
}

function figures(ms: number, nnz: number, cplx: boolean, bytes: number, y: ArrayLike<number>, ref: ArrayLike<number>) {
  return {
    kernelMs: ms,
    gflops: spmvGflops(nnz, cplx, ms / 1e3),
    gbs: effectiveGBs(bytes, ms / 1e3),
    maxRelError: maxRelativeError(y, ref),
  };
}
