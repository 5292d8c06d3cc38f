/**
 * Repeated solves of one matrix — a time-stepping loop's rt.solve(A, bₖ) — with the defaults, whose
 * factor or preconditioner the first solve set up and kept with A (src/runtime/kept-setup.ts),
 * against SciPy's and PyAMG's methods with their set-up kept likewise (bench/peers/scipy_solve.py
 * --kept: splu's LU, D⁻¹, spilu's factors, PyAMG's smoothed-aggregation hierarchy made once), in the
 * same run, OPENBLAS_NUM_THREADS=1; f64, b = 1, a true relative residual ≤ 1e-8. Ours: the upload and
 * first solve (set-up included) timed apart, then medians of the solves after it (31 after a second
 * of untimed ones below 20 000 rows; SciPy's at least 7 filling 2 s). Where 'auto' runs
 * a Krylov method, method 'direct' repeated too (its factor kept): what a loop of many solves of a
 * 2-D grid gains from a factorization that 'auto' does not choose for one solve. The peers of the
 * two Poisson cases: spsolve (SuperLU) where its fill fits (not at 1 M unknowns), cg + Jacobi below
 * 300 000 rows (28 s a solve at poisson2D(1024) in the solve bench), PyAMG; not spilu's (stopped after
 * 60 s in the solve bench). No goal: issue 20's goals time the first solve (bench/solve.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { poisson2D } from '../src/generators/poisson.js';
import { median } from '../src/metrics.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { scipy, TOL } from './solve.js';

const here = dirname(fileURLToPath(import.meta.url));
/** ms with three decimals below 1 ms (a kept factor's solve of a small matrix: 0.04–0.4 ms) */
const ms = (t: number) => t.toFixed(t < 1 ? 3 : 1);

export interface RepeatRow {
  matrix: string;
  /** 'auto''s solves again (median), and the first (upload + set-up + solve) */
  againMs: number;
  firstMs: number;
  what: string;
  converged: boolean;
  /** the best peer by its solves with the set-up kept */
  peer: { method: string; ms: number; setupMs: number } | null;
}

interface Case {
  name: string;
  A: () => CSRMatrix;
  source: string;
  reps: number;
  peers?: string[];
}

/** ours: upload, the first solve, then `reps` more of the same handle (options `o`) */
async function repeated(rt: Runtime, A: CSRMatrix, reps: number, o: Parameters<Runtime['solve']>[2] = {}) {
  const b = new Float64Array(A.rows).fill(1);
  const t0 = performance.now();
  const h = rt.upload(A);
  try {
    const first = await rt.solve(h, b, { ...o, tol: TOL });
    const firstMs = performance.now() - t0;
    // below 20 000 rows a second of untimed solves first, as bench/solve.ts warms up: V8 is still
    // compiling the solve's code over the first calls (olm1000: 0.4 ms a solve over calls 2–16, 0.06 warm)
    const until = performance.now() + (A.rows < 20_000 ? 1000 : 0);
    for (let k = 0; k < 5000 && performance.now() < until; k++) await rt.solve(h, b, { ...o, tol: TOL });
    const times: number[] = [];
    let r = first;
    for (let k = 0; k < reps; k++) {
      const t = performance.now();
      r = await rt.solve(h, b, { ...o, tol: TOL });
      times.push(performance.now() - t);
    }
    return { firstMs, againMs: median(times), r, first };
  } finally {
    h.dispose();
  }
}

export async function benchRepeat(log: (s: string) => void, matrixDir = join(here, '..', 'data', 'matrices')): Promise<RepeatRow[]> {
  const mtx = (name: string) => () => parseMatrixMarket(readFileSync(join(matrixDir, `${name}.mtx`))).matrix.toCSR() as CSRMatrix;
  const cases: Case[] = [
    ...['bcsstk13', 'west0479', 'olm1000'].map((name) => ({ name, A: mtx(name), source: join(matrixDir, `${name}.mtx`), reps: 31 })),
    { name: 'poisson2D(512)', A: () => poisson2D(512), source: 'poisson2D:512', reps: 5, peers: ['spsolve', 'cg+jacobi', 'pyamg'] },
    { name: 'poisson2D(1024)', A: () => poisson2D(1024), source: 'poisson2D:1024', reps: 3, peers: ['pyamg'] },
  ];
  const rt = await createRuntime();
  const rows: RepeatRow[] = [];
  try {
    for (const c of cases) {
      const A = c.A();
      const o = await repeated(rt, A, c.reps);
      const r = o.r;
      const what = `${r.method} + ${r.preconditioner}${r.reused ? ` (${r.reused} kept)` : ' (nothing kept)'}, ${r.iterations} it, true ${r.relativeResidual.toExponential(1)}`;
      const py = scipy(c.source, c.reps, 1, c.peers, true);
      let peer: RepeatRow['peer'] = null;
      let peers = typeof py === 'string' ? py : '';
      if (typeof py !== 'string') {
        const said: string[] = [];
        for (const [name, m] of Object.entries(py.methods)) {
          if (!m || 'skipped' in m) {
            said.push(`${name}: ${m ? m.skipped : 'one solve past 5 s'}`);
            continue;
          }
          said.push(`${name} ${ms(m.ms)} ms (set-up ${ms(m.setupMs ?? 0)} ms)${m.ok ? '' : ` (residual ${m.relres?.toExponential(1) ?? 'NaN'}: no solution)`}`);
          if (m.ok && (!peer || m.ms < peer.ms)) peer = { method: name, ms: m.ms, setupMs: m.setupMs ?? 0 };
        }
        peers = `SciPy ${py.scipy}, set-up kept, a solve: ${said.join('; ')}`;
      }
      const ratio = peer && r.converged ? ` → best peer (${peer.method}) / simdgl ${(peer.ms / o.againMs).toFixed(2)}×` : '';
      log(`  ${c.name} (${A.rows} rows): rt.solve again ${ms(o.againMs)} ms (median of ${c.reps}; first ${ms(o.firstMs)} ms with upload and set-up), ${what}${ratio}`);
      log(`      ${peers}`);
      if (r.method !== 'direct') {
        const d = await repeated(rt, A, c.reps, { method: 'direct' });
        log(`      method 'direct' repeated: again ${ms(d.againMs)} ms (first ${ms(d.firstMs)} ms: ${d.first.factor?.kind}, ${d.first.factor?.ordering} ordering), true ${d.r.relativeResidual.toExponential(1)}${peer ? `; best peer / it ${(peer.ms / d.againMs).toFixed(2)}×` : ''}`);
      }
      rows.push({ matrix: c.name, againMs: o.againMs, firstMs: o.firstMs, what, converged: r.converged, peer });
    }
  } finally {
    rt.dispose();
  }
  return rows;
}
