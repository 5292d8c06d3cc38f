/**
 * Small sparse systems for the attack tests' properties: a CSR matrix from (row, column, value) entries
 * (a later entry at the same place wins), and the arbitrary for entries spanning 1e-300 … 1e300 that
 * attack11-finite-x and attack12-nan-fallback draw their systems from.
 */
import fc from 'fast-check';
import { CSRMatrix } from '../src/formats/csr.js';

export function fromEntries(n: number, entries: [number, number, number][]): CSRMatrix {
  const rows = Array.from({ length: n }, () => new Map<number, number>());
  for (const [i, j, v] of entries) rows[i].set(j, v);
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  for (const row of rows) {
    for (const j of [...row.keys()].sort((a, b) => a - b)) {
      colIdx.push(j);
      values.push(row.get(j)!);
    }
    rowPtr.push(colIdx.length);
  }
  return new CSRMatrix(n, n, 'f64', Int32Array.from(rowPtr), Int32Array.from(colIdx), Float64Array.from(values));
}

/** n of 1 … 10, up to 2n entries of moderate values and a few from 1e-300 to 1e300, b in [−1, 1] with 0, 1e-144 and 1e100 */
export function wideRangeSystem<T extends object>(extra: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<{ n: number; entries: [number, number, number][]; b: number[] } & T> {
  const value = fc.oneof(
    { weight: 6, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(1e-300, -1e-232, 2 ** -600, 2 ** 600, 1e300, 0) },
  );
  const rhs = fc.oneof({ weight: 6, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(0, 1e-144, 1e100) });
  return fc.integer({ min: 1, max: 10 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      entries: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), value), { maxLength: 2 * n }),
      b: fc.array(rhs, { minLength: n, maxLength: n }),
      ...extra,
    }),
  ) as fc.Arbitrary<{ n: number; entries: [number, number, number][]; b: number[] } & T>;
}
