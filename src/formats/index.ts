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

export { COOMatrix, CSCMatrix, CSRMatrix, DenseMatrix, DIAMatrix, ELLMatrix, HYBMatrix, JDSMatrix, MRSMatrix, SELLMatrix };
export { SELL_PAD, SELL_SORT_WINDOW, sellDefaultC, defaultSortWindow, sellSlots, type SELLOptions } from './sell.js';
export { ELL_PAD, type ELLOptions } from './ell.js';
export { DENSE_MAX_SLOTS, type DenseOptions } from './dense.js';
export { hybWidth } from './hyb.js';
export type { PaddingOptions } from './common.js';

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
  coo: COOMatrix;
  csr: CSRMatrix;
  csc: CSCMatrix;
  mrs: MRSMatrix;
  dia: DIAMatrix;
  ell: ELLMatrix;
  jds: JDSMatrix;
  sell: SELLMatrix;
  hyb: HYBMatrix;
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

/**
 * Converts any format to any other through CSR: `A.toCSR()` (canonical: sorted by (row, col),
 * duplicates summed) then `Target.fromCSR(csr, opts)`. Converting to the matrix's own format therefore
 * returns a canonical copy, except for a canonical CSR, which is returned itself. Padded formats may
 * refuse with PaddingLimitError (see ConvertOptions).
 */
/** The keys ConvertOptions has (checked at compile time against the interface). */
export const CONVERT_OPTION_KEYS = optionKeys<ConvertOptions>({ maxFill: true, maxSlots: true, width: true, sliceHeight: true, sortWindow: true });

export function convert<F extends FormatName>(A: SparseMatrix, format: F, opts?: ConvertOptions): FormatClasses[F] {
  checkOptions('convert', opts, CONVERT_OPTION_KEYS);
  const csr = A.toCSR();
  const out: SparseMatrix = fromCSR(csr, format, opts);
  return out as FormatClasses[F];
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
    default: throw new UnsupportedError(`convert: unknown format ${JSON.stringify(format)}, expected one of ${FORMATS.join(', ')}`);
  }
}
