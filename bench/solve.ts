/**
 * Time to a solution with the defaults of rt.solve against the best of SciPy (issue 20's goals):
 * `rt.solve(rt.upload(A), b)` — upload and preconditioner setup included — f64 (c128 for complex),
 * b = 1, to a true relative residual ≤ 1e-8, on every square matrix of data/matrices and on
 * elasticity2D(200) (a stiffness matrix above 'auto''s 20 000-unknown cap), poisson2D(1024) and poisson3D(64), against the fastest of SciPy's spsolve, cg + Jacobi, cg + spilu
 * and gmres + spilu on the same system (bench/peers/scipy_solve.py, OPENBLAS_NUM_THREADS=1), each
 * counted only when its residual meets the tolerance. Medians of 3 (1 above 300 000 rows, after one
 * untimed solve below that; below 20 000 rows 7 to 31, as many as fill a second, SciPy's as many), and
 * apart, the first call of each matrix (that untimed 'auto' solve: what a user's first solve of a new
 * matrix costs while V8 is still compiling). Also: f32
 * storage refined to 1e-10 against the f64 solve, poisson3D(64), medians of alternating rounds, with each
 * side's process CPU time and what the CPU pool's 'auto' dispatch measured for the CG kernels (where it
 * ran them inline on the calling thread and where on the pool). SIMDGL_SOLVE_CASES=494_bus,t1 (names,
 * comma-separated) runs only those cases, and the refinement comparison only when poisson3D(64) is one;
 * SIMDGL_SOLVE_CASES=refinement runs the refinement comparison alone (seconds, no SciPy).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { solveStructure } from '../src/solvers/structure.js';
import type { SolveMethod } from '../src/solvers/solve.js';
import { median } from '../src/metrics.js';
import type { CSRMatrix } from '../src/formats/csr.js';

const here = dirname(fileURLToPath(import.meta.url));
const PY = [join(here, 'peers', 'scipy_solve.py'), join(here, '..', 'bench', 'peers', 'scipy_solve.py')].find((p) => existsSync(p)) ?? 'scipy_solve.py';
export const TOL = 1e-8;

export interface SolveBenchRow {
  matrix: string;
  kind: 'spd' | 'nonsymmetric' | 'poisson';
  rows: number;
  ms: number;
  /** the matrix's first upload + solve in this process (the untimed round's 'auto' call; null without one) */
  firstMs: number | null;
  converged: boolean;
  what: string;
  scipyBest: { method: string; ms: number } | null;
  /** when no SciPy method solved it but some were stopped at the time budget: their time is at least this */
  scipyAtLeastMs: number | null;
  scipyNote: string;
  /**
   * shared matrices: the same solve forced to each of 'auto''s two kinds of choice — a direct
   * factorization (method 'direct') and its Krylov candidate with the preconditioner 'auto' — so the
   * benchmark can hold 'auto' within 1.5× of the better one (null: that choice found no solution)
   */
  choices?: { directMs: number | null; krylovMs: number | null; krylov: string };
}

export interface ScipyOut {
  methods: Record<string, { ms: number; relres: number | null; ok: boolean; runs?: number[]; setupMs?: number } | { skipped: string; atLeastMs?: number }>;
  scipy: string;
}

/**
 * SciPy's methods on `source`, `reps` repeats; as one of `blocks` (the small cells), each method's 7
 * runs and 2 s cap shared out over the blocks, and only the methods `only` names (all: undefined).
 * `kept`: each method's set-up made once and timed apart, its solves timed (bench/repeat.ts).
 */
export function scipy(source: string, reps: number, blocks = 1, only?: string[], kept = false): ScipyOut | string {
  const tried: string[] = [];
  for (const py of [process.env.SIMDGL_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[]) {
    try {
      const out = execFileSync(py, [PY, ...(kept ? ['--kept'] : []), source, String(TOL), String(reps), String(Math.ceil(7 / blocks)), String(2000 / blocks), ...(only ? [only.join(',')] : [])], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, OPENBLAS_NUM_THREADS: '1' },
        maxBuffer: 1 << 20,
      });
      return JSON.parse(out);
    } catch (e) {
      tried.push(`${py}: ${String((e as { stderr?: string }).stderr ?? e).trim().split('\n').pop()}`);
    }
  }
  return `no Python with SciPy found (set SIMDGL_PYTHON): ${tried.join('; ')}`;
}

type SolveOptions = Parameters<Runtime['solve']>[2];
interface Ours { ms: number; converged: boolean; what: string; firstMs: number | null }

