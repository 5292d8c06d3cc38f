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
