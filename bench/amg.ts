/**
 * Algebraic multigrid against PyAMG in the same run (issue 21's goals), f64, b = 1, x0 = 0, tol 1e-8,
 * on poisson3D(64), poisson3D(128), poisson2D(1024) and diffusion3D({ n: 64, coefficients: 'jumping' })
 * (contrast 1e4, 4³ blocks), 2 pool threads against PyAMG with OPENBLAS_NUM_THREADS=1:
 * - iterations with the same settings: rt.cg with rt.amg(A, { smoother: 'jacobi' }) against PyAMG with
 *   the settings written out in bench/peers/pyamg_solve.py (mode 'same');
 * - time to a solution with the defaults: rt.solve(rt.upload(A), b) ('auto' picks the preconditioner;
 *   upload, structure check and setup included) against PyAMG's smoothed_aggregation_solver(A) +
 *   solve(accel='cg') with every PyAMG default (mode 'defaults'), and against our plain CG on
 *   poisson3D(128);
 * - SpGEMM: rt.spgemm(A, A) on poisson3D(64) and rt.spgemm(A, Aᵀ) on a power-law matrix against
 *   SciPy's A @ B, both forms: host matrices in, a CSRMatrix out; and handles in (uploaded before the
 *   timing, as by a caller who keeps the matrices resident), a handle out, disposed in the timing;
 *   and, printed without a goal, host matrices into an earlier product's arrays ({ out }).
 * Medians of REPS (3; 1 for the 2-million-row poisson3D(128) solves), wall and process CPU time (ours
 * counts the pool's worker threads; on a shared machine the wall time mostly measures the scheduler,
 * so both are printed and the goals print both ratios; for rt.spgemm's host form also, on Linux, the
 * calling thread's and the busiest worker's CPU, whose larger bounds the product's wall time on an idle
 * machine, and on both sides the minor page faults per product: the first touches of the output's fresh
 * pages, 4 KiB each for ours and on huge pages for NumPy's). Needs PyAMG: says
 * 'pip install pyamg' when it is missing. SIMDGL_AMG_CASES (comma-separated) runs only the cases whose
 * name contains one of its words, 'spgemm' the SpGEMM products, e.g. SIMDGL_AMG_CASES='3D(64),spgemm'.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion3D } from '../src/generators/diffusion.js';
import { randomMatrix } from '../src/generators/random.js';
import { median } from '../src/metrics.js';
import { AMG_DEFAULTS } from '../src/solvers/amg/hierarchy.js';
import type { CSRMatrix } from '../src/formats/csr.js';

const here = dirname(fileURLToPath(import.meta.url));
const PY = [join(here, 'peers', 'pyamg_solve.py'), join(here, '..', 'bench', 'peers', 'pyamg_solve.py')].find((p) => existsSync(p)) ?? 'pyamg_solve.py';
const TOL = 1e-8;

export interface PyamgOut {
  setupMs: number;
  solveMs: number;
  /** process CPU ms of setup + solve (median) */
  cpuMs: number;
  iterations: number;
  relres: number;
  levels: number[];
  operatorComplexity: number;
}

export interface AmgBenchRow {
  matrix: string;
  rows: number;
  /** rt.solve with the defaults: ms (setup included), iterations, the preconditioner 'auto' chose */
  defaults: { ms: number; cpuMs: number; iterations: number; converged: boolean; preconditioner: string; relres: number };
  /** rt.amg(A, { smoother: 'jacobi' }) + rt.cg: setup and solve ms, iterations, levels */
  jacobi: { setupMs: number; solveMs: number; iterations: number; levels: number[]; operatorComplexity: number };
  pyamgSame: PyamgOut | string;
  pyamgDefaults: PyamgOut | string;
  /** rt.solve with method cg and no preconditioner (poisson3D(128) only) */
  plainCg?: { ms: number; cpuMs: number; iterations: number };
}

