import type { ChebyshevPolynomial } from './ops.js';

/**
 * Ginkgo's linear operator: whatever maps a vector to a vector on a path (a preconditioner, a
 * polynomial of A, later a multigrid cycle). Solvers apply it without knowing what it is.
 */
export interface LinearOperator<V> {
  /** y ← Op·x (x and y distinct, y overwritten) */
  apply(x: V, y: V): Promise<void>;
  /** frees what the operator holds on its path */
  dispose(): void;
}

/** A preconditioner made resident on one path. */
export interface PreconditionerOperator<V> extends LinearOperator<V> {
  /** how it runs on this path, for explain (e.g. the triangular solves' levels) */
  readonly method: string;
  /** a Chebyshev polynomial's parameters, for a path that runs CG with it resident (SolverOps.cgChebyshevResident) */
  readonly chebyshev?: ChebyshevPolynomial;
}
