/**
 * The first WebGPU solve's fused host passes: diaCopyWithStructure (src/solvers/structure.ts), the DIA
 * copy written with what the passes over it found — its data against DIAMatrix.fromCSR's bit for bit,
 * its structure against diaStructure's (the same function fed a fromCSR copy) and the CSR's pass
 * (realStructure), constantInverseDiagonal against one computed here from the CSR, the values as bytes
 * (the WebGPU upload's) and their f32 exactness against loops written here — and looseAbsNorms' scan
 * (the format features made in its pass) against matrixFeatures' own. Shared matrices and generated edge
 * cases: empty rows, a missing diagonal entry, mirrors missing above and below, explicit zeros and −0,
 * NaN and ±Infinity (on and off the diagonal, paired or not), huge and tiny magnitudes, subnormals,
 * small integers at and past [-128, 127], fractions, nonsymmetric patterns, rectangular shapes, and the
 * first solve through the runtime on the WebGPU-less CPU path.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix, markPrivateCanonical } from '../src/formats/csr.js';
import { DIAMatrix, exactlyF32, takeSmallIntegers } from '../src/formats/dia.js';
import { ownedCopyCanonical } from '../src/formats/owned.js';
import { PaddingLimitError } from '../src/errors.js';
import { knownScan } from '../src/formats/diagonal-scan.js';
import { diaCopyWithStructure, solveStructure } from '../src/solvers/structure.js';
import { constantInverseDiagonal } from '../src/solvers/precond/jacobi.js';
import { looseAbsNorms } from '../src/solvers/solve.js';
import { matrixFeatures } from '../src/runtime/features.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { bandedMatrix } from './banded.js';

/** A private canonical copy of A, as rt.upload keeps (the fused passes run on those alone). */
function privateCopy(A: CSRMatrix): CSRMatrix {
  return markPrivateCanonical(plainCopy(A));
}

/** A canonical copy (sorted columns; not private: no pass is fused or kept for it). */
function plainCopy(A: CSRMatrix): CSRMatrix {
  const owned = ownedCopyCanonical(A);
  return owned.canonical ? (owned.matrix as CSRMatrix) : owned.matrix.toCSR();
}

/** Bits of each f64 (−0 against 0, NaN's payload). */
const bits = (a: ArrayLike<number>) => Array.from(new Uint32Array(Float64Array.from(a).buffer));

/** The reference of constantInverseDiagonal from the CSR: every diagonal entry (summed) nonzero, finite, its inverse finite and the same for all. */
function constantInverse(A: CSRMatrix): number | null {
  if (A.rows === 0) return null;
  let inv0 = NaN;
  for (let i = 0; i < A.rows; i++) {
    let d = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) d += A.values[k];
    const inv = 1 / d;
    if (d === 0 || !Number.isFinite(d) || !Number.isFinite(inv)) return null;
    if (i === 0) inv0 = inv;
    else if (inv !== inv0) return null;
  }
  return inv0;
}

/** The reference of the bytes: every slot an integer in [-128, 127] (−0 as 0), else undefined. */
function smallBytes(data: Float64Array): Int8Array | undefined {
  const out = new Int8Array(data.length);
  for (let k = 0; k < data.length; k++) {
    const v = data[k];
    if (!(Number.isInteger(v) && v >= -128 && v <= 127)) return undefined;
    out[k] = v;
  }
  return out;
}

function exactF32(data: Float64Array): boolean {
  for (let k = 0; k < data.length; k++) if (!(Math.fround(data[k]) === data[k])) return false;
  return true;
}

