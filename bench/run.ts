/**
 * `npm run bench [-- --only single|parallel|parse]`:
 * - single: SpMV in every format on one thread, on poisson3D_64 and a power-law random matrix (~2M
 *   nonzeros), the SIMD build against the plain build and the plain JavaScript CSR loop;
 * - plain: the build without SIMD against the SIMD build, every format × dtype (bench/kernels-plain.ts);
 * - formats: every format and `format: 'auto'` against the native C CSR, f32/f64, 1 and 2 threads (or
 *   SIMDGL_THREADS), on poisson3D_128, the 1 M-row power-law matrix and the larger shared matrices
 *   (bench/formats.ts);
 * - parallel: CSR SpMV on the worker pool for 1…cores threads against its peers (bench/parallel.ts),
 *   and the dispatch round trip;
 * - dense: f32 gemm n = 1024 against TensorFlow.js (wasm and cpu backends), naive vs tiled, and
 *   transpose of 4096² against memory copy (bench/dense.ts);
 * - cg: CG on poisson3D_64 (f64, 2 threads), the time split, fused and separate vector steps;
 * - solve: rt.solve's time to a solution against the best of SciPy (bench/solve.ts);
 * - repeat: a loop of K rt.solve calls on one matrix (its set-up kept; 'auto''s rent or buy) against
 *   SciPy and PyAMG with their set-up kept (bench/repeat.ts; ratios, no goal);
 * - direct: rt.factor + solve against SciPy's spsolve (SuperLU) on the square shared matrices and PDE
 *   matrices, the kept-factor solve, the true residual (bench/direct.ts);
 * - browser: SpMV on the GPU path against the CPU path in headless Chromium (bench/browser.ts);
 * - defaults: the default threads and inline policy against `workers: 1` for SpMV, dot, axpy and CG
 *   from 1,000 to 4 M rows, in Node and in a cross-origin-isolated page, and a runtime's first CG
 *   (bench/defaults.ts);
 * - explain: rt.explain's SpMV estimates (automatic calibration only) against measured products on every
 *   path here, Node and a page (bench/explain.ts);
 * - parse: Matrix Market parse speed.
 * Every comparison is measured in the same run; the end prints each goal, met or missed.
 */
import os from 'node:os';
import { compare, type CompareRow, type MatrixSource } from '../src/cli/compare.js';
import { formatCompareTable } from '../src/cli/table.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { benchMatrixMarket } from './mm-parse.js';
import { benchParallel } from './parallel.js';
import { benchCg, formatCg } from './cg.js';
import { benchCgDefaults } from './cg-defaults.js';
import { benchSolve } from './solve.js';
import { benchRepeat } from './repeat.js';
import { benchDirect } from './direct.js';
import { benchAmg } from './amg.js';
import { benchBrowser } from './browser.js';
import { benchDefaultsNode, benchDefaultsPage } from './defaults.js';
import { benchExplain } from './explain.js';
import { benchDense } from './dense.js';
import { benchFormats } from './formats.js';
import { benchPlain, PLAIN_GOAL } from './kernels-plain.js';

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;
const PARTS = ['single', 'plain', 'formats', 'parallel', 'dense', 'cg', 'solve', 'repeat', 'direct', 'amg', 'parse', 'browser', 'defaults', 'explain'];
if (only !== undefined && !PARTS.includes(only)) {
  console.error(`bench: --only takes ${PARTS.join(', ')}, not ${JSON.stringify(only)}`);
  process.exit(2);
}
const run = (part: string) => only === undefined || only === part;

const sources: MatrixSource[] = [
  { name: 'poisson3D_64', load: () => poisson3D(64) },
  {
    name: 'powerlaw_250k',
    load: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  },
];

console.log(`simdgl bench — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.availableParallelism()}, Node ${process.version}`);
const goals: string[] = [];
let failed = 0;
const goal = (label: string, ratio: number | undefined, min: number, unit = '×') => {
  const ok = ratio !== undefined && ratio >= min;
  if (!ok) failed++;
  goals.push(`  ${ok ? 'met ' : 'MISS'}  ${label}: ${ratio === undefined ? 'n/a' : ratio.toFixed(2)}${unit} (goal ≥ ${min}${unit})`);
};

