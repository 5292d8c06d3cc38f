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
 * their estimates); the rate beyond cache when a matrix that large is first explained, at its octave
 * of working set (a 5-diagonal matrix of 16 to 128 MiB, 5 products: up to 100–200 ms once per octave
 * and process). One thread's figures stand
 * for every thread count: the pool is used only where it measured faster (src/cpu/dispatch.ts), by
 * less than 2× on 2 threads.
 *
 * Device paths, asynchronously (their products finish on the device): started by the path's first
 * operation or by an explain that could choose it (runtime.ts explainSpmv), never by the runtime's own
 * choices (they would load the path's shaders for a page that stays on the CPU); through the path's
 * own operations as the runtime runs them (f64, resident), a tiny product and two small Poisson
 * matrices (1,024 and 9,216 rows) in the format the path runs them in, each timed in windows of one product and of several
 * (each window ended by one read of y, what makes a device finish), so that the time of a product in
 * a stream of them (what explain estimates for a resident product) comes apart from the read's
 * latency: a software renderer's read in Node waited 0.2 ms or, on a loaded machine, whole 4 ms
 * scheduler ticks, and with 4 products per read its share made the fixed cost 0.37 ms where a
 * product in a stream cost 0.04 ms. Until it ends the path's default figures stand (explain says so).
 * On a real GPU so small a product is all overhead, so the measured rate replaces the default only
 * where the kernel's share of the product was at least half the overhead (a software renderer's: 1–2
 * ms of each against 1–3 ms of kernel; with the bar at twice the overhead, the page's SwiftShader
 * kept the defaults and its estimates ran 2–5× slow).
 */
import type { Path, PathCalibration } from '../path.js';
import type { CpuPath } from '../cpu/path.js';
import { DIAMatrix, convert, type CSRMatrix, type SparseMatrix } from '../formats/index.js';
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
 * The CPU's rate beyond cache is measured per octave of working set, 16 MiB to 128 MiB (larger ones
 * take 128 MiB's), on a 5-point stencil's diagonals like the matrices it stands for, when a matrix of
 * that octave is first explained: between 8 MiB and the last level's size (32 MiB on the EPYC, 260 MiB
 * reported by this VM's Xeon, shared with its other tenants) the rate falls gradually, so one rate at
 * 112 MB left a 19 MB product (poisson3D(64)) 2.4× faster than its estimate in one run and a 56 MB one
 * 2.2× slower in another.
 */
const OCTAVES = { min: 24, max: 27 };
const STENCIL_OFFSETS = [-1, 0, 1];
/** per CPU key, the rate beyond cache (GB/s) by octave of working set */
const beyond = new Map<string, Map<number, number>>();

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
 * The CPU path's figures, measured now if this process has none; for a working set beyond CACHE_BYTES
 * (`workingSetBytes`), with the rate beyond cache measured at its octave (once per process).
 */