/** diaCopyWithStructure(A) against fromCSR, diaStructure, realStructure and the references here; false where DIA refuses A (both the same way). */
function expectFused(A: CSRMatrix, label: string): boolean {
  const P = privateCopy(A);
  let ref: DIAMatrix;
  try {
    ref = DIAMatrix.fromCSR(plainCopy(A));
  } catch (e) {
    expect(e, label).toBeInstanceOf(PaddingLimitError);
    expect(() => diaCopyWithStructure(P), label).toThrow((e as Error).message);
    return false;
  }
  const D = diaCopyWithStructure(P);
  expect(Array.from(D.offsets), label).toEqual(Array.from(ref.offsets));
  expect([D.rows, D.cols, D.dtype, D.pitch], label).toEqual([ref.rows, ref.cols, ref.dtype, ref.pitch]);
  expect(bits(D.data), label).toEqual(bits(ref.data));
  const data = D.data as Float64Array;
  expect(exactlyF32(data), label).toBe(exactF32(data));
  const bytes = takeSmallIntegers(data);
  const want = smallBytes(data);
  if (want) expect(Array.from(bytes ?? []), label).toEqual(Array.from(want));
  else expect(bytes, label).toBeUndefined();
  // taken once
  expect(takeSmallIntegers(data), label).toBeUndefined();
  if (A.rows === A.cols) {
    // the structure made with the copy, diaStructure's of a copy fromCSR made, and the CSR's pass
    const fused = solveStructure(P, D, undefined, true);
    const dia = solveStructure(plainCopy(A), ref, undefined, true);
    const csr = solveStructure(plainCopy(A));
    expect({ ...fused }, label).toEqual({ ...dia });
    expect({ ...fused, diameter: undefined }, label).toEqual({ ...csr, diameter: undefined });
    if (fused.hermitian && fused.laplacianLike && fused.n > 0) expect(fused.diameter, label).toBe(csr.diameter);
  }
  const c = constantInverseDiagonal(D);
  expect(Object.is(c, constantInverse(A)), `${label}: ${c} against ${constantInverse(A)}`).toBe(true);
  expect(Object.is(c, constantInverseDiagonal(ref)), label).toBe(true);
  return true;
}

/** looseAbsNorms of a private A (its pass makes the format scan) against a plain copy's, and the scan against matrixFeatures' own pass. */
function expectLooseScan(A: CSRMatrix, label: string): void {
  const P = privateCopy(A);
  expect(knownScan(P), label).toBeUndefined();
  const loose = looseAbsNorms(P);
  const plain = looseAbsNorms(plainCopy(A));
  expect(bits(Object.values(loose)), label).toEqual(bits(Object.values(plain)));
  if (A.dtype !== 'f64' && A.dtype !== 'f32') return;
  const scan = knownScan(P);
  const f = matrixFeatures(plainCopy(A));
  let sumSq = 0;
  for (let i = 0; i < A.rows; i++) sumSq += (A.rowPtr[i + 1] - A.rowPtr[i]) ** 2;
  expect(scan, label).toEqual({ diagonals: f.diagonals, maxRow: f.maxRow, sumSq });
  const g = matrixFeatures(P, true);
  expect([g.diagonals, g.maxRow, g.rowCv, g.diaFill, g.ellFill], label).toEqual([f.diagonals, f.maxRow, f.rowCv, f.diaFill, f.ellFill]);
  // the offsets it kept serve the DIA conversion: the same copy as without them
  const dia = (M: CSRMatrix) => {
    try {
      return DIAMatrix.fromCSR(M);
    } catch (e) {
      expect(e, label).toBeInstanceOf(PaddingLimitError);
      return null;
    }
  };
  const [ref, D] = [dia(plainCopy(A)), dia(P)];
  expect(D === null, label).toBe(ref === null);
  if (D && ref) {
    expect(Array.from(D.offsets), label).toEqual(Array.from(ref.offsets));
    expect(bits(D.data), label).toEqual(bits(ref.data));
  }
}

/** A seeded generator in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const STENCIL = [-12, -3, -1, 0, 1, 3, 12];

/** −A. */
const negated = (A: CSRMatrix) => new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, A.values.map((v) => -v));

