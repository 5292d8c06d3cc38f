/**
 * The measuring half of `npm run bench -- --only defaults` (issue 22 item 5), shared by Node
 * (bench/defaults.ts) and a cross-origin-isolated page (bench/defaults-page.ts): for each size, four
 * fresh CPU runtimes — the defaults (`createRuntime({ backend: 'cpu' })`: workers and inline policy
 * left to the library) and its twin, `workers: 1` and a second `workers: 1` as a control — the first CG
 * solve of the defaults and of `workers: 1` apart, then warm SpMV, dot, axpy and a CG solve of a fixed
 * number of iterations on poisson2D(k), k² ≈ rows. Warm cells: rounds in which each runtime runs 1–8
 * slices of back-to-back calls (a slice at least 2 ms, sized from the fastest of the four runtimes'
 * trial slices, so that one trial slowed by another process cannot shrink them — it had chosen 3 ms
 * batches where 10 ms were meant; a round about 10 ms per runtime), the slices of the four interleaved
 * and their order turning from slice to slice, so that load from elsewhere and each runtime's position
 * fall on all alike; rounds until the cell has run 2.5 s, at least 15 (9 where a round takes over
 * 100 ms) and at most 61, an odd number. A cell's times are the median round's time per call; its ratio
 * the median over rounds of `workers: 1` time / defaults time in that round, each side the geometric
 * mean of its two runtimes (≥ 0.9 is the goal; > 1: the defaults are faster), printed with the rounds'
 * quartiles and the defaults' pooled calls of all their calls in the cell (0 pooled: the same kernels
 * as `workers: 1` on the calling thread). Its control ratio is the same of the two `workers: 1`
 * runtimes, which run the same code: how far this method's ratios stray with no difference at all (the
 * noise floor, reported beside the goal; a cell is judged on its own ratio, never adjusted by the
 * control's); the twins' ratio, printed beside it, the same of the two defaults runtimes. Single
 * runtimes differed from their twins by up to 1.4× over all a cell's rounds (a large vector's placement;
 * under load 10–14), and a lone defaults runtime lost 0.62× to `workers: 1` in CG at 99,856 rows (load
 * 3–5) while it ran 19 of its 3,220 SpMVs on the pool: hence both sides from two.
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
  /** rounds and calls per runtime in a round */
  rounds: number;
  reps: number;
  /** the per-round ratios' quartiles, and the defaults' pooled calls of all its policy's calls over the rounds (0: the same code as workers: 1) */
  spread: [number, number];
  pooled: [number, number];
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

/** Shortest slice (ms) and round (ms per runtime), and time per cell (ms, all four runtimes) that sets its rounds within their bounds. */
const SLICE_MS = 2;
const MAX_SLICES = 8;
const BATCH_MS = 10;
const CELL_MS = 2500;
const ROUNDS = { min: 15, minLong: 9, max: 61 };
/** The runtimes: the defaults, workers: 1, its control (workers: 1 again), the defaults' twin. */
const [D, W, C, T] = [0, 1, 2, 3];
/** Orders of the four, taken in turn: each runtime in each position, after each other one, alike. */
const ORDERS = [[D, W, C, T], [W, C, T, D], [C, T, D, W], [T, D, W, C], [T, C, W, D], [C, W, D, T], [W, D, T, C], [D, T, C, W]];

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
      await createRuntime({ backend: 'cpu' }),
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
        // slice size from the fastest of the three runtimes' trial slices (one trial slowed by another
        // process chose 3 ms batches where 10 ms were meant), the trials also the warm-up of all three
        let reps = 1;
        let ms = 0;
        for (;;) {
          ms = Infinity;
          for (const j of [D, C, W, T]) ms = Math.min(ms, await batch(ops[j][op], reps));
          if (ms >= SLICE_MS || reps >= 8192) break;
          reps = Math.min(8192, Math.max(2 * reps, Math.ceil((reps * 1.2 * SLICE_MS) / Math.max(ms, 0.01))));
        }
        const slices = Math.min(MAX_SLICES, Math.max(1, Math.round(BATCH_MS / ms)));
        const t: number[][] = [[], [], [], []];
        const before = policyCalls(rts[D], rts[T]);
        const least = ms * slices > 100 ? ROUNDS.minLong : ROUNDS.min;
        const start = performance.now();
        let rounds = 0;
        while (rounds < least || rounds % 2 === 0 || (rounds < ROUNDS.max && performance.now() - start < CELL_MS)) {
          // a round: `slices` slices of each runtime, interleaved, the order turning from slice to slice
          const sum = [0, 0, 0, 0];
          for (let k = 0; k < slices; k++) for (const j of ORDERS[(rounds * slices + k) % ORDERS.length]) sum[j] += await batch(ops[j][op], reps);
          for (let j = 0; j < 4; j++) t[j].push(sum[j] / (reps * slices));
          rounds++;
        }
        const [d, one] = t.map(median);
        // ratios of slices run side by side, median over the rounds (load elsewhere drifts between
        // rounds); each side as the geometric mean of its two runtimes, so that no one runtime's own
        // quirks (where its memory landed) decide: the control and the twins show them
        const ratios = t[W].map((o, r) => Math.sqrt((o * t[C][r]) / (t[D][r] * t[T][r]))).sort((a, b) => a - b);
        const ratio = median(ratios);
        const control = median(t[W].map((o, r) => o / t[C][r]));
        const twins = median(t[T].map((o, r) => o / t[D][r]));
        const after = policyCalls(rts[D], rts[T]);
        const pooled: [number, number] = [after[0] - before[0], after[1] - before[1]];
        const spread: [number, number] = [ratios[Math.floor(rounds / 4)], ratios[Math.floor((3 * rounds) / 4)]];
        cells.push({ op, rows: n, defaultsMs: d, oneMs: one, ratio, control, rounds, reps: reps * slices, spread, pooled });
        row.push(`${op} ${fmt(d)}/${fmt(one)} ms ${ratio.toFixed(2)}× [${spread.map((r) => r.toFixed(2)).join('–')}] (control ${control.toFixed(2)}, twins ${twins.toFixed(2)}, ${rounds}×${slices}×${reps}, pooled ${pooled[0]}/${pooled[1]})`);
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

/** The defaults runtimes' policies: pooled calls and all their calls so far (every kernel). */
function policyCalls(...rts: Runtime[]): [number, number] {
  const v = rts.flatMap((rt) => Object.values(rt.cpuBackend.dispatchStats ?? {}));
  return [v.reduce((a, s) => a + s.samples[1], 0), v.reduce((a, s) => a + s.samples[0] + s.samples[1], 0)];
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
