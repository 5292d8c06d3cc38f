import { DEFAULT_TOL, maxIterOf, sequence, sequenceNow, type SolveOptions, type SolveResult, type SolverOps, type SolverStep, type StopReason } from '../ops.js';
import { abs, add, conj, div, mul, neg, sub, type C } from './complex.js';
import { startResidual } from './start.js';

/** A restart cycle that does not bring the true residual this fraction below the best one so far gains nothing … */
const STAGNATION = 1e-3;
/** … and this many such cycles in a row end the solve as 'stagnated'. */
const STAGNANT_CYCLES = 5;

/** GMRES's own option: the restart length. */
export interface GmresOptions<V> extends SolveOptions<V> {
  /** Krylov vectors per cycle before a restart (default 30, PETSc's and SciPy's) */
  restart?: number;
}

/**
 * Restarted GMRES(m) with right preconditioning (A·M⁻¹·u = b, x = M⁻¹·u: the residual it minimises is
 * the true one, not a preconditioned one) for any square A, real or complex. Orthogonalisation is
 * classical Gram–Schmidt applied twice (CGS2): as accurate as modified Gram–Schmidt — orthogonal to
 * working precision, where one CGS pass loses it on ill-conditioned A (docs/solvers.md has the
 * measurement) — with each pass's dot products independent of each other. The least-squares problem is
 * kept triangular by Givens rotations, so the residual norm is known every iteration without a
 * product; each cycle ends with x updated and the residual recomputed as b − A·x. STAGNANT_CYCLES
 * cycles in a row that gain almost nothing (a singular A, or m too small for A) end it as 'stagnated'.
 */
