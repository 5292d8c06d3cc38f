/**
 * Storage formats: one class per format, CSR as the hub, and `convert` between any two.
 *
 * Every class has the same surface: format, dtype, rows, cols, nnz, validate(), toCSR(),
 * static fromCSR(csr, opts?), astype(dtype), storageBytes(). Constructors take arrays as they are
 * (no copy, cheap length checks); toCSR() validates first, so corrupted arrays surface as a FormatError
 * naming their own format rather than as garbage further on. Results of conversions and astype never
 * share arrays with their source (the one exception: a canonical CSR's toCSR() is the matrix itself).
 */
import { UnsupportedError } from '../errors.js';
import { PADDING_OPTION_KEYS, type PaddingOptions } from './common.js';
import { checkOptions, only, optionKeys } from '../options-check.js';
import { COOMatrix } from './coo.js';
import { CSCMatrix } from './csc.js';
import { CSRMatrix } from './csr.js';
import { DenseMatrix } from './dense.js';
import { DIAMatrix } from './dia.js';
import { ELLMatrix, ELL_OPTION_KEYS } from './ell.js';
import { HYBMatrix } from './hyb.js';
import { JDSMatrix } from './jds.js';
import { MRSMatrix } from './mrs.js';
import { SELLMatrix, SELL_OPTION_KEYS, type SELLOptions } from './sell.js';
import { shownValue } from '../shown-value.js';
import { withMemoryBudget } from '../memory-budget.js';
import { sparseMatrix } from './owned.js';

export { COOMatrix, CSCMatrix, CSRMatrix, DenseMatrix, DIAMatrix, ELLMatrix, HYBMatrix, JDSMatrix, MRSMatrix, SELLMatrix };
export { SELL_PAD, SELL_SORT_WINDOW, sellDefaultC, defaultSortWindow, sellSlots, type SELLOptions } from './sell.js';
export { ELL_PAD, type ELLOptions } from './ell.js';
export { DENSE_MAX_SLOTS, type DenseOptions } from './dense.js';
export { hybWidth } from './hyb.js';
export type { AstypeOptions, PaddingOptions } from './common.js';
export type { CompressedArrays, CoordinateArrays, NumericArrayLike, StridedArray } from './from-arrays.js';

/** Names of the storage formats. */
export type FormatName = 'coo' | 'csr' | 'csc' | 'mrs' | 'dia' | 'ell' | 'jds' | 'sell' | 'hyb' | 'dense';

/** Every format name, in a fixed order. */
export const FORMATS: readonly FormatName[] = ['coo', 'csr', 'csc', 'mrs', 'dia', 'ell', 'jds', 'sell', 'hyb', 'dense'];

/** Any matrix in any storage format. */
export type SparseMatrix =
  | COOMatrix
  | CSRMatrix
  | CSCMatrix
  | MRSMatrix
  | DIAMatrix
  | ELLMatrix
  | JDSMatrix
  | SELLMatrix
  | HYBMatrix
  | DenseMatrix;

/** The class of each format name. */
export interface FormatClasses {
  /** `'coo'`: {@link COOMatrix} */
  coo: COOMatrix;
  /** `'csr'`: {@link CSRMatrix} */
  csr: CSRMatrix;
  /** `'csc'`: {@link CSCMatrix} */
  csc: CSCMatrix;
  /** `'mrs'`: {@link MRSMatrix} */
  mrs: MRSMatrix;
  /** `'dia'`: {@link DIAMatrix} */
  dia: DIAMatrix;
  /** `'ell'`: {@link ELLMatrix} */
  ell: ELLMatrix;
  /** `'jds'`: {@link JDSMatrix} */
  jds: JDSMatrix;
  /** `'sell'`: {@link SELLMatrix} */
  sell: SELLMatrix;
  /** `'hyb'`: {@link HYBMatrix} */
  hyb: HYBMatrix;
  /** `'dense'`: {@link DenseMatrix} */
  dense: DenseMatrix;
}

