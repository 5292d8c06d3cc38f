/**
 * The tests' seeded random numbers: mulberry32, a small 32-bit generator. Tests pin their seeds, so
 * the same seed must keep giving the same stream (the library's own generators use src/generators/prng.ts).
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random n×n pattern, 3 entries a row besides a small diagonal of 0.05, as triplets: strict partial
 * pivoting fills far beyond the symmetric estimate, with a dense trailing block (the LU's budget tests).
 */
export function pivotingTriplets(n: number, seed: number): { rows: number[]; cols: number[]; values: number[] } {
  const r = mulberry32(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(i, i, i, i);
    cols.push(i, ...[0, 1, 2].map(() => Math.floor(r() * n)));
    values.push(0.05, 2 * r() - 1, 2 * r() - 1, 2 * r() - 1);
  }
  return { rows, cols, values };
}