/**
 * Each variant's median time of upload + solve, the variants taken in turn within every repeat, each
 * repeat starting one variant later (one untimed round first below 100 000 rows, 'auto' first, repeated
 * for up to a second below 20 000 rows; the first call's time is reported apart): the
 * calls of a process's first seconds (JIT tiers, background compilation) then weigh on each alike, not
 * on whichever runs first or after the slowest. null: the variant threw (a singular matrix given to 'direct').
 */
/**
 * From this many rows one timed solve a side (poisson2D(1024): 1.2 s ours, 28 s SciPy's); below it an
 * untimed first call (reported apart) and medians of 3. poisson3D(64)'s 262 144 rows were timed once,
 * cold, until the sixth session of 2026-11-27: its one call carried V8's first compilation of the
 * solve's code (≈ 290 against ≈ 210 ms warm, quiet 2-core machine) where every other case's median is warm.
 */
const ONE_REP_ROWS = 300_000;

/**
 * Below 20 000 rows: the untimed round repeats for a second, at most MAX_WARM_ROUNDS rounds; the timed
 * repeats are as many as fill a second at the untimed rounds' mean pace, from the case's 7 up to
 * MAX_SMALL_REPS, and SciPy's as many; and the two sides alternate in SMALL_BLOCKS blocks (ours, then
 * SciPy's process, and again), the medians taken over all blocks. On the 16-core device host (twelfth
 * session, bench/device/results-2026-11-28-twelfth/f32ref16) a median of 7 of west0479's
 * sub-millisecond solves swung 0.78–1.41 ms over 30 groups of one process, the first ≈ 70 calls after
 * a 200-round warm-up (0.4 s of west0479) still slower; and the host's speed drifts between runs and
 * within one: spsolve read 1.6 then 1.1 ms a minute apart, ours 1.3 then 1.2 — one side timed wholly
 * before the other took that drift into the ratio (0.85–1.79× from run to run).
 */
const MAX_WARM_ROUNDS = 5000;
const MAX_SMALL_REPS = 31;
const SMALL_BLOCKS = 3;

/** Each variant's timed runs so far (across blocks), whether it threw, and the first call's time. */
interface OursRuns {
  runs: { ms: number; r: Awaited<ReturnType<Runtime['solve']>> }[][];
  failed: boolean[];
  firstMs: number | null;
}

/**
 * One block of each variant's timed upload + solve, the variants taken in turn within every repeat,
 * each repeat starting one variant later, into `into`. `first`: the case's first block — one untimed
 * round before it (below ONE_REP_ROWS rows; 'auto' first, repeated for up to a second below 20 000
 * rows; the first call's time is kept apart), then `reps` split over `blocks` (below 20 000 rows, reps
 * raised to fill a second first). Returns the block's repeats. A variant that throws is dropped (a
 * singular matrix given to 'direct'); the defaults must not throw.
 */
async function ours(rt: Runtime, A: CSRMatrix, reps: number, variants: SolveOptions[], into: OursRuns, first: boolean, blocks = 1): Promise<number> {
  const c = A.dtype === 'c128' || A.dtype === 'c64' ? 2 : 1;
  const b = new Float64Array(A.rows * c);
  for (let i = 0; i < A.rows; i++) b[c * i] = 1;
  const once = async (options: SolveOptions) => {
    const t0 = performance.now();
    const h = rt.upload(A);
    try {
      const r = await rt.solve(h, b, { ...options, tol: TOL });
      return { ms: performance.now() - t0, r };
    } finally {
      h.dispose();
    }
  };
  const { runs, failed } = into;
  // below 20 000 rows the untimed round repeats for a second (MAX_WARM_ROUNDS), as bench/direct
  // warms up: medians of calls 2–8 read V8 still compiling (494_bus: 1.7 ms against 0.4 ms warm)
  const small = A.rows < 20_000;
  const warmStart = performance.now();
  const warmUntil = warmStart + (small && first ? 1000 : 0);
  let block = reps;
  for (let k = first && A.rows < ONE_REP_ROWS ? -1 : 0, warm = 1; k < block; k++) {
    if (k === 0 && first && warm < MAX_WARM_ROUNDS && performance.now() < warmUntil) (k = -1), warm++;
    if (k === 0 && first) {
      // the untimed rounds' mean pace (one slow round — a collection, the first call's compiling — weighs its share)
      const roundMs = (performance.now() - warmStart) / warm;
      block = Math.ceil((small ? Math.min(MAX_SMALL_REPS, Math.max(reps, Math.floor(1000 / roundMs))) : reps) / blocks);
    }
    // each repeat starts with the next variant: whichever runs right after another (the JIT's and the
    // collector's work that one left behind, on two loaded cores) is then each alike — in a fixed
    // order 'auto', timed after the Krylov variant, read 7.3 ms against its forced direct solve's
    // 0.9 ms on 494_bus, doing the same work (warm, each alone: 0.87 against 0.81 ms)
    for (let j = 0; j < variants.length; j++) {
      const v = k < 0 ? j : (j + k) % variants.length;
      if (failed[v]) continue;
      try {
        const run = await once(variants[v]);
        if (k >= 0) runs[v].push(run);
        else if (v === 0) into.firstMs ??= run.ms;
      } catch (e) {
        if (v === 0) throw e; // the defaults must not throw
        failed[v] = true;
      }
    }
  }
  return block;
}

