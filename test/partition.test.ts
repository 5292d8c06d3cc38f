/**
 * The pool's chunking (src/cpu/partition.ts): contiguous chunks of near-equal cost, for fine items
 * (rows) and for coarse ones (cache-tile bands, about one per thread).
 */
import { describe, it, expect } from 'vitest';
import { balancedBounds, pointerPrefix } from '../src/cpu/partition.js';

/** prefix sums of per-item costs */
const prefixOf = (costs: number[]) => {
  const p = [0];
  for (const c of costs) p.push(p[p.length - 1] + c);
  return (i: number) => p[i];
};

describe('balancedBounds', () => {
  it('gives each chunk one coarse item when there are as many items as chunks, however uneven', () => {
    // bands of ±3% cost and a short last one: the first boundary past each target would hand some
    // chunks two bands and others none
    const costs = [1.02, 0.97, 1.01, 0.99, 1.03, 0.98, 1, 1.01, 0.99, 1.02, 0.97, 1, 1.01, 0.99, 1.02, 0.97];
    const b = balancedBounds(16, 16, prefixOf(costs), 1);
    expect(Array.from(b)).toEqual(Array.from({ length: 17 }, (_, i) => i));
    // two bands per chunk
    const b2 = balancedBounds(32, 16, prefixOf([...costs, ...costs]), 1);
    for (let p = 0; p < 16; p++) expect(b2[p + 1] - b2[p]).toBe(2);
  });

  it('splits rows by entries plus one per row, at multiples of align, nondecreasing, covering [0, n)', () => {
    const rows = 1000;
    const ptr = new Int32Array(rows + 1);
    for (let i = 0; i < rows; i++) ptr[i + 1] = ptr[i] + (i % 97 === 0 ? 500 : 3);
    const pre = pointerPrefix(ptr);
    for (const parts of [1, 2, 3, 7, 16]) {
      const b = balancedBounds(rows, parts, pre);
      expect(b[0]).toBe(0);
      expect(b[parts]).toBe(rows);
      const ideal = pre(rows) / parts;
      for (let p = 0; p < parts; p++) {
        expect(b[p + 1]).toBeGreaterThanOrEqual(b[p]);
        if (p > 0 && b[p] < rows) expect(b[p] % 4).toBe(0);
        // no chunk is more than one long row (500 entries) plus an align group away from its share
        expect(Math.abs(pre(b[p + 1]) - pre(b[p]) - ideal)).toBeLessThanOrEqual(2 * (501 + 4 * 4));
      }
    }
  });

  it('allows empty chunks when there are more chunks than items', () => {
    const b = balancedBounds(3, 8, (i) => i, 1);
    expect(b[8]).toBe(3);
    for (let p = 0; p < 8; p++) expect(b[p + 1] - b[p]).toBeGreaterThanOrEqual(0);
  });
});