export interface SpgemmBenchRow {
  product: string;
  nnz: number;
  ms: number;
  cpuMs: number;
  /** rt.spgemm of handles (uploaded before), the product handle disposed: median wall and CPU ms */
  handleMs: number;
  handleCpuMs: number;
  /**
   * rt.spgemm(A, B, { out }) into the arrays of an earlier product (a loop of products reusing one
   * matrix; SciPy's A @ B has no such form, so no goal): median wall and CPU ms
   */
  outMs: number;
  outCpuMs: number;
  /** host form: median CPU ms of the calling thread and of the busiest other thread (Linux; NaN elsewhere) */
  callerCpuMs: number;
  workerCpuMs: number;
  /** host form: median minor page faults of the process per product (the first touches of fresh pages) */
  faults: number;
  scipyMs: number | null;
  scipyCpuMs: number | null;
  /** SciPy's median minor page faults per product (NumPy maps large arrays on huge pages); null when not reported */
  scipyFaults: number | null;
  note: string;
}

/** Writes A as the raw arrays pyamg_solve.py reads; returns the directory. */
function writeRaw(A: CSRMatrix, extra: Record<string, unknown> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'simdgl-amg-'));
  writeFileSync(join(d, 'shape.json'), JSON.stringify({ rows: A.rows, cols: A.cols, nnz: A.nnz, ...extra }));
  writeFileSync(join(d, 'rowptr.i32'), new Uint8Array(A.rowPtr.buffer, A.rowPtr.byteOffset, A.rowPtr.byteLength));
  writeFileSync(join(d, 'colidx.i32'), new Uint8Array(A.colIdx.buffer, A.colIdx.byteOffset, A.colIdx.byteLength));
  const v = Float64Array.from(A.values);
  writeFileSync(join(d, 'values.f64'), new Uint8Array(v.buffer));
  return d;
}

/** process CPU ms since c (the pool's worker threads included) */
function cpuMs(c: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1e3;
}

/**
 * CPU ms so far of each of this process's threads (Linux: /proc's schedstat, in ns), or null elsewhere:
 * the calling thread's and the busiest other thread's share of a product bound its wall time on an
 * idle machine, which a loaded one's wall time does not show.
 */
function threadCpu(): Map<string, number> | null {
  try {
    return new Map(readdirSync('/proc/self/task').map((t) => [t, Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6]));
  } catch {
    return null;
  }
}

/** [the calling thread's, the busiest other thread's] CPU ms between two threadCpu() readings */
function threadSplit(a: Map<string, number> | null, b: Map<string, number> | null): [number, number] {
  if (!a || !b) return [NaN, NaN];
  let other = 0;
  for (const [t, ms] of b) if (t !== String(process.pid)) other = Math.max(other, ms - (a.get(t) ?? 0));
  return [b.get(String(process.pid))! - a.get(String(process.pid))!, other];
}

function python(args: string[]): unknown | string {
  const tried: string[] = [];
  for (const py of [process.env.SIMDGL_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[]) {
    try {
      const out = execFileSync(py, [PY, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENBLAS_NUM_THREADS: '1' }, maxBuffer: 1 << 20 });
      return JSON.parse(out);
    } catch (e) {
      const err = String((e as { stderr?: string }).stderr ?? e).trim();
      if (/pip install pyamg/.test(err)) return 'PyAMG is missing: pip install pyamg';
      tried.push(`${py}: ${err.split('\n').pop()}`);
    }
  }
  return `no Python with SciPy found (set SIMDGL_PYTHON): ${tried.join('; ')}`;
}

