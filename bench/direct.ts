/**
 * Sparse direct solves against SciPy in the same run (issue 24's goals): `rt.factor(A)` + `F.solve(b)`
 * with the defaults (kind 'auto', ordering 'auto', one refinement step) against
 * scipy.sparse.linalg.spsolve (SuperLU, COLAMD, OPENBLAS_NUM_THREADS=1; bench/peers/scipy_spsolve.py)
 * on every square shared matrix and on poisson2D(256), poisson3D(32) and elasticity2D(128); the solve
 * with a kept factor against factor + solve; the true relative residual of both. b = A·ones. Medians
 * of at least 3 timed runs after a warm-up of a second or 200 runs (the JIT compiles the kernels
 * during the first calls: the first call's time is printed apart); SciPy's file reading and tocsc are
 * outside its timing, our conversion of the CSR to columns is inside ours. Each side's process CPU time is measured too (its
 * median printed as "cpu"): on a loaded machine the wall times mostly measure the scheduler.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../src/runtime/runtime.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { median } from '../src/metrics.js';
import type { CSRMatrix } from '../src/formats/csr.js';

export interface DirectRow {
  matrix: string;
  n: number;
  nnz: number;
  /** grid-like (a generated PDE matrix): the ≥ 2× goal applies */
  grid: boolean;
  /** what ours did, or why it could not */
  kind: string;
  ordering: string;
  fill: number;
  factorSolveMs: number | null;
  /** the first factor + solve of the matrix (cold: before the JIT has compiled the kernels) */
  firstCallMs: number | null;
  /** process CPU time of factor + solve (median) */
  factorSolveCpuMs: number | null;
  solveMs: number | null;
  relres: number | null;
  scipyMs: number | null;
  scipyCpuMs: number | null;
  scipySolveMs: number | null;
  scipyRelres: number | null;
  scipyFill: number | null;
  error?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const PY = [join(here, 'peers', 'scipy_spsolve.py'), join(here, '..', 'bench', 'peers', 'scipy_spsolve.py')].find((p) => existsSync(p)) ?? 'scipy_spsolve.py';

interface ScipyResult { ms?: number; cpuMs?: number; factorMs?: number; solveMs?: number; relres?: number; fill?: number; error?: string; scipy: string }

