/**
 * The automatic calibration: the figures explain and the path choice use when no calibration was
 * given (createRuntime({ calibration })) or run (rt.calibrate()), measured on first need in a few ms
 * and kept in this module's cache — one per process or page (a module-level Map, keyed by path and
 * kernel build or device), so later runtimes reuse them. Nothing is persisted: save rt.calibrate()'s
 * result for that.
 *
 * CPU path, synchronously (explain is synchronous), on the calling thread: the time of a tiny product
 * plus the runtime's call overhead, and the rate of DIA products over a working set that fits in
 * cache (poisson2D(256), about 3.6 MB: a 0.9 MB one, all in L2, put mid-size products 1.5–2.5× above
 * their estimates); the rate beyond cache only when a matrix that large is first explained (a
 * 5-diagonal matrix of 2 M rows, a 112 MB working set, 100–200 ms once). One thread's figures stand
 * for every thread count: the pool is used only where it measured faster (src/cpu/dispatch.ts), by
 * less than 2× on 2 threads.
 *
 * Device paths, asynchronously (their products finish on the device): started by the path's first
 * operation or by an explain that could choose it (runtime.ts explainSpmv), never by the runtime's own
 * choices (they would load the path's shaders for a page that stays on the CPU); through
 * the path's own operations as the runtime runs them (f64, resident, the median of 5 batches of 4
 * products each ended by a read), a tiny product and a small Poisson matrix (9,216 rows) in the format
 * the path runs it in; until it ends
 * the path's default figures stand (explain says so). On a real GPU so small a product is all
 * overhead, so the measured rate replaces the default only where the kernel's share of the product
 * was at least half the overhead (a software renderer's: 1–2 ms of each against 1–3 ms of kernel;
 * with the bar at twice the overhead, the page's SwiftShader kept the defaults and its estimates ran
 * 2–5× slow).
 */
import type { Path, PathCalibration } from '../path.js';
import type { CpuPath } from '../cpu/path.js';
import { DIAMatrix, convert, type SparseMatrix } from '../formats/index.js';
import { spmvBytes } from './cost.js';
import type { SpmvScalars } from '../backend-types.js';
import { median } from '../metrics.js';
import { formatOn } from './explain.js';
import { matrixFeatures } from './features.js';
import { poisson2D, poisson3D } from '../generators/poisson.js';

/**
 * Working sets up to this many bytes count as cache-resident in the CPU estimate. On the 2-vCPU EPYC
 * (32 MiB L3, shared) a DIA product ran at the cached rate up to 5.6 MB and at 22 GB/s, half of it,
 * at 18.9 MB: bytes past 8 MiB at the memory rate put that within 1.4×, past 16 MiB 1.5× the other way.
 */
export const CACHE_BYTES = 8 << 20;
/** What a runtime call adds to the kernel's time (promise turns, the operation queue, checks), in ms: 3 µs left 1,024-row products 1.8–3.4× above their estimates on the 2-vCPU EPYC. */
export const CALL_OVERHEAD_MS = 0.006;
/**
 * Rows of the matrix that measures the CPU's rate beyond cache: a 5-point stencil's diagonals, like
 * the matrices it stands for, 80 MB of them with 32 MB of x and y: beyond the largest last-level caches.
 */
const MEMORY_ROWS = 1 << 21;
const MEMORY_OFFSETS = Int32Array.of(-1024, -1, 0, 1, 1024);

const figures = new Map<string, PathCalibration>();
const running = new Map<string, Promise<void>>();
/** why a device path's last measurement failed (explain says it; a later need tries again) */
const failures = new Map<string, string>();

/** The cache key of a path: the CPU's kernel build, a device's name. */
function keyOf(p: Path): string {
  return p.cost.kind === 'cpu' ? `cpu:${p.capabilities().device ?? ''}` : `${p.id}:${p.capabilities().device ?? ''}`;
}

/** Bytes one product of A moves (matrix arrays, x, y), as cost.ts counts them. */
function productBytes(A: { storageBytes(): number; rows: number; cols: number }, elementBytes: number): number {
  return A.storageBytes() + (A.rows + A.cols) * elementBytes;
}

/**
 * The CPU path's figures, measured now if this process has none (`beyondCache`: including the rate
 * beyond cache, for a working set larger than CACHE_BYTES).
 */
