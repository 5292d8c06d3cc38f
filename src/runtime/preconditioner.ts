import { DisposedError } from '../errors.js';
import type { PathId } from '../path.js';
import type { PreconditionerOperator } from '../solvers/operator.js';
import type { SolverOps } from '../solvers/ops.js';
import type { PreconditionerKind, PreconditionerOptions, PreconditionerPlan } from '../solvers/precond/index.js';
import type { AmgInfo } from '../solvers/amg/info.js';
import type { HandleOwner, MatrixHandle } from './handles.js';

/**
 * A preconditioner of one uploaded matrix, from {@link Runtime.preconditioner}: set up once (factors,
 * level schedules, eigenvalue bounds on the host), made resident on a path the first time a solve
 * there uses it, and reused by every later solve of that matrix with any method. `dispose()` frees it
 * on every path; the runtime's dispose frees it too.
 *
 * @example
 * ```js
 * // SSOR(1.2) set up once, reused by two solves with different right-hand sides
 * import { createRuntime, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson2D(16));
 * const M = rt.preconditioner(A, { kind: 'ssor', omega: 1.2 });
 * assert.equal(M.kind, 'ssor');
 * for (const v of [1, -2]) {
 *   const r = await rt.cg(A, new Float64Array(256).fill(v), { preconditioner: M });
 *   assert.ok(r.converged);
 * }
 * M.dispose();
 * assert.equal(M.disposed, true);
 * rt.dispose();
 * ```
 */
export class PreconditionerHandle {
  /** the kind it is */
  readonly kind: PreconditionerKind;
  /** what it is, with its parameters (and any diagonal shift an incomplete factorization needed) */
  readonly description: string;
  /** the diagonal shift IC(0)/ILU(0) needed after a breakdown: aᵢᵢ + shift·|aᵢᵢ| (0 when none) */
  readonly shift: number;
  /** ms the host setup took */
  readonly setupMs: number;
  /** kind 'amg': the hierarchy's levels (rows, nonzeros), operator and grid complexity, setup time, why coarsening stopped */
  readonly amg?: AmgInfo;
  readonly #resident = new Map<PathId, PreconditionerOperator<unknown>>();
  /** @internal its twin for the copy of its matrix a GPU path's solve scales (Runtime.scaledPreconditioner), made on first need */
  scaled: PreconditionerHandle | null = null;
  /** @internal handles made from this one, disposed with it */
  readonly derived: { dispose(): void }[] = [];
  #disposed = false;

  /** @internal made by rt.preconditioner() */
  constructor(
    /** @internal the matrix it preconditions */
    readonly matrix: MatrixHandle,
    /** @internal */
    readonly plan: PreconditionerPlan,
    /** @internal */
    readonly owner: HandleOwner,
    /** @internal the options it was set up with (its twin for a scaled copy of the matrix is set up so) */
    readonly options: PreconditionerOptions = { kind: plan.kind },
  ) {
    this.kind = plan.kind;
    this.description = plan.description;
    this.shift = plan.shift;
    this.setupMs = plan.setupMs;
    this.amg = plan.amg;
  }

  /** whether `dispose()` has run (on the handle, its matrix's runtime) */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** @internal throws DisposedError once disposed */
  live(): this {
    if (this.#disposed) throw new DisposedError(`${this.kind} preconditioner`);
    return this;
  }

  /** @internal the resident operator on a path (made with that path's solver operations on first use) */
  on<V>(path: PathId, ops: SolverOps<V>): PreconditionerOperator<V> {
    this.live();
    let r = this.#resident.get(path) as PreconditionerOperator<V> | undefined;
    if (!r) {
      r = oneAtATime(this.plan.instantiate(ops), () => this.live());
      this.#resident.set(path, r as PreconditionerOperator<unknown>);
    }
    return r;
  }

  /** @internal drops the copy on a path whose device was lost */
  forgetPath(path: PathId): void {
    this.#resident.delete(path);
  }

  /** Frees it on every path; later use throws {@link DisposedError}. A second call does nothing. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const r of this.#resident.values()) r.dispose();
    this.#resident.clear();
    this.plan.dispose?.();
    for (const d of this.derived) d.dispose();
    this.owner.forget(this);
  }
}

/**
 * The operator with its applications run one after another: solves running together (Promise.all)
 * share the handle's resident operator, whose work vectors (the triangular pair's middle vector, a
 * multigrid cycle's levels) an interleaved application would overwrite — CG with a shared IC(0) broke
 * down after 0 iterations where it converges alone in 31. Each application first checks the handle
 * is live (`live`): one disposed during a solve fails it as the handle, not as one of its freed
 * parts ("dia matrix was used after dispose()", an AMG level's).
 */
function oneAtATime<V>(op: PreconditionerOperator<V>, live: () => void): PreconditionerOperator<V> {
  let last: Promise<void> = Promise.resolve();
  return {
    method: op.method,
    // a resident solve with the polynomial (cgChebyshevResident) uses its own vectors, not op's
    ...(op.chebyshev ? { chebyshev: op.chebyshev } : {}),
    apply: (x, y) => {
      const run = last.then(() => {
        live();
        return op.apply(x, y);
      });
      last = run.catch(() => {});
      return run;
    },
    dispose: () => op.dispose(),
  };
}
