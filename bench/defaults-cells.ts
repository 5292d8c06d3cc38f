/**
 * The measuring half of `npm run bench -- --only defaults` (issue 22 item 5), shared by Node
 * (bench/defaults.ts) and a cross-origin-isolated page (bench/defaults-page.ts): for each size, three
 * fresh CPU runtimes — the defaults (`createRuntime({ backend: 'cpu' })`: workers and inline policy
 * left to the library), `workers: 1`, and a second `workers: 1` as a control — the first CG solve of
 * the first two apart, then warm SpMV, dot, axpy and a CG solve of a fixed number of iterations on
 * poisson2D(k), k² ≈ rows. Warm cells: rounds of one batch of back-to-back calls (at least 10 ms, so
 * that the policy's occasional trials of the other way fall inside batches, not between them) on each
 * runtime, the order turning through all six from round to round so that load from elsewhere and
 * each runtime's position fall on all alike; rounds until the cell has run 2 s, at least 15 (9 where
 * a batch takes over 100 ms) and at most 61, an odd number. A cell's times are the median batch's time per call; its ratio the median over
 * rounds of `workers: 1` time (the geometric mean of its two runtimes' batches) / defaults time in
 * that round (≥ 0.9 is the goal; > 1: the defaults are faster); its control ratio the same of the two
 * `workers: 1` runtimes, which run the same code: how far this method's ratios stray with no
 * difference at all (the noise floor, reported beside the goal; a cell is judged on its own ratio,
 * never adjusted by the control's). Under load 10–14 single runtimes differed by up to 1.4× in a cell
 * over all its rounds (a large vector's placement), hence the baseline from two.
 */
import { createRuntime, poisson2D, type Runtime } from '../src/index.js';
import { median } from '../src/metrics.js';

export const DEFAULT_SIZES = [1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6, 4e6];
export const OPS = ['spmv', 'dot', 'axpy', 'cg'] as const;
export type DefaultsOp = (typeof OPS)[number];

export interface DefaultsCell {
  op: DefaultsOp;
  rows: number;
  /** ms per call with the defaults, and with workers: 1 */
  defaultsMs: number;
  oneMs: number;
  /** workers: 1 / defaults: the median over rounds of the ratio of their batches in a round (workers: 1 as the geometric mean of its two runtimes) */
  ratio: number;
  /** the control: workers: 1 / another workers: 1, measured the same way (1 but for noise) */
  control: number;
  /** rounds and calls per batch */
  rounds: number;
  reps: number;
}

export interface FirstCell {
  rows: number;
  /** the first rt.cg on a fresh runtime and a fresh upload (its first pooled operations) */
  defaultsMs: number;
  oneMs: number;
}

export interface DefaultsSweep {
  threads: number;
  cells: DefaultsCell[];
  first: FirstCell[];
}

/** CG iterations per solve: enough to be a solve, few enough that 4 M rows stays seconds. */
export const cgIterations = (rows: number): number => (rows <= 1e5 ? 50 : rows <= 1e6 ? 10 : 4);

/** Shortest batch (ms), and time per cell (ms, all three runtimes) that sets its rounds within their bounds. */
const BATCH_MS = 10;
const CELL_MS = 2000;
const ROUNDS = { min: 15, minLong: 9, max: 61 };
/** The six orders of the three runtimes (defaults, workers: 1, its control), taken in turn. */
const ORDERS = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0], [0, 2, 1], [1, 0, 2]];

