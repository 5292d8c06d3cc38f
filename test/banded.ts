/**
 * A real banded test matrix: entry (i, i + o) for each offset o that falls inside the n×n matrix, its
 * value value(i, o) — called row by row in the offsets' order, so a seeded generator inside `value`
 * gives the same matrix each time — or no entry where value returns undefined.
 */
import { CSRMatrix } from '../src/formats/csr.js';

export function bandedMatrix(n: number, offsets: readonly number[], dtype: 'f64' | 'f32', value: (i: number, o: number) => number | undefined): CSRMatrix {
  const ptr = [0];
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const o of offsets) {
      if (i + o < 0 || i + o >= n) continue;
      const v = value(i, o);
      if (v === undefined) continue;
      col.push(i + o);
      val.push(v);
    }
    ptr.push(col.length);
  }
  const values = dtype === 'f32' ? Float32Array.from(val) : Float64Array.from(val);
  return new CSRMatrix(n, n, dtype, Int32Array.from(ptr), Int32Array.from(col), values);
}