/** Each variant's median over its timed runs (null: it threw). */
function oursMedians(into: OursRuns): (Ours | null)[] {
  return into.runs.map((rs, v) => {
    if (into.failed[v]) return null;
    const { r } = rs[rs.length - 1];
    return {
      ms: median(rs.map((x) => x.ms)),
      firstMs: into.firstMs,
      converged: r.converged,
      what: `${r.method} + ${r.preconditioner}, ${r.iterations} it, true ${r.relativeResidual.toExponential(1)}${r.converged ? '' : ` (${r.reason})`}`,
    };
  });
}

/** SciPy's blocks as one: each method's median over the runs of every block that ran it, skipped where one skipped it. */
function mergeScipy(blocks: (ScipyOut | string)[]): ScipyOut | string {
  const failed = blocks.find((x) => typeof x === 'string');
  if (failed !== undefined || blocks.length === 1) return failed ?? blocks[0];
  const outs = blocks as ScipyOut[];
  const methods: ScipyOut['methods'] = {};
  for (const name of Object.keys(outs[0].methods)) {
    const all = outs.map((o) => o.methods[name]).filter((m) => m !== undefined);
    const skipped = all.find((m) => !m || 'skipped' in m);
    if (skipped) {
      methods[name] = skipped;
      continue;
    }
    const timed = all as { ms: number; relres: number | null; ok: boolean; runs?: number[] }[];
    const last = timed[timed.length - 1];
    methods[name] = { ms: median(timed.flatMap((m) => m.runs ?? [m.ms])), relres: last.relres, ok: timed.every((m) => m.ok) };
  }
  return { ...outs[0], methods };
}

/** rounds of the f32-refinement against f64 comparison (each side once per round) */
const REFINE_ROUNDS = 5;

/** A generated matrix written as Matrix Market under the system's temporary folder, for SciPy to read: the file's path. */
function writtenFor(A: CSRMatrix, name: string): string {
  const file = join(tmpdir(), `simdgl-bench-${name}.mtx`);
  writeFileSync(file, writeMatrixMarket(A, { symmetry: 'auto' }));
  return file;
}

