/**
 * Issue 23's API findings, on the CPU path and on WebGPU (Dawn + SwiftShader, test/webgpu-helpers.ts):
 * aliased operands (an output that is also an input) compute what they would with separate operands,
 * or are refused where docs/errors.md says so (gemm's C = A or B); one rule for vector data at every
 * entry point; option values checked by type and range before any work, with messages that show the
 * value's type; CG's 0/0 breakdown under Jacobi; explain on a disposed handle; an unknown path; the
 * WebGPU error classes the README names are exported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import * as simdgl from '../src/index.js';
import { CSRMatrix, DenseMatrix, FORMATS, poisson2D, randomMatrix } from '../src/index.js';
import { DisposedError, InputRangeError, InputTypeError, OptionError, ShapeError, UnsupportedError } from '../src/errors.js';
import type { DType } from '../src/dtype.js';
import { compareRef, inDType, pointDawnAtSwiftShader, randomData, scalars } from './webgpu-helpers.js';

pointDawnAtSwiftShader();

const SPARSE = FORMATS.filter((f) => f !== 'dense');
const DTYPES: DType[] = ['f32', 'f64', 'c64', 'c128'];

/** A runtime whose every operation runs on `path` (a missing adapter fails, as in the WebGPU suites). */
async function runtimeOn(path: 'cpu' | 'webgpu'): Promise<Runtime> {
  const rt = await createRuntime({ backend: path, workers: 2 });
  if (path === 'webgpu' && !rt.capabilities().paths.webgpu.available) throw new Error('NO WEBGPU ADAPTER (Dawn + SwiftShader expected)');
  return rt;
}

function csr(M: number[][]): CSRMatrix {
  const rowPtr = [0], colIdx: number[] = [], values: number[] = [];
  M.forEach((row) => {
    row.forEach((v, j) => { if (v !== 0) { colIdx.push(j); values.push(v); } });
    rowPtr.push(colIdx.length);
  });
  return new CSRMatrix(M.length, M[0].length, 'f64', new Int32Array(rowPtr), new Int32Array(colIdx), new Float64Array(values));
}

for (const path of ['cpu', 'webgpu'] as const) {
  describe(`aliased operands on the ${path} path`, () => {
    let rt: Runtime;
    beforeAll(async () => {
      rt = await runtimeOn(path);
    });
    afterAll(() => rt?.dispose());

    it('spmv(A, v, { y: v }): the issue\'s poisson2D(3) example in every format', async () => {
      const formats = path === 'cpu' ? SPARSE : (['csr', 'ell', 'dia', 'sell', 'hyb'] as const);
      for (const format of formats) {
        const A = rt.upload(poisson2D(3), { format });
        const v = rt.vector(Float64Array.from({ length: 9 }, (_, i) => i + 1));
        expect(await rt.spmv(A, v, { y: v })).toBe(v);
        expect(Array.from(await v.read()), format).toEqual([-2, -1, 4, 3, 0, 7, 16, 11, 22]);
      }
    });

    it('spmv with x = y equals the product with separate operands: every dtype, op N/T/H, β ≠ 0', async () => {
      const base = randomMatrix({ rows: 40, cols: 40, meanRowLength: 5, seed: 7 }).toCSR();
      for (const dt of DTYPES) {
        const A = inDType(base, dt);
        const h = rt.upload(A, { format: 'csr' });
        const { alpha, beta } = scalars(dt);
        for (const op of ['N', 'T', 'H'] as const) {
          const x = randomData(dt, 40, 3);
          const v = rt.vector(x, dt);
          await rt.spmv(h, v, { y: v, alpha, beta, op });
          compareRef(A, x, x, alpha, beta, await v.read(), op);
        }
      }
    });

    it('BLAS-1 with x = y is elementwise and well defined: axpy, aypx → (1+α)·x, copy → x, dot(x, x) = ‖x‖²', async () => {
      const data = new Float64Array([1, -2, 3.5, 0, 4]);
      const make = () => rt.vector(data);
      let x = make();
      await rt.axpy(2, x, x);
      expect(Array.from(await x.read())).toEqual(Array.from(data, (d) => 3 * d));
      x = make();
      await rt.aypx(-0.5, x, x);
      expect(Array.from(await x.read())).toEqual(Array.from(data, (d) => 0.5 * d));
      x = make();
      await rt.copy(x, x);
      expect(Array.from(await x.read())).toEqual(Array.from(data));
      expect(await rt.dot(x, x)).toBeCloseTo(data.reduce((s, d) => s + d * d, 0), 5);
    });

    it('a solver\'s b and x0 may be resident vectors, the same one at once; they are read, never written', async () => {
      const h = rt.upload(poisson2D(6));
      const ones = new Float64Array(36).fill(1);
      const b = rt.vector(ones);
      const r = await rt.cg(h, b, { x0: b, tol: 1e-10 });
      expect(r.converged).toBe(true);
      expect(Array.from(await b.read())).toEqual(Array.from(ones));
      const ref = await rt.cg(h, ones, { x0: ones, tol: 1e-10 });
      expect(Array.from(r.x)).toEqual(Array.from(ref.x));
    });

    it('gemm refuses C = A or C = B (a temporary would cost a whole matrix); A = B is fine', async () => {
      const A = rt.dense(new DenseMatrix(2, 2, 'f32', new Float32Array([1, 2, 3, 4])));
      await expect(rt.gemm(A, A, { C: A })).rejects.toThrow(ShapeError);
      const AA = await rt.gemm(A, A);
      expect(Array.from((await AA.read()).values)).toEqual([7, 10, 15, 22]);
    });

    it('CG with Jacobi on an indefinite matrix ends in breakdown at the 0/0, not in NaN', async () => {
      // D⁻¹ = diag(1, −1): ρ = rᵀD⁻¹r = 0 for b = [1, 1] while pᵀAp = 2 > 0; ρ_next/ρ was 0/0
      const h = rt.upload(csr([[1, -1], [-1, -1]]));
      const r = await rt.cg(h, new Float64Array([1, 1]), { preconditioner: 'jacobi' });
      expect(r.reason).toBe('breakdown');
      expect(r.x.every(Number.isFinite)).toBe(true);
    });
  });
}

