import type { DType } from '../dtype.js';
import type { COOMatrix } from '../formats/coo.js';
import type { DenseMatrix } from '../formats/dense.js';

/** Matrix Market storage: `coordinate` (sparse triplets) or `array` (dense, column by column). */
export type MMFormat = 'coordinate' | 'array';
/** Matrix Market value type: `pattern` stores no values (they read as 1). */
export type MMField = 'real' | 'integer' | 'complex' | 'pattern';
/** Matrix Market symmetry: all but `general` store one triangle, which the reader expands. */
export type MMSymmetry = 'general' | 'symmetric' | 'skew-symmetric' | 'hermitian';

/** The banner line, lower-cased. */
export interface MatrixMarketHeader {
  /** always `'matrix'` */
  object: 'matrix';
  /** coordinate or array */
  format: MMFormat;
  /** the value type */
  field: MMField;
  /** the symmetry the file declares */
  symmetry: MMSymmetry;
}

/** What the Matrix Market readers return. */
export interface MatrixMarketResult {
  /** coordinate files give a COOMatrix, array files a DenseMatrix; symmetric storage is always expanded */
  matrix: COOMatrix | DenseMatrix;
  /** the banner */
  header: MatrixMarketHeader;
  /** comment lines in file order, each without its leading '%' (and without a trailing CR) */
  comments: string[];
}

/** Options of {@link readMatrixMarket} (and, `dtype` only, {@link parseMatrixMarket}). */
export interface MatrixMarketReadOptions {
  /** default f64 for real/integer/pattern files and c128 for complex ones; a real file may ask for c64/c128 */
  dtype?: DType;
  /** called after each chunk with the total number of bytes consumed so far */
  onProgress?: (bytesRead: number) => void;
  /**
   * memory budget of this read in MiB (default: the module's, see setMemoryBudget): a file whose
   * entries, and the matrix built from them, need more is refused with MemoryLimitError as they arrive
   */
  maxMemoryMB?: number;
}
