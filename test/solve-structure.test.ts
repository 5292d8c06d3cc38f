/**
 * solveStructure (src/solvers/structure.ts), what rt.solve's 'auto' choice reads, against a dense
 * reference written here: symmetry (Hermitian for complex) to the same relative 1e-12 per entry pair,
 * diagonal signs and dominance, on the square shared matrices and generated edge cases (a mirror
 * missing, an explicit zero without a mirror, perturbations above and below the tolerance, complex
 * symmetric but not Hermitian).
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix, markPrivateCanonical } from '../src/formats/csr.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import * as startChunk from '../src/cpu/tier-up.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { DIA_MAX_DIAGONALS, knownScan } from '../src/formats/diagonal-scan.js';
import { compactValues, DIAMatrix } from '../src/formats/dia.js';
import { compactUniform } from '../src/cpu/spmv-plan.js';
import { uniformDiaStructure, type UniformGroups } from '../src/solvers/uniform-structure.js';
import { uniformGroupsOf } from '../src/cpu/uniform-f32.js';
import { poisson3D } from '../src/generators/poisson.js';
import { anyStructure, csrGridDiameter, gridDiameter, pseudoDiameter, solveStructure } from '../src/solvers/structure.js';
import { poisson2D } from '../src/generators/poisson.js';
import { stokes2D } from '../src/generators/stokes.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared } from './matrices.js';
import { bandedMatrix } from './banded.js';
import { withRuntimes } from './cpu-setups.js';
import { isComplex } from '../src/dtype.js';

/** the reference: every (i, j) against conj(A[j, i]) in a dense copy (summing duplicates) */
function reference(A: CSRMatrix): { hermitian: boolean; positiveDiagonal: boolean; zeroDiagonals: number; diagonallyDominant: boolean } {
  const n = A.rows;
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      re[i * n + A.colIdx[k]] += A.values[c * k];
      if (c === 2) im[i * n + A.colIdx[k]] += A.values[c * k + 1];
    }
  }
  let hermitian = A.rows === A.cols;
  let positiveDiagonal = true;
  let zeroDiagonals = 0;
  let diagonallyDominant = true;
  for (let i = 0; i < n; i++) {
    let offAbs = 0;
    for (let j = 0; j < n; j++) {
      const [a, b] = [re[i * n + j], im[i * n + j]];
      if (j !== i) offAbs += Math.hypot(a, b);
      const [m, mi] = [re[j * n + i], -im[j * n + i]];
      if ((a - m) ** 2 + (b - mi) ** 2 > 1e-24 * Math.max(a * a + b * b, m * m + mi * mi)) hermitian = false;
    }
    const [d, di] = [re[i * n + i], im[i * n + i]];
    if (d === 0 && di === 0) zeroDiagonals++;
    if (!(d > 0) || di !== 0) positiveDiagonal = false;
    if (Math.hypot(d, di) < offAbs * (1 - 1e-12)) diagonallyDominant = false;
  }
  return { hermitian, positiveDiagonal, zeroDiagonals, diagonallyDominant };
}

function expectLikeReference(A: CSRMatrix, label: string): void {
  const s = solveStructure(A);
  expect({ hermitian: s.hermitian, positiveDiagonal: s.positiveDiagonal, zeroDiagonals: s.zeroDiagonals, diagonallyDominant: s.diagonallyDominant }, label).toEqual(reference(A));
}

/** a random sparse symmetric pattern with values; `complex`: Hermitian values */
function randomSymmetric(n: number, seed: number, complex = false): CSRMatrix {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const ri: number[] = [];
  const ci: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < n; i++) {
    ri.push(i), ci.push(i), v.push(4 + rnd(), ...(complex ? [0] : []));
    for (let t = 0; t < 3; t++) {
      const j = Math.floor(rnd() * n);
      if (j === i) continue;
      const [a, b] = [rnd() - 0.5, rnd() - 0.5];
      ri.push(i, j), ci.push(j, i);
      v.push(...(complex ? [a, b, a, -b] : [a, a]));
    }
  }
  return CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

/** A with entry k's value replaced (the pattern kept) */
function withValue(A: CSRMatrix, k: number, value: number): CSRMatrix {
  const values = Float64Array.from(A.values);
  values[k] = value;
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, values);
}

/** A without its stored entry k */
function without(A: CSRMatrix, k: number): CSRMatrix {
  const c = A.dtype === 'c128' ? 2 : 1;
  const rowPtr = A.rowPtr.map((p) => (p > k ? p - 1 : p));
  const colIdx = Int32Array.from([...A.colIdx.subarray(0, k), ...A.colIdx.subarray(k + 1)]);
  const values = Float64Array.from([...A.values.subarray(0, c * k), ...A.values.subarray(c * (k + 1))]);
  return new CSRMatrix(A.rows, A.cols, A.dtype, rowPtr, colIdx, values);
}

/** the stored entries off the diagonal, as (k, i, j) */
function offDiagonal(A: CSRMatrix): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] !== i) out.push([k, i, A.colIdx[k]]);
  return out;
}

