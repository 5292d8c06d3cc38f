/**
 * rt.spgemm of two handles returns a handle whose storage is the product's arrays in the WebAssembly
 * memory: its contents against a plain-JS Gustavson product (the kernels' order of sums, so the same
 * bits), SpMV and CG with it, and its memory (counted, freed by dispose, not growing in a loop).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, CSRMatrix, DisposedError, MatrixHandle, MemoryLimitError, poisson2D, randomMatrix, type Runtime } from '../src/index.js';
import { components } from '../src/dtype.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { checkAgainst, csrTriplets, referenceSpmv } from './reference.js';
import { mulberry32 } from './random.js';

/**
 * A·B in plain JS, the kernels' order: row i's products in A's then B's entry order, a column's first
 * product stored, the later ones added; columns ascending. Complex as (re, im) pairs; a real operand's
 * imaginary parts 0.
 */
function gustavson(A: CSRMatrix, B: CSRMatrix): { rowPtr: number[]; colIdx: number[]; values: number[] } {
  const [ca, cb] = [components(A.dtype), components(B.dtype)];
  const cc = Math.max(ca, cb);
  const acc = new Float64Array(2 * B.cols);
  const seen = new Int32Array(B.cols).fill(-1);
  const out = { rowPtr: [0], colIdx: [] as number[], values: [] as number[] };
  for (let i = 0; i < A.rows; i++) {
    const cols: number[] = [];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const [ar, ai] = [A.values[ca * k], ca === 2 ? A.values[ca * k + 1] : 0];
      const j = A.colIdx[k];
      for (let l = B.rowPtr[j]; l < B.rowPtr[j + 1]; l++) {
        const [br, bi] = [B.values[cb * l], cb === 2 ? B.values[cb * l + 1] : 0];
        const [pr, pi] = cc === 2 ? [ar * br - ai * bi, ar * bi + ai * br] : [ar * br, 0];
        const c = B.colIdx[l];
        if (seen[c] !== i) {
          seen[c] = i;
          cols.push(c);
          [acc[2 * c], acc[2 * c + 1]] = [pr, pi];
        } else {
          acc[2 * c] += pr;
          acc[2 * c + 1] += pi;
        }
      }
    }
    cols.sort((x, y) => x - y);
    for (const c of cols) {
      out.colIdx.push(c);
      out.values.push(...(cc === 2 ? [acc[2 * c], acc[2 * c + 1]] : [acc[2 * c]]));
    }
    out.rowPtr.push(out.colIdx.length);
  }
  return out;
}

/** The handle's host matrix (matrix handles have no public download: the runtime reads it the same way). */
function hostOf(h: MatrixHandle): CSRMatrix {
  return h.source as CSRMatrix;
}

/** Same bits, entry by entry (Object.is: −0 and NaN count). */
function sameBits(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  for (let k = 0; k < want.length; k++) if (!Object.is(got[k], want[k])) throw new Error(`${what}[${k}] is ${got[k]}, the reference ${want[k]}`);
}