export function cpuFigures(cpu: CpuPath, workingSetBytes = 0): PathCalibration {
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
  if (workingSetBytes <= CACHE_BYTES) return f;
  const octave = Math.min(OCTAVES.max, Math.max(OCTAVES.min, Math.round(Math.log2(workingSetBytes))));
  let rates = beyond.get(key);
  if (!rates) beyond.set(key, (rates = new Map()));
  let memoryGBs = rates.get(octave);
  if (memoryGBs === undefined) {
    // a square grid's 5-point stencil (diagonals ±1, ±side) whose product moves 2^octave bytes: 56 per row
    const side = Math.round(Math.sqrt(2 ** octave / 56));
    const n = side * side;
    const offsets = Int32Array.from([-side, ...STENCIL_OFFSETS, side]);
    const D = new DIAMatrix(n, n, 'f64', offsets, n, new Float64Array(offsets.length * n).fill(1));
    const bytes = productBytes(D, 8);
    const ms = cpu.timeInline(D, 5, 0, 1);
    // the rate that puts this product at its measured time, the first CACHE_BYTES at the cached rate as
    // cost.ts counts them; never faster than the cached rate (a cache that holds it all streams at that rate)
    const pastMs = ms - CACHE_BYTES / 1e6 / f.bandwidthGBs;
    memoryGBs = pastMs > 0 ? Math.min(f.bandwidthGBs, (bytes - CACHE_BYTES) / 1e6 / pastMs) : f.bandwidthGBs;
    rates.set(octave, memoryGBs);
  }
  return { ...f, memoryGBs, cacheBytes: CACHE_BYTES };
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
  const tinyMs = await timeProduct(p, poisson3D(2), 8);
  // two Poisson matrices in the format the path runs them in: the line through their times gives the
  // rate (scaled back to the path's reference rate) and the fixed cost of a product that spans many
  // workgroups — a software renderer wakes its threads for one: on a loaded machine SwiftShader took
  // 2 ms for a 1,024-row product where an 8-row one took 0.05–0.4 ms — never below the tiny one's
  const [S, P] = [poisson2D(32), poisson2D(96)];
  const { format } = formatOn(p, matrixFeatures(P));
  const eff = p.cost.efficiency ? (p.cost.efficiency[format] ?? p.cost.efficiency.csr ?? 1) : 1;
  const bytesOf = (A: CSRMatrix): number => {
    const { matrix, vectors } = spmvBytes(matrixFeatures(A), format, 8);
    return matrix + vectors;
  };
  const [bS, bP] = [bytesOf(S), bytesOf(P)];
  const sMs = await timeProduct(p, convert(S, format, { maxFill: 1e9 }), 8);
  const pMs = await timeProduct(p, convert(P, format, { maxFill: 1e9 }), 4);
  const slope = (pMs - sMs) / (bP - bS);
  const overheadMs = slope > 0 ? Math.max(tinyMs, sMs - slope * bS) : tinyMs;
  const kernelMs = pMs - overheadMs;
  // on a real GPU so small a product is all overhead: its rate says nothing, the default stands
  const bandwidthGBs = kernelMs > 0 && kernelMs >= overheadMs / 2 ? bP / 1e6 / kernelMs / eff : d.bandwidthGBs;
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
 * The time of one resident f64 product on a device path in a stream of products, as the runtime runs
 * them: windows of 1 and of `k` products, each ended by one read of y, the two kinds alternating (6
 * of each after an untimed pair); the difference of their median times over k − 1 products, so that
 * the read's own latency drops out (it is no part of a product in a stream). A difference lost in the
 * noise (not positive) falls back to the k-window's time per product.
 */
async function timeProduct(p: Path, A: SparseMatrix, k: number): Promise<number> {
  const M = p.matrix(A, { transpose: false });
  const x = p.vector('f64', new Float64Array(A.cols).fill(1));
  const y = p.vector('f64', A.rows);
  const s: SpmvScalars = { alpha: [1, 0], beta: [0, 0], op: 'N' };
  const window = async (n: number): Promise<number> => {
    const t0 = performance.now();
    for (let r = 0; r < n; r++) await p.spmv(M, x, y, s);
    await p.read(y);
    return performance.now() - t0;
  };
  try {
    const one: number[] = [];
    const many: number[] = [];
    for (let b = -1; b < 6; b++) {
      // alternate which goes first, so neither always follows the other's read
      let t1: number;
      let tk: number;
      if (b % 2) [t1, tk] = [await window(1), await window(k)];
      else [tk, t1] = [await window(k), await window(1)];
      if (b >= 0) {
        one.push(t1);
        many.push(tk);
      }
    }
    const tk = median(many);
    const slope = (tk - median(one)) / (k - 1);
    return slope > 0 ? slope : tk / k;
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

/** The CPU's rates beyond cache measured so far in this process, per CPU key and octave of working set (tests). */
export function beyondCacheRates(): Map<string, Map<number, number>> {
  return beyond;
}
