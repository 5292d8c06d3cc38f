/**
 * The measuring half of `npm run bench -- --only explain` (issue 22 item 5), shared by Node
 * (bench/explain.ts) and a page (bench/explain-page.ts): rt.explain's SpMV estimate for a resident
 * product, with only the automatic calibration (no rt.calibrate()), against the measured time of that
 * product on the path: 31 short batches of products, each ending in one read of y; the median batch's
 * time per product. On the CPU a batch is about 2 ms (at least 2 products), so that on a loaded machine
 * most run while the process holds its core, as the calibration's windows do; on a device path about
 * 10 ms (at least 2 products), so that the read that ends it, which waits for the device (0.2 ms to
 * whole 4 ms scheduler ticks for a software renderer in Node), is a small share, as in the stream of
 * resident products the estimate is for. The goal: measured / estimate within [0.5, 2] in every cell.
 * Beside it, the same against an estimate from figures measured again right after the cell (the
 * cached ones put back after): on a machine shared with other work the speed drifts between the
 * calibration and the cell, and this tells the model's own error from that drift (never judged).
 */
import { poisson2D, poisson3D, type MatrixHandle, type ResidentVector, type Runtime, type SparseMatrix } from '../src/index.js';
import type { PathId } from '../src/path.js';
import { median } from '../src/metrics.js';
import { autoCalibrationCache, beyondCacheRates } from '../src/runtime/auto-calibration.js';

export interface ExplainCell {
  where: string;
  path: PathId;
  matrix: string;
  rows: number;
  format: string;
  estimateMs: number;
  measuredMs: number;
  /** measured / estimate */
  ratio: number;
  /** measured / the estimate from figures measured again right after the cell */
  freshRatio: number;
}

/** The matrices, smallest first; `maxRows` bounds them per path (a software renderer is slow). */
export const EXPLAIN_MATRICES: Array<[string, () => SparseMatrix]> = [
  ['poisson2D(32)', () => poisson2D(32)],
  ['poisson2D(100)', () => poisson2D(100)],
  ['poisson3D(30)', () => poisson3D(30)],
  ['poisson2D(316)', () => poisson2D(316)],
  ['poisson3D(64)', () => poisson3D(64)],
  ['poisson2D(1000)', () => poisson2D(1000)],
];

export async function explainCells(
  rt: Runtime,
  where: string,
  paths: Array<{ path: PathId; maxRows: number }>,
  log: (s: string) => void,
): Promise<ExplainCell[]> {
  await rt.autoCalibrated();
  const cells: ExplainCell[] = [];
  for (const [name, make] of EXPLAIN_MATRICES) {
    const todo = paths.filter((p) => p.maxRows >= rowsOf(name));
    if (!todo.length) continue;
    const A = make();
    const h = rt.upload(A);
    const x = rt.vector(new Float64Array(A.cols).fill(1));
    const y = rt.vector(A.rows, 'f64');
    try {
      for (const { path } of todo) {
        await rt.spmv(h, x, { y, path }); // uploaded there, warm
        await y.read();
        // batch: about 2 ms (CPU) or 10 ms (device) of products, at least 2, then one read; its size
        // grown from the fastest of three trial batches (one slowed by another process chose 2
        // products for a 10 µs product, whose batches then measured the clock and the read)
        const batchMs = path === 'cpu' ? 2 : 10;
        const batch = async (reps: number): Promise<number> => {
          const t0 = performance.now();
          for (let r = 0; r < reps; r++) await rt.spmv(h, x, { y, path });
          await y.read();
          return performance.now() - t0;
        };
        let reps = 2;
        for (;;) {
          const ms = Math.min(await batch(reps), await batch(reps), await batch(reps));
          if (ms >= batchMs || reps >= 2000) break;
          reps = Math.min(2000, Math.max(2 * reps, Math.ceil((reps * batchMs) / Math.max(ms, 1e-3))));
        }
        const t: number[] = [];
        for (let b = 0; b < BATCHES; b++) t.push((await batch(reps)) / reps);
        const ex = rt.explain('spmv', h, { x, readBack: false });
        const e = ex.estimates[path]!;
        if (!ex.calibrated) log(`  ${where}: ${ex.reasons.find((r) => /default figures/.test(r))}`);
        const ms = median(t);
        const fresh = await freshEstimate(rt, h, x, path);
        const cell = { where, path, matrix: name, rows: A.rows, format: e.format, estimateMs: e.ms, measuredMs: ms, ratio: ms / e.ms, freshRatio: ms / fresh };
        cells.push(cell);
        log(
          `  ${where.padEnd(18)} ${path.padEnd(7)} ${name.padEnd(15)} ${e.format.padEnd(5)} estimate ${fmt(e.ms)} ms, measured ${fmt(ms)} ms: ${cell.ratio.toFixed(2)}× ` +
            `(re-measured figures: ${fmt(fresh)} ms, ${cell.freshRatio.toFixed(2)}×)`,
        );
      }
    } finally {
      for (const v of [h, x, y]) v.dispose();
    }
  }
  return cells;
}

/** The estimate from `path`'s figures measured again now; the cached figures are put back after. */
async function freshEstimate(rt: Runtime, h: MatrixHandle, x: ResidentVector, path: PathId): Promise<number> {
  const cache = autoCalibrationCache();
  const saved = new Map(cache);
  const savedRates = [...beyondCacheRates()].map(([k, m]) => [k, new Map(m)] as const);
  try {
    for (const k of [...cache.keys()]) if (k.startsWith(`${path}:`)) cache.delete(k);
    if (path === 'cpu') beyondCacheRates().clear();
    rt.explain('spmv', h, { x, readBack: false }); // the CPU measures now, a device path starts
    await rt.autoCalibrated();
    return rt.explain('spmv', h, { x, readBack: false }).estimates[path]!.ms;
  } finally {
    cache.clear();
    for (const [k, v] of saved) cache.set(k, v);
    beyondCacheRates().clear();
    for (const [k, m] of savedRates) beyondCacheRates().set(k, m);
  }
}

/** Timed batches per cell: the median is the cell's time (21 left single cells 2× apart from run to run under load 8–13). */
const BATCHES = 31;

function rowsOf(name: string): number {
  const m = /poisson(\d)D\((\d+)\)/.exec(name)!;
  return Number(m[2]) ** Number(m[1]);
}

function fmt(ms: number): string {
  return ms >= 10 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(3) : ms.toFixed(4);
}
