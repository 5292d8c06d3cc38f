/**
 * A loop of K solves of one matrix — a time-stepping loop's rt.solve(A, bₖ) — with the defaults: the
 * first solve sets up and keeps its factor or preconditioner with A (src/runtime/kept-setup.ts), the
 * next use it, and 'auto' factorizes a matrix it keeps solving once the Krylov solves would have paid
 * for it (chooseDirectAgain's rent or buy). Against SciPy's and PyAMG's methods with their set-up kept
 * likewise (bench/peers/scipy_solve.py --kept: splu's LU, D⁻¹, spilu's factors, PyAMG's
 * smoothed-aggregation hierarchy made once), in the same run, OPENBLAS_NUM_THREADS=1; f64, b = 1 (ours:
 * b = 1 + k·10⁻³ at solve k, each its own answer), a true relative residual ≤ 1e-8. Ours: the loop run,
 * upload included, timed whole and per solve (the first apart; where 'auto' switched to the factor,
 * the solves before and after it). The peer's loop: its set-up + K × the median of its kept solves
 * (at least 7, filling 2 s). The same loop with `reuse: false`, each solve setting up as rt.solve did
 * before it kept the set-up; where 'auto' runs a Krylov method, a loop with method 'direct' too. The
 * Poisson cases' peers: spsolve (SuperLU) where its fill fits (not at 1 M unknowns), cg + Jacobi below
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
  k: number;
  /** ours: the loop's total ms (upload and first solve included), and the first solve's */
  loopMs: number;
  firstMs: number;
  /** the best peer's loop: its set-up + k × its kept solve's median */
  peer: { method: string; loopMs: number } | null;
}

interface Case {
  name: string;
  A: () => CSRMatrix;
  source: string;
  /** solves in the loop */
  k: number;
  peers?: string[];
}

/** ours: upload, then a loop of k solves (options `o`): the total, each solve's ms and method, the last outcome */
async function loop(rt: Runtime, A: CSRMatrix, k: number, o: Parameters<Runtime['solve']>[2] = {}) {
  const t0 = performance.now();
  const h = rt.upload(A);
  try {
    const each: { ms: number; how: string }[] = [];
    let r;
    let worst = 0;
    for (let j = 0; j < k; j++) {
      const b = new Float64Array(A.rows).fill(1 + j * 1e-3);
      const t = performance.now();
      r = await rt.solve(h, b, { ...o, tol: TOL });
      each.push({ ms: performance.now() - (j === 0 ? t0 : t), how: r.method === 'direct' ? `direct${r.reused ? ' (kept)' : ''}` : `${r.method} + ${r.preconditioner}${r.reused ? ' (kept)' : ''}` });
      worst = Math.max(worst, r.relativeResidual);
    }
    return { loopMs: performance.now() - t0, each, r: r!, worst };
  } finally {
    h.dispose();
  }
}

/** A loop's solves in words: the first, then each run of solves done the same way (count, median ms). */
function runs(each: { ms: number; how: string }[]): string {
  const out = [`first ${ms(each[0].ms)} ms (${each[0].how})`];
  for (let j = 1; j < each.length; ) {
    let e = j;
    while (e < each.length && each[e].how === each[j].how) e++;
    out.push(`${e - j} × ${each[j].how}: median ${ms(median(each.slice(j, e).map((x) => x.ms)))} ms`);
    j = e;
  }
  return out.join(', then ');
}

export async function benchRepeat(log: (s: string) => void, matrixDir = join(here, '..', 'data', 'matrices')): Promise<RepeatRow[]> {
  const mtx = (name: string) => () => parseMatrixMarket(readFileSync(join(matrixDir, `${name}.mtx`))).matrix.toCSR() as CSRMatrix;
  const cases: Case[] = [
    ...['bcsstk13', 'west0479', 'olm1000'].map((name) => ({ name, A: mtx(name), source: join(matrixDir, `${name}.mtx`), k: 100 })),
    { name: 'poisson2D(512)', A: () => poisson2D(512), source: 'poisson2D:512', k: 100, peers: ['spsolve', 'cg+jacobi', 'pyamg'] },
    { name: 'poisson2D(1024)', A: () => poisson2D(1024), source: 'poisson2D:1024', k: 30, peers: ['pyamg'] },
  ];
  const rt = await createRuntime();
  const rows: RepeatRow[] = [];
  try {
    for (const c of cases) {
      const A = c.A();
      const o = await loop(rt, A, c.k);
      const py = scipy(c.source, 7, 1, c.peers, true);
      let peer: RepeatRow['peer'] = null;
      let peers = typeof py === 'string' ? py : '';
      if (typeof py !== 'string') {
        const said: string[] = [];
        for (const [name, m] of Object.entries(py.methods)) {
          if (!m || 'skipped' in m) {
            said.push(`${name}: ${m ? m.skipped : 'one solve past 5 s'}`);
            continue;
          }
          const total = (m.setupMs ?? 0) + c.k * m.ms;
          said.push(`${name} set-up ${ms(m.setupMs ?? 0)} ms + a solve ${ms(m.ms)} ms${m.ok ? ` = ${ms(total)} ms` : ` (residual ${m.relres?.toExponential(1) ?? 'NaN'}: no solution)`}`);
          if (m.ok && (!peer || total < peer.loopMs)) peer = { method: name, loopMs: total };
        }
        peers = `SciPy ${py.scipy}, set-up kept, a loop of ${c.k}: ${said.join('; ')}`;
      }
      const ratio = peer && o.worst <= TOL ? ` → best peer (${peer.method}) / simdgl ${(peer.loopMs / o.loopMs).toFixed(2)}×` : o.worst > TOL ? ` (a solve's true residual ${o.worst.toExponential(1)} missed tol)` : '';
      log(`  ${c.name} (${A.rows} rows), a loop of ${c.k} solves: simdgl ${ms(o.loopMs)} ms, upload included${ratio}`);
      log(`      ours: ${runs(o.each)}; worst true residual ${o.worst.toExponential(1)}`);
      log(`      ${peers}`);
      // the same loop with every solve setting up (what rt.solve did before it kept the set-up with A)
      const f = await loop(rt, A, c.k, { reuse: false });
      log(`      reuse: false (each solve sets up): ${ms(f.loopMs)} ms (${runs(f.each)}); ours / it ${(f.loopMs / o.loopMs).toFixed(2)}×`);
      if (o.r.method !== 'direct' || o.each.some((x) => !x.how.startsWith('direct'))) {
        const d = await loop(rt, A, c.k, { method: 'direct' });
        log(`      method 'direct' asked for: ${ms(d.loopMs)} ms (${runs(d.each)})${peer ? `; best peer / it ${(peer.loopMs / d.loopMs).toFixed(2)}×` : ''}`);
      }
      rows.push({ matrix: c.name, k: c.k, loopMs: o.loopMs, firstMs: o.each[0].ms, peer });
    }
  } finally {
    rt.dispose();
  }
  return rows;
}