/** Generated cases: name → matrix. */
function cases(): [string, CSRMatrix][] {
  const r = rng(7);
  const out: [string, CSRMatrix][] = [
    ['poisson2D(13)', poisson2D(13)],
    ['poisson3D(9)', poisson3D(9)],
    ['−poisson3D(6)', negated(poisson3D(6))],
    ['empty 0×0', new CSRMatrix(0, 0, 'f64', new Int32Array(1), new Int32Array(0), new Float64Array(0))],
    ['1×1', bandedMatrix(1, [0], 'f64', () => 5)],
    ['1×1 zero', bandedMatrix(1, [0], 'f64', () => 0)],
    ['diagonal 1/3', bandedMatrix(40, [0], 'f64', () => 1 / 3)],
    ['diagonal, one differs', bandedMatrix(40, [0], 'f64', (i) => (i === 17 ? 2 : 4))],
    ['diagonal −0', bandedMatrix(9, [0, 1, -1], 'f64', (i, o) => (o === 0 ? (i === 4 ? -0 : 2) : -1))],
    ['tiny diagonal (inverse overflows)', bandedMatrix(20, [-1, 0, 1], 'f64', (_i, o) => (o === 0 ? 1e-310 : -1e-311))],
    ['stencil, every entry', bandedMatrix(200, STENCIL, 'f64', (_i, o) => (o === 0 ? 6 : -1))],
    ['stencil, empty rows', bandedMatrix(200, STENCIL, 'f64', (i, o) => (i % 17 === 3 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, no diagonal in some rows', bandedMatrix(200, STENCIL, 'f64', (i, o) => (o === 0 && i % 29 === 0 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, holes', bandedMatrix(300, STENCIL, 'f64', (_i, o) => (r() < 0.15 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, a mirror missing above', bandedMatrix(100, STENCIL, 'f64', (i, o) => (i === 40 && o === 3 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, a mirror missing below', bandedMatrix(100, STENCIL, 'f64', (i, o) => (i === 43 && o === -3 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, explicit zeros without mirror', bandedMatrix(100, STENCIL, 'f64', (i, o) => (o === 3 && i === 40 ? 0 : o === -3 && i === 43 ? undefined : o === 0 ? 6 : -1))],
    ['stencil, −0 against 0', bandedMatrix(100, STENCIL, 'f64', (i, o) => (o === 1 && i === 20 ? -0 : o === -1 && i === 21 ? 0 : o === 0 ? 6 : -1))],
    ['upper diagonal alone', bandedMatrix(60, [0, 2], 'f64', (_i, o) => (o === 0 ? 3 : -1))],
    ['upper diagonal alone, zeros', bandedMatrix(60, [0, 2], 'f64', (_i, o) => (o === 0 ? 3 : 0))],
    ['upper diagonal alone, Infinity', bandedMatrix(60, [0, 2], 'f64', (i, o) => (o === 0 ? 3 : i === 5 ? Infinity : 0))],
    ['lower diagonal alone', bandedMatrix(60, [-2, 0], 'f64', (_i, o) => (o === 0 ? 3 : -1))],
    ['lower diagonal alone, −0', bandedMatrix(60, [-2, 0], 'f64', (_i, o) => (o === 0 ? 3 : -0))],
    ['lower diagonal alone, Infinity', bandedMatrix(60, [-2, 0], 'f64', (i, o) => (o === 0 ? 3 : i === 5 ? -Infinity : 0))],
    ['NaN off the diagonal', bandedMatrix(50, STENCIL, 'f64', (i, o) => (i === 30 && o === 1 ? NaN : o === 0 ? 6 : -1))],
    ['NaN pair', bandedMatrix(50, STENCIL, 'f64', (i, o) => ((i === 30 && o === 1) || (i === 31 && o === -1) ? NaN : o === 0 ? 6 : -1))],
    ['NaN on the diagonal', bandedMatrix(50, STENCIL, 'f64', (i, o) => (i === 30 && o === 0 ? NaN : o === 0 ? 6 : -1))],
    ['Infinity pair', bandedMatrix(50, STENCIL, 'f64', (i, o) => ((i === 30 && o === 3) || (i === 33 && o === -3) ? Infinity : o === 0 ? 6 : -1))],
    ['Infinity against finite', bandedMatrix(50, STENCIL, 'f64', (i, o) => (i === 30 && o === 3 ? -Infinity : o === 0 ? 6 : -1))],
    ['Infinity on the diagonal', bandedMatrix(50, STENCIL, 'f64', (i, o) => (i === 0 && o === 0 ? Infinity : o === 0 ? 6 : -1))],
    ['huge', bandedMatrix(80, STENCIL, 'f64', (_i, o) => (o === 0 ? 6e300 : -1e300))],
    ['huge, nonsymmetric past 1e-12', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? 6e300 : i === 50 && o === 1 ? -1e300 * (1 + 3e-12) : -1e300))],
    ['huge, nonsymmetric within 1e-12', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? 6e300 : i === 50 && o === 1 ? -1e300 * (1 + 3e-13) : -1e300))],
    ['tiny', bandedMatrix(80, STENCIL, 'f64', (_i, o) => (o === 0 ? 6e-300 : -1e-300))],
    ['subnormal', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? 6e-310 : i % 3 ? -1e-310 : -5e-324))],
    ['127 and −128', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? 127 : -128 + (i % 2)))],
    ['128', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? (i === 79 ? 128 : 127) : -1))],
    ['−129', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? 6 : i === 0 && o === 1 ? -129 : -1))],
    ['a fraction in the last row', bandedMatrix(80, STENCIL, 'f64', (i, o) => (o === 0 ? (i === 79 ? 6.5 : 6) : -1))],
    ['f32-exact fractions', bandedMatrix(80, STENCIL, 'f64', (_i, o) => (o === 0 ? 2.5 : -0.125))],
    ['not f32-exact', bandedMatrix(80, STENCIL, 'f64', (_i, o) => (o === 0 ? 2 : -0.1))],
    ['random values, symmetric pattern', bandedMatrix(150, STENCIL, 'f64', () => Math.round((r() - 0.5) * 400) / 4)],
    ['laplacian-like, not dominant', bandedMatrix(60, [-1, 0, 1], 'f64', (_i, o) => (o === 0 ? 1.5 : -1))],
    ['positive off-diagonal', bandedMatrix(60, [-1, 0, 1], 'f64', (i, o) => (o === 0 ? 4 : i === 7 && o === 1 ? 1 : -1))],
    ['random nonsymmetric', randomMatrix({ rows: 120, meanRowLength: 6, seed: 3 })],
    ['random power-law', randomMatrix({ rows: 300, meanRowLength: 4, distribution: 'powerlaw', exponent: 1.6, seed: 5 })],
    ['rectangular wide', randomMatrix({ rows: 40, cols: 90, meanRowLength: 5, seed: 9 })],
  ];
  // a tall rectangular band: rows past the columns
  const T = bandedMatrix(90, [-2, 0, 1], 'f64', (i, o) => (i + o < 60 ? 2 : undefined));
  out.push(['rectangular 90×60', new CSRMatrix(90, 60, 'f64', T.rowPtr, T.colIdx, T.values)]);
  return out;
}