describe('solveStructure against a dense reference', () => {
  it('the square shared matrices', () => {
    for (const name of ['494_bus', 'bcsstk01', 'bcsstk13', 'dwt_992', 'west0479', 'rajat01', 'ash219', 'olm1000', 'young1c', 'qc324']) {
      const A = loadShared(name);
      if (A.rows === A.cols) expectLikeReference(A, name);
    }
  });

  it('random symmetric and Hermitian patterns, and each broken one entry at a time', () => {
    for (const complex of [false, true]) {
      const A = randomSymmetric(60, complex ? 7 : 3, complex);
      expect(solveStructure(A).hermitian).toBe(true);
      expectLikeReference(A, 'symmetric');
      const c = complex ? 2 : 1;
      const off = offDiagonal(A);
      for (const [k, i, j] of off.filter((_, t) => t % 7 === 0)) {
        const a = A.values[c * k];
        // a relative change of 1e-9 breaks symmetry, 1e-14 does not
        expectLikeReference(withValue(A, c * k, a * (1 + 1e-9)), `(${i}, ${j}) · (1 + 1e-9)`);
        expectLikeReference(withValue(A, c * k, a * (1 + 1e-14)), `(${i}, ${j}) · (1 + 1e-14)`);
        // the mirror missing: not symmetric; an explicit zero without its mirror: still symmetric
        const B = without(A, k);
        expect(solveStructure(B).hermitian, `(${i}, ${j}) removed`).toBe(false);
        expectLikeReference(B, `(${i}, ${j}) removed`);
        const Z = withValue(withValue(A, c * k, 0), c * k + c - 1, 0);
        const mirror = off.find(([, i2, j2]) => i2 === j && j2 === i)![0];
        const Zm = without(Z, mirror);
        expect(solveStructure(Zm).hermitian, `explicit zero at (${i}, ${j}), mirror removed`).toBe(true);
        expectLikeReference(Zm, `explicit zero at (${i}, ${j})`);
      }
      if (complex) {
        // complex symmetric (Aᵀ = A), not Hermitian: the imaginary parts of a pair agree instead of opposing
        const [k, i, j] = off[0];
        const mirror = off.find(([, i2, j2]) => i2 === j && j2 === i)![0];
        const S = withValue(A, 2 * mirror + 1, A.values[2 * k + 1]);
        expect(solveStructure(S).hermitian).toBe(A.values[2 * k + 1] === 0);
        expectLikeReference(S, 'complex symmetric');
      }
    }
  });

  it('poisson3D: symmetric, Laplacian-like, its pseudo-diameter exact on the grid (3·(n − 1))', () => {
    const s = solveStructure(poisson3D(12));
    expect([s.hermitian, s.laplacianLike, s.diagonallyDominant, s.positiveDiagonal, s.diameter]).toEqual([true, true, true, true, 33]);
    // the last entry left of a diagonal changed, its mirror not
    const A = poisson3D(4);
    const lastLower = offDiagonal(A).filter(([, i, j]) => j < i).pop()!;
    expect(solveStructure(withValue(A, lastLower[0], -2)).hermitian).toBe(false);
  });
});

/** finite and laplacianLike by their definitions, over a dense copy (duplicates summed) */
function signReference(A: CSRMatrix): { finite: boolean; laplacianLike: boolean } {
  const n = A.rows;
  const d = new Float64Array(n * n);
  let finite = true;
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) (d[i * n + A.colIdx[k]] += A.values[k]), (finite &&= Number.isFinite(A.values[k]));
  let laplacianLike = true;
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let j = 0; j < n; j++) if (j !== i) (laplacianLike &&= !(d[i * n + j] > 0)), (off -= d[i * n + j]);
    if (off > d[i * n + i] * (1 + 1e-12)) laplacianLike = false;
  }
  return { finite, laplacianLike };
}