export async function benchSolve(log: (s: string) => void, matrixDir = join(here, '..', 'data', 'matrices')): Promise<{ rows: SolveBenchRow[]; refinement: { f32Ms: number; f64Ms: number; f32Converged: boolean } | null }> {
  const rt = await createRuntime();
  log(`  simdgl: rt.solve defaults, ${rt.capabilities().threads} threads; SciPy with OPENBLAS_NUM_THREADS=1; tol ${TOL} (true residual)`);
  const cases: { name: string; kind: SolveBenchRow['kind']; load: () => CSRMatrix; source: string | ((A: CSRMatrix) => string) }[] = [];
  const names = existsSync(matrixDir) ? (await import('node:fs')).readdirSync(matrixDir).filter((f) => f.endsWith('.mtx')).sort() : [];
  for (const f of names) {
    const A = parseMatrixMarket(readFileSync(join(matrixDir, f))).matrix.toCSR();
    if (A.rows !== A.cols) continue;
    const s = solveStructure(A);
    cases.push({ name: f.slice(0, -4), kind: s.hermitian && s.positiveDiagonal ? 'spd' : 'nonsymmetric', load: () => A, source: join(matrixDir, f) });
  }
  // a 2-D elasticity stiffness matrix above DIRECT_MAX_N (80 400 rows, two unknowns a node): 'auto''s
  // factorization above the cap, where its Krylov candidate (CG + IC(0)) took 345 iterations; SciPy reads it
  // from a Matrix Market file written here (bench-only: the test suite writes nothing)
  cases.push({ name: 'elasticity2D(200)', kind: 'spd', load: () => elasticity2D(200), source: (A) => writtenFor(A, 'elasticity2D-200') });
  cases.push({ name: 'poisson2D(1024)', kind: 'poisson', load: () => poisson2D(1024), source: 'poisson2D:1024' });
  cases.push({ name: 'poisson3D(64)', kind: 'poisson', load: () => poisson3D(64), source: 'poisson3D:64' });
  const only = process.env.SIMDGL_SOLVE_CASES?.split(',').filter(Boolean);
  // 'refinement' alone: no case, no SciPy; the comparison below
  if (only?.length === 1 && only[0] === 'refinement') cases.length = 0;
  const rows: SolveBenchRow[] = [];
  for (const c of cases.filter((c) => !only || only.includes(c.name))) {
    const A = c.load();
    // more repeats for the small systems, whose few milliseconds a loaded machine scatters most (below
    // 20 000 rows up to MAX_SMALL_REPS: ours())
    const reps = A.rows >= ONE_REP_ROWS ? 1 : A.rows < 20_000 ? 7 : 3;
    // 'auto''s two kinds of choice on the shared matrices, each forced: a factorization, and the Krylov candidate it would run
    let krylov: SolveMethod | undefined;
    if (c.kind !== 'poisson') {
      const h = rt.upload(A);
      const e = rt.explain('solve', h);
      h.dispose();
      krylov = e.method === 'direct' ? e.fallbacks[0].method : (e.method as SolveMethod);
    }
    const variants: SolveOptions[] = krylov ? [{}, { method: 'direct' }, { method: krylov, preconditioner: 'auto' }] : [{}];
    const timed: OursRuns = { runs: variants.map(() => []), failed: variants.map(() => false), firstMs: null };
    // below 20 000 rows ours and SciPy's alternate in blocks (SMALL_BLOCKS), SciPy repeating as often
    const blocks = A.rows < 20_000 ? SMALL_BLOCKS : 1;
    const perBlock = await ours(rt, A, reps, variants, timed, true, blocks);
    const source = typeof c.source === 'string' ? c.source : c.source(A);
    const pyBlocks = [scipy(source, perBlock, blocks)];
    // the later blocks rerun SciPy's methods of a sub-200-ms median alone (the slow ones — cg + spilu
    // on bcsstk13, 19 s — keep their first block's runs)
    const py0 = pyBlocks[0];
    const fast = typeof py0 === 'string' ? [] : Object.entries(py0.methods).flatMap(([m, v]) => ('ms' in v && v.ms < 200 ? [m] : []));
    for (let k = 1; k < blocks; k++) {
      await ours(rt, A, perBlock, variants, timed, false);
      if (fast.length > 0) pyBlocks.push(scipy(source, perBlock, blocks, fast));
    }
    const [first, direct, krylovRun] = oursMedians(timed);
    const o = first!;
    const py = mergeScipy(pyBlocks);
    const repsTaken = timed.runs[0].length;
    let best: SolveBenchRow['scipyBest'] = null;
    let atLeast: number | null = null;
    let note: string;
    if (typeof py === 'string') note = py;
    else {
      const parts: string[] = [];
      for (const [m, v] of Object.entries(py.methods)) {
        if ('skipped' in v) {
          parts.push(`${m}: ${v.skipped}`);
          if (v.atLeastMs) atLeast = Math.min(atLeast ?? Infinity, v.atLeastMs);
        }
        else {
          parts.push(`${m} ${v.ms.toFixed(1)} ms${v.ok ? '' : ` (residual ${v.relres === null ? 'NaN' : v.relres.toExponential(1)}: no solution)`}`);
          if (v.ok && (!best || v.ms < best.ms)) best = { method: m, ms: v.ms };
        }
      }
      note = `SciPy ${py.scipy}: ${parts.join('; ')}`;
    }
    const choices: SolveBenchRow['choices'] = krylov
      ? { directMs: direct?.converged ? direct.ms : null, krylovMs: krylovRun?.converged ? krylovRun.ms : null, krylov }
      : undefined;
    rows.push({ matrix: c.name, kind: c.kind, rows: A.rows, ms: o.ms, firstMs: o.firstMs, converged: o.converged, what: o.what, scipyBest: best, scipyAtLeastMs: best ? null : atLeast, scipyNote: note, choices });
    const ratio =
      best && o.converged ? `→ best SciPy (${best.method}) / simdgl ${(best.ms / o.ms).toFixed(2)}×`
      : atLeast && o.converged ? `→ SciPy stopped at ${(atLeast / 1e3).toFixed(0)} s: ratio ≥ ${(atLeast / o.ms).toFixed(2)}×`
      : '→ no ratio (a side found no solution)';
    const firstCall = o.firstMs === null ? '' : ` (first call ${o.firstMs.toFixed(1)} ms; medians of ${repsTaken}${blocks > 1 ? ` in ${blocks} blocks alternating with SciPy's` : ''})`;
    log(`  ${c.name} (${A.rows} rows, ${c.kind}): simdgl ${o.ms.toFixed(1)} ms${firstCall}, ${o.what} ${ratio}\n      ${note}`);
    if (choices) log(`      rt.solve forced: direct ${choices.directMs?.toFixed(1) ?? '—'} ms, ${choices.krylov} + auto ${choices.krylovMs?.toFixed(1) ?? '—'} ms`);
  }
  // mixed precision: f32 storage refined to 1e-10 against the f64 solve, both timed with their setup
  if (only && !only.includes('poisson3D(64)') && !only.includes('refinement')) {
    rt.dispose();
    return { rows, refinement: null };
  }
  const P = poisson3D(64);
  const b = new Float64Array(P.rows).fill(1);
  const timed = async (A: CSRMatrix) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: 1e-10 });
    h.dispose();
    const c = process.cpuUsage(c0);
    return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1e3, r };
  };
  // alternating rounds after an untimed pair, medians: one timing of each swung ±20 % under load
  const P32 = P.astype('f32');
  await timed(P);
  await timed(P32);
  const runs: { f64: Awaited<ReturnType<typeof timed>>; f32: Awaited<ReturnType<typeof timed>> }[] = [];
  for (let i = 0; i < REFINE_ROUNDS; i++) runs.push({ f64: await timed(P), f32: await timed(P32) });
  const mid = <T>(xs: T[], ms: (x: T) => number) => xs.slice().sort((x, y) => ms(x) - ms(y))[xs.length >> 1];
  const f64 = mid(runs.map((x) => x.f64), (x) => x.ms);
  const f32 = mid(runs.map((x) => x.f32), (x) => x.ms);
  const cpu = (k: 'f64' | 'f32') => median(runs.map((x) => x[k].cpuMs)).toFixed(0);
  log(
    `  poisson3D(64) to a true 1e-10, medians of ${REFINE_ROUNDS} alternating rounds: f64 ${f64.ms.toFixed(0)} ms (${f64.r.iterations} it); f32 + refinement ${f32.ms.toFixed(0)} ms ` +
      `(${f32.r.iterations} it, ${f32.r.refinements} refinements, true ${f32.r.relativeResidual.toExponential(1)}${f32.r.converged ? '' : `, ${f32.r.reason}`}); ` +
      `process CPU (every thread, idle workers' spinning included) f64 ${cpu('f64')} ms, f32 ${cpu('f32')} ms`,
  );
  log(`      CPU dispatch ('auto': per kernel, estimated ms a call inline / pooled, calls inline / pooled): ${cgDispatch(rt)}`);
  rt.dispose();
  return { rows, refinement: { f32Ms: f32.ms, f64Ms: f64.ms, f32Converged: runs.every((x) => x.f32.r.converged) } };
}

/**
 * What the CPU path's 'auto' dispatch measured for the CG and refinement kernels of the comparison
 * (src/cpu/dispatch.ts): a 16-core host ran f32's update inline in 354 of 525 calls at 0.36 ms against
 * 0.10 pooled, the tail 70 against 33 ms with every call pooled (bench/device/results-2026-11-27-eighth/f32ref).
 */
function cgDispatch(rt: Runtime): string {
  const stats = rt.cpuBackend.dispatchStats;
  if (!stats) return 'a fixed threshold (nothing measured)';
  const n = 64 ** 3;
  const parts = Object.entries(stats)
    .filter(([k]) => /^(cg_|refine_)/.test(k) && Math.abs(Number(k.split(':')[1]) - 2 * Math.log2(n)) <= 1)
    .map(([k, v]) => `${k.split(':')[0]} ${((v.inline * n) / 1e6).toFixed(3)} / ${((v.pool * n) / 1e6).toFixed(3)} ms, ${v.samples[0]} / ${v.samples[1]}`);
  return parts.length ? parts.join('; ') : 'none measured';
}
