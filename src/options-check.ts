import { OptionError } from './errors.js';

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
    throw new TypeError(`${where}: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
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
