import { InputRangeError, InputTypeError, OptionError, UnsupportedError } from './errors.js';
import { shownTyped } from './shown-value.js';

/**
 * The keys of an options type, listed once as an object so the compiler checks the list against the
 * type: a key missing from the list, or one the type does not have, fails to type-check.
 */
export function optionKeys<T extends object>(keys: { [K in keyof Required<T>]: true }): readonly string[] {
  return Object.freeze(Object.keys(keys));
}

/**
 * Rejects an options object with a key outside `valid`, naming the key and the nearest valid one, so a
 * mistyped option is never silently ignored. `undefined` (no options) passes; anything that is not a
 * plain object is refused as well.
 */
export function checkOptions(where: string, options: unknown, valid: readonly string[]): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InputTypeError(`${where}: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  for (const key of Object.keys(options)) {
    if (!valid.includes(key)) throw new OptionError(where, key, nearest(key, valid), valid);
  }
}

/** The entries of `options` whose keys are in `keys` (convert hands each format only its own options). */
export function only<T extends object>(options: T | undefined, keys: readonly string[]): T | undefined {
  if (!options) return options;
  return Object.fromEntries(Object.entries(options).filter(([k]) => keys.includes(k))) as T;
}

/** The valid key closest to `key` by edit distance (case-insensitive), if it is close enough to be a typo. */
function nearest(key: string, valid: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const v of valid) {
    const [k, w] = [key.toLowerCase(), v.toLowerCase()];
    // a key that extends or abbreviates a valid one ('conjugate', 'tol') counts as one edit away
    const d = k.startsWith(w) || w.startsWith(k) ? 1 : editDistance(k, w);
    if (d < bestDistance) [best, bestDistance] = [v, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/*
 * Option values, checked up front (before any work starts) by every public function: a value of the
 * wrong type is an InputTypeError, a number out of range an InputRangeError, a name outside its set an
 * UnsupportedError; each message shows the value with its type. `undefined` always passes (the default).
 */

/** The numbers a number option takes, in words for the message. */
export interface NumberRule {
  readonly what: string;
  readonly ok: (n: number) => boolean;
}

export const NON_NEGATIVE_INTEGER: NumberRule = { what: 'a non-negative integer', ok: (n) => Number.isInteger(n) && n >= 0 };
export const POSITIVE_INTEGER: NumberRule = { what: 'a positive integer', ok: (n) => Number.isInteger(n) && n >= 1 };
export const FINITE_NON_NEGATIVE: NumberRule = { what: 'a finite number ≥ 0', ok: (n) => Number.isFinite(n) && n >= 0 };
export const NON_NEGATIVE: NumberRule = { what: 'a number ≥ 0', ok: (n) => n >= 0 };
export const POSITIVE: NumberRule = { what: 'a positive number', ok: (n) => n > 0 };
export const ANY_NUMBER: NumberRule = { what: 'a number', ok: () => true };
export const inRange = (lo: number, hi: number): NumberRule => ({ what: `a number in [${lo}, ${hi}]`, ok: (n) => n >= lo && n <= hi });

export function checkNumber(where: string, name: string, v: unknown, rule: NumberRule): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number') throw new InputTypeError(`${where}: ${name} must be ${rule.what}, got ${shownTyped(v)}`);
  if (!rule.ok(v)) throw new InputRangeError(`${where}: ${name} must be ${rule.what}, got ${shownTyped(v)}`);
  return v;
}

/** A number argument that has no default: undefined is refused like any other non-number. */
export function requireNumber(where: string, name: string, v: unknown, rule: NumberRule): number {
  if (v === undefined) throw new InputTypeError(`${where}: ${name} must be ${rule.what}, got undefined`);
  return checkNumber(where, name, v, rule)!;
}

export function checkBoolean(where: string, name: string, v: unknown): boolean | undefined {
  if (v !== undefined && typeof v !== 'boolean') throw new InputTypeError(`${where}: ${name} must be true or false, got ${shownTyped(v)}`);
  return v;
}

export function checkFunction(where: string, name: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'function') throw new InputTypeError(`${where}: ${name} must be a function, got ${shownTyped(v)}`);
}

/** An AbortSignal (or any object with a boolean `aborted`, as the solvers read it). */
export function checkSignal(where: string, v: unknown): void {
  if (v !== undefined && !(typeof v === 'object' && v !== null && typeof (v as { aborted?: unknown }).aborted === 'boolean')) {
    throw new InputTypeError(`${where}: signal must be an AbortSignal, got ${shownTyped(v)}`);
  }
}

/** A scalar: a number, or `[re, im]` (exactly two numbers); returned as [re, im]. */
export function checkScalar(where: string, name: string, v: unknown, fallback: number): [number, number] {
  if (v === undefined) return [fallback, 0];
  if (typeof v === 'number') return [v, 0];
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return [v[0], v[1]];
  throw new InputTypeError(`${where}: ${name} must be a number or [re, im] (two numbers), got ${shownTyped(v)}`);
}

/** One of a set of names (an op, a preconditioner): anything else is an UnsupportedError listing the set. */
export function checkChoice<T extends string>(where: string, name: string, v: unknown, valid: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!valid.includes(v as T)) throw new UnsupportedError(`${where}: ${name} must be ${valid.map((x) => `'${x}'`).join(', ')}, got ${shownTyped(v)}`);
  return v as T;
}
