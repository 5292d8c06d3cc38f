import { ShapeError } from '../../errors.js';
import { checkChoice, checkNumber, checkOptions } from '../../options-check.js';
import { AMG_KEYS } from './keys.js';
import { MAX_COARSE, type AmgHierarchy, type AmgOptions } from './hierarchy.js';

/** What an AMG hierarchy is, for explain and the preconditioner handle. */
export interface AmgInfo {
  /** rows and stored entries per level, finest first */
  levels: {
    /** the level's rows (= columns) */
    rows: number;
    /** the level's stored entries */
    nnz: number;
    /** unknowns per node (the near-null-space vectors' count on coarse levels) */
    blockSize: number;
  }[];
  /** the cycle: 'V' or 'W', the smoother and its sweeps */
  cycle: string;
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
  /** how the coarsest level is solved ('dense': its inverse; 'sparse': a sparse Cholesky factor) */
  coarse: 'dense' | 'sparse';
  /** why that solver, in a sentence (the estimated factor flops against n³/3) */
  coarseReason: string;
}

export function amgInfo(h: AmgHierarchy): AmgInfo {
  const levels = h.levels.map((L) => ({ rows: L.A.rows, nnz: L.A.nnz, blockSize: L.blockSize }));
  const o = h.options;
  const sum = (f: (l: { rows: number; nnz: number }) => number) => levels.reduce((a, l) => a + f(l), 0);
  return {
    levels,
    operatorComplexity: sum((l) => l.nnz) / Math.max(1, levels[0].nnz),
    gridComplexity: sum((l) => l.rows) / Math.max(1, levels[0].rows),
    cycle: `${o.cycle}-cycle, ${o.sweeps}×${o.smoother} before and after`,
    setupMs: h.setupMs,
    stop: h.stop,
    stopReason: h.stopReason,
    coarse: h.coarse.kind,
    coarseReason: h.coarse.reason,
  };
}

/**
 * Checks the AMG options up front: InputTypeError for a value of the wrong type, InputRangeError for a
 * number out of range, UnsupportedError for a smoother or cycle outside its set (each naming the option
 * and showing the value with its type), OptionError for a key it does not know.
 */
export function checkAmgOptions(o: AmgOptions, where: string): void {
  checkOptions(`${where} (amg)`, o, AMG_KEYS);
  checkNumber(where, 'amg.theta', o.theta, { what: 'a number in [0, 1)', ok: (v) => v >= 0 && v < 1 });
  const int = (name: 'maxCoarse' | 'maxLevels' | 'sweeps' | 'blockSize' | 'improveCandidates', lo: number, hi: number) =>
    checkNumber(where, `amg.${name}`, o[name], { what: `an integer in [${lo}, ${hi}]`, ok: (v) => Number.isInteger(v) && v >= lo && v <= hi });
  int('maxCoarse', 1, MAX_COARSE);
  int('maxLevels', 1, 32);
  int('sweeps', 1, 16);
  int('blockSize', 1, 16);
  int('improveCandidates', 0, 16);
  checkChoice(where, 'amg.smoother', o.smoother, ['jacobi', 'gauss-seidel', 'chebyshev']);
  checkChoice(where, 'amg.cycle', o.cycle, ['V', 'W']);
}

/**
 * The near-null space and block size against A's n rows: a ShapeError naming a vector of the wrong
 * length, with a non-finite entry or all zeros, or a block size that does not divide n.
 */
export function checkAmgShape(o: AmgOptions, n: number, where: string): void {
  const bs = o.blockSize ?? 1;
  if (n % bs !== 0) throw new ShapeError(`${where}: amg.blockSize ${bs} does not divide the ${n} rows of A`);
  const B = o.nearNullSpace;
  if (B === undefined) return;
  if (!Array.isArray(B) || B.length === 0 || B.length > 16) throw new ShapeError(`${where}: amg.nearNullSpace must be an array of 1 to 16 vectors, got ${Array.isArray(B) ? B.length : typeof B}`);
  B.forEach((v, k) => {
    if (!(v instanceof Float64Array) || v.length !== n) throw new ShapeError(`${where}: amg.nearNullSpace[${k}] must be a Float64Array of A's ${n} rows, got ${v instanceof Float64Array ? `length ${v.length}` : typeof v}`);
    if (!v.every(Number.isFinite)) throw new ShapeError(`${where}: amg.nearNullSpace[${k}] has a non-finite entry`);
    // a zero vector interpolates nothing: T's columns for it would be zero, the coarse correction lost silently
    if (v.every((x) => x === 0)) throw new ShapeError(`${where}: amg.nearNullSpace[${k}] is zero: give vectors A nearly annihilates that are not 0 (the constant, rigid-body modes)`);
  });
}
