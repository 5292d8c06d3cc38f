/**
 * CG with the defaults against SciPy in the same run (issue 12's goal): `rt.cg(rt.upload(A), b)` with
 * A as readMatrixMarket gives it (COO), no options (so the runtime chooses the format and uses every
 * core), f64, b = ones, to 1e-8 — against scipy.sparse.linalg.cg on the same file (bench/peers/scipy_cg.py,
 * a Python with SciPy: $SIMDGL_PYTHON, python3 or /usr/bin/python3). Also the same solve with
 * format: 'keep' (CG on COO, the old default), so the ratio of the two defaults is measured too.
 * Medians of 3 solves, alternating between the two uploads after one untimed solve of each; iteration
 * counts printed beside each other.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../src/runtime/runtime.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';
import { poisson3D } from '../src/generators/poisson.js';
import { median } from '../src/metrics.js';

export interface CgDefaultsRow {
  matrix: string;
  rows: number;
  nnz: number;
  ms: number;
  iterations: number;
  format: string;
  keepMs: number;
  scipyMs: number | null;
  scipyIterations: number | null;
}

const here = dirname(fileURLToPath(import.meta.url));
// beside this file, or from the bundle in build/
const PY = [join(here, 'peers', 'scipy_cg.py'), join(here, '..', 'bench', 'peers', 'scipy_cg.py')].find((p) => existsSync(p)) ?? 'scipy_cg.py';

function scipy(file: string): { ms: number; iterations: number; scipy: string } | string {
  const tried: string[] = [];
  for (const py of [process.env.SIMDGL_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[]) {
    try {
      return JSON.parse(execFileSync(py, [PY, file, '1e-8', '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (e) {
      // no SciPy in this Python: try the next
      tried.push(`${py}: ${String((e as { stderr?: string }).stderr ?? e).trim().split('\n').pop()}`);
    }
  }
  return `no Python with SciPy found (set SIMDGL_PYTHON): ${tried.join('; ')}`;
}

export async function benchCgDefaults(log: (s: string) => void, matrixDir = join(here, '..', 'data', 'matrices')): Promise<CgDefaultsRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'simdgl-cg-'));
  const rows: CgDefaultsRow[] = [];
  try {
    const sources: [string, () => string][] = [
      ['poisson3D_64', () => {
        const f = join(dir, 'poisson3D_64.mtx');
        writeFileSync(f, writeMatrixMarket(poisson3D(64)));
        return f;
      }],
      // SPD and of moderate condition (bcsstk13, also SPD, needs more than 10·n iterations in both)
      ['494_bus', () => join(matrixDir, '494_bus.mtx')],
    ];
    const rt = await createRuntime();
    log(`  simdgl: ${rt.capabilities().threads} threads (the default), f64, tol 1e-8`);
    for (const [name, make] of sources) {
      let file: string;
      try {
        file = make();
        readFileSync(file, { flag: 'r' });
      } catch {
        log(`  ${name}: file not found, skipped`);
        continue;
      }
      const coo = parseMatrixMarket(readFileSync(file)).matrix; // COO, as a user gets it
      const b = new Float64Array(coo.rows).fill(1);
      // the solve is timed, as SciPy's is (its file reading and tocsr are outside its timing too)
      // both uploads solve once untimed (kernels, partitions and the solver's JIT warm), then their
      // timed solves alternate, so neither side is measured while the other warms up
      const handles = [rt.upload(coo), rt.upload(coo, { format: 'keep' })];
      const times: number[][] = [[], []];
      const results: Array<Awaited<ReturnType<typeof rt.cg>>> = [];
      for (const h of handles) results.push(await rt.cg(h, b));
      for (let k = 0; k < 3; k++) {
        for (let j = 0; j < 2; j++) {
          const t0 = performance.now();
          results[j] = await rt.cg(handles[j], b);
          times[j].push(performance.now() - t0);
        }
      }
      const [ours, keep] = [0, 1].map((j) => ({
        ms: median(times[j]), iterations: results[j].iterations, converged: results[j].converged, format: handles[j].format,
      }));
      for (const h of handles) h.dispose();
      const py = scipy(file);
      const row: CgDefaultsRow = {
        matrix: name, rows: coo.rows, nnz: coo.nnz, ms: ours.ms, iterations: ours.iterations, format: ours.format, keepMs: keep.ms,
        scipyMs: typeof py === 'string' ? null : py.ms, scipyIterations: typeof py === 'string' ? null : py.iterations,
      };
      rows.push(row);
      log(
        `  ${name} (${coo.rows} rows, ${coo.nnz} nnz): rt.cg(rt.upload(A), b) ${ours.ms.toFixed(0)} ms, ${ours.iterations} it (${ours.format}${ours.converged ? '' : ', NOT converged'}); ` +
          `format 'keep' (COO) ${keep.ms.toFixed(0)} ms; ` +
          (typeof py === 'string' ? `SciPy: ${py}` : `SciPy ${py.scipy} ${py.ms.toFixed(0)} ms, ${py.iterations} it → SciPy/simdgl ${(py.ms / ours.ms).toFixed(2)}×, COO/default ${(keep.ms / ours.ms).toFixed(2)}×`),
      );
    }
    rt.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