describe("solveStructure's real pass", () => {
  it('equals the general pass, and the references, field for field on real matrices, with NaN, ±Infinity, a positive off-diagonal, a dropped mirror', () => {
    const cases: [string, CSRMatrix][] = ['494_bus', 'bcsstk01', 'dwt_992', 'west0479', 'rajat01', 'ash219', 'olm1000', 'young1c', 'qc324'].map((n) => [n, loadShared(n)]);
    cases.push(['poisson2D(9)', poisson2D(9)], ['poisson3D(5) f32', poisson3D(5, { dtype: 'f32' })], ['symmetric', randomSymmetric(50, 11)]);
    cases.push(['random', randomMatrix({ rows: 70, meanRowLength: 4, seed: 12 })], ['rectangular', randomMatrix({ rows: 30, cols: 40, meanRowLength: 4, seed: 13 })]);
    const P = poisson2D(6);
    const [k0] = offDiagonal(P)[5];
    cases.push(['NaN', withValue(P, 3, NaN)], ['+Inf', withValue(P, 0, Infinity)], ['-Inf off-diagonal', withValue(P, k0, -Infinity)]);
    cases.push(['positive off-diagonal', withValue(P, k0, 0.5)], ['mirror dropped', without(P, k0)], ['zero diagonal', withValue(P, 0, 0)]);
    // nonsymmetric saddle points (saddle: true), and one whose constraints couple to each other (false)
    const O = stokes2D(6, { wind: [5, 2] });
    const r: number[] = [];
    const c: number[] = [];
    const v: number[] = [];
    for (let i = 0; i < O.rows; i++) for (let k = O.rowPtr[i]; k < O.rowPtr[i + 1]; k++) r.push(i), c.push(O.colIdx[k]), v.push(O.values[k]);
    r.push(O.rows - 1), c.push(O.rows - 2), v.push(0.5);
    const coupled = CSRMatrix.fromTriplets(O.rows, O.cols, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    cases.push(['Oseen', O], ['Oseen, two constraints coupled', coupled]);
    for (const [name, A] of cases) {
      const s = solveStructure(A);
      expect({ ...s, diameter: undefined, saddle: undefined }, name).toEqual({ ...anyStructure(A), diameter: undefined, saddle: undefined });
      // saddle: read for a real nonsymmetric A with zero diagonal entries alone, as a dense reading of A's rows says
      expect(s.saddle, name).toBe(!s.hermitian && s.zeroDiagonals > 0 && s.finite && !isComplex(A.dtype) ? saddleReference(A) : undefined);
      if (name.startsWith('Oseen')) expect(s.saddle, name).toBe(name === 'Oseen');
      if (A.rows === A.cols && A.dtype === 'f64') {
        expect({ finite: s.finite, laplacianLike: s.laplacianLike }, name).toEqual(signReference(A));
        // the dense reference's symmetry test is defined for finite values only (a NaN fails no comparison)
        if (s.finite) expectLikeReference(A, name);
      }
    }
  });
});

/** A banded real matrix on `offsets` (those that fit), value(i, o) at (i, i + o), stored even when 0. */
function banded(n: number, offsets: number[], value: (i: number, o: number) => number): CSRMatrix {
  return bandedMatrix(n, offsets, 'f64', value);
}

describe("solveStructure's pass over a DIA copy (rt.solve's on the CPU path's stencils)", () => {
  it('equals the CSR pass field for field: shared and generated matrices, blocks of rows crossed, mirrors missing or perturbed, explicit zeros, NaN, ±Infinity, f32', () => {
    const cases: [string, CSRMatrix][] = ['bcsstk01', 'west0479', 'olm1000', 'young1c'].map((n) => [n, loadShared(n)]);
    cases.push(['poisson3D(12)', poisson3D(12)], ['poisson2D(41)', poisson2D(41)], ['poisson3D(5) f32', poisson3D(5, { dtype: 'f32' })], ['symmetric', randomSymmetric(50, 11)]);
    cases.push(['random', randomMatrix({ rows: 70, meanRowLength: 4, seed: 12 })], ['one row', banded(1, [0], () => 3)], ['empty', banded(0, [0], () => 1)]);
    const sym = (i: number, o: number) => (o === 0 ? 4 : -0.5 - (((i + Math.min(0, o)) * 7) % 5) / 10);
    const n = 2500; // three blocks of rows
    cases.push(['banded symmetric', banded(n, [-1030, -3, -1, 0, 1, 3, 1030], sym)]);
    cases.push(['a diagonal without its mirror', banded(n, [-3, -1, 0, 1, 3, 1030], sym)]);
    cases.push(['the mirror missing below', banded(n, [-1030, -1, 0, 1, 1030], (i, o) => (o === -1030 ? 0 : sym(i, o)))]);
    cases.push(['explicit zeros, no mirror', banded(n, [-1, 0, 1, 7], (i, o) => (o === 7 ? 0 : sym(i, o)))]);
    cases.push(['zero and negative diagonal entries', banded(n, [-1, 0, 1], (i, o) => (o === 0 ? (i === 1500 ? 0 : i === 2100 ? -4 : 4) : sym(i, o)))]);
    cases.push(['positive off-diagonal', banded(n, [-1, 0, 1], (i, o) => (o === 1 && i === 1700 ? 0.5 : sym(i, o)))]);
    cases.push(['not dominant', banded(n, [-1, 0, 1], (i, o) => (o === 0 && i === 1025 ? 0.5 : sym(i, o)))]);
    for (const [at, f] of [[1023, 1 + 1e-9], [1024, 1 + 1e-14], [2047, 1 + 1e-9], [n - 2, 1 + 1e-9]] as const) {
      cases.push([`(${at}, ${at + 1}) · ${f}`, banded(n, [-1, 0, 1], (i, o) => (o === 1 && i === at ? sym(i, o) * f : sym(i, o)))]);
    }
    for (const bad of [NaN, Infinity, -Infinity]) {
      cases.push([`${bad} off the diagonal`, banded(n, [-1, 0, 1], (i, o) => (o === -1 && i === 1800 ? bad : sym(i, o)))]);
      cases.push([`${bad} on the diagonal`, banded(n, [-1, 0, 1], (i, o) => (o === 0 && i === 5 ? bad : sym(i, o)))]);
      cases.push([`${bad} and its mirror`, banded(n, [-1, 0, 1], (i, o) => ((o === 1 && i === 1300) || (o === -1 && i === 1301) ? bad : sym(i, o)))]);
    }
    for (const [name, A] of cases) {
      if (A.rows !== A.cols) continue;
      const D = DIAMatrix.fromCSR(A, { maxFill: Infinity });
      expect(solveStructure(A, D), name).toEqual(solveStructure(A));
      expect(solveStructure(A, D, undefined, true), `${name}, transient`).toEqual(solveStructure(A));
      // and on the CSR the DIA gives back (stored zeros dropped)
      expect({ ...solveStructure(D.toCSR(), D), nnz: A.nnz, diameter: undefined, saddle: undefined }, `${name}, from its DIA`).toEqual({ ...solveStructure(A), diameter: undefined, saddle: undefined });
    }
  });
});

describe("solveStructure's DIA pass over the CPU upload's uniform 4-row groups (a stencil's interior read from its constants)", () => {
  /** A's DIA and the groups the CPU upload's compactUniform flags in it (null: none flagged, or values not all f32: no compact copy) */
  const flagged = (A: CSRMatrix): [DIAMatrix, UniformGroups] | null => {
    const D = DIAMatrix.fromCSR(A, { maxFill: Infinity });
    const u = compactValues(D) ? compactUniform(D, new Float32Array(D.data.length)) : null;
    return u && [D, u];
  };
  /** Stencils, one slot changed inside a uniform group, at its mirror, in a boundary group, mirrors of unequal constants, ±0, NaN, ±Infinity (f64, every constant exactly f32). */
  const stencilCases = (): [string, CSRMatrix][] => {
    // a 2-D grid of side 50 (offsets ±1, ±50), rows 4-aligned and not, its constants exactly f32
    const n = 2500;
    const offs = [-50, -1, 0, 1, 50];
    const stencil = (i: number, o: number): number | undefined => (o === 0 ? 4 : (o === 1 && (i + 1) % 50 === 0) || (o === -1 && i % 50 === 0) ? undefined : -1);
    const edit = (at: number, ao: number, v: number | undefined, base = stencil) => bandedMatrix(n, offs, 'f64', (i, o) => (i === at && o === ao ? v : base(i, o)));
    const cases: [string, CSRMatrix][] = [['poisson3D(40)', poisson3D(40)], ['poisson3D(37)', poisson3D(37)], ['poisson2D(64)', poisson2D(64)], ['grid 50×50', bandedMatrix(n, offs, 'f64', stencil)]];
    // rows of an interior group (4·314 = 1256 … 1259: columns 6 … 9 of the grid's line 1250 … 1299), a
    // mirror below it in another group (1306 = 1256 + 50), rows of boundary groups (1300: column 0, 1299: column 49)
    for (const [at, o] of [[1257, 1], [1258, 50], [1259, -1], [1306, -50], [1308, -50], [1300, 1], [1299, 1], [1256, 50]] as const) {
      for (const v of [-1.5, -0.5, 0, -0, 0.25, 8, NaN, Infinity, -Infinity, undefined]) cases.push([`(${at}, ${at + o}) = ${v}`, edit(at, o, v)]);
    }
    for (const v of [3, 0, -4, NaN]) cases.push([`diagonal (1257) = ${v}`, edit(1257, 0, v)]);
    // a diagonal of zeros, none stored, a diagonal without its mirror (above and below)
    cases.push(['zero diagonal', bandedMatrix(n, offs, 'f64', (i, o) => (o === 0 ? 0 : stencil(i, o)))]);
    cases.push(['no diagonal', bandedMatrix(n, offs, 'f64', (i, o) => (o === 0 ? undefined : stencil(i, o)))]);
    cases.push(['no mirror above', bandedMatrix(n, offs, 'f64', (i, o) => (o === -50 ? undefined : stencil(i, o)))]);
    cases.push(['no mirror below', bandedMatrix(n, offs, 'f64', (i, o) => (o === 50 ? undefined : stencil(i, o)))]);
    // a mirror pair changed together (still symmetric), and a nonsymmetric stencil (constants −1.25 / −0.75)
    cases.push(['pair changed together', bandedMatrix(n, offs, 'f64', (i, o) => ((i === 1257 && o === 50) || (i === 1307 && o === -50) ? -2 : stencil(i, o)))]);
    const convection = (i: number, o: number) => (stencil(i, o) === undefined ? undefined : o === 1 ? -1.25 : o === -1 ? -0.75 : stencil(i, o));
    cases.push(['convection', bandedMatrix(n, offs, 'f64', convection)], ['convection, one pair equal', edit(1257, 1, -0.75, convection)]);
    // every slot of a diagonal ±Infinity, or −0 (uniform groups of those constants)
    cases.push(['+Inf diagonal', bandedMatrix(n, offs, 'f64', (i, o) => (o === 1 ? Infinity : stencil(i, o)))]);
    cases.push(['−0 upper', bandedMatrix(n, offs, 'f64', (i, o) => (o === 50 ? -0 : stencil(i, o)))]);
    return cases;
  };
  it('equals the slots\' pass and the references field for field: stencils, one slot changed inside a uniform group, at its mirror, in a boundary group, mirrors of unequal constants, ±0, NaN, ±Infinity', () => {
    const cases = stencilCases();
    let checked = 0;
    for (const [name, A] of cases) {
      const f = flagged(A);
      if (!f) continue;
      checked++;
      const [D, u] = f;
      const s = uniformDiaStructure(D, A.nnz, u);
      const { diameter: _, ...fields } = solveStructure(A);
      expect(s, name).toEqual(fields);
      expect({ ...solveStructure(A, D, () => ({ ...s })) }, `${name}, as solveStructure's pass`).toEqual(solveStructure(A));
      expect(s, `${name}, the slots' pass`).toEqual((({ diameter: _d, ...f }) => f)(solveStructure(A, DIAMatrix.fromCSR(A, { maxFill: Infinity }))));
      expect(s, name).toEqual(sparseReference(A).structure);
    }
    // every case without a NaN was flagged (one is no exact f32: no compact copy, so no groups at all)
    expect(checked).toBe(cases.filter(([, A]) => !A.values.some(Number.isNaN)).length);
  });

  it("an f32 copy's groups, flagged on the pool at its upload (src/cpu/uniform-f32.ts), give the same structure with no pool pass over A", async () => {
    const rt = await createRuntime({ workers: 2 });
    const B = rt.cpuBackend;
    const run = B.runChunksSync.bind(B);
    const jobs: string[] = [];
    B.runChunksSync = (kernel, ...rest) => (jobs.push(kernel), run(kernel, ...rest));
    try {
      let checked = 0;
      const cases = stencilCases();
      for (const [name, A64] of cases) {
        const A = A64.astype('f32');
        const D = DIAMatrix.fromCSR(A, { maxFill: Infinity });
        const M = B.upload(D);
        try {
          const u = uniformGroupsOf(M);
          // a NaN's slot leaves its group unflagged, not the others
          if (!u) continue;
          checked++;
          const s = uniformDiaStructure(D, A.nnz, u);
          const { diameter: _, ...fields } = solveStructure(A);
          expect(s, name).toEqual(fields);
          expect(s, name).toEqual(sparseReference(A).structure);
          jobs.length = 0;
          expect(startChunk.poolStructure(B, A, () => new CpuSparseSession(B), { copies: new Map([['cpu:dia', M]]) }), name).toEqual(s);
          expect(jobs, name).toEqual([]);
        } finally {
          M.dispose();
        }
      }
      expect(checked).toBe(cases.length);
    } finally {
      rt.dispose();
    }
  });

  it('is the pool chunk\'s pass for a flagged copy (not for an AMG session\'s), and rt.solve\'s choices read the same structure', async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      const P = poisson3D(24);
      const [D, u] = flagged(P)!;
      const B = rt.cpuBackend;
      // the CPU copy as the upload makes it: its flags and constants in the heap
      const M = B.upload(D);
      expect(M.params.uniform).toBe(1);
      const copied: CSRMatrix[] = [];
      const session = new (class extends CpuSparseSession {
        override resident(A: CSRMatrix): number[] {
          copied.push(A);
          return super.resident(A);
        }
      })(B);
      try {
        // no pool job: the pass's kernel is not run
        const run = B.runChunksSync.bind(B);
        const jobs: string[] = [];
        B.runChunksSync = (kernel, ...rest) => (jobs.push(kernel), run(kernel, ...rest));
        expect(startChunk.poolStructure(B, P, () => new CpuSparseSession(B), { copies: new Map([['cpu:dia', M]]) })).toEqual(uniformDiaStructure(D, P.nnz, u));
        expect(jobs).toEqual([]);
        expect(startChunk.poolStructure(B, P, () => new CpuSparseSession(B), { copies: new Map() })).toEqual(uniformDiaStructure(D, P.nnz, u));
        expect(jobs).toEqual(['structure_real']);
        expect(startChunk.poolStructure(B, P, session, { copies: new Map([['cpu:dia', M]]) })).toEqual(uniformDiaStructure(D, P.nnz, u));
        expect(copied).toEqual([P]);
      } finally {
        session.dispose();
        M.dispose();
      }
      // a slot off in the interior of the first solve's DIA copy: the handle's structure is the reference's
      const k = offDiagonal(P).filter(([, i]) => i === (P.rows >> 1) + 2)[0][0];
      for (const [name, A] of [['poisson3D(24)', P], ['mirror off', withValue(P, k, P.values[k] * (1 + 1e-9))], ['mirror dropped', without(P, k)]] as const) {
        const h = rt.upload(A);
        const b = new Float64Array(A.rows).fill(1);
        const r = await rt.solve(h, b);
        expect(h.format, name).toBe('dia');
        expect({ ...rt.explain('solve', h).structure, diameter: undefined, saddle: undefined }, name).toEqual({ ...sparseReference(A).structure, diameter: undefined, saddle: undefined });
        expect(r.method, name).toBe(name === 'poisson3D(24)' ? 'cg' : rt.explain('solve', h).method);
        h.dispose();
      }
    } finally {
      rt.dispose();
    }
  });
});

