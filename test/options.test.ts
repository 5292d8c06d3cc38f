// Defaults that choose well and options that cannot be mistyped (issue 12, item 1): every options
// object of the public API refuses an unknown key with an OptionError naming the key and the nearest
// valid one; upload chooses the format by default ('keep' keeps it) and converts the dtype it is
// given; workers default to every core where memory can be shared.
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  convert,
  createRuntime,
  COOMatrix,
  CSRMatrix,
  DenseMatrix,
  DIAMatrix,
  ELLMatrix,
  HYBMatrix,
  OptionError,
  parseMatrixMarket,
  poisson2D,
  poisson3D,
  randomMatrix,
  readMatrixMarket,
  SELLMatrix,
  UnsupportedError,
  writeMatrixMarket,
  type Runtime,
} from '../src/index.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

const MM = '%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3\n';

/** Each public function that takes an options object, called with one bad key (and a typo of a good one). */
function calls(): Array<[string, (o: object) => unknown, string, string]> {
  const A = poisson2D(3);
  const h = rt.upload(A);
  const x = rt.vector(new Float64Array(9).fill(1));
  const D = new DenseMatrix(2, 2, 'f64', new Float64Array([1, 2, 3, 4]));
  // [what, call with options, a typo, the key it should suggest]
  return [
    ['createRuntime', (o) => createRuntime(o), 'worker', 'workers'],
    ['createRuntime: webgpu', (o) => createRuntime({ webgpu: o }), 'powerPreferance', 'powerPreference'],
    ['upload', (o) => rt.upload(A, o), 'formatt', 'format'],
    ['spmv', (o) => rt.spmv(h, x, o), 'alfa', 'alpha'],
    ['dot', (o) => rt.dot(x, x, o), 'conjugate', 'conj'],
    ['cg', (o) => rt.cg(h, new Float64Array(9), o), 'tolerance', 'tol'],
    ['bicgstab', (o) => rt.bicgstab(h, new Float64Array(9), o), 'maxIters', 'maxIter'],
    ['gemm', (o) => rt.gemm(D, D, o), 'naïve', 'naive'],
    ['add', (o) => rt.add(D, D, o), 'beat', 'beta'],
    ['transpose', (o) => rt.transpose(D, o), 'pth', 'path'],
    ['explain', (o) => rt.explain('spmv', h, o), 'readback', 'readBack'],
    ['convert', (o) => convert(A, 'ell', o), 'maxfill', 'maxFill'],
    ['DIAMatrix.fromCSR', (o) => DIAMatrix.fromCSR(A, o), 'maxSlot', 'maxSlots'],
    ['ELLMatrix.fromCSR', (o) => ELLMatrix.fromCSR(A, o), 'widht', 'width'],
    ['HYBMatrix.fromCSR', (o) => HYBMatrix.fromCSR(A, o), 'with', 'width'],
    ['SELLMatrix.fromCSR', (o) => SELLMatrix.fromCSR(A, o), 'sliceheight', 'sliceHeight'],
    ['DenseMatrix.fromCSR', (o) => DenseMatrix.fromCSR(A, o), 'maxslots', 'maxSlots'],
    ['parseMatrixMarket', (o) => parseMatrixMarket(MM, o), 'dtyp', 'dtype'],
    ['readMatrixMarket', (o) => readMatrixMarket(MM, o), 'onprogress', 'onProgress'],
    ['writeMatrixMarket', (o) => writeMatrixMarket(A, o), 'symetry', 'symmetry'],
    ['randomMatrix', (o) => randomMatrix({ rows: 3, ...o }), 'meanRowLen', 'meanRowLength'],
    ['poisson2D', (o) => poisson2D(2, o), 'dtpye', 'dtype'],
    ['poisson3D', (o) => poisson3D(2, o), 'type', 'dtype'],
  ];
}

async function outcome(f: () => unknown): Promise<unknown> {
  try {
    return await f();
  } catch (e) {
    return e;
  }
}