export async function gmres<V>(ops: SolverOps<V>, b: V, options: GmresOptions<V> = {}): Promise<SolveResult<V>> {
  const { tol = DEFAULT_TOL, onIteration, signal } = options;
  const maxIter = maxIterOf(options.maxIter, ops.n);
  const m = Math.max(1, Math.min(options.restart ?? 30, ops.n));
  const fused = ops.gramSchmidt?.bind(ops);
  let endStep: (() => void) | undefined;
  const x = ops.vector();
  const r = ops.vector();
  let w = ops.vector();
  const z = ops.vector();
  // V and H grow with the iterations a cycle runs, not with m: a restart far beyond them (1e6 on 8000
  // unknowns) allocated an (m+1)×m Hessenberg of 64 M entries up front and took the process out of memory
  const V: V[] = [];
  try {
    V.push(ops.vector());
    const start = await startResidual(ops, b, x, r, options.x0);
    const scale = start.scale;
    let rnorm = start.rnorm;
    const history = [rnorm / scale];
    let reason: StopReason = rnorm / scale <= tol ? 'converged' : 'maxIter';
    if (Number.isNaN(rnorm)) reason = 'nan';
    let it = 0;
    // cycles in a row that did not improve on the best residual by STAGNATION (a singular A, GMRES(m)
    // stalled, or a preconditioner so ill-conditioned that rounding swamps the progress)
    let flat = 0;
    let best = rnorm;
    // H: (m+1)×m upper Hessenberg, column-major (column k: its k + 2 rows); g: the rotated right-hand side
    const H: C[][] = [];
    const cs: C[] = new Array(m);
    const sn: C[] = new Array(m);
    while (reason === 'maxIter' && it < maxIter) {
      const g: C[] = [[rnorm, 0]];
      // V[k] ← w/h(k, k−1) (V[0] ← r/‖r‖), run at the head of the product's sequence that reads it
      let next: SolverStep<V>[] = [
        ['copy', r, V[0]],
        ['scal', [1 / rnorm, 0], V[0]],
      ];
      let k = 0;
      for (; k < m && it < maxIter; k++) {
        if (signal?.aborted) {
          reason = 'aborted';
          break;
        }
        const Vk = ops.precondition ? z : V[k];
        // the iteration's operations run one way, measured as one (SolverOps.step), per quarter of the
        // cycle (its passes grow with k): ended before onIteration
        endStep = ops.step?.(`gmres ${Math.min(3, k >> 3)}`);
        // each pass's dot products, then its updates (the next pass's dots, or ‖w‖, in the same sequence);
        // where the path fuses a pass (gramSchmidt: the CPU pool's), one call over w and V each
        const product = next;
        if (ops.precondition) product.push(['precondition', V[k], z]);
        product.push(['spmv', Vk, w, 1, 0]);
        const basis = fused ? V.slice(0, k + 1) : V;
        if (!fused) for (let i = 0; i <= k; i++) product.push(['dot', V[i], w]);
        let c: C[] = sequenceNow(ops, product) ?? (await sequence(ops, product));
        if (fused) c = await fused(basis, w, null, 'dots');
        const h = (H[k] ??= Array.from({ length: k + 2 }, (): C => [0, 0]));
        let hn = 0;
        for (let pass = 0; pass < 2; pass++) {
          for (let i = 0; i <= k; i++) h[i] = add(h[i], c[i]);
          if (fused) {
            c = await fused(basis, w, c, pass === 0 ? 'dots' : 'squares');
            // ‖w‖ from the pass's Σw² where that is in range (no overflow or underflow in the squares), else by nrm2
            if (pass === 1) c = [[c[0][0] > 1e-290 && c[0][0] < 1e290 ? Math.sqrt(c[0][0]) : (await sequence(ops, [['nrm2', w]]))[0][0], 0]];
          } else {
            const update: SolverStep<V>[] = [];
            for (let i = 0; i <= k; i++) update.push(['axpy', neg(c[i]), V[i], w]);
            if (pass === 0) for (let i = 0; i <= k; i++) update.push(['dot', V[i], w]);
            else update.push(['nrm2', w]);
            c = sequenceNow(ops, update) ?? (await sequence(ops, update));
          }
          if (pass === 1) hn = c[0][0];
        }
        h[k + 1] = [hn, 0];
        // the earlier rotations, then a new one zeroing h[k+1]
        for (let i = 0; i < k; i++) {
          const t = add(mul(conj(cs[i]), h[i]), mul(conj(sn[i]), h[i + 1]));
          h[i + 1] = sub(mul(cs[i], h[i + 1]), mul(sn[i], h[i]));
          h[i] = t;
        }
        const den = Math.hypot(abs(h[k]), hn);
        if (!(den > 0) || !Number.isFinite(den)) {
          reason = Number.isNaN(den) ? 'nan' : 'breakdown';
          break;
        }
        cs[k] = abs(h[k]) === 0 ? [0, 0] : [h[k][0] / den, h[k][1] / den];
        sn[k] = [hn / den, 0];
        h[k] = add(mul(conj(cs[k]), h[k]), mul(conj(sn[k]), h[k + 1]));
        h[k + 1] = [0, 0];
        g[k + 1] = neg(mul(sn[k], g[k]));
        g[k] = mul(conj(cs[k]), g[k]);
        it++;
        rnorm = abs(g[k + 1]);
        history.push(rnorm / scale);
        endStep?.();
        if (onIteration) await onIteration(it, rnorm / scale);
        if (rnorm / scale <= tol) {
          k++;
          break;
        }
        // a lucky breakdown: the Krylov space is invariant, the solution is in it
        if (hn === 0) {
          k++;
          break;
        }
        // V[k+1] ← w/h(k+1, k) in w's own storage, w taking the vector that held V[k+1] (or a new
        // one): the bits of a copy and a scal, one pass fewer
        const held = V[k + 1] ?? ops.vector();
        V[k + 1] = w;
        w = held;
        next = [['scal', [1 / hn, 0], V[k + 1]]];
      }
      // a step the loop left by a break ends here
      endStep?.();
      if (k > 0) {
        // y = R⁻¹·g, then x += M⁻¹·(V·y)
        const y: C[] = new Array(k);
        for (let i = k - 1; i >= 0; i--) {
          let s = g[i];
          for (let j = i + 1; j < k; j++) s = sub(s, mul(H[j][i], y[j]));
          y[i] = div(s, H[i][i]);
        }
        const update: SolverStep<V>[] = [['scal', [0, 0], w]];
        for (let i = 0; i < k; i++) update.push(['axpy', y[i], V[i], w]);
        if (ops.precondition) update.push(['precondition', w, z], ['axpy', [1, 0], z, x]);
        else update.push(['axpy', [1, 0], w, x]);
        await sequence(ops, update);
      }
      for (const col of H) for (const e of col) e[0] = e[1] = 0;
      if (reason !== 'maxIter') break;
      // the true residual of this cycle's x starts the next
      const [[trueNorm]] = await sequence(ops, [
        ['copy', b, r],
        ['spmv', x, r, -1, 1],
        ['nrm2', r],
      ]);
      if (Number.isNaN(trueNorm)) reason = 'nan';
      else if (trueNorm / scale <= tol) reason = 'converged';
      else if (trueNorm > (1 - STAGNATION) * best) {
        if (++flat >= STAGNANT_CYCLES) reason = 'stagnated';
      } else {
        flat = 0;
        best = trueNorm;
      }
      rnorm = trueNorm;
    }
    return { x, iterations: it, residualNorm: rnorm, relativeResidual: rnorm / scale, converged: reason === 'converged', reason, history };
  } catch (e) {
    ops.release(x);
    throw e;
  } finally {
    endStep?.();
    for (const v of [r, w, z, ...V]) ops.release(v);
  }
}
