import { optionKeys } from '../options-check.js';
import type { PathChoice } from '../path.js';
import type { Scalar } from '../dtype.js';
import { InputTypeError, ShapeError } from '../errors.js';
import { shownTyped } from '../shown-value.js';
import { DenseMatrix } from '../formats/dense.js';
import { DenseHandle } from './handles.js';

/** A dense operand: a host DenseMatrix (copied in and out per call) or a resident handle from rt.dense(). */
export type DenseLike = DenseMatrix | DenseHandle;

/** Options of {@link Runtime.gemm} (besides `path`). */
export interface GemmOptions {
  /** C of C = α·A·B + β·C: updated in place and returned (default: a new zero matrix) */
  C?: DenseLike;
  /** default 1 */
  alpha?: number;
  /** default 0 (C is then not read) */
  beta?: number;
  /** the straightforward triple loop instead of the blocked kernel (for the naive-vs-tiled ratio) */
  naive?: boolean;
}

/** Options of {@link Runtime.add} (besides `path`): the scalars of C = α·A + β·B. */
export interface AddOptions {
  /** default 1; `[re, im]` for complex dtypes */
  alpha?: Scalar;
  /** default 1; `[re, im]` for complex dtypes */
  beta?: Scalar;
}

/** The keys of gemm's, add's and transpose's options (compile-time checked), `path` included. */
export const GEMM_OPTION_KEYS = optionKeys<GemmOptions & { path?: PathChoice }>({ C: true, alpha: true, beta: true, naive: true, path: true });
export const ADD_OPTION_KEYS = optionKeys<AddOptions & { path?: PathChoice }>({ alpha: true, beta: true, path: true });
export const TRANSPOSE_OPTION_KEYS = optionKeys<{ path?: PathChoice }>({ path: true });

function isDense(M: unknown): M is DenseLike {
  return M instanceof DenseMatrix || M instanceof DenseHandle;
}

/** Shapes and dtypes of C = α·A·B + β·C, checked before any work, as ShapeError naming them. */
export function checkGemm(A: DenseLike, B: DenseLike, C?: DenseLike): void {
  for (const [n, M] of [['A', A], ['B', B], ['C', C]] as const) {
    // C is optional; A and B are not (gemm(undefined, B) read undefined's dtype)
    if ((n !== 'C' || M !== undefined) && !isDense(M)) throw new InputTypeError(`gemm: ${n} must be a DenseMatrix or a dense handle from rt.dense(), got ${shownTyped(M)}`);
    if (M instanceof DenseMatrix) M.validate(); // the kernels size their reads and writes by rows·cols
  }
  if (A.dtype !== B.dtype || (C && C.dtype !== A.dtype)) throw new ShapeError(`gemm: dtypes differ (A ${A.dtype}, B ${B.dtype}${C ? `, C ${C.dtype}` : ''})`);
  if (A.cols !== B.rows) throw new ShapeError(`gemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}: A's columns must equal B's rows`);
  if (C && (C.rows !== A.rows || C.cols !== B.cols)) throw new ShapeError(`gemm: C is ${C.rows}×${C.cols}, expected ${A.rows}×${B.cols}`);
  if (C && (C === A || C === B)) throw new ShapeError('gemm: C must not be A or B (the product cannot overwrite its own operands)');
}

/** Shapes and dtypes of C = α·A + β·B. */
export function checkAdd(A: DenseLike, B: DenseLike): void {
  for (const [n, M] of [['A', A], ['B', B]] as const) if (!isDense(M)) throw new InputTypeError(`add: ${n} must be a DenseMatrix or a dense handle from rt.dense(), got ${shownTyped(M)}`);
  for (const M of [A, B]) if (M instanceof DenseMatrix) M.validate();
  if (A.dtype !== B.dtype) throw new ShapeError(`add: dtypes differ (A ${A.dtype}, B ${B.dtype})`);
  if (A.rows !== B.rows || A.cols !== B.cols) throw new ShapeError(`add: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}`);
}

export function checkTranspose(A: DenseLike): void {
  if (!isDense(A)) throw new InputTypeError(`transpose: A must be a DenseMatrix or a dense handle from rt.dense(), got ${shownTyped(A)}`);
  if (A instanceof DenseMatrix) A.validate();
}