describe('vector data: one rule at every entry point', () => {
  let rt: Runtime;
  let A: simdgl.MatrixHandle;
  beforeAll(async () => {
    rt = await createRuntime({ workers: 1 });
    A = rt.upload(poisson2D(2)); // 4×4
  });
  afterAll(() => rt?.dispose());

  /** Each entry point that takes vector data, given `data` of 4 numbers (the length A needs). */
  const entries: [string, (data: unknown) => Promise<ArrayLike<number>>][] = [
    ['rt.vector', async (d) => (rt.vector(d as number[])).read()],
    ['spmv x', async (d) => rt.spmv(A, d as number[])],
    ['ResidentVector.write', async (d) => { const v = rt.vector(4); v.write(d as number[]); return v.read(); }],
    ['cg b', async (d) => (await rt.cg(A, d as number[], { maxIter: 0 })).x],
    ['cg x0', async (d) => (await rt.cg(A, new Float64Array(4), { x0: d as number[], maxIter: 0 })).x],
  ];
  /** A·[1, 2, 3, 4] from A's CSR arrays */
  const P = poisson2D(2);
  const Ax = Array.from({ length: 4 }, (_, i) => {
    let s = 0;
    for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) s += P.values[k] * (P.colIdx[k] + 1);
    return s;
  });
  /** what each entry gives for the values [1, 2, 3, 4] (cg b with maxIter 0: x = 0; x0: x = x0) */
  const expected: Record<string, number[]> = {
    'rt.vector': [1, 2, 3, 4],
    'spmv x': Ax,
    'ResidentVector.write': [1, 2, 3, 4],
    'cg b': [0, 0, 0, 0],
    'cg x0': [1, 2, 3, 4],
  };

  const accepted: [string, unknown][] = [
    ['number[]', [1, 2, 3, 4]],
    ['Float32Array', new Float32Array([1, 2, 3, 4])],
    ['Int8Array', new Int8Array([1, 2, 3, 4])],
    ['Uint8ClampedArray', new Uint8ClampedArray([1, 2, 3, 4])],
    ['Int16Array', new Int16Array([1, 2, 3, 4])],
    ['Int32Array', new Int32Array([1, 2, 3, 4])],
    ['Uint32Array', new Uint32Array([1, 2, 3, 4])],
    ['BigInt64Array of safe integers', new BigInt64Array([1n, 2n, 3n, 4n])],
    ['BigUint64Array of safe integers', new BigUint64Array([1n, 2n, 3n, 4n])],
    ['an array-like object of numbers', { length: 4, 0: 1, 1: 2, 2: 3, 3: 4 }],
  ];
  for (const [what, data] of accepted) {
    it(`accepts ${what} everywhere, with the same values`, async () => {
      for (const [name, run] of entries) expect(Array.from(await run(data)), name).toEqual(expected[name]);
    });
  }

  const refused: [string, unknown, typeof InputTypeError | typeof InputRangeError, RegExp, number | undefined][] = [
    ['null', null, InputTypeError, /got null/, undefined],
    ['undefined', undefined, InputTypeError, /got undefined/, undefined],
    ['a string', 'abcd', InputTypeError, /got the string "abcd"/, undefined],
    ['a number where data belongs (spmv)', 4, InputTypeError, /got the number 4/, undefined],
    ['an object without a numeric length', { length: '4' }, InputTypeError, /got an object/, undefined],
    ['{ length: 4 } (no elements)', { length: 4 }, InputTypeError, /\[0\] must be a number, got undefined/, 0],
    ['a string element', [1, 2, 'x', 4], InputTypeError, /\[2\] must be a number, got the string "x"/, 2],
    ['an object element', [1, {}, 3, 4], InputTypeError, /\[1\] must be a number, got an object/, 1],
    ['a bigint element of a plain array', [1, 2, 3, 4n], InputTypeError, /\[3\] must be a number, got the bigint 4n/, 3],
    ['a BigInt64Array value beyond 2⁵³', new BigInt64Array([1n, 2n ** 53n, 3n, 4n]), InputRangeError, /\[1\] is 9007199254740992n/, 1],
    ['a DataView', new DataView(new ArrayBuffer(32)), InputTypeError, /got a DataView/, undefined],
  ];
  for (const [what, data, type, msg, index] of refused) {
    it(`refuses ${what} everywhere with ${type.name}, showing the type${index === undefined ? '' : ' and the index'}`, async () => {
      for (const [name, run] of entries) {
        // rt.vector(4) is a length, and an undefined x0 is no x0: those two cases apply to the other entry points
        if ((typeof data === 'number' && name === 'rt.vector') || (data === undefined && name === 'cg x0')) continue;
        const e = await run(data).then(() => null, (err: unknown) => err);
        expect(e, name).toBeInstanceOf(type);
        expect((e as Error).message, name).toMatch(msg);
        expect((e as InputTypeError).index, name).toBe(index);
        expect((e as InputTypeError).code, name).toBe(type === InputTypeError ? 'E_TYPE' : 'E_RANGE');
      }
    });
  }

  it('where only host data is taken, a resident vector is named as one (it was "b[0] must be a number, got undefined")', async () => {
    const v = rt.vector([1, 2, 3, 4]);
    const F = await rt.factor(A);
    try {
      const host: [string, () => unknown, RegExp][] = [
        ['F.solve', () => F.solve(v as never), /^solve: b is a resident vector: this call takes host data/],
        ['rt.vector', () => rt.vector(v as never), /^vector: data is a resident vector/],
        ['ResidentVector.write', () => rt.vector(4).write(v as never), /^write: data is a resident vector/],
      ];
      for (const [name, run, msg] of host) {
        const e = await Promise.resolve().then(run).then(() => null, (err: unknown) => err);
        expect(e, name).toBeInstanceOf(InputTypeError);
        expect((e as Error).message, name).toMatch(msg);
      }
      // its host copy solves
      const x = (await F.solve(await v.read())).x;
      expect(Math.max(...Array.from(await rt.spmv(A, x), (y, i) => Math.abs(y - (i + 1))))).toBeLessThan(1e-12);
    } finally {
      F.dispose();
    }
  });

  it('the output y takes a resident vector or the dtype\'s own float array, nothing else', async () => {
    await expect(rt.spmv(A, [1, 2, 3, 4], { y: [0, 0, 0, 0] as unknown as Float64Array })).rejects.toThrow(InputTypeError);
    await expect(rt.spmv(A, [1, 2, 3, 4], { y: new Float32Array(4) })).rejects.toThrow(/needs a Float64Array/);
  });
});

