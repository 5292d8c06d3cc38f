import { checkOptions, optionKeys } from '../../options-check.js';
import type { AmgHierarchy, AmgOptions } from './hierarchy.js';

/** What an AMG hierarchy is, for explain and the preconditioner handle. */
export interface AmgInfo {
  /** rows and stored entries per level, finest first */
  levels: {
    /** the level's rows (= columns) */
    rows: number;
    /** the level's stored entries */
    nnz: number;
  }[];
  /** Σ nnz over the levels / nnz of A (the cycle's cost in fine-level SpMVs, roughly) */
  operatorComplexity: number;
  /** Σ rows over the levels / rows of A */
  gridComplexity: number;
  /** ms the host setup took */
  setupMs: number;
  /** why coarsening stopped: 'size' (≤ maxCoarse rows), 'maxLevels', 'stalled' (aggregates no longer shrink) */
  stop: 'size' | 'maxLevels' | 'stalled';
  /** the same as a sentence */
  stopReason: string;
}

export function amgInfo(h: AmgHierarchy): AmgInfo {
  const levels = h.levels.map((L) => ({ rows: L.A.rows, nnz: L.A.nnz }));
  const sum = (f: (l: { rows: number; nnz: number }) => number) => levels.reduce((a, l) => a + f(l), 0);
  return {
    levels,
    operatorComplexity: sum((l) => l.nnz) / Math.max(1, levels[0].nnz),
    gridComplexity: sum((l) => l.rows) / Math.max(1, levels[0].rows),
    setupMs: h.setupMs,
    stop: h.stop,
    stopReason: h.stopReason,
  };
}

const AMG_KEYS = optionKeys<AmgOptions>({ theta: true, maxCoarse: true, maxLevels: true, sweeps: true });

/** RangeError naming a bad AMG option; OptionError for a key it does not know. */
export function checkAmgOptions(o: AmgOptions, where: string): void {
  checkOptions(`${where} (amg)`, o, AMG_KEYS);
  if (o.theta !== undefined && !(o.theta >= 0 && o.theta < 1)) throw new RangeError(`${where}: amg.theta must be in [0, 1), got ${o.theta}`);
  const int = (name: 'maxCoarse' | 'maxLevels' | 'sweeps', lo: number, hi: number) => {
    const v = o[name];
    if (v !== undefined && !(Number.isInteger(v) && v >= lo && v <= hi)) throw new RangeError(`${where}: amg.${name} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  int('maxCoarse', 1, 5000);
  int('maxLevels', 1, 32);
  int('sweeps', 1, 16);
}
