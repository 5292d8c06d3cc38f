/**
 * A small seeded PRNG (xoshiro128**, Blackman & Vigna) so generated matrices are reproducible across
 * engines: the same seed gives the same matrix in Node and in every browser. Not for cryptography.
 *
 * @example
 * ```js
 * // Reproducible right-hand sides
 * import { Prng } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rhs = (seed) => { const r = new Prng(seed); return Float64Array.from({ length: 5 }, () => r.next() * 2 - 1); };
 * assert.deepEqual(rhs(7), rhs(7));
 * assert.notDeepEqual(rhs(7), rhs(8));
 * const r = new Prng(1);
 * assert.ok([...Array(100)].every(() => { const k = r.int(6); return Number.isInteger(k) && k >= 0 && k < 6; }));
 * ```
 */
export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  /** A generator from a 32-bit seed (taken modulo 2³²): the same seed gives the same sequence. */
  constructor(seed: number) {
    // splitmix32 expands the seed into four non-zero state words
    let z = seed >>> 0;
    const next = (): number => {
      z = (z + 0x9e3779b9) >>> 0;
      let t = z;
      t = Math.imul(t ^ (t >>> 16), 0x85ebca6b);
      t = Math.imul(t ^ (t >>> 13), 0xc2b2ae35);
      return (t ^ (t >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next() | 1;
  }
  /** uniform 32-bit unsigned integer */
  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }
  /** uniform in [0, 1) with 32 random bits */
  next(): number {
    return this.nextU32() / 4294967296;
  }
  /** uniform integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
