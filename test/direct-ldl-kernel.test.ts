/**
 * The up-looking LDLᵀ kernel (assembly/ldl.ts, through src/cpu/ldl.ts) against a dense LDLᵀ without
 * pivoting written here: on SPD and symmetric indefinite matrices in their AMD order, L·D·Lᵀ equals
 * P·A·Pᵀ entry by entry, D equals the reference's pivots, a pivot that fails names the step the
 * reference stops at, and the SIMD and plain builds give the same bits. The kept factor's solve
 * (ldl_solve, sparse and dense factors) gives the bits of the JavaScript solve it replaced, written here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cpuLdlKernels } from '../src/cpu/ldl.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { planFactor } from '../src/solvers/direct/plan.js';
import { denseLdl, ldlPointers, type LdlFactor, type LdlNumeric } from '../src/solvers/direct/ldl.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { loadShared } from './matrices.js';
import { toDense } from './solve-reference.js';
import { makeHarness, type Harness } from './kernel-harness.js';

let simd: Harness;
let plain: Harness;
beforeAll(async () => {
  [simd, plain] = await Promise.all([makeHarness('simd'), makeHarness('plain')]);
});

/** Dense LDLᵀ of a (no pivoting): D and unit L by columns, or the first step whose pivot fails. */
function referenceLdl(a: Float64Array[], positive: boolean): { L: Float64Array[]; D: Float64Array } | number {
  const n = a.length;
  const W = a.map((r) => Float64Array.from(r));
  const D = new Float64Array(n);
  const L = Array.from({ length: n }, () => new Float64Array(n));
  for (let k = 0; k < n; k++) {
    const d = W[k][k];
    if (positive ? !(d > 0 && Number.isFinite(d)) : !(d !== 0 && Number.isFinite(d))) return k;
    D[k] = d;
    L[k][k] = 1;
    for (let i = k + 1; i < n; i++) L[i][k] = W[i][k] / d;
    for (let i = k + 1; i < n; i++) for (let j = k + 1; j <= i; j++) W[i][j] -= L[i][k] * d * L[j][k];
    for (let i = k + 1; i < n; i++) for (let j = i + 1; j < n; j++) W[i][j] = W[j][i];
  }
  return { L, D };
}

/** The kernel's factor of A in its AMD order: the factor (or failing step) and P·A·Pᵀ dense. */
function kernelLdl(A: CSRMatrix, positive: boolean, ldl: LdlNumeric): { r: LdlFactor | number; pap: Float64Array[]; perm: Int32Array } {
  const plan = planFactor(A, 'ldlt', 'amd', cpuSymbolicKernels(simd));
  const { perm, pinv, parent, counts } = plan.a;
  const n = A.rows;
  const Lp = ldlPointers(counts);
  const f: LdlFactor = { Lp, Li: new Int32Array(Lp[n]), Lx: new Float64Array(Lp[n]), D: new Float64Array(n) };
  const k = ldl(plan.C, pinv, parent, f, positive);
  const a = toDense(A).a;
  const pap = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => a[perm[i]][perm[j]]));
  return { r: k >= 0 ? k : f, pap, perm };
}

/** A symmetric matrix with the pattern of A and random values, shifted on the diagonal by `shift`. */
function symmetricRandom(A: CSRMatrix, shift: number, seed: number): CSRMatrix {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const d = toDense(A);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j <= i; j++) {
      if (!d.mask[i][j] && !d.mask[j][i] && i !== j) continue;
      const v = i === j ? shift + rnd() : rnd();
      rows.push(i), cols.push(j), vals.push(v);
      if (i !== j) rows.push(j), cols.push(i), vals.push(v);
    }
  }
  return CSRMatrix.fromTriplets(A.rows, A.cols, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
}