describe('diaCopyWithStructure: the DIA copy and the passes over it in one walk', () => {
  it('the shared matrices: the same copy, structure, diagonal and bytes', () => {
    let converted = 0;
    for (const name of sharedMatrixNames()) {
      const A = loadShared(name);
      if (A.dtype !== 'f64') continue;
      if (expectFused(A, name)) converted++;
    }
    // (several shared matrices are banded enough for DIA)
    expect(converted).toBeGreaterThan(0);
  });

  it('generated edge cases', () => {
    for (const [name, A] of cases()) expectFused(A, name);
  });

  it('the stencils each fast row holds: poisson3D(20) against its references', () => {
    const A = poisson3D(20);
    expectFused(A, 'poisson3D(20)');
    const D = diaCopyWithStructure(privateCopy(A));
    expect(constantInverseDiagonal(D)).toBe(1 / 6);
  });

  it('a CSR that is not the runtime’s own, or not f64: fromCSR, nothing kept', () => {
    const A = poisson2D(12);
    const D = diaCopyWithStructure(plainCopy(A));
    expect(takeSmallIntegers(D.data as Float64Array)).toBeUndefined();
    expect(bits(D.data)).toEqual(bits(DIAMatrix.fromCSR(plainCopy(A)).data));
    const F = poisson2D(12).astype('f32');
    const E = diaCopyWithStructure(privateCopy(F));
    expect(Array.from(E.data)).toEqual(Array.from(DIAMatrix.fromCSR(plainCopy(F)).data));
    expect(solveStructure(privateCopy(F), E, undefined, true)).toEqual(solveStructure(plainCopy(F)));
  });
});

describe('looseAbsNorms: the format scan in its pass', () => {
  it('the shared matrices and generated cases: the same norms and the same features', () => {
    for (const name of sharedMatrixNames()) expectLooseScan(loadShared(name), name);
    for (const [name, A] of cases()) expectLooseScan(A, name);
  });

  it('a matrix already scanned is not scanned again; a plain CSR keeps nothing', () => {
    const P = privateCopy(poisson2D(10));
    matrixFeatures(P, true);
    const scan = knownScan(P);
    looseAbsNorms(P);
    expect(knownScan(P)).toBe(scan);
    const Q = plainCopy(poisson2D(10));
    looseAbsNorms(Q);
    expect(knownScan(Q)).toBeUndefined();
  });
});
