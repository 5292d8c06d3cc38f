import type { FormatName } from '../formats/index.js';
import type { MatrixFeatures, Path } from './features.js';

/**
 * What a short calibration measured for one path: the fixed cost of an operation (dispatch, draw
 * call, synchronisation) and the rate at which SpMV streams bytes, plus for the GPU the rates of
 * uploads and read-backs. A calibration can be saved (JSON) and passed back to createRuntime.
 */
export interface PathCalibration {
  overheadMs: number;
  bandwidthGBs: number;
  uploadGBs?: number;
  readbackGBs?: number;
}

export interface Calibration {
  cpu: PathCalibration & { threads: number };
  gpu?: PathCalibration & { renderer: string };
}

/** Bytes one SpMV moves in a format: the matrix arrays, x once and y once (DESIGN.md's metric). */
export function spmvBytes(f: MatrixFeatures, format: FormatName, elementBytes: number): { matrix: number; vectors: number } {
  const idx = 4;
  const pitch = Math.ceil(f.rows / 4) * 4;
  const inEll = Math.round(f.hybEllShare * f.nnz);
  const matrix: Record<FormatName, number> = {
    csr: f.nnz * (idx + elementBytes) + (f.rows + 1) * idx,
    csc: f.nnz * (idx + elementBytes) + (f.cols + 1) * idx,
    coo: f.nnz * (2 * idx + elementBytes),
    mrs: f.nnz * (idx + elementBytes) + (f.rows + 1) * idx,
    dia: f.diagonals * pitch * elementBytes + f.diagonals * idx,
    ell: f.maxRow * pitch * (idx + elementBytes),
    jds: f.nnz * (idx + elementBytes) + 2 * f.rows * idx,
    sell: f.sellSlots * (idx + elementBytes) + f.rows * idx,
    hyb: f.hybWidth * pitch * (idx + elementBytes) + (f.nnz - inEll) * (2 * idx + elementBytes),
    dense: f.rows * f.cols * elementBytes,
  };
  return { matrix: matrix[format], vectors: (f.rows + f.cols) * elementBytes };
}

/**
 * How much of the GPU path's streaming bandwidth each format's shader reaches, measured on an H100
 * (bench/gpu-native/RESULTS.md, poisson3D_128 f32: DIA 130, ELL 125, HYB 116, CSR row 33 GB/s): the
 * row-per-fragment CSR walks its rows entry by entry and is latency-bound, the others stream.
 */
export const GPU_FORMAT_EFFICIENCY: Partial<Record<FormatName, number>> = { dia: 1, ell: 0.95, hyb: 0.9, csr: 0.25 };

export interface PathEstimate {
  path: Path;
  format: FormatName;
  /** estimated milliseconds, all included */
  ms: number;
  /** the terms of the sum */
  kernelMs: number;
  overheadMs: number;
  transferMs: number;
  bytes: number;
  /** what the transfer term pays for (nothing when the data is resident there) */
  transfers: string[];
}

/**
 * Time of one SpMV on a path: overhead + bytes / bandwidth, plus moving whatever is not already
 * resident there (the matrix, x) and reading y back when the caller wants it on the host.
 */
export function estimateSpmv(
  cal: PathCalibration,
  path: Path,
  format: FormatName,
  f: MatrixFeatures,
  elementBytes: number,
  resident: { matrix: boolean; x: boolean; readBack: boolean },
): PathEstimate {
  const { matrix, vectors } = spmvBytes(f, format, elementBytes);
  const efficiency = path === 'gpu' ? (GPU_FORMAT_EFFICIENCY[format] ?? GPU_FORMAT_EFFICIENCY.csr!) : 1;
  const kernelMs = (matrix + vectors) / (cal.bandwidthGBs * efficiency * 1e6);
  const transfers: string[] = [];
  let transferMs = 0;
  if (path === 'gpu') {
    const up = cal.uploadGBs ?? cal.bandwidthGBs;
    const down = cal.readbackGBs ?? up;
    if (!resident.matrix) {
      transferMs += matrix / (up * 1e6);
      transfers.push('upload the matrix');
    }
    if (!resident.x) {
      transferMs += (f.cols * elementBytes) / (up * 1e6);
      transfers.push('upload x');
    }
    if (resident.readBack) {
      transferMs += (f.rows * elementBytes) / (down * 1e6);
      transfers.push('read y back');
    }
  }
  return { path, format, ms: cal.overheadMs + kernelMs + transferMs, kernelMs, overheadMs: cal.overheadMs, transferMs, bytes: matrix + vectors, transfers };
}