/** A with each diagonal entry replaced by ±(1 + the row's off-diagonal |sum|), the sign alternating: indefinite, stable without pivoting. */
function dominantIndefinite(A: CSRMatrix): CSRMatrix {
  const values = Float64Array.from(A.values);
  for (let i = 0; i < A.rows; i++) {
    let off = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] !== i) off += Math.abs(values[k]);
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) values[k] = (i % 2 ? -1 : 1) * (1 + off);
  }
  return new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, values);
}

const cases: [string, () => CSRMatrix, boolean][] = [
  ['poisson2D(12)', () => poisson2D(12), true],
  ['poisson3D(5)', () => poisson3D(5), true],
  ['bcsstk01', () => loadShared('bcsstk01'), true],
  ['494_bus', () => loadShared('494_bus'), true],
  ['symmetric indefinite (random pattern, diagonals of alternating sign)', () => dominantIndefinite(symmetricRandom(randomMatrix({ rows: 120, meanRowLength: 4, seed: 5 }), 0, 7)), false],
  ['not positive definite (poisson2D(10) − 5·I)', () => symmetricRandom(poisson2D(10), -5, 3), true],
];

describe('up-looking LDLᵀ kernel', () => {
  for (const [name, make, positive] of cases) {
    it(`${name}: L·D·Lᵀ = P·A·Pᵀ, D and a failing step as the dense reference; both builds alike`, () => {
      const A = make();
      const { r, pap } = kernelLdl(A, positive, cpuLdlKernels(simd).sparse);
      const again = kernelLdl(A, positive, cpuLdlKernels(plain).sparse).r;
      const ref = referenceLdl(pap, positive);
      if (typeof ref === 'number') {
        expect(r).toBe(ref);
        expect(again).toBe(ref);
        return;
      }
      expect(typeof r).toBe('object');
      const f = r as LdlFactor;
      const g = again as LdlFactor;
      expect([Array.from(g.Li), Array.from(g.Lx), Array.from(g.D)]).toEqual([Array.from(f.Li), Array.from(f.Lx), Array.from(f.D)]);
      const n = A.rows;
      let scale = 0;
      for (const row of pap) for (const v of row) scale = Math.max(scale, Math.abs(v));
      for (let k = 0; k < n; k++) expect(Math.abs(f.D[k] - ref.D[k])).toBeLessThanOrEqual(1e-12 * scale);
      // L·D·Lᵀ from the kernel's columns, against P·A·Pᵀ
      const L = Array.from({ length: n }, (_, i) => {
        const row = new Float64Array(n);
        row[i] = 1;
        return row;
      });
      for (let j = 0; j < n; j++) for (let p = f.Lp[j]; p < f.Lp[j + 1]; p++) L[f.Li[p]][j] = f.Lx[p];
      let worst = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = 0; k <= j; k++) s += L[i][k] * f.D[k] * L[j][k];
          worst = Math.max(worst, Math.abs(s - pap[i][j]));
        }
      }
      expect(worst).toBeLessThanOrEqual(1e-12 * scale * n);
    });
  }
});

