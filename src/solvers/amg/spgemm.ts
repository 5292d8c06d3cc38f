import { isComplex, type DType } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import type { CSRMatrix } from '../../formats/csr.js';
import { withMemoryBudget } from '../../memory-budget.js';

/**
 * The kernel behind spgemm: C = A·B of dtype `dtype` for canonical CSR operands with A.cols = B.rows,
 * columns of each row in ascending order, allocation checked against the memory budget in scope. The
 * CPU path's (src/cpu/spgemm.ts: Gustavson's two passes on the worker pool) is the one the runtime
 * passes.
 */
export type SpgemmKernel = (A: CSRMatrix, B: CSRMatrix, dtype: DType) => CSRMatrix;

/**
 * C = A·B for CSR matrices (canonical CSR out; explicit zeros that cancel are kept, as SciPy keeps
 * them). Checks the shapes, makes both operands canonical, and runs `kernel` inside the memory budget
 * `maxMemoryMB` (default: the module's). The result's dtype: complex when either is, f32/c64 only when
 * both are single precision.
 */
export function spgemm(A: CSRMatrix, B: CSRMatrix, kernel: SpgemmKernel, maxMemoryMB?: number): CSRMatrix {
  if (A.cols !== B.rows) throw new ShapeError(`spgemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}; A's columns must equal B's rows`);
  return withMemoryBudget(maxMemoryMB, () => kernel(A.toCSR(), B.toCSR(), productDType(A.dtype, B.dtype)));
}

function productDType(a: DType, b: DType): DType {
  const complex = isComplex(a) || isComplex(b);
  const single = (a === 'f32' || a === 'c64') && (b === 'f32' || b === 'c64');
  return complex ? (single ? 'c64' : 'c128') : single ? 'f32' : 'f64';
}