if (run('single')) {
console.log('\n== single thread: every format, SIMD vs plain build vs plain JS ==');
const rows: CompareRow[] = [];
for await (const r of compare(sources, { dtypes: ['f32', 'f64'], minMs: 300 })) rows.push(r);
for (const s of sources) console.log(formatCompareTable(rows.filter((r) => r.matrix === s.name)));
const ms = (m: string, f: string, d: string, impl: string) =>
  rows.find((r) => r.matrix === m && r.format === f && r.dtype === d && r.impl === impl)?.kernelMs;
for (const s of sources) {
  for (const d of ['f32', 'f64']) {
    const simd = ms(s.name, 'csr', d, 'wasm-simd');
    const js = ms(s.name, 'js-csr', d, 'js');
    goal(`${s.name} CSR ${d}: JS loop / SIMD`, js && simd ? js / simd : undefined, 3);
  }
}
for (const s of sources) {
  for (const r of rows.filter((r) => r.matrix === s.name && r.impl === 'wasm-simd' && !r.skipped)) {
    const plain = ms(s.name, r.format, r.dtype, 'wasm-plain');
    goal(`${s.name} ${r.format} ${r.dtype}: plain / SIMD`, plain && r.kernelMs ? plain / r.kernelMs : undefined, 1);
  }
}

}

if (run('formats')) {
  console.log("\n== every format and format: 'auto' against the native C CSR ==");
  const rows = await benchFormats((s) => console.log(s));
  const ms = (m: string, d: string, impl: string, t: number) => rows.find((r) => r.matrix === m && r.dtype === d && r.impl === impl && r.threads === t)?.ms ?? undefined;
  for (const [m, min] of [['poisson3D_128', 1.3], ['powerlaw_1M', 1.1]] as const) {
    for (const d of ['f32', 'f64']) {
      const ours = ms(m, d, 'auto', 2);
      const nat = ms(m, d, 'native C', 2);
      const chose = rows.find((r) => r.matrix === m && r.dtype === d && r.impl === 'auto')?.chose;
      if (nat !== undefined || ours !== undefined) goal(`${m} ${d}, 2 threads: native C / auto (${chose})`, nat && ours ? nat / ours : undefined, min);
    }
  }
}

if (run('plain')) {
  console.log('\n== the build without SIMD against the SIMD build: every format × dtype ==');
  for (const r of await benchPlain((s) => console.log(s))) {
    // goal as a ratio ≥ 1: PLAIN_GOAL × SIMD time / plain time
    goal(`${r.matrix} ${r.format} ${r.dtype}: ${PLAIN_GOAL} × SIMD / plain`, (PLAIN_GOAL * r.simdMs) / r.plainMs, 1);
  }
}

if (run('parallel')) {
  console.log('\n== worker pool: CSR SpMV for 1…cores threads against its peers ==');
  const { rows, dispatchUs } = await benchParallel((s) => console.log(s));
  const ms = (m: string, d: string, impl: string, t: number) =>
    rows.find((r) => r.matrix === m && r.dtype === d && r.impl === impl && r.threads === t)?.ms ?? undefined;
  for (const d of ['f32', 'f64']) {
    const ours2 = ms('poisson3D_128', d, 'simdgl', 2);
    const nat2 = ms('poisson3D_128', d, 'native C', 2);
    const js = ms('poisson3D_128', d, 'plain JS', 1);
    const ours1 = ms('poisson3D_128', d, 'simdgl', 1);
    goal(`poisson3D_128 CSR ${d}, 2 threads: native C (2 threads) / simdgl`, nat2 && ours2 ? nat2 / ours2 : undefined, 1);
    goal(`poisson3D_128 CSR ${d}, 2 threads: plain JS / simdgl`, js && ours2 ? js / ours2 : undefined, 5);
    goal(`poisson3D_128 CSR ${d}: 2 threads vs 1 thread`, ours1 && ours2 ? ours1 / ours2 : undefined, 1.8);
  }
  console.log(`\ndispatch round trip of an empty operation (2 threads): median ${dispatchUs.toFixed(1)} µs`);
  goal('dispatch round trip: 20 µs / measured', 20 / dispatchUs, 1);
}

if (run('dense')) {
  console.log('\n== dense: gemm against TensorFlow.js, transpose against memory copy ==');
  const d = await benchDense((s) => console.log(s));
  for (const g of d.goals) goal(g.label, g.ratio ?? undefined, g.min);
}