describe('dense LDLᵀ kernel', () => {
  const dense: [string, () => CSRMatrix, boolean][] = [
    ['bcsstk01', () => loadShared('bcsstk01'), true],
    ['poisson2D(7)', () => poisson2D(7), true],
    ['symmetric indefinite (41 rows, diagonals of alternating sign)', () => dominantIndefinite(symmetricRandom(randomMatrix({ rows: 41, meanRowLength: 5, seed: 9 }), 0, 2)), false],
    ['not positive definite at a later column (poisson2D(6), one diagonal entry made small)', () => {
      const P = poisson2D(6);
      const values = Float64Array.from(P.values);
      for (let k = P.rowPtr[20]; k < P.rowPtr[21]; k++) if (P.colIdx[k] === 20) values[k] = 0.5;
      return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
    }, true],
  ];
  for (const [name, make, positive] of dense) {
    it(`${name}: L and D of the dense reference, the same failing column; both builds alike`, () => {
      const A = make();
      const n = A.rows;
      const a = toDense(A).a;
      const ref = referenceLdl(a, positive);
      const C = planFactor(A, 'ldlt', 'natural', cpuSymbolicKernels(simd)).C;
      const run = (h: Harness) => cpuLdlKernels(h).dense(n, C.colPtr, C.rowIdx, C.values, positive);
      const s = run(simd);
      const p = run(plain);
      if (typeof ref === 'number') {
        expect([s, p]).toEqual([ref, ref]);
        return;
      }
      if (typeof s === 'number' || typeof p === 'number') throw new Error(`a pivot failed at ${s}, ${p}; the reference factorized`);
      expect([Array.from(p.W), Array.from(p.D)]).toEqual([Array.from(s.W), Array.from(s.D)]);
      expect(s.W.length).toBe(n * n);
      let scale = 0;
      for (const row of a) for (const v of row) scale = Math.max(scale, Math.abs(v));
      // L below the diagonal of the n×n array, column-major
      for (let k = 0; k < n; k++) {
        expect(Math.abs(s.D[k] - ref.D[k])).toBeLessThanOrEqual(1e-12 * scale);
        for (let i = k + 1; i < n; i++) expect(Math.abs(s.W[i + k * n] - ref.L[i][k])).toBeLessThanOrEqual(1e-10);
      }
    });
  }
});

/** x = A⁻¹·b through f as the JavaScript solve before ldl_solve (b gathered by perm, L·D·Lᵀ solved, scattered back). */
function referenceSolve(f: LdlFactor, perm: Int32Array, b: Float64Array): Float64Array {
  const { Lp, Li, Lx, D } = f;
  const n = D.length;
  const y = Float64Array.from({ length: n }, (_, k) => b[perm[k]]);
  if (f.dense) {
    // L(i, j) at Lx[i + j·n]: columns j and j + 1 together forward, rows j and j − 1 backward
    let j = 0;
    for (; j + 1 < n; j += 2) {
      const y0 = y[j];
      const y1 = (y[j + 1] -= Lx[j + 1 + j * n] * y0);
      for (let i = j + 2; i < n; i++) y[i] -= Lx[i + j * n] * y0 + Lx[i + (j + 1) * n] * y1;
    }
    for (let k = 0; k < n; k++) y[k] /= D[k];
    j = n - 1;
    for (; j >= 1; j -= 2) {
      let s0 = y[j];
      let s1 = y[j - 1];
      for (let i = j + 1; i < n; i++) {
        s0 -= Lx[i + j * n] * y[i];
        s1 -= Lx[i + (j - 1) * n] * y[i];
      }
      y[j] = s0;
      y[j - 1] = s1 - Lx[j + (j - 1) * n] * s0;
    }
    if (j === 0) for (let i = 1; i < n; i++) y[0] -= Lx[i] * y[i];
  } else {
    for (let j = 0; j < n; j++) if (y[j] !== 0) for (let p = Lp[j]; p < Lp[j + 1]; p++) y[Li[p]] -= Lx[p] * y[j];
    for (let j = 0; j < n; j++) y[j] /= D[j];
    for (let j = n - 1; j >= 0; j--) {
      let s0 = y[j];
      let s1 = 0;
      let p = Lp[j];
      for (; p + 1 < Lp[j + 1]; p += 2) {
        s0 -= Lx[p] * y[Li[p]];
        s1 -= Lx[p + 1] * y[Li[p + 1]];
      }
      if (p < Lp[j + 1]) s0 -= Lx[p] * y[Li[p]];
      y[j] = s0 + s1;
    }
  }
  const x = new Float64Array(n);
  for (let k = 0; k < n; k++) x[perm[k]] = y[k];
  return x;
}