/** two breadth-first searches with a distance per node, from row 0 and then from the last node reached */
function referenceDiameter(A: CSRMatrix): number {
  const bfs = (start: number): [number, number] => {
    const dist = new Array<number>(A.rows).fill(-1);
    const queue = [start];
    dist[start] = 0;
    for (let h = 0; h < queue.length; h++) {
      const i = queue[h];
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (dist[A.colIdx[k]] < 0) (dist[A.colIdx[k]] = dist[i] + 1), queue.push(A.colIdx[k]);
    }
    const last = queue[queue.length - 1];
    return [last, dist[last]];
  };
  return bfs(bfs(0)[0])[1];
}

describe('pseudoDiameter', () => {
  it('equals two breadth-first searches with distances, on symmetric patterns, grids, a graph in pieces, one row', () => {
    const pieces = CSRMatrix.fromTriplets(6, 6, 'f64', Int32Array.from([0, 1, 1, 2, 3, 4, 5]), Int32Array.from([1, 0, 2, 1, 4, 3, 5]), new Float64Array(7).fill(1));
    const one = CSRMatrix.fromTriplets(1, 1, 'f64', Int32Array.from([0]), Int32Array.from([0]), Float64Array.from([2]));
    const cases: [string, CSRMatrix][] = ['494_bus', 'bcsstk01', 'bcsstk13', 'dwt_992', 'ash219'].map((n) => [n, loadShared(n)]);
    cases.push(['poisson2D(33)', poisson2D(33)], ['poisson3D(7)', poisson3D(7)], ['symmetric', randomSymmetric(300, 17)], ['pieces', pieces], ['one row', one]);
    for (const [name, A] of cases) if (A.rows === A.cols) expect(pseudoDiameter(A), name).toBe(referenceDiameter(A));
    expect(pseudoDiameter(poisson2D(33))).toBe(64);
    expect(pseudoDiameter(pieces)).toBe(2);
  });
});