describe('rt.spgemm of two handles', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ workers: 2 });
  });
  afterAll(() => rt.dispose());

  /** C = A·B through handles: checked against gustavson(), its SpMV against the reference; C and the operands disposed, memory as before. */
  async function check(A: CSRMatrix, B: CSRMatrix, label: string): Promise<void> {
    const before = rt.memoryInUse;
    const [hA, hB] = [rt.upload(A), rt.upload(B)];
    const C: MatrixHandle = rt.spgemm(hA, hB); // typed a handle by the overloads
    expect(C).toBeInstanceOf(MatrixHandle);
    const want = gustavson(A, B);
    const host = hostOf(C);
    expect([C.rows, C.cols, C.format, C.dtype], label).toEqual([A.rows, B.cols, 'csr', rt.spgemm(A, B).dtype]);
    sameBits(host.rowPtr, want.rowPtr, `${label} rowPtr`);
    sameBits(host.colIdx, want.colIdx, `${label} colIdx`);
    if (C.dtype === 'f64' || C.dtype === 'c128') sameBits(host.values, want.values, `${label} values`);
    // single precision: the f64 sums rounded once
    else sameBits(host.values, Float32Array.from(want.values), `${label} values`);
    // read back publicly: the same entries, in arrays of the caller's own (not the runtime's memory)
    const read = C.toCSR();
    for (const key of ['rowPtr', 'colIdx', 'values'] as const) {
      sameBits(read[key], host[key], `${label} toCSR ${key}`);
      expect(read[key].buffer, `${label} toCSR ${key} buffer`).not.toBe(host[key].buffer);
    }
    const r = mulberry32(A.rows + 7);
    const complex = C.dtype === 'c128' || C.dtype === 'c64';
    const single = C.dtype === 'f32' || C.dtype === 'c64';
    const data = Array.from({ length: (complex ? 2 : 1) * B.cols }, () => r() - 0.5);
    const x = single ? Float32Array.from(data) : Float64Array.from(data);
    const y = await rt.spmv(C, x);
    const ref = referenceSpmv(csrTriplets(host), x, null, 1, 0);
    expect(checkAgainst(y, ref, single ? 'single' : 'double', complex), `${label} spmv`).toBeNull();
    for (const h of [C, hA, hB]) h.dispose();
    expect(rt.memoryInUse, `${label}: memory after dispose`).toBe(before);
  }

  for (const name of sharedMatrixNames()) {
    it(`${name}: A·A when square, A·Aᵀ always`, async () => {
      const A = loadShared(name);
      if (A.rows === A.cols) await check(A, A, `${name} A·A`);
      await check(A, A.transpose(), `${name} A·Aᵀ`);
    });
  }

  it('random rectangular products: f64, complex, real × complex, f32, an empty operand', async () => {
    const R = (rows: number, cols: number, seed: number, dtype: 'f64' | 'c128' | 'f32' = 'f64', meanRowLength = 6) =>
      randomMatrix({ rows, cols, meanRowLength, seed, dtype });
    await check(R(300, 200, 1), R(200, 500, 2), 'f64 300×200·200×500');
    await check(R(40000, 30000, 3, 'f64', 3), R(30000, 20000, 4, 'f64', 4), 'f64 on the pool');
    await check(R(120, 90, 5, 'c128'), R(90, 150, 6, 'c128'), 'c128');
    await check(R(120, 90, 7), R(90, 150, 8, 'c128'), 'f64 × c128');
    await check(R(200, 200, 9, 'f32'), R(200, 100, 10, 'f32'), 'f32');
    await check(R(50, 60, 11, 'f64', 0), R(60, 70, 12), 'empty A');
  });

  it('is a handle everywhere: typed, a product operand, solved with cg, explained', async () => {
    const hA = rt.upload(poisson2D(12));
    const S = rt.spgemm(hA, hA);
    // A² of an SPD matrix is SPD
    const b = new Float64Array(S.rows).fill(1);
    const res = await rt.cg(S, b, { tol: 1e-10 });
    expect(res.converged).toBe(true);
    const Ax = await rt.spmv(S, res.x as Float64Array);
    let err = 0;
    for (let i = 0; i < b.length; i++) err = Math.max(err, Math.abs(Ax[i] - 1));
    expect(err).toBeLessThan(1e-7);
    expect(rt.explain('spmv', S).format).toBe('csr');
    expect(rt.explain('solve', S).text.length).toBeGreaterThan(0);
    // the product as an operand: S·A against the host product of S's host matrix
    const SA = rt.spgemm(S, hA);
    sameBits(hostOf(SA).values, rt.spgemm(hostOf(S), poisson2D(12)).values, 'S·A values');
    // toCSR of an uploaded handle in another format: the canonical CSR; the copy's changes reach nothing
    const hD = rt.upload(poisson2D(12), { format: 'dia' });
    const d = hD.toCSR();
    const P = poisson2D(12);
    sameBits(d.rowPtr, P.rowPtr, 'dia toCSR rowPtr');
    sameBits(d.colIdx, P.colIdx, 'dia toCSR colIdx');
    sameBits(d.values, P.values, 'dia toCSR values');
    d.values.fill(0);
    const ones = new Float64Array(P.cols).fill(1);
    expect(checkAgainst(await rt.spmv(hD, ones), referenceSpmv(csrTriplets(P), ones, null, 1, 0), 'double', false), 'spmv after the copy changed').toBeNull();
    for (const h of [SA, S, hA, hD]) h.dispose();
    expect(() => hD.toCSR()).toThrow(DisposedError);
  });

  it('dispose frees it (twice is nothing), use after dispose throws DisposedError, 200 products do not grow the memory', async () => {
    const A = poisson2D(30);
    const hA = rt.upload(A);
    const before = rt.memoryInUse;
    const C = rt.spgemm(hA, hA);
    // the product's arrays are the runtime's memory, counted there
    expect(hostOf(C).values.buffer).toBe(rt.cpuBackend.heap.memory.buffer);
    expect(rt.memoryInUse).toBeGreaterThanOrEqual(before + 12 * C.nnz);
    C.dispose();
    C.dispose();
    expect(C.disposed).toBe(true);
    expect(rt.memoryInUse).toBe(before);
    await expect(rt.spmv(C, new Float64Array(A.cols))).rejects.toThrow(DisposedError);
    expect(() => rt.spgemm(C, hA)).toThrow(DisposedError);
    expect(() => rt.explain('spmv', C)).toThrow(DisposedError);
    for (let k = 0; k < 200; k++) rt.spgemm(hA, hA).dispose();
    expect(rt.memoryInUse).toBe(before);
    hA.dispose();
  });

  it('a product over the memory budget throws MemoryLimitError and leaves the memory as before', async () => {
    const small = await createRuntime({ workers: 2, maxMemoryMB: 64 });
    try {
      // 3000×3000 with 300 entries a row: A·A is nearly dense, 9 M entries (≈ 108 MB) > 64 MiB
      const h = small.upload(randomMatrix({ rows: 3000, cols: 3000, meanRowLength: 300, seed: 1 }));
      const before = small.memoryInUse;
      expect(() => small.spgemm(h, h)).toThrow(MemoryLimitError);
      expect(small.memoryInUse).toBe(before);
      // and a product that fits runs after it
      const p = small.upload(poisson2D(20));
      expect(small.spgemm(p, p).nnz).toBe(small.spgemm(poisson2D(20), poisson2D(20)).nnz);
    } finally {
      small.dispose();
    }
  });

  it("the runtime's dispose frees a product handle", async () => {
    const rt2 = await createRuntime({ workers: 1 });
    const h = rt2.upload(poisson2D(8));
    const C = rt2.spgemm(h, h);
    rt2.dispose();
    expect(C.disposed).toBe(true);
    await expect(rt2.spmv(C, new Float64Array(64))).rejects.toThrow(DisposedError);
  });
});