describe('option values: type and range checked up front, messages show the type', () => {
  let rt: Runtime;
  let A: simdgl.MatrixHandle;
  beforeAll(async () => {
    rt = await createRuntime({ workers: 1 });
    A = rt.upload(poisson2D(2));
  });
  afterAll(() => rt?.dispose());
  const b = () => new Float64Array(4).fill(1);
  const x = () => new Float64Array(4).fill(1);

  const cases: [string, () => Promise<unknown>, new (...a: never[]) => Error, RegExp][] = [
    ['spmv alpha: null', () => rt.spmv(A, x(), { alpha: null as never }), InputTypeError, /alpha must be a number or \[re, im\].*got null/],
    ['spmv alpha: [2, 0, 9]', () => rt.spmv(A, x(), { alpha: [2, 0, 9] as never }), InputTypeError, /got an array of 3 elements/],
    ['spmv alpha: [2]', () => rt.spmv(A, x(), { alpha: [2] as never }), InputTypeError, /got an array of 1 elements/],
    ['spmv alpha: ["1", 0]', () => rt.spmv(A, x(), { alpha: ['1', 0] as never }), InputTypeError, /alpha must be/],
    ['spmv beta: "0"', () => rt.spmv(A, x(), { beta: '0' as never }), InputTypeError, /beta .*got the string "0"/],
    ['spmv op: null', () => rt.spmv(A, x(), { op: null as never }), UnsupportedError, /op must be 'N', 'T', 'H', got null/],
    ['spmv op: "n"', () => rt.spmv(A, x(), { op: 'n' as never }), UnsupportedError, /got the string "n"/],
    ['spmv path: "tpu"', () => rt.spmv(A, x(), { path: 'tpu' as never }), OptionError, /path must be one of "cpu", "webgpu", "webgl2", "gpu", got the string "tpu"/],
    ['cg tol: "1e-3"', () => rt.cg(A, b(), { tol: '1e-3' as never }), InputTypeError, /tol must be a finite number ≥ 0, got the string "1e-3"/],
    ['cg tol: NaN', () => rt.cg(A, b(), { tol: NaN }), InputRangeError, /got the number NaN/],
    ['cg tol: Infinity', () => rt.cg(A, b(), { tol: Infinity }), InputRangeError, /tol/],
    ['cg tol: -1', () => rt.cg(A, b(), { tol: -1 }), InputRangeError, /got the number -1/],
    ['cg maxIter: "10"', () => rt.cg(A, b(), { maxIter: '10' as never }), InputTypeError, /maxIter must be a non-negative integer, got the string "10"/],
    ['cg maxIter: 1.5', () => rt.cg(A, b(), { maxIter: 1.5 }), InputRangeError, /got the number 1.5/],
    ['cg checkEvery: 0', () => rt.cg(A, b(), { checkEvery: 0 }), InputRangeError, /checkEvery must be a positive integer/],
    ['cg onIteration: 5', () => rt.cg(A, b(), { onIteration: 5 as never }), InputTypeError, /onIteration must be a function, got the number 5/],
    ['cg signal: true', () => rt.cg(A, b(), { signal: true as never }), InputTypeError, /signal must be an AbortSignal, got the boolean true/],
    ['cg preconditioner: null', () => rt.cg(A, b(), { preconditioner: null as never }), UnsupportedError, /got null/],
    ['bicgstab path: "GPU "', () => rt.bicgstab(A, b(), { path: 'GPU ' as never }), OptionError, /got the string "GPU "/],
    ['dot conj: "yes"', () => { const v = rt.vector(4); return rt.dot(v, v, { conj: 'yes' as never }); }, InputTypeError, /conj must be true or false/],
    ['axpy alpha: undefined', () => { const v = rt.vector(4); return rt.axpy(undefined as never, v, v); }, InputTypeError, /got undefined/],
    ['scal alpha: "2"', () => { const v = rt.vector(4); return rt.scal('2' as never, v); }, InputTypeError, /got the string "2"/],
    ['axpy x: an array', () => rt.axpy(1, [1, 2, 3, 4] as never, rt.vector(4)), InputTypeError, /expected a handle .*got an array of 4 elements/],
    ['gemm alpha: "2"', () => rt.gemm(new DenseMatrix(1, 1, 'f64', new Float64Array(1)), new DenseMatrix(1, 1, 'f64', new Float64Array(1)), { alpha: '2' as never }), InputTypeError, /gemm: alpha must be a number, got the string "2"/],
    ['gemm naive: 1', () => rt.gemm(new DenseMatrix(1, 1, 'f64', new Float64Array(1)), new DenseMatrix(1, 1, 'f64', new Float64Array(1)), { naive: 1 as never }), InputTypeError, /naive must be true or false, got the number 1/],
    ['add beta: [1, 2, 3]', () => rt.add(new DenseMatrix(1, 1, 'f64', new Float64Array(1)), new DenseMatrix(1, 1, 'f64', new Float64Array(1)), { beta: [1, 2, 3] as never }), InputTypeError, /beta must be a number or \[re, im\]/],
    ['transpose path: "cpus"', () => rt.transpose(new DenseMatrix(1, 1, 'f64', new Float64Array(1)), { path: 'cpus' as never }), OptionError, /path must be one of/],
    ['createRuntime maxMemoryMB: "2"', () => createRuntime({ maxMemoryMB: '2' as never }), InputTypeError, /maxMemoryMB must be a number in \[1, 4096\], got the string "2"/],
    ['createRuntime maxMemoryMB: 0', () => createRuntime({ maxMemoryMB: 0 }), InputRangeError, /got the number 0/],
    ['createRuntime workers: "2"', () => createRuntime({ workers: '2' as never }), InputTypeError, /workers must be an integer in \[1, 256\] or 'auto', got the string "2"/],
    ['createRuntime timeoutMs: null', () => createRuntime({ timeoutMs: null as never }), InputTypeError, /timeoutMs must be a number ≥ 0, got null/],
    ['createRuntime simd: "yes"', () => createRuntime({ simd: 'yes' as never }), InputTypeError, /simd/],
    ['upload maxFill: "2"', async () => rt.upload(poisson2D(2), { format: 'ell', maxFill: '2' as never }), InputTypeError, /maxFill must be a number ≥ 0, got the string "2"/],
    ['explain readBack: 1', async () => rt.explain('spmv', A, { readBack: 1 as never }), InputTypeError, /readBack must be true or false/],
    ['setSpin("5")', async () => rt.setSpin('5' as never), InputTypeError, /got the string "5"/],
    ['setInlineThreshold(-1)', async () => rt.setInlineThreshold(-1), InputRangeError, /got the number -1/],
  ];
  for (const [what, run, type, msg] of cases) {
    it(`${what}: ${type.name}`, async () => {
      const e = await run().then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(type);
      expect((e as Error).message).toMatch(msg);
    });
  }

  it('a bad option stops the call before any work: onIteration: 5 is refused before the solve, a bad alpha before y is touched', async () => {
    const y = new Float64Array([7, 7, 7, 7]);
    await expect(rt.spmv(A, x(), { y, beta: 1, alpha: 'x' as never })).rejects.toThrow(InputTypeError);
    expect(Array.from(y)).toEqual([7, 7, 7, 7]);
    let calls = 0;
    await expect(rt.cg(A, b(), { onIteration: 5 as never, signal: { aborted: false } as AbortSignal })).rejects.toThrow(InputTypeError);
    await rt.cg(A, b(), { onIteration: () => void calls++ });
    expect(calls).toBeGreaterThan(0);
  });

  it('valid values pass: complex [re, im] on complex data, special numbers as alpha, an AbortSignal', async () => {
    const Ac = rt.upload(poisson2D(2), { dtype: 'c128' });
    const y = await rt.spmv(Ac, new Float64Array([1, 0, 1, 0, 1, 0, 1, 0]), { alpha: [0, 1], op: 'H' });
    expect(Array.from(y)).toEqual([0, 2, 0, 2, 0, 2, 0, 2]); // i·Aᴴ·1, every row of poisson2D(2) sums to 2
    const yi = await rt.spmv(A, x(), { alpha: Infinity, beta: -0 });
    expect(Array.from(yi)).toEqual([Infinity, Infinity, Infinity, Infinity]);
    const r = await rt.cg(A, b(), { signal: new AbortController().signal, tol: 0, maxIter: 3 });
    expect(r.iterations).toBeLessThanOrEqual(3);
  });
});