async function ours(rt: Runtime, A: CSRMatrix, reps: number): Promise<Pick<AmgBenchRow, 'defaults' | 'jacobi'>> {
  const b = new Float64Array(A.rows).fill(1);
  const d: { ms: number; cpuMs: number; r: Awaited<ReturnType<Runtime['solve']>> }[] = [];
  for (let k = 0; k < reps; k++) {
    const c = process.cpuUsage();
    const t = performance.now();
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: TOL });
    d.push({ ms: performance.now() - t, cpuMs: cpuMs(c), r });
    h.dispose();
  }
  const last = d[d.length - 1].r;
  const h = rt.upload(A);
  const setups: number[] = [];
  const solves: number[] = [];
  let iterations = 0;
  let info: { levels: { rows: number }[]; operatorComplexity: number } | undefined;
  for (let k = 0; k < reps; k++) {
    const t = performance.now();
    const M = rt.amg(h, { smoother: 'jacobi' });
    const t1 = performance.now();
    const r = await rt.cg(h, b, { preconditioner: M, tol: TOL, maxIter: 1000 });
    solves.push(performance.now() - t1);
    setups.push(t1 - t);
    iterations = r.iterations;
    info = M.amg;
    M.dispose();
  }
  h.dispose();
  return {
    defaults: { ms: median(d.map((x) => x.ms)), cpuMs: median(d.map((x) => x.cpuMs)), iterations: last.iterations, converged: last.converged, preconditioner: last.preconditioner, relres: last.relativeResidual },
    jacobi: { setupMs: median(setups), solveMs: median(solves), iterations, levels: info!.levels.map((l) => l.rows), operatorComplexity: info!.operatorComplexity },
  };
}

/** Whether SIMDGL_AMG_CASES (unset: every case) selects the case or part `name`. */
function selected(name: string): boolean {
  const words = process.env.SIMDGL_AMG_CASES?.split(',').filter(Boolean);
  return !words?.length || words.some((w) => name.includes(w));
}

export async function benchAmg(log: (s: string) => void): Promise<{ rows: AmgBenchRow[]; spgemm: SpgemmBenchRow[] }> {
  const rt = await createRuntime({ workers: 2 });
  const rows: AmgBenchRow[] = [];
  const cases = (
    [
      ['poisson3D(64)', () => poisson3D(64), 3],
      ['poisson3D(128)', () => poisson3D(128), 1],
      ['poisson2D(1024)', () => poisson2D(1024), 3],
      ["diffusion3D(64, 'jumping')", () => diffusion3D({ n: 64, coefficients: 'jumping' }), 3],
    ] as [string, () => CSRMatrix, number][]
  ).filter(([name]) => selected(name));
  try {
    // warm-up: kernels compiled, the setup's code optimised
    const w = rt.upload(poisson3D(24));
    await rt.solve(w, new Float64Array(w.rows).fill(1), { preconditioner: 'amg' });
    w.dispose();
    for (const [name, make, reps] of cases) {
      const A = make();
      const o = await ours(rt, A, reps);
      const dir = writeRaw(A);
      const same = python([dir, 'same', String(TOL), String(reps), String(AMG_DEFAULTS.maxCoarse), String(AMG_DEFAULTS.theta)]) as PyamgOut | string;
      const defaults = python([dir, 'defaults', String(TOL), String(reps)]) as PyamgOut | string;
      rmSync(dir, { recursive: true, force: true });
      const row: AmgBenchRow = { matrix: name, rows: A.rows, ...o, pyamgSame: same, pyamgDefaults: defaults };
      if (name === 'poisson3D(128)') {
        const h = rt.upload(A);
        const c = process.cpuUsage();
        const t = performance.now();
        const r = await rt.solve(h, new Float64Array(A.rows).fill(1), { method: 'cg', preconditioner: 'none', tol: TOL });
        row.plainCg = { ms: performance.now() - t, cpuMs: cpuMs(c), iterations: r.iterations };
        h.dispose();
      }
      rows.push(row);
      log(formatRow(row));
    }
    const spgemm: SpgemmBenchRow[] = [];
    if (!selected('spgemm')) return { rows, spgemm };
    const P = poisson3D(64);
    const W = randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }).astype('f64');
    for (const [product, A, B, transpose] of [
      ['A·A, poisson3D(64)', P, P, false],
      ['A·Aᵀ, powerlaw_250k', W, W.transpose(), true],
    ] as const) {
      const [hA, hB] = [rt.upload(A), rt.upload(B)];
      const out = rt.spgemm(A, B);
      const times: number[][] = [[], [], []];
      const cpus: number[][] = [[], [], []];
      const split: number[][] = [[], []];
      const faults: number[] = [];
      let nnz = 0;
      // the three forms alternate, so that all see the same load
      for (let k = 0; k < 9; k++) {
        const c = process.cpuUsage();
        const th = k % 3 === 0 ? threadCpu() : null;
        const f = process.resourceUsage().minorPageFault;
        const t = performance.now();
        if (k % 3 === 0) nnz = rt.spgemm(A, B).nnz;
        else if (k % 3 === 1) rt.spgemm(hA, hB).dispose();
        else rt.spgemm(A, B, { out });
        times[k % 3].push(performance.now() - t);
        cpus[k % 3].push(cpuMs(c));
        if (k % 3 === 0) {
          faults.push(process.resourceUsage().minorPageFault - f);
          threadSplit(th, threadCpu()).forEach((ms, i) => split[i].push(ms));
        }
      }
      hA.dispose();
      hB.dispose();
      const dir = writeRaw(A, { transpose });
      const s = python([dir, 'spgemm', '0', '3']) as { ms: number; cpuMs: number; nnz: number; faults?: number } | string;
      rmSync(dir, { recursive: true, force: true });
      const py = typeof s === 'string' ? undefined : s;
      const row = { product, nnz, ms: median(times[0]), cpuMs: median(cpus[0]), handleMs: median(times[1]), handleCpuMs: median(cpus[1]), outMs: median(times[2]), outCpuMs: median(cpus[2]), callerCpuMs: median(split[0]), workerCpuMs: median(split[1]), faults: median(faults), scipyMs: py?.ms ?? null, scipyCpuMs: py?.cpuMs ?? null, scipyFaults: py?.faults ?? null, note: py ? (py.nnz === nnz ? '' : `SciPy's product has ${py.nnz} entries`) : (s as string) };
      spgemm.push(row);
      log(`  spgemm ${product}: ${nnz} entries, ours ${row.ms.toFixed(0)} ms (CPU ${row.cpuMs.toFixed(0)}: calling thread ${row.callerCpuMs.toFixed(0)}, busiest worker ${row.workerCpuMs.toFixed(0)}; ${row.faults} page faults), handles ${row.handleMs.toFixed(0)} ms (CPU ${row.handleCpuMs.toFixed(0)}), into out ${row.outMs.toFixed(0)} ms (CPU ${row.outCpuMs.toFixed(0)}), SciPy ${row.scipyMs?.toFixed(0) ?? 'n/a'} ms (CPU ${row.scipyCpuMs?.toFixed(0) ?? 'n/a'}${row.scipyFaults === null ? '' : `; ${row.scipyFaults} page faults`}) ${row.note}`);
    }
    return { rows, spgemm };
  } finally {
    rt.dispose();
  }
}