/**
 * A grid Laplacian m₁ × … × m_d in natural order (m₁ fastest), 2d on the diagonal and −1 for each
 * neighbour; `edit(i, o, v)` may change an entry's value (undefined: not stored).
 */
function grid(m: number[], edit: (i: number, o: number, v: number) => number | undefined = (_i, _o, v) => v): CSRMatrix {
  const n = m.reduce((a, b) => a * b, 1);
  const strides = m.map((_, k) => m.slice(0, k).reduce((a, b) => a * b, 1));
  const offsets = [...strides.map((s) => -s).reverse(), 0, ...strides];
  return bandedMatrix(n, offsets, 'f64', (i, o) => {
    if (o === 0) return edit(i, 0, 2 * m.length);
    const k = strides.indexOf(Math.abs(o));
    const digit = Math.floor(i / strides[k]) % m[k];
    const inside = o > 0 ? digit < m[k] - 1 : digit > 0;
    return edit(i, o, inside ? -1 : 0) || undefined;
  });
}

/** each diagonal's nonzero slots inside the matrix, by definition (what solveStructure's DIA pass hands gridDiameter) */
function nonzeroSlots(D: DIAMatrix): Int32Array {
  return Int32Array.from(D.offsets, (o, d) => {
    let c = 0;
    for (let i = Math.max(0, -o); i < Math.min(D.rows, D.cols - o); i++) if (D.data[d * D.pitch + i] !== 0) c++;
    return c;
  });
}