describe('defects the API fuzz found (test/fuzz-api.test.ts)', () => {
  it('gemm without C and β ≠ 0 reads a zero C, not recycled memory; rt.dense(shape) is zeros', async () => {
    const rt = await createRuntime({ workers: 1 });
    // leave garbage in freed memory, then allocate the same sizes again
    rt.dense(new DenseMatrix(1, 3, 'f32', new Float32Array([7, 7, 7]))).dispose();
    const A = rt.dense(new DenseMatrix(1, 1, 'f32', new Float32Array([0])));
    const P = await rt.gemm(A, new DenseMatrix(1, 3, 'f32', new Float32Array([-2, 0, 2])), { alpha: -4, beta: 3 });
    expect(Array.from((await P.read()).values)).toEqual([0, 0, 0]);
    rt.dense(new DenseMatrix(2, 2, 'f64', new Float64Array([9, 9, 9, 9]))).dispose();
    expect(Array.from((await rt.dense({ dtype: 'f64', rows: 2, cols: 2 }).read()).values)).toEqual([0, 0, 0, 0]);
    rt.dispose();
  });

  it('Jacobi takes a tiny diagonal whose inverse is finite, and refuses one whose inverse overflows the dtype', async () => {
    const rt = await createRuntime({ workers: 1 });
    const tiny = rt.upload(csr([[1e-200, 0], [0, 1]]));           // |d|² underflows, 1/d = 1e200: fine
    const r = await rt.cg(tiny, new Float64Array([1e-200, 1]), { preconditioner: 'jacobi' });
    expect(r.reason).toBe('converged');
    expect(r.x[0]).toBeCloseTo(1, 12);
    const f32 = rt.upload(csr([[1e-40, 0], [0, 1]]), { dtype: 'f32' }); // 1/1e-40 overflows f32
    await expect(rt.cg(f32, new Float32Array([1, 1]), { preconditioner: 'jacobi' })).rejects.toThrow(/A\[0,0\] is .*inverse overflows f32/);
    rt.dispose();
  });

  it('BiCGSTAB and MINRES count an iteration only once it updated x: history has iterations + 1 entries when they stop early', async () => {
    const rt = await createRuntime({ workers: 1 });
    const A = rt.upload(csr([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, Infinity, 0], [0, 0, 0, 0]]), { dtype: 'f32' });
    const r = await rt.bicgstab(A, new Float32Array([0, 0, 1, 0]));
    expect(r.converged).toBe(false);
    expect(r.history.length).toBe(r.iterations + 1);
    const m = await rt.minres(rt.upload(csr([[Infinity]]), { dtype: 'f32' }), [1]);
    expect(m.converged).toBe(false);
    expect(m.history.length).toBe(m.iterations + 1);
    rt.dispose();
  });
});