/**
 * Options of `convert`: the padding limits of DIA/ELL/HYB (maxFill default 10, maxSlots replaces it),
 * the ELL/HYB width, SELL's C and σ, and Dense's element limit (maxSlots, default 2^28).
 */
export interface ConvertOptions extends PaddingOptions, Pick<SELLOptions, 'sliceHeight' | 'sortWindow'> {
  /** ELL: slots per row (>= the longest row); HYB: the ELL part's width K. */
  width?: number;
}

/** The keys ConvertOptions has (checked at compile time against the interface). */
const CONVERT_OPTION_KEYS = optionKeys<ConvertOptions>({ maxFill: true, maxSlots: true, width: true, sliceHeight: true, sortWindow: true });

/**
 * Converts any format to any other through CSR: `A.toCSR()` (canonical: sorted by (row, col),
 * duplicates summed) then `Target.fromCSR(csr, opts)`. Converting to the matrix's own format therefore
 * returns a canonical copy, except for a canonical CSR, which is returned itself. Padded formats may
 * refuse with PaddingLimitError (see ConvertOptions).
 *
 * @throws {@link FormatError} when A breaks an invariant of its format (validated on the way).
 * @throws {@link UnsupportedError} for an unknown format name.
 * @throws {@link InputTypeError} when A is not a matrix of this library (the message says which `from` reads it).
 * @throws {@link PaddingLimitError} when DIA, ELL, SELL, HYB or dense would store more than the limit
 * of `opts` (default: 10 slots per entry; dense 2²⁸ elements).
 * @throws {@link ShapeError} when `opts.width` cannot hold ELL's longest row, or SELL's
 * `sliceHeight`/`sortWindow` are out of range.
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * // The 2-D Poisson matrix in three formats, and back
 * import { convert, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = poisson2D(4);                                  // CSR, 16×16, 64 entries
 * const dia = convert(A, 'dia');
 * assert.deepEqual([...dia.offsets], [-4, -1, 0, 1, 4]);
 * const ell = convert(dia, 'ell');                         // through CSR
 * assert.equal(ell.width, 5);
 * const back = convert(ell, 'csr');
 * assert.deepEqual([back.nnz, ...back.colIdx.slice(0, 3)], [64, 0, 1, 4]);
 * ```
 */
export function convert<F extends FormatName>(A: SparseMatrix, format: F, opts?: ConvertOptions): FormatClasses[F] {
  checkOptions('convert', opts, CONVERT_OPTION_KEYS);
  sparseMatrix(A);
  // the hub CSR and the result count against one budget (see setMemoryBudget)
  return withMemoryBudget(undefined, () => fromCSR(A.toCSR(), format, opts)) as FormatClasses[F];
}

function fromCSR(csr: CSRMatrix, format: FormatName, opts?: ConvertOptions): SparseMatrix {
  switch (format) {
    case 'coo': return COOMatrix.fromCSR(csr);
    case 'csr': return csr;
    case 'csc': return CSCMatrix.fromCSR(csr);
    case 'mrs': return MRSMatrix.fromCSR(csr);
    case 'dia': return DIAMatrix.fromCSR(csr, only(opts, PADDING_OPTION_KEYS));
    case 'ell': return ELLMatrix.fromCSR(csr, only(opts, ELL_OPTION_KEYS));
    case 'jds': return JDSMatrix.fromCSR(csr);
    case 'sell': return SELLMatrix.fromCSR(csr, only(opts, SELL_OPTION_KEYS));
    case 'hyb': return HYBMatrix.fromCSR(csr, only(opts, ELL_OPTION_KEYS));
    case 'dense': return DenseMatrix.fromCSR(csr, { maxSlots: opts?.maxSlots });
    default: throw new UnsupportedError(`convert: unknown format ${shownValue(format)}, expected one of ${FORMATS.join(', ')}`);
  }
}
