/**
 * A disposed 'auto' upload's host arrays reused by the next uploads (src/runtime/runtime.ts keepSpares):
 * the memory of its CSR copy and DIA copy is filled again only where rt.solve alone read the handle and
 * no solve of it still runs. The next matrices' copies, DIA conversions and solves are checked against a
 * fresh runtime's and against plain f64 JavaScript (the residual of each answer, the arrays element by
 * element), where the kept memory held other values, other zeros and a matrix that was not exactly f32;
 * a solve's scaled copy (A's index arrays) gives nothing back, and no two live handles share memory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson3D } from '../src/generators/poisson.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { DisposedError } from '../src/errors.js';
import type { MatrixHandle } from '../src/runtime/handles.js';
import { trueResidual } from './solve-reference.js';

// poisson3D(40): 438 400 entries, 7 diagonals of 64 016 slots: its colIdx, values and DIA values are
// each above the 1 MiB the runtime keeps
const N = 40;
const base = poisson3D(N);
const b = new Float64Array(base.rows).fill(1);

/** A's values mapped by f (the same pattern) */
function mapped(A: CSRMatrix, f: (v: number, k: number) => number): CSRMatrix {
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.map(f));
}

/** A without entries (i, i + 1) and (i + 1, i): one pair of slots of the ±1 diagonals zero, the same DIA size */
function withoutPair(A: CSRMatrix, i: number): CSRMatrix {
  const drop = (r: number, c: number) => (r === i && c === i + 1) || (r === i + 1 && c === i);
  const rowPtr = new Int32Array(A.rows + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let r = 0; r < A.rows; r++) {
    for (let k = A.rowPtr[r]; k < A.rowPtr[r + 1]; k++) {
      if (drop(r, A.colIdx[k])) continue;
      cols.push(A.colIdx[k]);
      vals.push(A.values[k]);
    }
    rowPtr[r + 1] = cols.length;
  }
  return new CSRMatrix(A.rows, A.cols, 'f64', rowPtr, Int32Array.from(cols), Float64Array.from(vals));
}

/** The buffers of h's host arrays: its CSR copy's and its DIA copy's values */
function buffers(h: MatrixHandle): ArrayBufferLike[] {
  const s = h.source as CSRMatrix;
  const d = h.madeHost as DIAMatrix | null;
  return [s.rowPtr.buffer, s.colIdx.buffer, s.values.buffer, ...(d ? [d.data.buffer] : [])];
}

const runtimes: Runtime[] = [];
afterEach(() => {
  for (const rt of runtimes.splice(0)) rt.dispose();
});
async function runtime(): Promise<Runtime> {
  const rt = await createRuntime();
  runtimes.push(rt);
  return rt;
}

/** A's solve in a runtime of its own (nothing kept to reuse) */
async function freshSolve(A: CSRMatrix) {
  const rt = await runtime();
  const h = rt.upload(A);
  const r = await rt.solve(h, b);
  return { r, dia: (h.madeHost as DIAMatrix).data.slice() };
}

