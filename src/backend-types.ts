import type { DType } from './dtype.js';

/** op(A): N = A, T = Aᵀ, H = Aᴴ (conjugate transpose; equal to T for real dtypes). */
export type Op = 'N' | 'T' | 'H';

/** Resolved scalars of y = α·op(A)·x + β·y, as [re, im] pairs. */
export interface SpmvScalars {
  alpha: [number, number];
  beta: [number, number];
  op: Op;
}

/** What every resident object shares: a dtype and an explicit dispose(). */
export interface Resident {
  readonly dtype: DType;
  dispose(): void;
}