describe('smaller findings', () => {
  it('rt.explain on a disposed handle throws DisposedError', async () => {
    const rt = await createRuntime({ workers: 1 });
    const A = rt.upload(poisson2D(3));
    A.dispose();
    expect(() => rt.explain('spmv', A)).toThrow(DisposedError);
    rt.dispose();
  });

  it('{ path: "tpu" } is an OptionError listing the valid paths, on every operation that takes a path', async () => {
    const rt = await createRuntime({ workers: 1 });
    const A = rt.upload(poisson2D(2));
    const D = new DenseMatrix(1, 1, 'f64', new Float64Array(1));
    for (const call of [
      () => rt.spmv(A, new Float64Array(4), { path: 'tpu' as never }),
      () => rt.cg(A, new Float64Array(4), { path: 'tpu' as never }),
      () => rt.gemm(D, D, { path: 'tpu' as never }),
      () => rt.add(D, D, { path: 'tpu' as never }),
    ]) {
      const e = await call().then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(OptionError);
      expect((e as OptionError).key).toBe('path');
      expect((e as Error).message).not.toMatch(/undefined/);
    }
    rt.dispose();
  });

  it('the error classes the README and the guides name (the WebGPU ones included) are exported from the package entry', () => {
    const docs = ['README.md', ...readdirSync(new URL('../docs', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const text = docs.map((f) => readFileSync(new URL(`../${f}`, import.meta.url), 'utf8')).join('\n');
    const named = new Set([...text.matchAll(/`(\w+Error)`/g)].map((m) => m[1]).filter((n) => !(n in globalThis)));
    for (const name of ['WebGpuLimitError', 'WebGpuDeviceLostError', 'WebGpuUnavailableError']) named.add(name);
    for (const name of named) {
      const cls = (simdgl as Record<string, unknown>)[name] as { prototype: unknown; name: string } | undefined;
      expect(cls?.prototype instanceof Error, name).toBe(true);
      expect(cls!.name).toBe(name);
    }
  });

});
