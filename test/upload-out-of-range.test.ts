/**
 * rt.upload(A, { dtype: 'f32' }) with values f32 cannot hold: an InputRangeError naming the entry, as
 * astype gives, or with { outOfRange: 'round' } IEEE rounding (the option astype's message names).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, CSRMatrix, type Runtime } from '../src/index.js';
import { InputRangeError, UnsupportedError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
});
afterAll(() => rt.dispose());

/** 2×2 with `v` at (1, 0) and 2 on the diagonal */
const withValue = (v: number) => new CSRMatrix(2, 2, 'f64', new Int32Array([0, 1, 3]), new Int32Array([0, 0, 1]), new Float64Array([2, v, 2]));

describe("rt.upload(A, { dtype: 'f32' }) and values f32 cannot hold", () => {
  for (const [v, becomes] of [[1e39, Infinity], [-1e39, -Infinity], [1e-50, 0]] as const) {
    it(`${v}: refused by default, naming row 1, column 0`, () => {
      let error: unknown;
      try {
        rt.upload(withValue(v), { dtype: 'f32' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InputRangeError);
      expect((error as Error).message).toMatch(/row 1, column 0/);
    });
    it(`${v}: rounded to ${becomes} with outOfRange 'round'`, async () => {
      const A = rt.upload(withValue(v), { dtype: 'f32', outOfRange: 'round' });
      expect(A.dtype).toBe('f32');
      const y = await rt.spmv(A, new Float32Array([1, 0]));
      expect(Array.from(y)).toEqual([2, becomes]);
      A.dispose();
    });
  }
  it('a value f32 holds rounds without a word either way', async () => {
    for (const outOfRange of [undefined, 'throw', 'round'] as const) {
      const A = rt.upload(withValue(0.1), { dtype: 'f32', outOfRange });
      expect(Array.from(await rt.spmv(A, new Float32Array([1, 0])))).toEqual([2, Math.fround(0.1)]);
      A.dispose();
    }
  });
  it("an unknown outOfRange is refused as astype refuses it (UnsupportedError naming 'outOfRange')", () => {
    expect(() => withValue(1).astype('f32', { outOfRange: 'clamp' as 'round' })).toThrow(UnsupportedError);
    expect(() => rt.upload(withValue(1), { dtype: 'f32', outOfRange: 'clamp' as 'round' })).toThrow(/outOfRange/);
    expect(() => rt.upload(withValue(1), { dtype: 'f32', outOfRange: 'clamp' as 'round' })).toThrow(UnsupportedError);
  });
});