/** The sweep: per cell, an odd number of rounds (the median is one of them). */
export async function sweepDefaults(log: (s: string) => void, sizes = DEFAULT_SIZES): Promise<DefaultsSweep> {
  const cells: DefaultsCell[] = [];
  const first: FirstCell[] = [];
  let threads = 0;
  for (const rows of sizes) {
    const k = Math.round(Math.sqrt(rows));
    const A = poisson2D(k);
    const n = A.rows;
    const b = new Float64Array(n).fill(1);
    const cgOpts = { tol: 0, maxIter: cgIterations(n) };
    const rts: Runtime[] = [
      await createRuntime({ backend: 'cpu' }),
      await createRuntime({ backend: 'cpu', workers: 1 }),
      await createRuntime({ backend: 'cpu', workers: 1 }),
    ];
    threads = rts[0].capabilities().threads;
    try {
      const handles = rts.map((rt) => rt.upload(A));
      // the first solve of each fresh runtime, alone
      const firstMs = [];
      for (let j = 0; j < 2; j++) {
        const t0 = performance.now();
        await rts[j].cg(handles[j], b, cgOpts);
        firstMs.push(performance.now() - t0);
      }
      first.push({ rows: n, defaultsMs: firstMs[0], oneMs: firstMs[1] });
      const ops = rts.map((rt, j) => {
        const x = rt.vector(b);
        const y = rt.vector(n, 'f64');
        const h = handles[j];
        return {
          spmv: async () => void (await rt.spmv(h, x, { y })),
          dot: async () => void (await rt.dot(x, y)),
          axpy: async () => rt.axpy(1e-3, x, y),
          cg: async () => void (await rt.cg(h, b, cgOpts)),
        } satisfies Record<DefaultsOp, () => Promise<void>>;
      });
      const row: string[] = [];
      for (const op of OPS) {
        // batch size from a trial batch of workers: 1 (also the warm-up of all three)
        let reps = 1;
        let ms = 0;
        for (;;) {
          await batch(ops[0][op], reps);
          await batch(ops[2][op], reps);
          ms = await batch(ops[1][op], reps);
          if (ms >= BATCH_MS || reps >= 8192) break;
          reps = Math.min(8192, Math.max(2 * reps, Math.ceil((reps * 1.2 * BATCH_MS) / Math.max(ms, 0.01))));
        }
        const t: number[][] = [[], [], []];
        const least = ms > 100 ? ROUNDS.minLong : ROUNDS.min;
        const start = performance.now();
        let rounds = 0;
        while (rounds < least || rounds % 2 === 0 || (rounds < ROUNDS.max && performance.now() - start < CELL_MS)) {
          for (const j of ORDERS[rounds % ORDERS.length]) t[j].push((await batch(ops[j][op], reps)) / reps);
          rounds++;
        }
        const [d, one] = t.map(median);
        // ratios of batches run side by side, median over the rounds (load elsewhere drifts between
        // rounds); `workers: 1` as the geometric mean of its two runtimes, so that neither one's own
        // quirks (where its memory landed) set the baseline: the control shows them
        const ratio = median(t[1].map((o, r) => Math.sqrt(o * t[2][r]) / t[0][r]));
        const control = median(t[1].map((o, r) => o / t[2][r]));
        cells.push({ op, rows: n, defaultsMs: d, oneMs: one, ratio, control, rounds, reps });
        row.push(`${op} ${fmt(d)}/${fmt(one)} ms ${ratio.toFixed(2)}× (control ${control.toFixed(2)}, ${rounds}×${reps})`);
      }
      log(`  ${String(n).padStart(7)} rows: first CG ${fmt(firstMs[0])}/${fmt(firstMs[1])} ms; ${row.join('; ')}`);
      // what the defaults' policy measured: µs per 1,000 cost units inline / pooled (samples of each)
      const stats = Object.entries(rts[0].cpuBackend.dispatchStats ?? {});
      if (stats.length) log(`           policy: ${stats.map(([k, v]) => `${k} ${v.inline.toFixed(3)}/${v.pool.toFixed(3)} (${v.samples.join('/')})`).join('; ')}`);
    } finally {
      for (const rt of rts) rt.dispose();
    }
  }
  return { threads, cells, first };
}

async function batch(f: () => Promise<void>, reps: number): Promise<number> {
  const t0 = performance.now();
  for (let r = 0; r < reps; r++) await f();
  return performance.now() - t0;
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4);
}

/**
 * The sweep as a table (rows × operations, each cell `workers: 1` / defaults, then the control's
 * ratio), its worst cell, and the noise floor: the control ratio furthest from 1, as min(r, 1/r).
 */
export function formatSweep(s: DefaultsSweep): { text: string; worst: DefaultsCell; floor: number } {
  const sizes = [...new Set(s.cells.map((c) => c.rows))];
  const head = OPS.map((o) => o.padStart(8)).join('');
  const lines = [`rows       ${head}   control ${head}   first CG ms (defaults, workers: 1)`];
  for (const n of sizes) {
    const f = s.first.find((c) => c.rows === n);
    const col = (k: 'ratio' | 'control') => OPS.map((o) => (s.cells.find((c) => c.rows === n && c.op === o)?.[k].toFixed(2) ?? '–').padStart(8)).join('');
    lines.push(`${String(n).padEnd(10)} ${col('ratio')}           ${col('control')}   ${f ? `${fmt(f.defaultsMs)}, ${fmt(f.oneMs)}` : ''}`);
  }
  const worst = s.cells.reduce((a, c) => (c.ratio < a.ratio ? c : a));
  const floor = Math.min(...s.cells.map((c) => Math.min(c.control, 1 / c.control)));
  return { text: lines.join('\n'), worst, floor };
}
