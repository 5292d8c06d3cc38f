/**
 * rt.solve's direct answer factorizes for one solve (factorize's `once`): a banded LU factor of
 * BAND_KERNEL_MIN entries or more is then solved by its columns in the CPU path, without the rows
 * rt.factor's kept factor makes for its repeated solves (keepBandRows). Its answer must be the kept
 * factor's bit for bit, its reported residual the true one (a plain f64 residual written here), and x
 * the dense LU reference's within the conditioning; a small band keeps its rows (solved in JavaScript).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { Prng } from '../src/generators/prng.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { denseSolve, relDiff, toDense, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
});
afterAll(() => rt.dispose());

/**
 * A random banded n×n CSR: bandwidths kl, ku, 70 % of the off-diagonal band stored, a dominant diagonal;
 * `swap`: rows 2k and 2k + 1 exchanged (bandwidths one wider, a small or zero diagonal where a row moved:
 * the LU exchanges rows back, and A is as well conditioned as before).
 */
function banded(n: number, kl: number, ku: number, swap: boolean, seed: number): CSRMatrix {
  const rng = new Prng(seed);
  const rows: [number, number][][] = [];
  for (let i = 0; i < n; i++) {
    const row: [number, number][] = [];
    for (let j = Math.max(0, i - kl); j <= Math.min(n - 1, i + ku); j++) {
      if (i !== j && rng.next() < 0.3) continue;
      row.push([j, i === j ? kl + ku + 1 + rng.next() : rng.next() - 0.5]);
    }
    rows.push(row);
  }
  if (swap) for (let i = 0; i + 1 < n; i += 2) [rows[i], rows[i + 1]] = [rows[i + 1], rows[i]];
  const rowPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i] + rows[i].length;
  return new CSRMatrix(n, n, 'f64', rowPtr, Int32Array.from(rows.flat().map(([j]) => j)), Float64Array.from(rows.flat().map(([, v]) => v)));
}

const olm1000 = () => parseMatrixMarket(readFileSync(new URL('../data/matrices/olm1000.mtx', import.meta.url))).matrix.toCSR();

describe("rt.solve's one-solve banded LU (no rows for the kernel's solve)", () => {
  const cases: [string, () => CSRMatrix, (n: number) => Float64Array, boolean][] = [
    ['olm1000, b = 1', olm1000, (n) => new Float64Array(n).fill(1), false],
    ['olm1000, b = sin i', olm1000, (n) => Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1)), false],
    ['random band 300 (2 + 3), rows swapped in pairs: row exchanges', () => banded(300, 2, 3, true, 7), (n) => Float64Array.from({ length: n }, (_, i) => Math.cos(i)), false],
    ['random band 400 (4 + 1), no exchange', () => banded(400, 4, 1, false, 11), (n) => new Float64Array(n).fill(1), false],
    ['random band 100 (2 + 2): a small factor, rows kept', () => banded(100, 2, 2, false, 3), (n) => Float64Array.from({ length: n }, (_, i) => i % 5), true],
  ];
  for (const [name, make, rhs, rows] of cases) {
    it(`${name}: the kept factor's x bit for bit, the true residual, the dense reference's x`, async () => {
      const A = make();
      const b = rhs(A.rows);
      const h = rt.upload(A);
      const r = await rt.solve(h, b);
      h.dispose();
      expect(r.directFallback).toBeUndefined();
      expect(r.method).toBe('direct');
      expect(r.factor!.method).toBe('banded');
      const F = await rt.factor(A);
      const s = await F.solve(b);
      const info = F.info;
      F.dispose();
      expect(Array.from(r.x)).toEqual(Array.from(s.x));
      expect(r.relativeResidual).toBe(s.relativeResidual);
      // what the factorization was, whichever form its solve took (bytes: the held copy's form; times)
      const { bytes: _b, times: _t, ...kept } = info;
      const { bytes: _b2, times: _t2, ...once } = r.factor!;
      expect(once).toEqual(kept);
      // the kept factor holds its rows; the one-solve factor its columns (another held size), unless small
      expect(r.factor!.bytes === info.bytes).toBe(rows);
      if (name.includes('swapped')) expect(info.offDiagonalPivots).toBeGreaterThan(50);
      // the reported residual is the true one, and meets the default tolerance
      const t = trueResidual(A, r.x, b);
      expect(r.converged).toBe(true);
      expect(t).toBeLessThanOrEqual(1e-8);
      expect(Math.abs(r.relativeResidual - t)).toBeLessThanOrEqual(1e-13 + 1e-3 * t);
      // the dense LU reference (partial pivoting, written apart from src/) agrees within the conditioning
      const ref = denseSolve(toDense(A).a, b);
      expect(relDiff(r.x, ref)).toBeLessThan(1e-6);
    });
  }
});