function scipy(file: string): ScipyResult | string {
  const tried: string[] = [];
  for (const py of [process.env.SIMDGL_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[]) {
    try {
      return JSON.parse(execFileSync(py, [PY, file, '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } }));
    } catch (e) {
      tried.push(`${py}: ${String((e as { stderr?: string }).stderr ?? e).trim().split('\n').pop()}`);
    }
  }
  return `no Python with SciPy found (set SIMDGL_PYTHON): ${tried.join('; ')}`;
}

/** b = A·ones (interleaved complex for complex A), in f64. */
function rhsOnes(A: CSRMatrix): Float64Array {
  const c = A.dtype === 'c128' || A.dtype === 'c64' ? 2 : 1;
  const b = new Float64Array(A.rows * c);
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      b[c * i] += A.values[c * k];
      if (c === 2) b[2 * i + 1] += A.values[2 * k + 1];
    }
  }
  return b;
}

export async function benchDirect(log: (s: string) => void, matrixDir = join(here, '..', 'data', 'matrices')): Promise<DirectRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'simdgl-direct-'));
  const rows: DirectRow[] = [];
  const rt = await createRuntime();
  try {
    const shared = ['bcsstk01', 'bcsstk13', '494_bus', 'dwt_992', 'west0479', 'rajat01', 'olm1000', 'young1c', 'qc324', 't1'];
    const sources: [string, boolean, () => { A: CSRMatrix; file: string }][] = [
      ...shared.map((m): [string, boolean, () => { A: CSRMatrix; file: string }] => [m, false, () => {
        const file = join(matrixDir, `${m}.mtx`);
        return { A: parseMatrixMarket(readFileSync(file)).matrix.toCSR(), file };
      }]),
      ...([['poisson2D(256)', () => poisson2D(256)], ['poisson3D(32)', () => poisson3D(32)], ['elasticity2D(128)', () => elasticity2D(128)]] as const).map(
        ([m, make]): [string, boolean, () => { A: CSRMatrix; file: string }] => [m, true, () => {
          const A = make();
          const file = join(dir, `${m.replace(/[()]/g, '_')}.mtx`);
          writeFileSync(file, writeMatrixMarket(A));
          return { A, file };
        }],
      ),
    ];
    // SIMDGL_DIRECT_CASES=west0479,olm1000 (names, comma-separated) runs only those cases
    const only = process.env.SIMDGL_DIRECT_CASES?.split(',').filter(Boolean);
    for (const [name, grid, load] of sources.filter(([m]) => !only || only.includes(m))) {
      let A: CSRMatrix, file: string;
      try {
        ({ A, file } = load());
      } catch (e) {
        log(`  ${name}: could not load (${(e as Error).message}), skipped`);
        continue;
      }
      const b = rhsOnes(A);
      const row: DirectRow = {
        matrix: name, n: A.rows, nnz: A.nnz, grid, kind: '', ordering: '', fill: 0, firstCallMs: null, factorSolveMs: null, factorSolveCpuMs: null, solveMs: null, relres: null,
        scipyMs: null, scipyCpuMs: null, scipySolveMs: null, scipyRelres: null, scipyFill: null,
      };
      try {
        const t: number[] = [];
        const cpu: number[] = [];
        // the first call (cold: the JIT has not compiled the kernels yet) is reported on its own; the
        // timed runs start after a warm-up of a second or 200 calls, whichever comes first
        const f0 = performance.now();
        let F = await rt.factor(A);
        await F.solve(b);
        row.firstCallMs = performance.now() - f0;
        for (let w = 1, start = performance.now(); w < 200 && performance.now() - start < 1000; w++) {
          F.dispose();
          F = await rt.factor(A);
          await F.solve(b);
        }
        // at least 3 runs, and more while under half a second (at most 50), as the SciPy peer
        for (const start = performance.now(); t.length < 3 || (performance.now() - start < 500 && t.length < 50); ) {
          F.dispose();
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          F = await rt.factor(A);
          await F.solve(b);
          t.push(performance.now() - t0);
          const c = process.cpuUsage(c0);
          cpu.push((c.user + c.system) / 1000);
        }
        // the kept solve warms up on its own: a tiny one (t1: 0.4 µs) needs thousands of calls before
        // the JIT has optimized it, more than the factor + solve warm-up above makes
        for (let w = 0, start = performance.now(); w < 20000 && performance.now() - start < 200; w++) await F.solve(b);
        const ts: number[] = [];
        let res = 0;
        for (const start = performance.now(); ts.length < 5 || (performance.now() - start < 500 && ts.length < 50); ) {
          const t0 = performance.now();
          res = (await F.solve(b)).relativeResidual;
          ts.push(performance.now() - t0);
        }
        const info = F.info;
        Object.assign(row, { kind: info.kind, ordering: info.ordering, fill: info.fillNnz, factorSolveMs: median(t), factorSolveCpuMs: median(cpu), solveMs: median(ts), relres: res });
        F.dispose();
      } catch (e) {
        row.error = `${(e as Error).name}: ${(e as Error).message}`;
      }
      const py = scipy(file);
      if (typeof py === 'string') row.error = (row.error ? row.error + '; ' : '') + py;
      else if (py.error || !(py.relres! < 1)) row.error = (row.error ? row.error + '; ' : '') + `SciPy: ${py.error ?? `residual ${py.relres}`}`;
      else Object.assign(row, { scipyMs: py.ms, scipyCpuMs: py.cpuMs ?? null, scipySolveMs: py.solveMs, scipyRelres: py.relres, scipyFill: py.fill });
      rows.push(row);
      const f = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));
      const e = (v: number | null) => (v === null ? '—' : v.toExponential(1));
      log(
        `  ${name.padEnd(18)} n=${String(A.rows).padStart(6)} nnz=${String(A.nnz).padStart(7)}  ours ${row.kind || '—'}/${row.ordering || '—'} fill ${row.fill || '—'}: ` +
          `factor+solve ${f(row.factorSolveMs)} ms (first call ${f(row.firstCallMs)} ms), solve ${f(row.solveMs, 2)} ms, relres ${e(row.relres)} | SciPy spsolve ${f(row.scipyMs)} ms ` +
          `(kept-factor solve ${f(row.scipySolveMs, 2)} ms, fill ${row.scipyFill ?? '—'}, relres ${e(row.scipyRelres)})` +
          (row.factorSolveMs && row.scipyMs ? ` → SciPy/ours ${(row.scipyMs / row.factorSolveMs).toFixed(2)}×` : '') +
          (row.factorSolveCpuMs && row.scipyCpuMs ? ` (cpu ${f(row.factorSolveCpuMs, 2)} vs ${f(row.scipyCpuMs, 2)} ms: ${(row.scipyCpuMs / row.factorSolveCpuMs).toFixed(2)}×)` : '') +
          (row.error ? `  [${row.error}]` : ''),
      );
    }
  } finally {
    rt.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
