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
import { spmvBytes, storedBytes } from './cost.js';
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
/**
 * What a runtime call adds to the kernel's time (promise turns, the operation queue, checks), in ms,
 * until cpuCallCost has measured it: 3 µs left 1,024-row products 1.8–3.4× above their estimates on the
 * 2-vCPU EPYC; on the 2-vCPU Xeon a whole 8-row rt.spmv took 2.5–4 µs, where this and the inline fixed
 * cost put 8.7 µs (1,024-row products at 0.48–0.57× of their estimates).
 */
export const CALL_OVERHEAD_MS = 0.006;
/**
 * The call measurement: CALL_WARM calls untimed (or CALL_WARM_MS, whichever ends first) — V8 optimizes
 * the call path over the first ~2,500: on the 2-vCPU Xeon, 41 µs per call over the first 20 ms, 2–4 µs
 * after — then CALL_WINDOWS windows of CALL_WINDOW calls each, the lower quartile of their time per
 * call kept (a window of a fixed count of calls: windows ended by time were mostly the ones a preemption
 * cut short; under load 7–10 the median of 15 windows still measured 2.8–32 µs in three processes).
 */
const CALL_WARM = 3000;
const CALL_WARM_MS = 100;
const CALL_WINDOW = 256;
const CALL_WINDOWS = 15;
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
/** per CPU key, the measured time of a tiny product through the runtime (ms), and its measurement */
const calls = new Map<string, number>();
const callRuns = new Map<string, Promise<void>>();
const running = new Map<string, Promise<void>>();
/** the last measurement started, the CPU call's or a device's (they run one after another) */
let serial: Promise<void> = Promise.resolve();
/** why a device path's last measurement failed (explain says it; a later need tries again) */
const failures = new Map<string, string>();

/** The cache key of a path: the CPU's kernel build, a device's name. */
function keyOf(p: Path): string {
  return p.cost.kind === 'cpu' ? `cpu:${p.capabilities().device ?? ''}` : `${p.id}:${p.capabilities().device ?? ''}`;
}

/**
 * Bytes one product of A moves on the CPU path (its arrays as the path keeps them, x, y), as cost.ts
 * counts them: these stencils' values are all exactly f32, kept as f32 — counted at 8 bytes, they made
 * the rate 1.5× too high for every matrix whose values are not.
 */
function productBytes(cpu: CpuPath, A: SparseMatrix, elementBytes: number): number {
  return storedBytes(A, cpu.cost.compactDia) + (A.rows + A.cols) * elementBytes;
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
    f = { overheadMs: fixedMs + CALL_OVERHEAD_MS, bandwidthGBs: productBytes(cpu, A, 8) / 1e6 / (ms - fixedMs) };
    figures.set(key, f);
  }
  const call = calls.get(key);
  if (call !== undefined) f = { ...f, overheadMs: call };
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
    const bytes = productBytes(cpu, D, 8);
    const ms = cpu.timeInline(D, 5, 0, 1);
    // the rate that puts this product at its measured time, the first CACHE_BYTES at the cached rate as
    // cost.ts counts them; never faster than the cached rate (a cache that holds it all streams at that rate)
    const pastMs = ms - CACHE_BYTES / 1e6 / f.bandwidthGBs;
    memoryGBs = pastMs > 0 ? Math.min(f.bandwidthGBs, (bytes - CACHE_BYTES) / 1e6 / pastMs) : f.bandwidthGBs;
    rates.set(octave, memoryGBs);
  }
  return { ...f, memoryGBs, cacheBytes: CACHE_BYTES };
}

/**
 * Tiny resident products as the runtime runs a user's (rt.spmv on the CPU path), and the count of
 * operations the CPU path has begun: what cpuCallCost measures the fixed cost of a call through.
 */
export interface TinyProducts {
  product(): Promise<void>;
  operations(): number;
  dispose(): void;
}

/**
 * The CPU's fixed cost of a call, measured (once per process and CPU key, asynchronously: a call's
 * promise turns cannot be timed synchronously) through `open`'s tiny products: the lower quartile of
 * CALL_WINDOWS windows' time per call after a warm-up, a window that another operation shared (the
 * operation count moved by more than its own calls) dropped. Until it ends, cpuFigures' fixed cost stands (a tiny
 * product timed inline plus CALL_OVERHEAD_MS), and after it where every window was shared.
 */
export function cpuCallCost(cpu: CpuPath, open: () => TinyProducts): Promise<void> {
  const key = keyOf(cpu);
  let r = callRuns.get(key);
  if (!r) {
    // started after the entry is set (open() uploads, and an upload may ask for these figures), and
    // after any device measurement: their work on this thread between our calls would count as ours
    r = serial
      .then(() => timeCalls(open()))
      .then((ms) => void (ms !== null && calls.set(key, ms)))
      // a runtime disposed meanwhile: a later need tries again
      .catch(() => void callRuns.delete(key));
    callRuns.set(key, r);
    serial = r;
  }
  return r;
}