if (run('cg')) {
  console.log('\n== Conjugate Gradient on the CPU path ==');
  for (const fused of [true, false]) console.log(formatCg(await benchCg(2, fused)));
  console.log('\n== CG with the defaults, rt.cg(rt.upload(A), b), against SciPy ==');
  for (const r of await benchCgDefaults((s) => console.log(s))) {
    const min = r.matrix === 'poisson3D_64' ? 2 : 1;
    goal(`CG defaults ${r.matrix} f64: SciPy / simdgl (${r.iterations} vs ${r.scipyIterations} iterations)`, r.scipyMs ? r.scipyMs / r.ms : undefined, min);
  }
}

if (run('solve')) {
  console.log('\n== time to a solution: rt.solve with the defaults against the best of SciPy ==');
  const { rows, refinement } = await benchSolve((s) => console.log(s));
  for (const r of rows) {
    // a system neither side solves (singular) has no goal
    if (!r.scipyBest && !r.converged) continue;
    const min = r.kind === 'poisson' ? 2 : 1;
    // no SciPy method within its time budget: the budget bounds SciPy's time from below, so the ratio is at least budget / ours
    const ratio = !r.converged ? undefined : r.scipyBest ? r.scipyBest.ms / r.ms : r.scipyAtLeastMs ? r.scipyAtLeastMs / r.ms : Infinity;
    goal(`solve ${r.matrix} (${r.kind}): best SciPy (${r.scipyBest?.method ?? (r.scipyAtLeastMs ? 'none within its budget: a lower bound' : 'none solved it')}) / simdgl`, ratio, min);
    const c = r.choices;
    const bestOwn = c ? Math.min(c.directMs ?? Infinity, c.krylovMs ?? Infinity) : Infinity;
    if (c && Number.isFinite(bestOwn)) goal(`solve ${r.matrix}: 1.5 × the better of rt.solve forced direct / ${c.krylov} (${(c.directMs ?? Infinity) <= (c.krylovMs ?? Infinity) ? 'direct' : c.krylov}) / rt.solve 'auto'`, r.converged ? (1.5 * bestOwn) / r.ms : undefined, 1);
  }
  if (refinement) goal('solve poisson3D(64) to 1e-10: f64 time / f32 + refinement time', refinement.f32Converged ? refinement.f64Ms / refinement.f32Ms : undefined, 1);
}

if (run('repeat')) {
  console.log("\n== a loop of solves of one matrix: rt.solve with its set-up kept against SciPy and PyAMG with theirs kept ==");
  await benchRepeat((s) => console.log(s));
}

if (run('direct')) {
  console.log("\n== sparse direct: rt.factor + solve against SciPy's spsolve (SuperLU), f64, b = A·ones ==");
  console.log('  (timings are noisy when other work shares the cores)');
  for (const r of await benchDirect((s) => console.log(s))) {
    if (r.error && r.factorSolveMs === null) {
      goal(`direct ${r.matrix}: factor + solve, SciPy / ours [${r.error}]`, undefined, 1);
      continue;
    }
    goal(`direct ${r.matrix}: factor + solve, SciPy spsolve / ours (${r.kind}, ${r.ordering})`, r.scipyMs && r.factorSolveMs ? r.scipyMs / r.factorSolveMs : undefined, r.grid ? 2 : 1);
    goal(`direct ${r.matrix}: factor + solve / solve with the kept factor`, r.factorSolveMs && r.solveMs ? r.factorSolveMs / r.solveMs : undefined, 10);
    goal(`direct ${r.matrix}: 1e-12 / true relative residual`, r.relres !== null ? 1e-12 / Math.max(r.relres, 1e-300) : undefined, 1);
  }
}

