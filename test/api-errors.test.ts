/** Bad input through the public API: each a typed error that says what and where, earlier data intact. */
import { describe, expect, it } from 'vitest';
import {
  createRuntime,
  CSRMatrix,
  DisposedError,
  FormatError,
  MemoryLimitError,
  ShapeError,
  UnsupportedError,
  SimdglError,
  poisson2D,
  COOMatrix,
  convert,
  PaddingLimitError,
  writeMatrixMarket,
} from '../src/index.js';
import { shownValue } from '../src/shown-value.js';

describe('runtime errors', () => {
  it('rejects mismatched vector lengths, naming the operand and both lengths', async () => {
    const rt = await createRuntime();
    const h = rt.upload(poisson2D(3));
    await expect(rt.spmv(h, new Float64Array(8))).rejects.toThrow(ShapeError);
    await expect(rt.spmv(h, new Float64Array(8))).rejects.toThrow(/x has length 8, expected 9/);
    await expect(rt.spmv(h, new Float64Array(9), { y: new Float64Array(10) })).rejects.toThrow(/y has length 10, expected 9/);
    await expect(rt.spmv(h, new Float64Array(9), { y: new Float32Array(9) })).rejects.toThrow(/Float64Array/);
    const v = rt.vector(4);
    await expect(rt.spmv(h, v)).rejects.toThrow(/x has 4 elements, expected 9/);
    rt.dispose();
  });

  it('rejects unsupported combinations with UnsupportedError', async () => {
    const rt = await createRuntime();
    const h = rt.upload(poisson2D(2));
    await expect(rt.spmv(h, new Float64Array(4), { alpha: [1, 1] })).rejects.toThrow(UnsupportedError);
    await expect(rt.spmv(h, new Float64Array(4), { op: 'X' as 'N' })).rejects.toThrow(/op must be/);
    await expect(createRuntime({ backend: 'quantum' as 'cpu' })).rejects.toThrow(UnsupportedError);
    expect(() => rt.vector(3, 'f16' as 'f32')).toThrow(UnsupportedError);
    rt.dispose();
  });

  it('a matrix or array passed where a name belongs is shown by its kind, not spelled out', async () => {
    // JSON.stringify of this matrix is about 8 MB; a 15 M-entry one came near V8's string limit
    const A = poisson2D(300);
    const rt = await createRuntime();
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as Error;
      }
      throw new Error('no error');
    };
    const e1 = bad(() => rt.explain(A as unknown as 'spmv', A));
    expect(e1).toBeInstanceOf(UnsupportedError);
    expect(e1.message).toBe(`explain: 'spmv' and 'solve' are explained, not a matrix object (format "csr") (the first argument names the operation: rt.explain('spmv', A))`);
    const e2 = bad(() => convert(A, A.values as unknown as 'csr'));
    expect(e2).toBeInstanceOf(UnsupportedError);
    expect(e2.message).toMatch(new RegExp(`^convert: unknown format a Float64Array of ${A.values.length} elements, expected one of `));
    const e3 = bad(() => rt.vector(3, { dtype: 'f32' } as unknown as 'f32'));
    expect(e3.message).toMatch(/unknown dtype an object, expected one of/);
    const e4 = bad(() => writeMatrixMarket(A, { field: 'x'.repeat(10_000) as 'real' }));
    expect(e4.message.length).toBeLessThan(120);
    await expect(createRuntime({ backend: [1, 2, 3] as unknown as 'cpu' })).rejects.toThrow(/got an array of 3 elements$/);
    rt.dispose();
  });

  it('shownValue: short strings quoted, scalars as they are, the rest by kind and size', () => {
    expect(shownValue('csr')).toBe('"csr"');
    expect(shownValue('y'.repeat(41))).toBe(`"${'y'.repeat(40)}…"`);
    expect([1.5, undefined, null, true, 10n].map(shownValue)).toEqual(['1.5', 'undefined', 'null', 'true', '10']);
    expect(shownValue(Symbol('s'))).toBe('Symbol(s)');
    expect(shownValue(() => 1)).toBe('a function');
    expect(shownValue(new Int32Array(7))).toBe('an Int32Array of 7 elements');
    expect(shownValue(new ArrayBuffer(8))).toBe('an ArrayBuffer');
    expect(shownValue(new DataView(new ArrayBuffer(12)))).toBe('a DataView of 12 bytes');
    expect(shownValue([])).toBe('an array of 0 elements');
    expect(shownValue({ format: 'coo', rows: 1 })).toBe('a matrix object (format "coo")');
    expect(shownValue(new Map())).toBe('a Map');
    expect(shownValue(Object.create(null))).toBe('an object');
    expect(shownValue({ a: 1 })).toBe('an object');
  });

  it('refuses an invalid matrix at upload and allocates nothing', async () => {
    const rt = await createRuntime();
    const before = rt.memoryInUse;
    const bad = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 1, 2]), new Int32Array([0, 5]), new Float64Array(2));
    expect(() => rt.upload(bad)).toThrow(FormatError);
    expect(() => rt.upload(bad)).toThrow(/colIdx\[1\]/);
    expect(rt.memoryInUse).toBe(before);
    rt.dispose();
  });

  it('uses after dispose throw DisposedError; handles from another runtime are refused', async () => {
    const rt = await createRuntime();
    const other = await createRuntime();
    const h = rt.upload(poisson2D(2));
    await expect(other.spmv(h, new Float64Array(4))).rejects.toThrow(/another runtime/);
    h.dispose();
    await expect(rt.spmv(h, new Float64Array(4))).rejects.toThrow(DisposedError);
    rt.dispose();
    expect(() => rt.upload(poisson2D(2))).toThrow(DisposedError);
    other.dispose();
  });

  it('memory filled by handles nobody disposed: the MemoryLimitError says how much is held and to dispose()', async () => {
    const rt = await createRuntime({ maxMemoryMB: 8, workers: 1 });
    const kept: { dispose(): void }[] = [];
    let err: unknown;
    try {
      // poisson2D(100): 49 600 entries, ≈ 0.6 MB uploaded; 8 MiB holds about a dozen
      for (let i = 0; i < 64; i++) kept.push(rt.upload(poisson2D(100), { format: 'csr' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemoryLimitError);
    const m = /and (\d+) MiB of it is held by live matrices, vectors and kept factorizations; dispose\(\)/.exec((err as Error).message);
    expect(m, (err as Error).message).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(4);
    // disposing them frees the room: the same upload fits again
    for (const h of kept) h.dispose();
    expect(() => rt.upload(poisson2D(100), { format: 'csr' }).dispose()).not.toThrow();
    rt.dispose();
  });

  it('memory that cannot grow is a MemoryLimitError (a RangeError) and earlier data survives', async () => {
    const rt = await createRuntime({ maxMemoryMB: 8 });
    const small = poisson2D(10);
    const h = rt.upload(small);
    const x = new Float64Array(100).fill(1);
    const before = await rt.spmv(h, x);
    let err: unknown;
    try {
      rt.upload(poisson2D(400), { format: 'keep' }); // ~800k nonzeros, ~10 MB of CSR: over the 8 MiB limit
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as MemoryLimitError).code).toBe('E_MEMORY');
    expect((err as Error).message).toMatch(/maxMemoryMB/);
    expect(Array.from(await rt.spmv(h, x))).toEqual(Array.from(before));
    rt.dispose();
    await expect(createRuntime({ maxMemoryMB: 0 })).rejects.toThrow(RangeError);
  });

  it('a padded format past the int32 slot limit is refused without suggesting to raise the limit', () => {
    const n = 60_000;
    const rows = Int32Array.from({ length: n }, (_, i) => i);
    const cols = Int32Array.from({ length: n }, (_, i) => n - 1 - i); // the anti-diagonal: n distinct diagonals, n² > 2³¹ slots
    const A = new COOMatrix(n, n, 'f32', rows, cols, new Float32Array(n).fill(1));
    let err: unknown;
    try {
      convert(A, 'dia', { maxFill: 1e12 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaddingLimitError);
    expect((err as Error).message).toMatch(/int32 slot index limit: use CSR or HYB\)$/);
    expect((err as Error).message).not.toMatch(/raise it/);
  });

  it('every simdgl error carries a code', () => {
    expect(new ShapeError('x').code).toBe('E_SHAPE');
    expect(new ShapeError('x')).toBeInstanceOf(SimdglError);
  });
});