export function cpuFigures(cpu: CpuPath, beyondCache: boolean): PathCalibration {
  const key = keyOf(cpu);
  let f = figures.get(key);
  if (!f) {
    const A = convert(poisson2D(256), 'dia');
    const ms = cpu.timeInline(A, 7, 1, 3);
    // a 32-entry product costs less than a quarter of an 82,000-entry one: a window the clock or another
    // process spoiled (a page's 5 µs clock) must not make the fixed cost swallow the rate
    const fixedMs = Math.min(cpu.timeInline(poisson3D(2), 7, 0.2, 20), ms / 4);
    f = { overheadMs: fixedMs + CALL_OVERHEAD_MS, bandwidthGBs: productBytes(A, 8) / 1e6 / (ms - fixedMs) };
    figures.set(key, f);
  }
  if (beyondCache && f.memoryGBs === undefined) {
    const n = MEMORY_ROWS;
    const D = new DIAMatrix(n, n, 'f64', MEMORY_OFFSETS, n, new Float64Array(MEMORY_OFFSETS.length * n).fill(1));
    const ms = cpu.timeInline(D, 3, 0, 1);
    // never faster than the cached rate: a machine whose cache holds it all streams at that rate
    f = { ...f, memoryGBs: Math.min(f.bandwidthGBs, productBytes(D, 8) / 1e6 / ms), cacheBytes: CACHE_BYTES };
    figures.set(key, f);
  }
  return f;
}

/** A device path's figures if this process has measured them, else null (nothing started). */
export function measuredDeviceFigures(p: Path): PathCalibration | null {
  return figures.get(keyOf(p)) ?? null;
}

/**
 * A device path's figures if this process has measured them; otherwise starts the measurement (once)
 * and returns null. `done` resolves when it has ended (figures stored, or the path failed to measure).
 */
export function deviceFigures(p: Path): { figures: PathCalibration | null; done: Promise<void>; failed?: string } {
  const key = keyOf(p);
  const f = figures.get(key);
  if (f) return { figures: f, done: Promise.resolve() };
  const failed = failures.get(key);
  let r = running.get(key);
  if (!r) {
    r = measureDevice(p)
      .then((m) => {
        figures.set(key, m);
        failures.delete(key);
      })
      // a lost device or a disposed runtime: the defaults stay, explain says why, a later need tries again
      .catch((e: unknown) => void failures.set(key, e instanceof Error ? e.message : String(e)))
      .finally(() => running.delete(key));
    running.set(key, r);
  }
  return { figures: null, done: r, failed };
}

async function measureDevice(p: Path): Promise<PathCalibration> {
  const d = p.cost.defaults;
  if (p.prepare) await p.prepare(); // a GPU path's shaders load with its first operation
  const overheadMs = await timeProducts(p, poisson3D(2));
  // a Poisson matrix in the format the path runs it in, its rate scaled back to the path's reference rate
  const P = poisson2D(96);
  const features = matrixFeatures(P);
  const { format } = formatOn(p, features);
  const eff = p.cost.efficiency ? (p.cost.efficiency[format] ?? p.cost.efficiency.csr ?? 1) : 1;
  const { matrix, vectors } = spmvBytes(features, format, 8);
  const kernelMs = (await timeProducts(p, convert(P, format, { maxFill: 1e9 }))) - overheadMs;
  // on a real GPU so small a product is all overhead: its rate says nothing, the default stands
  const bandwidthGBs = kernelMs > 0 && kernelMs >= overheadMs / 2 ? (matrix + vectors) / 1e6 / kernelMs / eff : d.bandwidthGBs;
  // transfers: 2 MB up and back
  const data = new Float64Array(1 << 18);
  let t0 = performance.now();
  const v = p.vector('f64', data);
  const upMs = performance.now() - t0;
  t0 = performance.now();
  await p.read(v);
  const downMs = performance.now() - t0;
  v.dispose();
  const rate = (ms: number, fallback = 1): number => (ms > 0.05 ? data.byteLength / 1e6 / ms : fallback);
  return { device: p.capabilities().device, overheadMs, bandwidthGBs, uploadGBs: rate(upMs, d.uploadGBs), readbackGBs: rate(downMs, d.readbackGBs) };
}

/**
 * The time of a resident f64 product on a device path, as the runtime runs it: 5 batches of 4 products,
 * each ended by one read of y (what makes a device finish), after an untimed one; the median batch's
 * time per product (one batch slowed by another process does not set the figure).
 */
async function timeProducts(p: Path, A: SparseMatrix): Promise<number> {
  const M = p.matrix(A, { transpose: false });
  const x = p.vector('f64', new Float64Array(A.cols).fill(1));
  const y = p.vector('f64', A.rows);
  const s: SpmvScalars = { alpha: [1, 0], beta: [0, 0], op: 'N' };
  try {
    const t: number[] = [];
    for (let b = -1; b < 5; b++) {
      const t0 = performance.now();
      for (let k = 0; k < 4; k++) await p.spmv(M, x, y, s);
      await p.read(y);
      if (b >= 0) t.push((performance.now() - t0) / 4);
    }
    return median(t);
  } finally {
    M.dispose();
    x.dispose();
    y.dispose();
  }
}


/** What this process has measured, per path key (tests). */
export function autoCalibrationCache(): Map<string, PathCalibration> {
  return figures;
}
