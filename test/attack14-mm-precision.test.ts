/**
 * Fourteenth attack pass, writeMatrixMarket's `precision` (values rounded to that many significant
 * digits): a finite value whose rounding passes the dtype's largest finite value was written as
 * `Infinity` — f64's largest, 1.7976931348623157e308, at 2 digits became "1.8e+308", which
 * String(Number(…)) wrote as the text "Infinity" and the reader read back as +Inf: a finite matrix
 * came back infinite, with no error (a round-trip property over special values found it). An f32 or
 * c64 matrix's largest value at 4 digits ("3.403e+38") read back as f32 +Inf the same way. Such a value
 * is now written rounded toward zero to those digits (1.7e+308, 3.402e+38), the nearest that stays finite.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';

const F64_MAX = 1.7976931348623157e308;
const F32_MAX = 3.4028234663852886e38;

/** A 1×2 matrix of (v, −v) in dtype */
function pair(dtype: 'f64' | 'f32' | 'c128' | 'c64', v: number): CSRMatrix {
  const c = dtype[0] === 'c' ? 2 : 1;
  const vals = c === 2 ? [v, -v, -v, v] : [v, -v];
  return new CSRMatrix(1, 2, dtype, Int32Array.of(0, 2), Int32Array.of(0, 1), dtype === 'f32' || dtype === 'c64' ? Float32Array.from(vals) : Float64Array.from(vals));
}

describe('attack14: writeMatrixMarket with precision keeps finite values finite', () => {
  it('the largest finite values (and values near them) at 1–17 digits: read back finite, within the precision of the value, no "Infinity" in the file', () => {
    const cases: ['f64' | 'f32' | 'c128' | 'c64', number][] = [
      ['f64', F64_MAX], ['c128', F64_MAX], ['f64', 1.7976e308], ['f64', 1.79e308], ['f64', 9.99e307],
      ['f32', F32_MAX], ['c64', F32_MAX], ['f32', Math.fround(3.4e38)], ['f32', Math.fround(9.99e37)],
    ];
    for (const [dtype, v] of cases) {
      const A = pair(dtype, v);
      for (let precision = 1; precision <= 17; precision++) {
        const text = writeMatrixMarket(A, { precision });
        const what = `${dtype} ${v} at ${precision} digits: ${text.split('\n').slice(2).join(' | ')}`;
        expect(text, what).not.toMatch(/Infinity|inf/i);
        const B = (parseMatrixMarket(text, { dtype }).matrix as { toCSR(): CSRMatrix }).toCSR();
        const stored = A.values;
        for (let k = 0; k < stored.length; k++) {
          const got = B.values[k];
          expect(Number.isFinite(got), what).toBe(true);
          // rounded to `precision` digits (to nearest, or toward zero at the top of the range), then to the dtype
          const ulp32 = dtype === 'f32' || dtype === 'c64' ? 2 ** -23 : 0;
          expect(Math.abs(got - stored[k]), what).toBeLessThanOrEqual(Math.abs(stored[k]) * (10 ** (1 - precision) + ulp32));
        }
      }
    }
  });

  it('ordinary values still round to nearest at the precision asked', () => {
    const A = pair('f64', 2 / 3);
    expect(writeMatrixMarket(A, { precision: 3 }).split('\n').slice(2, 4)).toEqual(['1 1 0.667', '1 2 -0.667']);
    expect(writeMatrixMarket(pair('f64', 1.66e308), { precision: 2 }).split('\n')[2]).toBe('1 1 1.7e+308');
    expect(writeMatrixMarket(pair('f64', F64_MAX), { precision: 2 }).split('\n')[2]).toBe('1 1 1.7e+308');
    expect(writeMatrixMarket(pair('f32', F32_MAX), { precision: 4 }).split('\n')[2]).toBe('1 1 3.402e+38');
  });
});
