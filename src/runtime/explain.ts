import type { FormatName } from '../formats/index.js';
import { chooseFormat, type MatrixFeatures, type Path } from './features.js';
import { estimateSpmv, type Calibration, type PathEstimate } from './cost.js';

/** Why an operation runs where it runs: the chosen path and format and the numbers behind them. */
export interface Explanation {
  op: 'spmv';
  path: Path;
  format: FormatName;
  /** one estimate per available path (each in the format that path would use) */
  estimates: Partial<Record<Path, PathEstimate>>;
  features: MatrixFeatures;
  reasons: string[];
  /** whether the figures come from a calibration of this machine or from defaults */
  calibrated: boolean;
}

/**
 * Figures used before a calibration has run. CPU: one core of a laptop. GPU: what the fragment path
 * reached on a real GPU (bench/gpu-native/RESULTS.md, an H100 through EGL: about 7 µs per pass and
 * 110–130 GB/s for DIA/ELL/HYB — the graphics pipeline, not the card's 3 TB/s, is the limit), plus a
 * browser's WebGL call overhead and PCIe-class transfers. rt.calibrate() replaces both with this
 * machine's figures.
 */
export const DEFAULT_CALIBRATION: Calibration = {
  cpu: { threads: 1, overheadMs: 0.005, bandwidthGBs: 5 },
  gpu: { renderer: 'unknown', overheadMs: 0.05, bandwidthGBs: 110, uploadGBs: 5, readbackGBs: 2 },
};

export interface ExplainInput {
  features: MatrixFeatures;
  elementBytes: number;
  calibration: Calibration;
  calibrated: boolean;
  /** paths that can run it now, with the reason for any that cannot */
  available: Partial<Record<Path, true | string>>;
  /** what is already resident on the GPU */
  gpuResident: { matrix: boolean; x: boolean };
  /** whether the caller wants y back on the host (typed-array y) */
  readBack: boolean;
  /** caller overrides */
  format?: FormatName;
  path?: Path;
}

/** Picks the path with the smaller estimate (and each path's format), unless the caller said. */
export function explainSpmv(i: ExplainInput): Explanation {
  const reasons: string[] = [];
  const estimates: Partial<Record<Path, PathEstimate>> = {};
  for (const path of ['cpu', 'gpu'] as Path[]) {
    const avail = i.available[path];
    const cal = i.calibration[path];
    if (avail !== true || !cal) {
      if (typeof avail === 'string') reasons.push(`${path.toUpperCase()} path unavailable: ${avail}`);
      continue;
    }
    const chosen = i.format ? { format: i.format, reason: 'format given by the caller' } : chooseFormat(i.features, path);
    const resident = path === 'gpu' ? { ...i.gpuResident, readBack: i.readBack } : { matrix: true, x: true, readBack: false };
    estimates[path] = estimateSpmv(cal, path, chosen.format, i.features, i.elementBytes, resident);
    reasons.push(`${path.toUpperCase()}: ${chosen.reason}; ≈ ${estimates[path]!.ms.toFixed(3)} ms`);
  }
  let path: Path;
  if (i.path) {
    path = i.path;
    reasons.push(`path ${path} given by the caller`);
  } else if (estimates.cpu && estimates.gpu) {
    path = estimates.gpu.ms < estimates.cpu.ms ? 'gpu' : 'cpu';
    reasons.push(`${path.toUpperCase()} estimated faster (${estimates.cpu.ms.toFixed(3)} ms vs ${estimates.gpu.ms.toFixed(3)} ms on the GPU)`);
  } else path = estimates.gpu ? 'gpu' : 'cpu';
  const format = estimates[path]?.format ?? i.format ?? chooseFormat(i.features, path).format;
  if (!i.calibrated) reasons.push('estimates use default figures: run rt.calibrate() for this machine’s');
  return { op: 'spmv', path, format, estimates, features: i.features, reasons, calibrated: i.calibrated };
}
