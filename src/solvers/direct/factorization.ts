import type { SparseMatrix } from '../../formats/index.js';
import type { FactorInfo, FactorSolveOptions, FactorSolveResult } from './factor.js';

/**
 * A sparse direct factorization of a square matrix, from {@link Runtime.factor}: solve with it as
 * often as needed, refactor it for new values of the same pattern, dispose it when done.
 *
 * @example
 * ```js
 * // Factor once, solve for two right-hand sides at once, then refactor for new values
 * import { createRuntime, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = poisson2D(30);                                   // 900 unknowns, SPD
 * const F = await rt.factor(A);
 * assert.equal(F.info.kind, 'cholesky');
 * const b = new Float64Array(2 * 900).fill(1);               // two right-hand sides, one after the other
 * const { x, relativeResidual } = await F.solve(b);
 * assert.equal(x.length, 1800);
 * assert.ok(relativeResidual < 1e-12);
 * const A2 = A.astype('f64');
 * A2.values.forEach((v, k) => { if (v > 0) A2.values[k] = 5; });   // same pattern, a larger diagonal
 * await F.refactor(A2);
 * assert.ok((await F.solve(b)).relativeResidual < 1e-12);
 * F.dispose();
 * rt.dispose();
 * ```
 */
export abstract class Factorization {
  /** @internal made by {@link Runtime.factor}, whose numeric phases (src/runtime/direct.ts) are imported on first use: this class is what a page loads before */
  protected constructor() {}

  /** What the factorization is and what it took: kind, ordering, fill, flops, supernodes, time per phase. */
  abstract get info(): FactorInfo;

  /**
   * Solves A·x = b for one right-hand side (b of n entries, 2n interleaved for complex) or several
   * (k·n entries, one after another), with `refine` steps of iterative refinement (default 1), and
   * reports the true residual of what it returns. Real right-hand sides only for a real matrix.
   *
   * @throws {@link ShapeError} when b's length is not a positive multiple of n (2n for complex).
   * @throws {@link InputTypeError} when b is not vector data (docs/errors.md: any array of numbers or typed array).
   * @throws {@link InputRangeError} (a RangeError) when refine is not a non-negative integer, or b holds NaN or ±Inf (naming the entry), or the solution x leaves the f64 range (naming its entry: scale b down).
   * @throws {@link DisposedError} once disposed.
   */
  abstract solve(data: ArrayLike<number> | BigInt64Array | BigUint64Array, options?: FactorSolveOptions): Promise<FactorSolveResult>;

  /**
   * Factorizes a matrix of the same pattern with the same ordering (the numeric phase only). A
   * failure (singular, not positive definite) leaves the factorization unusable until a refactor succeeds.
   *
   * @throws {@link ShapeError} when A2's size or pattern differs from the factorized matrix's.
   * @throws {@link NotPositiveDefiniteError} or {@link SingularMatrixError} as {@link Runtime.factor}.
   * @throws {@link InputRangeError} when A2 holds NaN or ±Inf (naming its row and column); a refactor after any failure may succeed.
   * @throws {@link InputTypeError} when A2 is not a sparse matrix of simdgl.
   * @throws {@link DisposedError} once disposed.
   */
  abstract refactor(A2: SparseMatrix): Promise<this>;

  /** Releases the factor (held in the runtime's WebAssembly memory until then, or until the factorization is garbage-collected; a small banded LU's only in JavaScript); later calls throw DisposedError. */
  abstract dispose(): void;
}