describe('gridDiameter (rt.solve reads a DIA copy of a grid without the two searches)', () => {
  it('is the two searches\' answer, Σ(m_k − 1), on grids of 1–4 dimensions, anisotropic, with sides of 2', () => {
    for (const m of [[9], [2], [3, 7], [7, 3], [2, 2], [4, 5, 6], [6, 2, 3], [2, 3, 2, 3], [12, 12, 12]]) {
      const A = grid(m);
      const D = DIAMatrix.fromCSR(A);
      const expected = m.reduce((a, b) => a + b - 1, 0);
      expect(referenceDiameter(A), `${m}`).toBe(expected);
      expect(gridDiameter(D, A.nnz), `${m}`).toBe(expected);
      expect(gridDiameter(D, A.nnz, nonzeroSlots(D)), `${m}, counts given`).toBe(expected);
      expect(csrGridDiameter(A), `${m}, from the CSR`).toBe(expected);
      expect(solveStructure(A, D).diameter, `${m}`).toBe(expected);
      // a transient copy (a GPU path's upload source, dropped after the pass): the formula's answer taken now
      expect(solveStructure(A, D, undefined, true).diameter, `${m}, transient`).toBe(expected);
    }
    expect(gridDiameter(DIAMatrix.fromCSR(poisson3D(12)), poisson3D(12).nnz)).toBe(33);
  });

  it('reads f32 and f64 copies alike by value: a slot of −0 as 0, NaN and subnormals as nonzero (every main and upper slot edited in turn, against the pattern by definition)', () => {
    // the grid's pattern by definition, read by value: every main slot nonzero, and on each upper
    // diagonal s_k exactly the slots (i, i + s_k) of the grid's edges nonzero — else undefined
    const byDefinition = (D: DIAMatrix, m: number[]): number | undefined => {
      const n = D.rows;
      const strides = m.map((_, k) => m.slice(0, k).reduce((a, b) => a * b, 1));
      const at = (o: number) => D.offsets.indexOf(o) * D.pitch;
      for (let i = 0; i < n; i++) if (D.data[at(0) + i] === 0) return undefined;
      for (let k = 0; k < m.length; k++) {
        for (let i = 0; i + strides[k] < n; i++) {
          const edge = Math.floor(i / strides[k]) % m[k] < m[k] - 1;
          if ((D.data[at(strides[k]) + i] !== 0) !== edge) return undefined;
        }
      }
      return m.reduce((a, b) => a + b - 1, 0);
    };
    for (const m of [[7], [3, 4], [2, 3, 2], [12, 12, 12]]) {
      const A = grid(m);
      for (const dtype of ['f64', 'f32'] as const) {
        const D = DIAMatrix.fromCSR(A.astype(dtype));
        expect(gridDiameter(D, A.nnz), `${m} ${dtype}`).toBe(referenceDiameter(A));
        if (m.length === 3 && m[0] === 12) continue;
        const tiny = dtype === 'f64' ? 5e-324 : 1e-45;
        const slots = Array.from(D.offsets).flatMap((o, d) => (o < 0 ? [] : Array.from({ length: D.rows - o }, (_, i) => d * D.pitch + i)));
        for (const k of slots) {
          const kept = D.data[k];
          for (const v of [-0, 0, NaN, -1, tiny, -tiny]) {
            D.data[k] = v;
            expect(gridDiameter(D, A.nnz), `${m} ${dtype} slot ${k} = ${v}`).toBe(byDefinition(D, m));
          }
          D.data[k] = kept;
        }
      }
    }
    // real matrices (not grids) and a banded one: declined in either dtype
    for (const A of [loadShared('bcsstk01'), loadShared('494_bus'), bandedMatrix(40, [-3, -1, 0, 1, 3], 'f64', (_i, o) => (o === 0 ? 5 : -1))]) {
      for (const dtype of ['f64', 'f32'] as const) expect(gridDiameter(DIAMatrix.fromCSR(A.astype(dtype), { maxFill: Infinity }), A.nnz)).toBeUndefined();
    }
  });

  it('declines any other pattern, and the structure then falls back to the searches: an edge missing or stored as 0, a wrap-around edge, a diagonal off the grid, strides that do not divide', () => {
    const m = [4, 3, 5];
    const cases: [string, CSRMatrix][] = [
      // the pair (20, 21) dropped, or stored as zeros (as a CSR may hold them)
      ['an edge missing', grid(m, (i, o, v) => ((o === 1 && i === 20) || (o === -1 && i === 21) ? undefined : v))],
      ['an edge stored as 0', grid(m, (i, o, v) => ((o === 1 && i === 20) || (o === -1 && i === 21) ? 0 : v))],
      ['a diagonal entry stored as 0', grid(m, (i, o, v) => (o === 0 && i === 7 ? 0 : v))],
      ['a diagonal entry absent, an edge stored as 0', grid(m, (i, o, v) => (o === 0 && i === 7 ? undefined : (o === 1 && i === 3) || (o === -1 && i === 4) ? 0 : v))],
      // (3, 4) joins the ends of two grid lines: a nonzero where the grid has none
      ['a wrap-around edge', grid(m, (i, o, v) => ((o === 1 && i === 3) || (o === -1 && i === 4) ? -1 : v))],
      ['a periodic direction', grid(m, (i, o, v) => (Math.abs(o) === 1 && v === 0 ? -1 : v))],
      ['an extra diagonal', bandedMatrix(60, [-12, -4, -2, -1, 0, 1, 2, 4, 12], 'f64', (_i, o) => (o === 0 ? 10 : -1))],
      ['strides that do not divide', bandedMatrix(60, [-7, -1, 0, 1, 7], 'f64', (_i, o) => (o === 0 ? 4 : -1))],
      ['no unit stride', bandedMatrix(60, [-5, 0, 5], 'f64', (_i, o) => (o === 0 ? 4 : -1))],
    ];
    for (const [name, A] of cases) {
      const D = DIAMatrix.fromCSR(A, { maxFill: Infinity });
      expect(gridDiameter(D, A.nnz), name).toBeUndefined();
      expect(gridDiameter(D, A.nnz, nonzeroSlots(D)), `${name}, counts given`).toBeUndefined();
      expect(csrGridDiameter(A), `${name}, from the CSR`).toBeUndefined();
      const s = solveStructure(A, D);
      if (s.diameter !== undefined) expect(s.diameter, name).toBe(referenceDiameter(A));
      // from a transient copy: every field the same, the diameter by the searches over A
      const t = solveStructure(A, D, undefined, true);
      expect(t, `${name}, transient`).toEqual(s);
      if (t.diameter !== undefined) expect(t.diameter, `${name}, transient`).toBe(referenceDiameter(A));
    }
    // the extra diagonal edge's matrix is still read: its diameter comes from the searches
    expect(solveStructure(cases[6][1], DIAMatrix.fromCSR(cases[6][1])).diameter).toBe(referenceDiameter(cases[6][1]));
  });
});

