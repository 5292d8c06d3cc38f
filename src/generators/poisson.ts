import { checkOptions, optionKeys } from '../options-check.js';
import { CSRMatrix } from '../formats/csr.js';
import { allocValues, assertDType, components, type DType } from '../dtype.js';
import { ShapeError } from '../errors.js';
import { checkGeneratedSize } from './size.js';

/**
 * Finite-difference Laplacians with Dirichlet boundaries on an n^d grid, in natural (lexicographic)
 * ordering: the 2-D 5-point stencil (4 on the diagonal, -1 for each neighbour) and the 3-D 7-point
 * stencil (6 and -1) — seed 001's `poisson3D_N`. Symmetric positive definite, so CG converges on them.
 */

const POISSON_OPTION_KEYS = optionKeys<{ dtype?: DType }>({ dtype: true });

/**
 * The 2-D 5-point Poisson matrix on an n×n grid: n² rows, 4 on the diagonal and −1 for each grid
 * neighbour (Dirichlet boundaries, natural ordering), as a canonical CSR of `options.dtype` (default
 * f64). Symmetric positive definite.
 *
 * @throws {@link ShapeError} when n is not a non-negative integer.
 * @throws {@link UnsupportedError} for an unknown dtype.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * import { poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = poisson2D(3);                                // 9×9
 * assert.deepEqual([A.rows, A.nnz], [9, 33]);
 * assert.deepEqual([...A.colIdx.subarray(A.rowPtr[4], A.rowPtr[5])], [1, 3, 4, 5, 7]);   // the centre
 * assert.deepEqual([...A.values.subarray(A.rowPtr[4], A.rowPtr[5])], [-1, -1, 4, -1, -1]);
 * ```
 */
export function poisson2D(n: number, options: { dtype?: DType } = {}): CSRMatrix {
  checkOptions('poisson2D', options, POISSON_OPTION_KEYS);
  return laplacian([n, n], options.dtype ?? 'f64');
}

/**
 * The 3-D 7-point Poisson matrix on an n×n×n grid: n³ rows, about 7n³ nonzeros, 6 on the diagonal and
 * −1 for each grid neighbour (seed 001's `poisson3D_N`), as a canonical CSR of `options.dtype` (default
 * f64). Symmetric positive definite.
 *
 * @throws {@link ShapeError} when n is not a non-negative integer.
 * @throws {@link UnsupportedError} for an unknown dtype.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * import { poisson3D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = poisson3D(64, { dtype: 'f32' });               // poisson3D_64 of the benchmarks
 * assert.deepEqual([A.rows, A.nnz, A.dtype], [262144, 1810432, 'f32']);
 * ```
 */
export function poisson3D(n: number, options: { dtype?: DType } = {}): CSRMatrix {
  checkOptions('poisson3D', options, POISSON_OPTION_KEYS);
  return laplacian([n, n, n], options.dtype ?? 'f64');
}

function laplacian(dims: number[], dtype: DType): CSRMatrix {
  assertDType(dtype, 'poisson');
  for (const d of dims) {
    if (!Number.isInteger(d) || d < 0) throw new ShapeError(`poisson: grid size must be a non-negative integer, got ${d}`);
  }
  const rows = dims.reduce((a, b) => a * b, 1);
  // strides[k] = distance in the ordering between neighbours along axis k (axis 0 fastest)
  const strides = dims.map((_, k) => dims.slice(0, k).reduce((a, b) => a * b, 1));
  const maxNnz = rows * (2 * dims.length + 1);
  checkGeneratedSize('poisson', rows, maxNnz, 4 * (rows + 1) + 12 * maxNnz);
  const rowPtr = new Int32Array(rows + 1);
  const colIdx = new Int32Array(maxNnz);
  const vals = new Float64Array(maxNnz);
  const coord = new Int32Array(dims.length);
  let nnz = 0;
  for (let r = 0; r < rows; r++) {
    // neighbours in increasing column order: the far axes' lower neighbours first
    for (let k = dims.length - 1; k >= 0; k--) {
      if (coord[k] > 0) {
        colIdx[nnz] = r - strides[k];
        vals[nnz++] = -1;
      }
    }
    colIdx[nnz] = r;
    vals[nnz++] = 2 * dims.length;
    for (let k = 0; k < dims.length; k++) {
      if (coord[k] < dims[k] - 1) {
        colIdx[nnz] = r + strides[k];
        vals[nnz++] = -1;
      }
    }
    rowPtr[r + 1] = nnz;
    for (let k = 0; k < dims.length && ++coord[k] === dims[k]; k++) coord[k] = 0;
  }
  const values = allocValues(dtype, nnz);
  const c = components(dtype);
  for (let k = 0; k < nnz; k++) values[k * c] = vals[k];
  return new CSRMatrix(rows, rows, dtype, rowPtr, colIdx.slice(0, nnz), values);
}
