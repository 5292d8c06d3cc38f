/**
 * `npm run bench -- --only defaults` (issue 22 item 5): do the default worker count and inline policy
 * ever make an operation more than 10% slower than `workers: 1`? The sweep of bench/defaults-cells.ts
 * (SpMV, dot, axpy and CG on poisson2D, 1,000 to 4 M rows) in Node and on a cross-origin-isolated
 * page's main thread in headless Chromium; and, apart, the first CG on poisson2D(200) of a fresh
 * process / a fresh page (its runtime's first pooled operations), 3 of each, medians.
 * `SIMDGL_DEFAULTS_SIZES=1000,100000` narrows the sweep.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '../src/metrics.js';
import { DEFAULT_SIZES, formatSweep, sweepDefaults, type DefaultsCell, type DefaultsSweep } from './defaults-cells.js';
import { runInPage } from './page-run.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface ColdFirst {
  /** medians over fresh processes / pages */
  defaults: { createMs: number; firstMs: number; secondMs: number; threads: number };
  one: { createMs: number; firstMs: number; secondMs: number };
}

export interface DefaultsResult {
  where: 'Node' | 'Chromium page';
  sweep: DefaultsSweep;
  worst: DefaultsCell;
  /** the noise floor: the control ratio (workers: 1 / workers: 1) furthest from 1, as min(r, 1/r) */
  floor: number;
  cold: ColdFirst;
}

type ColdRun = { createMs: number; firstMs: number; secondMs: number; threads: number };

function medianRuns(runs: ColdRun[]): ColdRun {
  return {
    createMs: median(runs.map((r) => r.createMs)),
    firstMs: median(runs.map((r) => r.firstMs)),
    secondMs: median(runs.map((r) => r.secondMs)),
    threads: runs[0].threads,
  };
}

/** A fresh Node process importing the built library (dist/): createRuntime, upload poisson2D(200), CG twice. */
function coldNode(which: 'defaults' | '1'): ColdRun {
  const lib = pathToFileURL(join(root, 'dist', 'index.js')).href;
  const code = `
    import { createRuntime, poisson2D } from ${JSON.stringify(lib)};
    let t = performance.now();
    const rt = await createRuntime(${which === '1' ? "{ backend: 'cpu', workers: 1 }" : "{ backend: 'cpu' }"});
    const createMs = performance.now() - t;
    const A = rt.upload(poisson2D(200));
    const b = new Float64Array(A.rows).fill(1);
    t = performance.now(); await rt.cg(A, b); const firstMs = performance.now() - t;
    t = performance.now(); await rt.cg(A, b); const secondMs = performance.now() - t;
    const threads = rt.capabilities().threads;
    rt.dispose();
    process.stdout.write(JSON.stringify({ createMs, firstMs, secondMs, threads }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
}

function report(where: DefaultsResult['where'], sweep: DefaultsSweep, cold: ColdFirst, log: (s: string) => void): DefaultsResult {
  const { text, worst, floor } = formatSweep(sweep);
  log(`${where}: defaults = ${sweep.threads} threads; each cell workers: 1 time / defaults time (≥ 0.9 is the goal), then the control: workers: 1 / workers: 1`);
  log(text);
  log(`worst cell: ${worst.op} at ${worst.rows} rows, ${worst.ratio.toFixed(2)}× (${worst.defaultsMs.toFixed(3)} ms vs ${worst.oneMs.toFixed(3)} ms; rounds' quartiles ${worst.spread.map((r) => r.toFixed(2)).join('–')}; pooled ${worst.pooled[0]} of ${worst.pooled[1]} calls; its control ${worst.control.toFixed(2)}×)`);
  const below = sweep.cells.filter((c) => c.ratio < 0.9).map((c) => `${c.op} at ${c.rows} rows ${c.ratio.toFixed(2)}×`);
  log(`noise floor: the control cell furthest from 1 is ${floor.toFixed(2)}× (min(r, 1/r)); cells below 0.9: ${below.length ? below.join(', ') : 'none'}`);
  const f = (x: number) => x.toFixed(0);
  log(
    `first CG on poisson2D(200) in a fresh ${where === 'Node' ? 'process' : 'page'} (median of 3): defaults ${f(cold.defaults.firstMs)} ms (then ${f(cold.defaults.secondMs)} ms), ` +
      `workers: 1 ${f(cold.one.firstMs)} ms (then ${f(cold.one.secondMs)} ms); createRuntime ${f(cold.defaults.createMs)} vs ${f(cold.one.createMs)} ms`,
  );
  return { where, sweep, worst, floor, cold };
}

const sizes = process.env.SIMDGL_DEFAULTS_SIZES?.split(',').map(Number) ?? DEFAULT_SIZES;

export async function benchDefaultsNode(log: (s: string) => void): Promise<DefaultsResult> {
  const sweep = await sweepDefaults(log, sizes);
  const runs = { defaults: [] as ColdRun[], one: [] as ColdRun[] };
  for (let k = 0; k < 3; k++) {
    runs.defaults.push(coldNode('defaults'));
    runs.one.push(coldNode('1'));
  }
  return report('Node', sweep, { defaults: medianRuns(runs.defaults), one: medianRuns(runs.one) }, log);
}

export async function benchDefaultsPage(log: (s: string) => void): Promise<DefaultsResult | null> {
  const queries = [`sizes=${sizes.join(',')}`];
  for (let k = 0; k < 3; k++) queries.push('cold=defaults', 'cold=1');
  const r = await runInPage(join(root, 'bench', 'defaults-page.ts'), queries, '__defaults', log);
  if (!r) return null;
  const [sweep, ...cold] = r as [DefaultsSweep, ...ColdRun[]];
  const cd = { defaults: medianRuns(cold.filter((_, i) => i % 2 === 0)), one: medianRuns(cold.filter((_, i) => i % 2 === 1)) };
  return report('Chromium page', sweep, cd, log);
}