/**
 * Every field the structure check finds, by definition over A's entries in a map keyed by (i, j)
 * (duplicates summed; a sparse reference, so it reaches the sizes where the pool splits the rows),
 * with the format choice's scan: the distinct diagonals j − i holding an entry, the longest row, Σ of
 * the squared row lengths.
 */
function sparseReference(A: CSRMatrix) {
  const n = A.rows;
  const at = new Map<number, number>();
  const key = (i: number, j: number) => i * A.cols + j;
  const diagonals = new Set<number>();
  let [maxRow, sumSq, finite] = [0, 0, true];
  for (let i = 0; i < n; i++) {
    const len = A.rowPtr[i + 1] - A.rowPtr[i];
    maxRow = Math.max(maxRow, len);
    sumSq += len * len;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      at.set(key(i, j), (at.get(key(i, j)) ?? 0) + A.values[k]);
      diagonals.add(j - i);
      if (!Number.isFinite(A.values[k])) finite = false;
    }
  }
  let hermitian = A.rows === A.cols;
  for (const [kk, a] of at) {
    const [i, j] = [Math.floor(kk / A.cols), kk % A.cols];
    if (!hermitian || i === j) continue;
    const m = at.get(key(j, i)) ?? 0;
    if (!(Math.abs(a - m) <= 1e-12 * Math.max(Math.abs(a), Math.abs(m)))) hermitian = false;
  }
  let [positiveDiagonal, zeroDiagonals, laplacianLike, diagonallyDominant] = [true, 0, true, true];
  for (let i = 0; i < n; i++) {
    const d = at.get(key(i, i)) ?? 0;
    let [off, offAbs] = [0, 0];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      if (A.colIdx[k] === i) continue;
      const a = A.values[k];
      if (a > 0) laplacianLike = false;
      off -= a;
      offAbs += Math.abs(a);
    }
    if (d === 0) zeroDiagonals++;
    if (!(d > 0)) positiveDiagonal = false;
    if (off > d * (1 + 1e-12)) laplacianLike = false;
    if (Math.abs(d) < offAbs * (1 - 1e-12)) diagonallyDominant = false;
  }
  const structure = { n, nnz: A.nnz, hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
  return { structure, scan: { diagonals: diagonals.size, maxRow, sumSq }, offsets: [...diagonals].sort((a, b) => a - b) };
}