if (run('amg')) {
  console.log("\n== algebraic multigrid: simdgl's 'amg' against PyAMG's smoothed aggregation, f64, b = 1, tol 1e-8, 2 threads ==");
  console.log('  (timings are noisy when other work shares the cores)');
  const { rows, spgemm } = await benchAmg((s) => console.log(s));
  for (const r of rows) {
    const same = typeof r.pyamgSame === 'string' ? undefined : r.pyamgSame;
    const defaults = typeof r.pyamgDefaults === 'string' ? undefined : r.pyamgDefaults;
    goal(`amg ${r.matrix}: 20 / iterations (smoother jacobi: ${r.jacobi.iterations})`, 20 / r.jacobi.iterations, 1);
    goal(`amg ${r.matrix}: 1.2 × PyAMG's iterations / ours, same settings (${same?.iterations ?? 'n/a'} vs ${r.jacobi.iterations})`, same ? (1.2 * same.iterations) / r.jacobi.iterations : undefined, 1);
    const cpu = (ours: number, theirs: number | undefined) => (theirs === undefined ? '' : `; CPU time ${(theirs / ours).toFixed(2)}×`);
    goal(
      `amg ${r.matrix}: time to a solution, PyAMG defaults / rt.solve defaults (${r.defaults.preconditioner}${cpu(r.defaults.cpuMs, defaults?.cpuMs)})`,
      defaults && r.defaults.converged ? (defaults.setupMs + defaults.solveMs) / r.defaults.ms : undefined,
      2,
    );
    if (r.plainCg) goal(`amg ${r.matrix}: time to a solution, our plain CG / rt.solve defaults${cpu(r.defaults.cpuMs, r.plainCg.cpuMs)}`, r.plainCg.ms / r.defaults.ms, 5);
  }
  for (const s of spgemm) {
    for (const [form, ms, cpuMs] of [['', s.ms, s.cpuMs], [', handles', s.handleMs, s.handleCpuMs]] as const) {
      goal(`spgemm ${s.product}${form}: SciPy / ours${s.scipyCpuMs !== null ? `; CPU time ${(s.scipyCpuMs / cpuMs).toFixed(2)}×` : ''}`, s.scipyMs !== null ? s.scipyMs / ms : undefined, 1);
    }
  }
}

if (run('browser')) {
  console.log('\n== in headless Chromium: the GPU path (WebGL2) against the CPU path ==');
  await benchBrowser((s) => console.log(s));
}

if (run('defaults')) {
  console.log('\n== the defaults (threads, inline policy) against workers: 1, SpMV / dot / axpy / CG on poisson2D ==');
  const results = [await benchDefaultsNode((s) => console.log(s)), await benchDefaultsPage((s) => console.log(s))];
  for (const r of results) {
    if (!r) continue;
    goal(`${r.where}: worst cell, workers: 1 / defaults (${r.worst.op}, ${r.worst.rows} rows)`, r.worst.ratio, 0.9);
    goals.push(`  info  ${r.where}: noise floor, the control (workers: 1 / workers: 1) furthest from 1: ${r.floor.toFixed(2)}× as min(r, 1/r) (load ${os.loadavg()[0].toFixed(1)})`);
    goal(`${r.where}: first CG on poisson2D(200), workers: 1 / defaults`, r.cold.one.firstMs / r.cold.defaults.firstMs, 0.9);
  }
}

if (run('explain')) {
  console.log("\n== rt.explain's SpMV estimates (automatic calibration, no rt.calibrate()) against measured products ==");
  const cells = await benchExplain((s) => console.log(s));
  // each (where, path) group's worst cell: the furthest from 1 on either side
  for (const key of [...new Set(cells.map((c) => `${c.where} / ${c.path}`))]) {
    const group = cells.filter((c) => `${c.where} / ${c.path}` === key);
    const worst = group.reduce((a, c) => (Math.abs(Math.log(c.ratio)) > Math.abs(Math.log(a.ratio)) ? c : a));
    // within 2× either way: min(r, 1/r) ≥ 0.5
    goal(`explain within 2× of measured, ${key}: worst ${worst.matrix} (measured / estimate ${worst.ratio.toFixed(2)}), min(r, 1/r)`, Math.min(worst.ratio, 1 / worst.ratio), 0.5);
    const fresh = group.reduce((a, c) => (Math.abs(Math.log(c.freshRatio)) > Math.abs(Math.log(a.freshRatio)) ? c : a));
    goals.push(`  info  ${key}: against figures re-measured right after each cell, worst ${fresh.matrix} ${fresh.freshRatio.toFixed(2)}× (load ${os.loadavg()[0].toFixed(1)})`);
  }
}

if (run('parse')) {
  const mm = await benchMatrixMarket();
  goal(`Matrix Market parse (${(mm.bytes / 1e6).toFixed(0)} MB of text, MB/s)`, mm.mbPerSecond, 100, ' MB/s');
}

console.log('\nGoals');
for (const g of goals) console.log(g);
console.log(failed ? `\n${failed} goal(s) missed` : '\nall goals met');
