import type { DType } from '../dtype.js';
import type { COOMatrix } from '../formats/coo.js';
import type { DenseMatrix } from '../formats/dense.js';

export type MMFormat = 'coordinate' | 'array';
export type MMField = 'real' | 'integer' | 'complex' | 'pattern';
export type MMSymmetry = 'general' | 'symmetric' | 'skew-symmetric' | 'hermitian';

/** The banner line, lower-cased. */
export interface MatrixMarketHeader {
  object: 'matrix';
  format: MMFormat;
  field: MMField;
  symmetry: MMSymmetry;
}

export interface MatrixMarketResult {
  /** coordinate files give a COOMatrix, array files a DenseMatrix; symmetric storage is always expanded */
  matrix: COOMatrix | DenseMatrix;
  header: MatrixMarketHeader;
  /** comment lines in file order, each without its leading '%' (and without a trailing CR) */
  comments: string[];
}

export interface MatrixMarketReadOptions {
  /** default f64 for real/integer/pattern files and c128 for complex ones; a real file may ask for c64/c128 */
  dtype?: DType;
  /** called after each chunk with the total number of bytes consumed so far */
  onProgress?: (bytesRead: number) => void;
}