describe("solveStructure's pass on the CPU pool (src/cpu/tier-up.ts poolStructure: assembly/structure.ts)", () => {
  let rt: Runtime;
  let one: Runtime;
  withRuntimes([2, 1], (made) => ([rt, one] = made));

  /** A symmetric random matrix large enough (≥ 16384 entries) for the pool to split its rows. */
  const big = randomSymmetric(6000, 5);
  const P = poisson2D(70);
  // entries near the middle row, where two threads' chunks meet, and at both ends
  const near = (A: CSRMatrix, row: number) => offDiagonal(A).filter(([, i]) => i === row)[0][0];
  const half = P.rows >> 1;
  const cases: [string, CSRMatrix][] = [
    ['poisson2D(70)', P],
    ['poisson3D(20)', poisson3D(20)],
    ['symmetric 6000', big],
    ['poisson3D(20) f32', poisson3D(20, { dtype: 'f32' })],
    ['bcsstk13', loadShared('bcsstk13')],
    ['west0479', loadShared('west0479')],
    ['random', randomMatrix({ rows: 5000, meanRowLength: 5, seed: 21 })],
    ['rectangular', randomMatrix({ rows: 3000, cols: 4000, meanRowLength: 6, seed: 22 })],
    ['empty', new CSRMatrix(0, 0, 'f64', Int32Array.of(0), new Int32Array(0), new Float64Array(0))],
    ['one row', new CSRMatrix(1, 1, 'f64', Int32Array.of(0, 1), Int32Array.of(0), Float64Array.of(2))],
  ];
  for (const row of [0, half - 1, half, half + 1, P.rows - 1]) {
    const k = near(P, row);
    cases.push([`mirror dropped at row ${row}`, without(P, k)], [`(1 + 1e-9) at row ${row}`, withValue(P, k, P.values[k] * (1 + 1e-9))]);
    cases.push([`(1 + 1e-14) at row ${row}`, withValue(P, k, P.values[k] * (1 + 1e-14))], [`NaN at row ${row}`, withValue(P, k, NaN)]);
    cases.push([`explicit zero without a mirror at row ${row}`, withValue(without(P, k), near(without(P, k), row), 0)]);
  }
  cases.push(['+Inf diagonal', withValue(P, P.rowPtr[half], Infinity)], ['zero diagonal', withValue(P, P.rowPtr[half] + 1, 0)], ['positive off-diagonal', withValue(P, near(P, half), 0.5)]);
  // a large pattern with its upper triangle's entries doubled (no mirror pair matches) and one with its lower ones dropped
  const up = (A: CSRMatrix) => CSRMatrix.fromTriplets(A.rows, A.cols, 'f64', ...triplets(A, (i, j) => (j >= i ? 1 : 0)));
  cases.push(['upper triangle only', up(P)]);

  it('the reference\'s fields and scan, on 1 and 2 threads, at the chunks\' boundaries; the same as the JavaScript pass', () => {
    for (const r of [rt, one]) {
      const B = r.cpuBackend;
      // the pool's start-up chunk, which carries the pass: loaded for a pool of several threads
      if (B.threads > 1) expect(B.startChunk).toBeDefined();
      const chunk = B.startChunk ?? startChunk;
      for (const [name, A] of cases) {
        const ref = sparseReference(A);
        const got = solveStructure(A, null, () => chunk.poolStructure(B, A, () => new CpuSparseSession(B)));
        expect({ ...got, diameter: undefined, saddle: undefined }, name).toEqual({ ...ref.structure, diameter: undefined, saddle: undefined });
        expect({ ...got, diameter: undefined, saddle: undefined }, name).toEqual({ ...solveStructure(A), diameter: undefined, saddle: undefined });
        // the format choice's scan, on a private copy (only those keep one), and the offsets it keeps for DIA
        const copy = markPrivateCanonical(new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice()));
        solveStructure(copy, null, () => chunk.poolStructure(B, copy, () => new CpuSparseSession(B)));
        expect(knownScan(copy), name).toEqual(ref.scan);
        if (ref.offsets.length <= DIA_MAX_DIAGONALS && A.rows * ref.offsets.length <= 4 * A.nnz + 64) {
          expect(Array.from(DIAMatrix.fromCSR(copy).offsets), name).toEqual(ref.offsets);
        }
        // in an open session (an AMG setup's): the same results, A's copy left there for the setup
        const open = new CpuSparseSession(B);
        try {
          const inOpen = solveStructure(A, null, () => chunk.poolStructure(B, A, open));
          expect({ ...inOpen, diameter: undefined, saddle: undefined }, name).toEqual({ ...ref.structure, diameter: undefined, saddle: undefined });
          if (A.nnz >= 1 << 16) {
            // the pass's copy is kept: reading it again allocates nothing, and it holds A's values
            const live = B.heap.liveBytes;
            const at = open.resident(A);
            expect(B.heap.liveBytes, name).toBe(live);
            expect(Array.from(new Float64Array(B.heap.memory.buffer, at[2], A.nnz)), name).toEqual(Array.from(A.values));
          }
        } finally {
          open.dispose();
        }
      }
    }
  });
});

/** A's entries (i, j, weight(i, j)·value) as triplets, those of weight 0 left out. */
function triplets(A: CSRMatrix, weight: (i: number, j: number) => number): [Int32Array, Int32Array, Float64Array] {
  const [ri, ci, v]: number[][] = [[], [], []];
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const w = weight(i, A.colIdx[k]);
      if (w !== 0) ri.push(i), ci.push(A.colIdx[k]), v.push(w * A.values[k]);
    }
  }
  return [Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v)];
}

describe("the runtime's structure check of a large real matrix on the pool (the pool's start-up chunk)", () => {
  it('rt.explain reads the reference\'s structure; rt.amg on a fresh handle refuses a matrix one mirror off', async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      // ≥ 65 536 entries: the pool's pass (STRUCTURE_POOL_MIN)
      const P = poisson2D(120);
      const k = offDiagonal(P).filter(([, i]) => i === P.rows >> 1)[0][0];
      for (const [name, A] of [['poisson2D(120)', P], ['mirror dropped', without(P, k)], ['(1 + 1e-9)', withValue(P, k, P.values[k] * (1 + 1e-9))]] as const) {
        const s = rt.explain('solve', rt.upload(A)).structure;
        expect({ ...s, diameter: undefined, saddle: undefined }, name).toEqual({ ...sparseReference(A).structure, diameter: undefined, saddle: undefined });
        // a fresh handle: rt.amg makes the check first
        const h = rt.upload(A);
        if (name !== 'poisson2D(120)') {
          expect(() => rt.amg(h), name).toThrow(/not symmetric/);
          continue;
        }
        // its setup reads the check's copy of A: the hierarchy and a solve with it bit for bit those of
        // a handle whose structure was read before (a setup copying A itself)
        const read = rt.upload(A);
        rt.explain('solve', read);
        const [fresh, seen] = [rt.amg(h), rt.amg(read)];
        expect(fresh.amg!.levels.length, name).toBeGreaterThan(1);
        expect(fresh.amg!.levels).toEqual(seen.amg!.levels);
        const b = new Float64Array(A.rows).map((_, i) => Math.sin(i));
        const [x1, x2] = [await rt.cg(h, b, { preconditioner: fresh }), await rt.cg(read, b, { preconditioner: seen })];
        expect(x1.iterations).toBe(x2.iterations);
        expect(Array.from(x1.x as Float64Array)).toEqual(Array.from(x2.x as Float64Array));
      }
    } finally {
      rt.dispose();
    }
  });
});

/** A nonsymmetric saddle point's shape from A's entries one by one: no negative diagonal, no entry between two zero-diagonal unknowns. */
function saddleReference(A: CSRMatrix): boolean {
  const d = (i: number) => {
    let v = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) v += A.values[k];
    return v;
  };
  for (let i = 0; i < A.rows; i++) {
    if (d(i) < 0) return false;
    if (d(i) !== 0) continue;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] !== i && d(A.colIdx[k]) === 0) return false;
  }
  return true;
}
