export { parseMatrixMarket, readMatrixMarket, type MatrixMarketSource, type MatrixMarketStream } from './matrix-market-read.js';
export { writeMatrixMarket, type MatrixMarketWriteOptions, type WritableMatrix, type CSRLike } from './matrix-market-write.js';
export { MatrixMarketParser } from './matrix-market-parser.js';
export type {
  MatrixMarketHeader,
  MatrixMarketResult,
  MatrixMarketReadOptions,
  MMFormat,
  MMField,
  MMSymmetry,
} from './matrix-market-types.js';
