import type { FormatName } from '../formats/index.js';
import type { CostProfile, PathCalibration, PathEstimate, PathId } from '../path.js';
import { chooseFormat, type MatrixFeatures } from './features.js';
import { estimateSpmv } from './cost.js';

/** Why an operation runs where it runs: the chosen path and format and the numbers behind them. */
export interface Explanation {
  /** the operation explained */
  op: 'spmv';
  /** the path the operation runs on */
  path: PathId;
  /** the storage format it runs in there */
  format: FormatName;
  /** one estimate per available path (each in the format that path would use) */
  estimates: Partial<Record<PathId, PathEstimate>>;
  /** the matrix's features behind the format rules */
  features: MatrixFeatures;
  /** the choice in words: each path's format rule and estimate, unavailable paths and why, overrides */
  reasons: string[];
  /**
   * whether every estimate uses figures measured on this machine (the automatic calibration,
   * rt.calibrate() or a saved one) rather than a path's defaults
   */
  calibrated: boolean;
}

/** What explain needs of a path (a Path has all of it). */
export interface PathInfo {
  readonly id: PathId;
  readonly label: string;
  readonly formats: readonly FormatName[];
  readonly cost: CostProfile;
  kernelFor?(format: FormatName, f: MatrixFeatures): string;
}

export interface ExplainCandidate {
  path: PathInfo;
  calibration: PathCalibration;
  /** true, or why the path cannot run it now */
  available: true | string;
  /** what is already resident there */
  resident: { matrix: boolean; x: boolean };
}

export interface ExplainInput {
  features: MatrixFeatures;
  elementBytes: number;
  calibrated: boolean;
  /** the paths whose estimates use default figures (their automatic calibration has not ended) */
  uncalibrated?: string[];
  /** every path of the runtime, in order of preference on equal estimates */
  candidates: ExplainCandidate[];
  /** whether the caller wants y back on the host (typed-array y) */
  readBack: boolean;
  /** caller overrides */
  format?: FormatName;
  path?: PathId;
}

/**
 * The format a path runs a matrix in: the caller's when the path has a kernel for it, else the rule of
 * features.ts for the path's kind, falling back to CSR where the path lacks the chosen format.
 */
export function formatOn(path: PathInfo, f: MatrixFeatures, requested?: FormatName | null): { format: FormatName; reason: string } {
  if (requested && path.formats.includes(requested)) return { format: requested, reason: 'format given by the caller' };
  const c = path.cost.prefers?.(f) ?? chooseFormat(f, path.cost.kind);
  if (requested) return { format: path.formats.includes(c.format) ? c.format : 'csr', reason: `no ${requested} kernel on the ${path.label} path; ${c.reason}` };
  return path.formats.includes(c.format) ? c : { format: 'csr', reason: `no ${c.format} kernel on the ${path.label} path: CSR` };
}

/** Picks the path with the smallest estimate (and each path's format), unless the caller said. */
export function explainSpmv(i: ExplainInput): Explanation {
  const reasons: string[] = [];
  const estimates: Partial<Record<PathId, PathEstimate>> = {};
  let best: PathEstimate | undefined;
  for (const c of i.candidates) {
    if (c.available !== true) {
      reasons.push(`${c.path.label} path unavailable: ${c.available}`);
      continue;
    }
    const chosen = formatOn(c.path, i.features, i.format);
    const e = estimateSpmv(c.calibration, c.path, chosen.format, i.features, i.elementBytes, { ...c.resident, readBack: c.path.cost.kind === 'gpu' && i.readBack });
    estimates[c.path.id] = e;
    const kernel = c.path.kernelFor?.(chosen.format, i.features);
    reasons.push(`${c.path.label}: ${chosen.reason}${kernel ? `; runs the ${kernel}` : ''}; ≈ ${e.ms.toFixed(3)} ms`);
    if (!best || e.ms < best.ms) best = e;
  }
  let path: PathId;
  if (i.path) {
    path = i.path;
    reasons.push(`path ${path} given by the caller`);
  } else {
    path = best?.path ?? 'cpu';
    const all = Object.values(estimates);
    if (all.length > 1) reasons.push(`${path} estimated fastest (${all.map((e) => `${e.path} ${e.ms.toFixed(3)} ms`).join(', ')})`);
  }
  const info = i.candidates.find((c) => c.path.id === path)?.path;
  const format = estimates[path]?.format ?? (info ? formatOn(info, i.features, i.format).format : (i.format ?? chooseFormat(i.features, 'cpu').format));
  if (!i.calibrated) {
    const which = i.uncalibrated?.length ? `${i.uncalibrated.join(' and ')} estimates use` : 'estimates use';
    reasons.push(`${which} default figures until the automatic calibration has measured this machine (rt.calibrate() measures now)`);
  }
  return { op: 'spmv', path, format, estimates, features: i.features, reasons, calibrated: i.calibrated };
}
