/** op(A): N = A, T = Aᵀ, H = Aᴴ (conjugate transpose; equal to T for real dtypes). */
export type Op = 'N' | 'T' | 'H';

/** Resolved scalars of y = α·op(A)·x + β·y, as [re, im] pairs. */
export interface SpmvScalars {
  alpha: [number, number];
  beta: [number, number];
  op: Op;
}
