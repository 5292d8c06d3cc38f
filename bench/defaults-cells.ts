/**
 * The measuring half of `npm run bench -- --only defaults` (issue 22 item 5), shared by Node
 * (bench/defaults.ts) and a cross-origin-isolated page (bench/defaults-page.ts): for each size, two
 * fresh CPU runtimes — the defaults (`createRuntime({ backend: 'cpu' })`: workers and inline policy
 * left to the library) and `workers: 1` — the first CG solve of each apart, then warm SpMV, dot, axpy
 * and a CG solve of a fixed number of iterations on poisson2D(k), k² ≈ rows. Warm cells: batches of
 * back-to-back calls (about 15 ms each), the two runtimes alternating batch by batch so that load
 * from elsewhere falls on both alike; a cell's times are the median batch's time per call, and its
 * ratio the median over rounds of `workers: 1` time / defaults time of the two batches of a round
 * (≥ 0.9 is the goal; > 1: the defaults are faster).
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
  /** workers: 1 / defaults: the median over rounds of the ratio of each round's two batches */
  ratio: number;
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

/** The sweep; `rounds` alternating batches per cell (odd: the median is one of them). */
export async function sweepDefaults(log: (s: string) => void, sizes = DEFAULT_SIZES, rounds = 9): Promise<DefaultsSweep> {
  const cells: DefaultsCell[] = [];
  const first: FirstCell[] = [];
  let threads = 0;
  for (const rows of sizes) {
    const k = Math.round(Math.sqrt(rows));
    const A = poisson2D(k);
    const n = A.rows;
    const b = new Float64Array(n).fill(1);
    const cgOpts = { tol: 0, maxIter: cgIterations(n) };
    const rts: Runtime[] = [await createRuntime({ backend: 'cpu' }), await createRuntime({ backend: 'cpu', workers: 1 })];
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
        // batch size from a trial batch of workers: 1 (also the warm-up of both)
        let reps = 1;
        for (;;) {
          await batch(ops[0][op], reps);
          const ms = await batch(ops[1][op], reps);
          if (ms >= 15 || reps >= 4096) break;
          reps = Math.min(4096, Math.max(2 * reps, Math.ceil((reps * 15) / Math.max(ms, 0.01))));
        }
        const t: number[][] = [[], []];
        for (let r = 0; r < rounds; r++) {
          // alternate which goes first, so neither always follows the other's cache footprint
          for (const j of r % 2 ? [1, 0] : [0, 1]) t[j].push((await batch(ops[j][op], reps)) / reps);
        }
        const [d, one] = t.map(median);
        // the ratio of batches run side by side, median over the rounds (load elsewhere drifts between rounds)
        const ratio = median(t[1].map((o, r) => o / t[0][r]));
        cells.push({ op, rows: n, defaultsMs: d, oneMs: one, ratio });
        row.push(`${op} ${fmt(d)}/${fmt(one)} ms ${ratio.toFixed(2)}×`);
      }
      log(`  ${String(n).padStart(7)} rows: first CG ${fmt(firstMs[0])}/${fmt(firstMs[1])} ms; ${row.join('; ')}`);
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

/** The sweep as a table (rows × operations, each cell `workers: 1` / defaults) and its worst cell. */
export function formatSweep(s: DefaultsSweep): { text: string; worst: DefaultsCell } {
  const sizes = [...new Set(s.cells.map((c) => c.rows))];
  const lines = [`rows       ${OPS.map((o) => o.padStart(8)).join('')}   first CG ms (defaults, workers: 1)`];
  for (const n of sizes) {
    const f = s.first.find((c) => c.rows === n);
    const r = OPS.map((o) => (s.cells.find((c) => c.rows === n && c.op === o)?.ratio.toFixed(2) ?? '–').padStart(8)).join('');
    lines.push(`${String(n).padEnd(10)} ${r}   ${f ? `${fmt(f.defaultsMs)}, ${fmt(f.oneMs)}` : ''}`);
  }
  const worst = s.cells.reduce((a, c) => (c.ratio < a.ratio ? c : a));
  return { text: lines.join('\n'), worst };
}
