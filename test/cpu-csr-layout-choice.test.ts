/**
 * chooseCsrLayout (src/cpu/csr-layout.ts) against the documented rule computed the plain way — every
 * entry's offset from the diagonal, every 4-row group's flag — on generated pairs that reach each of
 * its exits: plain by the row-length bound (small, or large and wide), plain with the flags counted,
 * csr16 (large and narrow; mostly uniform), csrg; with sorted rows told (first and last entries) or not,
 * and an unsorted row whose middle entry alone leaves the i16 range.
 */
import { describe, expect, it } from 'vitest';
import { chooseCsrLayout, groupedLayout, OFFSETS16_MIN_NNZ, shortEqualGroups } from '../src/cpu/csr-layout.js';
import { mulberry32 } from './random.js';

/** The rule, entry by entry. */
function reference(ptr: Int32Array, idx: Int32Array): { kind: string; flags: Uint8Array } {
  const rows = ptr.length - 1;
  let narrow = true;
  for (let i = 0; i < rows; i++) for (let k = ptr[i]; k < ptr[i + 1]; k++) if (Math.abs(idx[k] - i + 0.5) > 32767.5) narrow = false;
  const flags = new Uint8Array(Math.ceil(rows / 4));
  let u = 0;
  for (let g = 0; 4 * g + 4 <= rows; g++) {
    const lens = [0, 1, 2, 3].map((q) => ptr[4 * g + q + 1] - ptr[4 * g + q]);
    const n = lens[0];
    if (n < 1 || n > 16 || lens.some((l) => l !== n)) continue;
    let same = true;
    for (let q = 1; q < 4; q++) for (let k = 0; k < n; k++) if (idx[ptr[4 * g + q] + k] !== idx[ptr[4 * g] + k] + q) same = false;
    if (same) (flags[g] = 1), u++;
  }
  const whole = rows >> 2;
  const kind = narrow && idx.length >= OFFSETS16_MIN_NNZ ? 'csr16' : u === 0 || 2 * u < whole ? 'plain' : narrow ? 'csr16' : 'csrg';
  return { kind, flags };
}

/**
 * rows × rows with sorted rows: a share `uniform` of the 4-row groups a stencil's (offsets
 * −reach, −1, 0, 1, reach), the others lo to hi random entries within ±band (lo > 16: long rows).
 */
function pair(rows: number, uniform: number, [lo, hi]: number[], band: number, reach: number, seed: number): [Int32Array, Int32Array] {
  const r = mulberry32(seed);
  const ptr = new Int32Array(rows + 1);
  const cols: number[] = [];
  for (let g = 0; 4 * g < rows; g++) {
    const stencil = r() < uniform;
    for (let i = 4 * g; i < Math.min(rows, 4 * g + 4); i++) {
      const row = new Set<number>();
      if (stencil) for (const d of [-reach, -1, 0, 1, reach]) row.add(i + d);
      const len = lo + Math.floor(r() * (hi - lo + 1));
      if (!stencil) while (row.size < len) row.add(i + Math.round((2 * r() - 1) * band));
      cols.push(...[...row].filter((c) => c >= 0 && c < rows).sort((a, b) => a - b));
      ptr[i + 1] = cols.length;
    }
  }
  return [ptr, Int32Array.from(cols)];
}

/** groupedLayout's arrays against each entry's place worked out one by one: p + 4k + q in a uniform group, else its own. */
function expectLayout(kind: 'csr16' | 'csrg', ptr: Int32Array, idx: Int32Array, flags: Uint8Array): void {
  const values = Float64Array.from(idx, (_, k) => k + 0.5);
  const L = groupedLayout(kind, ptr, idx, values, flags);
  for (let i = 0; i + 1 < ptr.length; i++) {
    for (let k = ptr[i]; k < ptr[i + 1]; k++) {
      const g = i >> 2, p = ptr[4 * g];
      const at = flags[g] ? p + 4 * (k - ptr[i]) + (i & 3) : k;
      const want = kind === 'csr16' ? idx[k] - i : idx[k];
      if (L.idx[at] !== want || L.values[at] !== values[k]) expect.fail(`row ${i} entry ${k} at ${at}: ${L.idx[at]}, ${L.values[at]}; want ${want}, ${values[k]}`);
    }
  }
}

describe('chooseCsrLayout', () => {
  const cases: [string, number, number, number[], number, number, string][] = [
    ['small, few uniform: plain by the bound', 4001, 0.2, [3, 7], 100, 50, 'plain'],
    ['small, long equal rows (no short group): plain by the bound', 4000, 0, [20, 20], 100, 50, 'plain'],
    ['small, mostly uniform', 4003, 0.8, [3, 7], 100, 50, 'csr16'],
    ['small, equal short rows but not uniform: plain by the flags', 4000, 0.3, [4, 4], 100, 50, 'plain'],
    ['small, mostly uniform beyond i16', 40000, 0.8, [3, 7], 100, 33000, 'csrg'],
    ['large and narrow, few uniform', 270000, 0.1, [3, 6], 3000, 50, 'csr16'],
    ['large and wide, few uniform: plain by the bound', 270000, 0.1, [3, 7], 40000, 50, 'plain'],
  ];
  for (const [name, rows, uniform, len, band, reach, kind] of cases) {
    it(name, () => {
      const [ptr, idx] = pair(rows, uniform, len, band, reach, rows);
      const ref = reference(ptr, idx);
      expect(ref.kind).toBe(kind);
      if (name.includes('large')) expect(idx.length).toBeGreaterThanOrEqual(OFFSETS16_MIN_NNZ);
      // the row lengths alone bound the uniform groups short of half
      if (/few|long/.test(name)) expect(2 * shortEqualGroups(ptr)).toBeLessThan(rows >> 2);
      else expect(2 * shortEqualGroups(ptr)).toBeGreaterThanOrEqual(rows >> 2);
      for (const sorted of [false, true]) {
        const got = chooseCsrLayout('f64', ptr, idx, sorted);
        expect(got.kind).toBe(ref.kind);
        if (got.kind !== 'plain') {
          expect(got.groups).toEqual(ref.flags);
          expectLayout(got.kind, ptr, idx, ref.flags);
        }
        expect(chooseCsrLayout('f32', ptr, idx, sorted).kind).toBe(ref.kind);
        expect(chooseCsrLayout('c128', ptr, idx, sorted).kind).toBe('plain');
      }
    });
  }

  it('an unsorted row is scanned whole: its middle entry beyond i16 makes csrg of a uniform matrix', () => {
    const [ptr, idx] = pair(4000, 1, [5, 5], 0, 50, 1);
    expect(chooseCsrLayout('f64', ptr, idx).kind).toBe('csr16');
    const row = 2001, p = ptr[row];
    idx[p + 2] = row + 40000; // the diagonal's slot, between the row's first and last entries
    expect(reference(ptr, idx).kind).toBe('csrg');
    expect(chooseCsrLayout('f64', ptr, idx).kind).toBe('csrg');
  });
});
