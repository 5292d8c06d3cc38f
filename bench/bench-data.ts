/** The inputs the SpMV benchmarks share: the same x for every contender, and the f64 reference y. */
import type { CSRMatrix } from '../src/formats/csr.js';
import { Prng } from '../src/generators/prng.js';
import { allocValues, type DType, type ValueArray } from '../src/dtype.js';
import { jsCsrSpmv } from '../src/host-spmv.js';

/** x of n elements of dtype, uniform in [−1, 1) from a fixed seed. */
export function benchVector(dtype: DType, n: number): ValueArray {
  const v = allocValues(dtype, n);
  const rng = new Prng(5);
  for (let i = 0; i < v.length; i++) v[i] = rng.next() * 2 - 1;
  return v;
}

/** y = A·x in f64 (A and x converted), what every timed product is checked against. */
export function referenceProduct(A: CSRMatrix, x: ArrayLike<number>): Float64Array {
  const y = allocValues('f64', A.rows) as Float64Array;
  jsCsrSpmv(A.astype('f64'), Float64Array.from(x), y);
  return y;
}