describe('a disposed upload that only rt.solve read: its memory reused', () => {
  it('by the next upload and DIA copy, bit for bit the fresh answers, over other values and zeros', async () => {
    const rt = await runtime();
    const h1 = rt.upload(base);
    const r1 = await rt.solve(h1, b);
    expect(r1.converged).toBe(true);
    expect(h1.format).toBe('dia');
    // held here, so the collector cannot free them before the next upload looks for them
    const kept = buffers(h1);
    h1.dispose();
    // the same pattern, values that are not all f32 (the CPU path then keeps them as f64, not f32)
    const A2 = mapped(base, (v, k) => v * (1 + 0.1 * ((k % 7) / 7)) + (v > 0 ? 0.1 : 0));
    const h2 = rt.upload(A2);
    const r2 = await rt.solve(h2, b);
    const reused = buffers(h2).filter((x) => kept.includes(x));
    expect(reused.length).toBeGreaterThanOrEqual(3);
    const s2 = h2.source as CSRMatrix;
    expect(Array.from(s2.colIdx)).toEqual(Array.from(A2.colIdx));
    expect(Array.from(s2.values)).toEqual(Array.from(A2.values));
    expect(Array.from((h2.madeHost as DIAMatrix).data)).toEqual(Array.from(DIAMatrix.fromCSR(A2).data));
    const f2 = await freshSolve(A2);
    expect(Array.from(r2.x)).toEqual(Array.from(f2.r.x));
    expect([r2.iterations, r2.converged, r2.relativeResidual]).toEqual([f2.r.iterations, f2.r.converged, f2.r.relativeResidual]);
    expect(trueResidual(A2, r2.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
    const kept2 = buffers(h2);
    h2.dispose();
    // a pair of ±1 slots now zero: the DIA copy in memory that held −1 there
    const A3 = withoutPair(base, 1000);
    const h3 = rt.upload(A3);
    const r3 = await rt.solve(h3, b);
    expect(buffers(h3).filter((x) => kept2.includes(x)).length).toBeGreaterThanOrEqual(1);
    const d3 = (h3.madeHost as DIAMatrix).data;
    expect(Array.from(d3)).toEqual(Array.from(DIAMatrix.fromCSR(A3).data));
    const f3 = await freshSolve(A3);
    expect(Array.from(r3.x)).toEqual(Array.from(f3.r.x));
    expect(trueResidual(A3, r3.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
    h3.dispose();
  }, 60_000);
});

describe('never reused', () => {
  it('where an operation other than rt.solve read the handle (a preconditioner, explain)', async () => {
    for (const share of [
      (rt: Runtime, h: MatrixHandle) => void rt.preconditioner(h, { kind: 'jacobi' }),
      (rt: Runtime, h: MatrixHandle) => void rt.explain('solve', h),
      (rt: Runtime, h: MatrixHandle) => void rt.explain('spmv', h),
    ]) {
      const rt = await runtime();
      const h1 = rt.upload(base);
      share(rt, h1);
      await rt.solve(h1, b);
      const kept = buffers(h1);
      h1.dispose();
      const h2 = rt.upload(mapped(base, (v) => 2 * v));
      await rt.solve(h2, b);
      expect(buffers(h2).filter((x) => kept.includes(x))).toEqual([]);
    }
  }, 60_000);

  it('where a solve of it still ran when it was disposed (that solve rejects as before)', async () => {
    const rt = await runtime();
    const h1 = rt.upload(base);
    await rt.solve(h1, b);
    const kept = buffers(h1);
    const running = rt.solve(h1, b);
    h1.dispose();
    await expect(running).rejects.toThrow(DisposedError);
    const A2 = mapped(base, (v) => 3 * v);
    const h2 = rt.upload(A2);
    const r2 = await rt.solve(h2, b);
    expect(buffers(h2).filter((x) => kept.includes(x))).toEqual([]);
    expect(trueResidual(A2, r2.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
  }, 60_000);

  it("of a solve's scaled copy (A's index arrays), nor twice: live handles never share memory", async () => {
    // values past 2^128: the CPU path runs a copy scaled by 2^-700 whose rowPtr and colIdx are A's
    const big = mapped(base, (v) => v * 2 ** 700);
    for (const share of [false, true]) {
      const rt = await runtime();
      const h = rt.upload(big);
      if (share) rt.preconditioner(h, { kind: 'jacobi' });
      const r = await rt.solve(h, b);
      expect(r.matrixExponent ?? 0).not.toBe(0);
      expect(trueResidual(big, r.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
      const kept = buffers(h);
      h.dispose();
      const A1 = mapped(base, (v) => 2 * v);
      const A2 = mapped(base, (v) => 3 * v);
      const [h1, h2] = [rt.upload(A1), rt.upload(A2)];
      const [r1, r2] = [await rt.solve(h1, b), await rt.solve(h2, b)];
      const [b1, b2] = [buffers(h1), buffers(h2)];
      expect(b1.filter((x) => b2.includes(x))).toEqual([]);
      if (share) expect([...b1, ...b2].filter((x) => kept.includes(x))).toEqual([]);
      expect(Array.from((h1.source as CSRMatrix).colIdx)).toEqual(Array.from(base.colIdx));
      expect(trueResidual(A1, r1.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
      expect(trueResidual(A2, r2.x, b)).toBeLessThanOrEqual(1e-8 * 1.01);
    }
  }, 60_000);

  it('where the upload kept the caller\'s format (not an auto upload)', async () => {
    const rt = await runtime();
    const h1 = rt.upload(base, { format: 'keep' });
    await rt.solve(h1, b);
    const s = h1.source as CSRMatrix;
    const kept = [s.colIdx.buffer, s.values.buffer];
    h1.dispose();
    const h2 = rt.upload(base, { format: 'keep' });
    const s2 = h2.source as CSRMatrix;
    expect([s2.colIdx.buffer, s2.values.buffer].filter((x) => kept.includes(x))).toEqual([]);
  }, 60_000);
});