describe('kept LDLᵀ factor solve kernel', () => {
  /** b with a zero (a column the sparse forward pass skips), both signs and several magnitudes */
  const rhs = (n: number) => Float64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 0 : Math.sin(1 + i) * 10 ** ((i % 5) - 2)));
  const check = (A: CSRMatrix, f: LdlFactor, perm: Int32Array) => {
    const n = A.rows;
    const b = rhs(n);
    const bCopy = Float64Array.from(b);
    const ref = referenceSolve(f, perm, b);
    for (const h of [simd, plain]) {
      const x = new Float64Array(n).fill(NaN);
      cpuLdlKernels(h).solve(f, perm, b, x);
      expect(Array.from(x)).toEqual(Array.from(ref));
      // held in the heap: the same bits twice, its bytes freed by dispose
      const live = h.heap.liveBytes;
      const held = cpuLdlKernels(h).hold(f, perm);
      for (let k = 0; k < 2; k++) {
        const xh = new Float64Array(n).fill(NaN);
        held.solve(b, xh);
        expect(Array.from(xh)).toEqual(Array.from(ref));
      }
      held.dispose();
      expect(h.heap.liveBytes).toBe(live);
    }
    expect(Array.from(b)).toEqual(Array.from(bCopy));
    // and it solves A·x = b (independent of the reference): relative residual at rounding level
    const a = toDense(A).a;
    let rmax = 0;
    let scale = 0;
    for (let i = 0; i < n; i++) {
      let s = b[i];
      let t = Math.abs(b[i]);
      for (let j = 0; j < n; j++) {
        s -= a[i][j] * ref[j];
        t += Math.abs(a[i][j] * ref[j]);
      }
      rmax = Math.max(rmax, Math.abs(s));
      scale = Math.max(scale, t);
    }
    expect(rmax).toBeLessThanOrEqual(1e-9 * scale);
  };
  for (const [name, make, positive] of cases.filter((c) => !c[0].startsWith('not positive'))) {
    it(`sparse factor, ${name}: the bits of the JavaScript solve, both builds; A·x = b`, () => {
      const A = make();
      const { r, perm } = kernelLdl(A, positive, cpuLdlKernels(simd).sparse);
      check(A, r as LdlFactor, perm);
    });
  }
  for (const [name, make, positive] of [
    ['bcsstk01', () => loadShared('bcsstk01'), true],
    ['symmetric indefinite (41 rows)', () => dominantIndefinite(symmetricRandom(randomMatrix({ rows: 41, meanRowLength: 5, seed: 9 }), 0, 2)), false],
    ['1×1', () => CSRMatrix.fromTriplets(1, 1, 'f64', Int32Array.of(0), Int32Array.of(0), Float64Array.of(-3)), false],
  ] as [string, () => CSRMatrix, boolean][]) {
    it(`dense factor, ${name}: the bits of the JavaScript solve, both builds (natural and reversed gather); A·x = b`, () => {
      const A = make();
      const n = A.rows;
      const plan = planFactor(A, 'ldlt', 'natural', cpuSymbolicKernels(simd));
      const f = denseLdl(n, plan.C.colPtr, plan.C.rowIdx, plan.C.values, positive, cpuLdlKernels(simd).dense) as LdlFactor;
      expect(f.dense).toBe(true);
      check(A, f, Int32Array.from({ length: n }, (_, i) => i));
      // a factor of P·A·Pᵀ with P reversing: the solve's gather and scatter are then no copies
      const rev = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
      const a = toDense(A).a;
      const rows: number[] = [];
      const cols: number[] = [];
      const vals: number[] = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (a[rev[i]][rev[j]] !== 0) rows.push(i), cols.push(j), vals.push(a[rev[i]][rev[j]]);
      const B = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
      const pb = planFactor(B, 'ldlt', 'natural', cpuSymbolicKernels(simd));
      const g = denseLdl(n, pb.C.colPtr, pb.C.rowIdx, pb.C.values, positive, cpuLdlKernels(simd).dense) as LdlFactor;
      check(A, g, rev);
    });
  }
});
