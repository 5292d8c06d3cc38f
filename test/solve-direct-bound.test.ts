/**
 * directResidualBound (src/solvers/solve.ts): what rt.solve's direct answer adds to F.solve's plain f64
 * residual before it calls the answer converged. It must bound the rounding of that residual, measured
 * here against the exact residual (every double as an integer times a power of two, in BigInt), on
 * real and complex matrices of mixed magnitudes; and rt.solve's reported residual must be the true one.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { Prng } from '../src/generators/prng.js';
import { directResidualBound } from '../src/solvers/solve.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { exact } from './exact-residual.js';
import { randomRows, rowwiseBoundFormula } from './rowwise-bound.js';

/** Σ of terms m·2^e, exactly, as a double (rounded once). */
function exactSum(terms: [bigint, number][]): number {
  const nz = terms.filter(([m]) => m !== 0n);
  if (nz.length === 0) return 0;
  const e0 = Math.min(...nz.map(([, e]) => e));
  let s = 0n;
  for (const [m, e] of nz) s += m << BigInt(e - e0);
  // s·2^e0 as a double: the top 64 bits of s, then the scale
  const neg = s < 0n;
  if (neg) s = -s;
  const bits = s.toString(2).length;
  const drop = Math.max(0, bits - 64);
  const v = Number(s >> BigInt(drop)) * 2 ** (drop + e0);
  return neg ? -v : v;
}

const mul = ([m1, e1]: [bigint, number], [m2, e2]: [bigint, number]): [bigint, number] => [m1 * m2, e1 + e2];
const neg = ([m, e]: [bigint, number]): [bigint, number] => [-m, e];

/** F.solve's residual (plain f64 along the rows, in its order) and the exact one, per row component. */
function residuals(A: CSRMatrix, x: Float64Array, b: Float64Array): { plain: Float64Array; exact: Float64Array } {
  const complex = A.dtype === 'c128';
  const c = complex ? 2 : 1;
  const plain = new Float64Array(c * A.rows);
  const ex = new Float64Array(c * A.rows);
  const v = A.values;
  for (let i = 0; i < A.rows; i++) {
    if (!complex) {
      let s = b[i];
      const terms: [bigint, number][] = [exact(b[i])];
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
        s -= v[k] * x[A.colIdx[k]];
        terms.push(neg(mul(exact(v[k]), exact(x[A.colIdx[k]]))));
      }
      plain[i] = s;
      ex[i] = exactSum(terms);
    } else {
      let sr = b[2 * i];
      let si = b[2 * i + 1];
      const tr: [bigint, number][] = [exact(sr)];
      const ti: [bigint, number][] = [exact(si)];
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
        const j = A.colIdx[k];
        const [ar, ai, xr, xi] = [v[2 * k], v[2 * k + 1], x[2 * j], x[2 * j + 1]];
        sr -= ar * xr - ai * xi;
        si -= ar * xi + ai * xr;
        tr.push(neg(mul(exact(ar), exact(xr))), mul(exact(ai), exact(xi)));
        ti.push(neg(mul(exact(ar), exact(xi))), neg(mul(exact(ai), exact(xr))));
      }
      plain[2 * i] = sr;
      plain[2 * i + 1] = si;
      ex[2 * i] = exactSum(tr);
      ex[2 * i + 1] = exactSum(ti);
    }
  }
  return { plain, exact: ex };
}

/** A random square matrix of mixed magnitudes (rows of 1..12 entries), and an x whose entries span 1e±8: the residual is mostly cancellation. */
function randomCase(n: number, seed: number, complex: boolean, scale: number): { A: CSRMatrix; x: Float64Array; b: Float64Array } {
  const g = new Prng(seed);
  const c = complex ? 2 : 1;
  const A = randomRows(n, 12, complex, g, () => (g.next() - 0.5) * scale * 10 ** Math.floor(g.next() * 8 - 4));
  const x = Float64Array.from({ length: c * n }, () => (g.next() - 0.5) * 10 ** Math.floor(g.next() * 16 - 8));
  // b = A·x rounded, nudged: the true residual is tiny, the plain one mostly rounding
  const b = new Float64Array(c * n);
  const { exact: ax } = residuals(A, x, b);
  for (let k = 0; k < b.length; k++) b[k] = -ax[k] * (1 + (g.next() - 0.5) * 1e-15);
  return { A, x, b };
}

describe('directResidualBound', () => {
  it('bounds the rounding of the plain f64 residual (real and complex, scales 1, 1e-150, 1e150)', () => {
    let cases = 0;
    for (const complex of [false, true]) {
      for (const scale of [1, 1e-150, 1e150]) {
        for (const seed of [1, 2, 3]) {
          const { A, x, b } = randomCase(60, seed + (complex ? 10 : 0), complex, scale);
          const { plain, exact: ex } = residuals(A, x, b);
          let err2 = 0;
          let m = 0;
          for (let k = 0; k < plain.length; k++) m = Math.max(m, Math.abs(plain[k] - ex[k]));
          for (let k = 0; k < plain.length && m > 0; k++) err2 += ((plain[k] - ex[k]) / m) ** 2;
          const err = m * Math.sqrt(err2);
          const bound = directResidualBound(A, x, b, 1, 0);
          expect(err, `${A.dtype} scale ${scale} seed ${seed}`).toBeLessThanOrEqual(bound);
          // a bound, not a wall: within a few hundred times the rounding it bounds where that is not 0
          if (err > 0) expect(bound / err).toBeLessThan(1e4);
          cases++;
        }
      }
    }
    expect(cases).toBe(18);
  });

  it("is its formula's value bit for bit, rows whose u·wᵢ is subnormal or near it included (real and complex)", () => {
    // the formula as written out (test/rowwise-bound.ts)
    for (const complex of [false, true]) {
      for (const scale of [1, 1e-290, 1e-300, 1e-305, 1e-310]) {
        const { A, x, b } = randomCase(40, 7 + (complex ? 1 : 0), complex, scale);
        expect(directResidualBound(A, x, b, 1, 0), `${A.dtype} scale ${scale}`).toBe(rowwiseBoundFormula(A, x, b));
      }
    }
  });
});

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
});
afterAll(() => rt.dispose());

describe("rt.solve's direct answer", () => {
  for (const name of ['west0479', 'qc324', '494_bus']) {
    it(`${name}: the reported residual is the true one, converged exactly when it meets tol`, async () => {
      const A = parseMatrixMarket(readFileSync(new URL(`../data/matrices/${name}.mtx`, import.meta.url))).matrix.toCSR();
      const c = A.dtype === 'c128' ? 2 : 1;
      const b = new Float64Array(c * A.rows);
      for (let i = 0; i < A.rows; i++) b[c * i] = 1;
      const h = rt.upload(A);
      const r = await rt.solve(h, b, { tol: 1e-8 });
      h.dispose();
      expect(r.method).toBe('direct');
      const { exact: ex } = residuals(A, r.x, b);
      let q = 0;
      for (const v of ex) q += v * v;
      const bnorm = Math.sqrt(A.rows);
      const truth = Math.sqrt(q) / bnorm;
      // the reported value is a computed residual: off the truth by no more than its rounding bound (≪ tol)
      expect(Math.abs(r.relativeResidual - truth) * bnorm).toBeLessThanOrEqual(directResidualBound(A, r.x, b, bnorm, 0));
      expect(r.converged).toBe(truth <= 1e-8);
      expect(r.converged).toBe(true);
    });
  }
});