describe('no public option is silently ignored', () => {
  it('every options object refuses an unknown key, naming it and the nearest valid key', async () => {
    for (const [what, call, typo, suggestion] of calls()) {
      const e = await outcome(() => call({ [typo]: 1 }));
      expect(e, what).toBeInstanceOf(OptionError);
      const err = e as OptionError;
      expect(err.key, what).toBe(typo);
      expect(err.suggestion, what).toBe(suggestion);
      expect(err.message, what).toContain(`"${typo}"`);
      expect(err.message, what).toContain(`did you mean "${suggestion}"`);
      expect(err.code).toBe('E_OPTION');
      // a key far from every valid one gets no suggestion, still an error
      const far = (await outcome(() => call({ zzzzzzzzzzzzzzzz: 1 }))) as OptionError;
      expect(far, what).toBeInstanceOf(OptionError);
      expect(far.suggestion, what).toBeUndefined();
    }
  });

  it('the runtime stays usable after refusing options, and valid options still work', async () => {
    const h = rt.upload(poisson2D(3), { format: 'csr', dtype: 'f32' });
    expect(h.dtype).toBe('f32');
    expect(Array.from(await rt.spmv(h, new Float32Array(9).fill(1), { alpha: 1 }))).toEqual([2, 1, 2, 1, 0, 1, 2, 1, 2]);
    await expect(rt.spmv(h, new Float32Array(9), { y: undefined, nope: 1 } as object)).rejects.toBeInstanceOf(OptionError);
  });

  it('options that are not objects are refused', () => {
    expect(() => rt.upload(poisson2D(2), 'csr' as unknown as object)).toThrow(TypeError);
    expect(() => convert(poisson2D(2), 'ell', [] as unknown as object)).toThrow(TypeError);
  });
});

describe('upload: format and dtype', () => {
  it('without a format, upload makes the same choice as format: auto, which explain states', () => {
    for (const A of [poisson3D(8), randomMatrix({ rows: 500, meanRowLength: 6, distribution: 'powerlaw', seed: 3 })]) {
      const coo = COOMatrix.fromCSR(A); // what readMatrixMarket gives
      const byDefault = rt.upload(coo);
      const auto = rt.upload(coo, { format: 'auto' });
      expect(byDefault.format).toBe(auto.format);
      expect(byDefault.format).toBe(rt.explain('spmv', coo).estimates.cpu!.format);
      expect(byDefault.format).not.toBe('coo');
    }
  });

  it("format: 'keep' keeps the input's format; a named format converts", () => {
    const coo = COOMatrix.fromCSR(poisson3D(6));
    expect(rt.upload(coo, { format: 'keep' }).format).toBe('coo');
    expect(rt.upload(coo, { format: 'ell' }).format).toBe('ell');
    expect(rt.upload(coo, { format: 'sell', sliceHeight: 4, sortWindow: 1 }).format).toBe('sell');
  });

  it('dtype converts on the way: the product comes back in that dtype and agrees with f64', async () => {
    const A = poisson2D(5); // f64
    const x = new Float64Array(25).map((_, i) => (i % 7) - 3);
    const y64 = await rt.spmv(rt.upload(A), x);
    const h32 = rt.upload(A, { dtype: 'f32' });
    expect(h32.dtype).toBe('f32');
    const y32 = await rt.spmv(h32, Float32Array.from(x));
    expect(y32).toBeInstanceOf(Float32Array);
    expect(Array.from(y32)).toEqual(Array.from(y64)); // small integers: exact in both
    const hc = rt.upload(A, { dtype: 'c128', format: 'csr' });
    const xc = new Float64Array(50);
    for (let i = 0; i < 25; i++) xc[2 * i] = x[i];
    const yc = await rt.spmv(hc, xc);
    for (let i = 0; i < 25; i++) expect([yc[2 * i], yc[2 * i + 1] + 0]).toEqual([y64[i], 0]);
    const complex = new CSRMatrix(1, 1, 'c64', new Int32Array([0, 1]), new Int32Array([0]), new Float32Array([1, 2]));
    expect(() => rt.upload(complex, { dtype: 'f32' })).toThrow(UnsupportedError);
    expect(() => rt.upload(A, { dtype: 'f16' as 'f32' })).toThrow(UnsupportedError);
  });
});

describe('workers default', () => {
  it("defaults to every core where memory is shared (Node), and says so in capabilities", async () => {
    const r = await createRuntime({ backend: 'cpu' });
    try {
      const c = r.capabilities();
      expect(c.sharedMemory).toBe(true);
      expect(c.threads).toBe(availableParallelism());
    } finally {
      r.dispose();
    }
  });
});
