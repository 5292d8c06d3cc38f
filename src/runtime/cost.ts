import type { FormatName, SparseMatrix } from '../formats/index.js';
import { compactValues } from '../formats/dia.js';
import type { CostProfile, PathCalibration, PathEstimate, PathId } from '../path.js';
import type { MatrixFeatures } from './features.js';
import { slotPitch } from '../formats/common.js';

export type { PathCalibration, PathEstimate } from '../path.js';

/**
 * What rt.calibrate() measured, per path (the figures of src/path.ts's PathCalibration). It can be
 * saved (JSON) and passed back to createRuntime.
 */
export type Calibration = {
  /** the CPU path's figures */
  cpu: PathCalibration & {
    /** the threads the CPU path was measured with */
    threads: number;
  };
} & Partial<Record<Exclude<PathId, 'cpu'>, PathCalibration>>;

/**
 * Bytes one SpMV moves in a format: the matrix arrays, x once and y once (DESIGN.md's metric).
 * `compactDia`: the path keeps f64 DIA values that are all exactly f32 as f32 (CostProfile.compactDia),
 * so such a matrix's DIA values count at 4 bytes.
 */
export function spmvBytes(f: MatrixFeatures, format: FormatName, elementBytes: number, compactDia = false): { matrix: number; vectors: number } {
  const idx = 4;
  const pitch = slotPitch(f.rows);
  const inEll = Math.round(f.hybEllShare * f.nnz);
  const matrix: Record<FormatName, number> = {
    csr: f.nnz * (idx + elementBytes) + (f.rows + 1) * idx,
    csc: f.nnz * (idx + elementBytes) + (f.cols + 1) * idx,
    coo: f.nnz * (2 * idx + elementBytes),
    mrs: f.nnz * (idx + elementBytes) + (f.rows + 1) * idx,
    dia: f.diagonals * pitch * (format === 'dia' && compactDia && f.valuesF32 ? 4 : elementBytes) + f.diagonals * idx,
    ell: f.maxRow * pitch * (idx + elementBytes),
    jds: f.nnz * (idx + elementBytes) + 2 * f.rows * idx,
    sell: f.sellSlots * (idx + elementBytes) + f.rows * idx,
    hyb: f.hybWidth * pitch * (idx + elementBytes) + (f.nnz - inEll) * (2 * idx + elementBytes),
    dense: f.rows * f.cols * elementBytes,
  };
  return { matrix: matrix[format], vectors: (f.rows + f.cols) * elementBytes };
}

/**
 * The bytes of A's arrays as a path keeps them: with `compactDia` (CostProfile.compactDia), f64 DIA
 * values that are all exactly f32 at 4 bytes — what a product of A streams there.
 */
export function storedBytes(A: SparseMatrix, compactDia = false): number {
  return A.storageBytes() - (compactDia && A.format === 'dia' && compactValues(A) ? A.data.byteLength / 2 : 0);
}

/**
 * Time of one SpMV on a path: overhead + bytes / bandwidth, plus moving whatever is not already
 * resident there (the matrix, x) and reading y back when the caller wants it on the host. Where the
 * calibration has a rate beyond cache (memoryGBs), the bytes past cacheBytes go at that rate: a
 * product streaming from memory ran 3–6× slower per byte than one in cache on the 2-vCPU EPYC.
 */
export function estimateSpmv(
  cal: PathCalibration,
  path: { readonly id: PathId; readonly cost: CostProfile },
  format: FormatName,
  f: MatrixFeatures,
  elementBytes: number,
  resident: { matrix: boolean; x: boolean; readBack: boolean },
): PathEstimate {
  const { matrix, vectors } = spmvBytes(f, format, elementBytes, path.cost.compactDia);
  const eff = path.cost.efficiency;
  const efficiency = eff ? (eff[format] ?? eff.csr ?? 1) : 1;
  const bytes = matrix + vectors;
  const cached = cal.memoryGBs ? Math.min(bytes, cal.cacheBytes ?? bytes) : bytes;
  const kernelMs = (cached / cal.bandwidthGBs + (bytes - cached) / (cal.memoryGBs ?? cal.bandwidthGBs)) / (efficiency * 1e6);
  const transfers: string[] = [];
  let transferMs = 0;
  if (path.cost.kind === 'gpu') {
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
  return { path: path.id, format, ms: cal.overheadMs + kernelMs + transferMs, kernelMs, overheadMs: cal.overheadMs, transferMs, bytes: matrix + vectors, transfers };
}