function formatRow(r: AmgBenchRow): string {
  const py = (p: PyamgOut | string) => (typeof p === 'string' ? p : `${p.iterations} its, setup ${p.setupMs.toFixed(0)} + solve ${p.solveMs.toFixed(0)} ms (CPU ${p.cpuMs.toFixed(0)}), levels ${p.levels.join('/')}, OC ${p.operatorComplexity.toFixed(2)}`);
  return [
    `  ${r.matrix} (${r.rows} rows)`,
    `    ours, defaults (rt.solve → ${r.defaults.preconditioner}): ${r.defaults.ms.toFixed(0)} ms (CPU ${r.defaults.cpuMs.toFixed(0)}), ${r.defaults.iterations} its, converged ${r.defaults.converged}, relres ${r.defaults.relres.toExponential(1)}`,
    `    ours, smoother jacobi: ${r.jacobi.iterations} its, setup ${r.jacobi.setupMs.toFixed(0)} + solve ${r.jacobi.solveMs.toFixed(0)} ms, levels ${r.jacobi.levels.join('/')}, OC ${r.jacobi.operatorComplexity.toFixed(2)}`,
    `    PyAMG, same settings: ${py(r.pyamgSame)}`,
    `    PyAMG, its defaults:  ${py(r.pyamgDefaults)}`,
    ...(r.plainCg ? [`    ours, plain CG: ${r.plainCg.ms.toFixed(0)} ms (CPU ${r.plainCg.cpuMs.toFixed(0)}), ${r.plainCg.iterations} its`] : []),
  ].join('\n');
}