async function timeCalls(t: TinyProducts): Promise<number | null> {
  try {
    // untimed: warms the call path and says how many operations one call begins
    const [ops0, t0] = [t.operations(), performance.now()];
    let n = 0;
    while (n < CALL_WARM && (n < 20 || performance.now() - t0 < CALL_WARM_MS)) {
      await t.product();
      n++;
    }
    const perCall = Math.round((t.operations() - ops0) / n);
    const kept: number[] = [];
    for (let w = 0; kept.length < CALL_WINDOWS && w < 3 * CALL_WINDOWS; w++) {
      const [ops, start] = [t.operations(), performance.now()];
      for (let c = 0; c < CALL_WINDOW; c++) await t.product();
      const ms = performance.now() - start;
      if (t.operations() - ops === perCall * CALL_WINDOW) kept.push(ms / CALL_WINDOW);
    }
    // the lower quartile: a window still warming or cut into by another process overstates a warm call
    return kept.length ? kept.sort((a, b) => a - b)[Math.floor(kept.length / 4)] : null;
  } finally {
    t.dispose();
  }
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
    // one path at a time: two software renderers measured at once (a page's WebGL2 and WebGPU on
    // SwiftShader) share the cores, and each took the other's load into its figures
    r = serial
      .then(() => measureDevice(p))
      .then((m) => {
        figures.set(key, m);
        failures.delete(key);
      })
      // a lost device or a disposed runtime: the defaults stay, explain says why, a later need tries again
      .catch((e: unknown) => void failures.set(key, e instanceof Error ? e.message : String(e)))
      .finally(() => running.delete(key));
    running.set(key, r);
    serial = r;
  }
  return { figures: null, done: r, failed };
}

async function measureDevice(p: Path): Promise<PathCalibration> {
  const d = p.cost.defaults;
  if (p.prepare) await p.prepare(); // a GPU path's shaders load with its first operation
  const tinyMs = await timeProduct(p, poisson3D(2));
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
  const sMs = await timeProduct(p, convert(S, format, { maxFill: 1e9 }));
  const pMs = await timeProduct(p, convert(P, format, { maxFill: 1e9 }));
  const slope = (pMs - sMs) / (bP - bS);
  const overheadMs = slope > 0 ? Math.max(tinyMs, sMs - slope * bS) : tinyMs;
  const kernelMs = pMs - overheadMs;
  // on a real GPU so small a product is all overhead: its rate says only that the kernel took at most
  // half the overhead, a rate the default must reach — a software renderer's default (0.05 GB/s) put
  // Dawn's streamed poisson2D(64), measured at 0.08 ms, at 4.6 ms
  const kernelRate = bP / 1e6 / Math.max(kernelMs, overheadMs / 2, 1e-6) / eff;
  const bandwidthGBs = kernelMs >= overheadMs / 2 ? kernelRate : Math.max(d.bandwidthGBs, kernelRate);
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

/** A timed window of k products lasts at least this long (ms), so that a read's latency — a software renderer's: up to whole 4 ms scheduler ticks — is a small share of the k − 1 products its difference keeps. */
const WINDOW_MS = 12;
/** Products per window: at least MIN_K (a product of several ms still outweighs a tick), at most MAX_K. */
const MIN_K = 4;
const MAX_K = 256;
/** Timed pairs of windows (1 and k products) per matrix. */
const PAIRS = 9;

/**
 * The time of one resident f64 product on a device path in a stream of products, as the runtime runs
 * them: pairs of windows of 1 and of k products, each window ended by one read of y, which goes first
 * alternating; each pair's difference over k − 1 products drops the read's own latency (no part of a
 * product in a stream), and the median pair's is kept. k grows until a window lasts WINDOW_MS: with
 * k fixed at 8, a 4 ms tick more in one window than in the other put 0.57 ms into a 0.2 ms product,
 * and Dawn's fixed cost measured 0.08–1.96 ms in six calibrations in a row (load 8). A difference lost
 * in the noise (not positive) falls back to the k-window's time per product.
 */
async function timeProduct(p: Path, A: SparseMatrix): Promise<number> {
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
    await window(1); // untimed: the first product and read of this matrix
    // the faster of two windows decides (one slowed by another process would keep k small)
    let k = MIN_K;
    while (k < MAX_K && Math.min(await window(k), await window(k)) < WINDOW_MS) k = Math.min(MAX_K, 2 * k);
    const slopes: number[] = [];
    const many: number[] = [];
    for (let b = 0; b < PAIRS; b++) {
      let t1: number;
      let tk: number;
      if (b % 2) [t1, tk] = [await window(1), await window(k)];
      else [tk, t1] = [await window(k), await window(1)];
      slopes.push((tk - t1) / (k - 1));
      many.push(tk);
    }
    const slope = median(slopes);
    return slope > 0 ? slope : median(many) / k;
  } finally {
    M.dispose();
    x.dispose();
    y.dispose();
  }
}

/** The CPU calls' measured fixed cost so far, per CPU key (tests). */
export function cpuCallCosts(): Map<string, number> {
  return calls;
}

/** What this process has measured, per path key (tests). */
export function autoCalibrationCache(): Map<string, PathCalibration> {
  return figures;
}

/** The CPU's rates beyond cache measured so far in this process, per CPU key and octave of working set (tests). */
export function beyondCacheRates(): Map<string, Map<number, number>> {
  return beyond;
}
