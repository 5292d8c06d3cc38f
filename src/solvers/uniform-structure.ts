/**
 * rt.solve's structure check over a CPU DIA copy whose uniform 4-row groups its upload flagged (a
 * stencil's interior, src/cpu/spmv-plan.ts compactUniform): where the pool's pass copied A's CSR into
 * the heap (poisson3D(64): 22 MB) to walk every entry and waited for the worker, a flagged group's rows
 * are read from their constants.
 */
import type { DIAMatrix } from '../formats/dia.js';
import type { SolveStructure } from './structure.js';
import { dominantRow, laplacianRow, mirrored } from './row-tests.js';

/** A DIA matrix's 4-row groups in which every diagonal d holds one value, consts[d]: flags[g] = 1 for rows 4g … 4g + 3 (src/cpu/spmv-plan.ts compactUniform). */
export interface UniformGroups {
  flags: Uint8Array;
  consts: Float64Array;
}

/**
 * diaStructure's results for a DIA copy whose uniform 4-row groups the CPU upload flagged (u: every
 * diagonal d holds consts[d] in a flagged group's rows): the rows of a flagged group with every
 * diagonal inside the matrix are one row of the constants, tested once — the same tests on the same
 * values, their sums over the diagonals in the same order — and their mirrors in flagged groups one
 * pair of constants per diagonal; every other row is tested slot by slot, as diaStructure does
 * (poisson3D(64): 82 % of the rows from 7 constants). test/solve-structure holds the two equal.
 * The pool's start-up chunk runs it (src/cpu/tier-up.ts poolStructure), off a page's first bundle.
 */
export function uniformDiaStructure(D: DIAMatrix, nnz: number, u: UniformGroups): SolveStructure {
  const nonzeros = new Int32Array(D.offsets.length);
  const { rows: n, cols, offsets, pitch, data } = D;
  const { flags, consts } = u;
  const nd = offsets.length;
  const main = offsets.indexOf(0);
  const mirror = Int32Array.from(offsets, (o) => offsets.indexOf(-o));
  // the tests that failed, as bits (locals, not the closures' shared variables: the slot-by-slot rows,
  // 18 % of poisson3D(64)'s, took 6–8 ms of a 2-core solve's set-up through two closures)
  let fails = n === cols ? 0 : NOT_HERMITIAN;
  let zeroDiagonals = 0;
  // the rows whose every diagonal is inside the matrix
  const inLo = nd ? Math.max(0, -offsets[0]) : 0;
  const inHi = nd ? Math.min(n, cols - offsets[nd - 1]) : n;
  // a constants' row, tested once where a group of them is met: its sums in diaStructure's order
  let fast = 0;
  let offU = 0;
  let offAbsU = 0;
  for (let d = 0; d < nd; d++) {
    if (d === main) continue;
    offU -= consts[d];
    offAbsU += Math.abs(consts[d]);
  }
  // per diagonal above the main one: flagged groups whose mirrors are flagged too (a pair of constants)
  const pairsMet = new Int32Array(nd);
  const groups = n >> 2;
  for (let g = 0; g <= groups; g++) {
    const i0 = 4 * g;
    if (i0 >= n) break;
    if (flags[g] && i0 >= inLo && i0 + 4 <= inHi) {
      fast++;
      // the mirrors of the constants above the diagonal: rows i0 + o … i0 + o + 3 of diagonal m, the
      // constant's where their groups are flagged, else slot by slot
      if (!(fails & NOT_HERMITIAN)) {
        for (let d = 0; d < nd; d++) {
          const o = offsets[d];
          const m = mirror[d];
          if (o <= 0 || m < 0) continue;
          const j = i0 + o;
          if (flags[j >> 2] && flags[(j + 3) >> 2]) {
            pairsMet[d]++;
            continue;
          }
          const a = consts[d];
          for (let t = 0; t < 4; t++) fails |= pairFails(a, data[m * pitch + j + t]);
        }
      }
      continue;
    }
    for (let i = i0, e = Math.min(n, i0 + 4); i < e; i++) {
      let off = 0;
      let offAbs = 0;
      for (let d = 0; d < nd; d++) {
        const o = offsets[d];
        if (o === 0 || i < -o || i >= cols - o) continue;
        const a = data[d * pitch + i];
        if (a !== 0) nonzeros[d]++;
        fails |= slotFails(a);
        // its mirror in row i + o: the pair's test from the upper one, a lower one without a mirror nonzero
        if (!(fails & NOT_HERMITIAN)) {
          const m = mirror[d];
          if (o > 0) fails |= pairFails(a, m >= 0 ? data[m * pitch + o + i] : 0);
          else if (m < 0 && a !== 0) fails |= NOT_HERMITIAN;
        }
        off -= a;
        offAbs += Math.abs(a);
      }
      const dv = main >= 0 ? data[main * pitch + i] : 0;
      fails |= rowFails(dv, off, offAbs);
      if (dv === 0) zeroDiagonals++;
    }
  }
  if (fast > 0) {
    // the constants' slots, as each flagged group's: pairs of constants where both groups are flagged
    for (let d = 0; d < nd; d++) {
      if (d === main) continue;
      const a = consts[d];
      if (a !== 0) nonzeros[d] += 4 * fast;
      const m = mirror[d];
      fails |= slotFails(a);
      if (offsets[d] > 0 && m >= 0) {
        if (pairsMet[d] > 0) fails |= pairFails(a, consts[m]);
      } else if (m < 0 && a !== 0) fails |= NOT_HERMITIAN;
    }
    const dv = main >= 0 ? consts[main] : 0;
    fails |= rowFails(dv, offU, offAbsU);
    if (dv === 0) zeroDiagonals += 4 * fast;
  }
  return {
    n,
    nnz,
    hermitian: !(fails & NOT_HERMITIAN) && n === cols,
    positiveDiagonal: !(fails & NOT_POSITIVE),
    zeroDiagonals,
    finite: !(fails & NOT_FINITE),
    laplacianLike: !(fails & NOT_LAPLACIAN),
    diagonallyDominant: !(fails & NOT_DOMINANT),
  };
}

/** The tests uniformDiaStructure's rows and slots fail, as bits. */
const NOT_HERMITIAN = 1;
const NOT_FINITE = 2;
const NOT_LAPLACIAN = 4;
const NOT_DOMINANT = 8;
const NOT_POSITIVE = 16;

/** An off-diagonal entry a's tests: finite, and ≤ 0 for a Laplacian-like row. */
function slotFails(a: number): number {
  return (a - a !== 0 ? NOT_FINITE : 0) | (a > 0 ? NOT_LAPLACIAN : 0);
}

/** An upper entry a against its mirror v: equal, or mirrored to 1e-12 and both finite. */
function pairFails(a: number, v: number): number {
  return (a !== v || a - a !== 0) && !mirrored(a, v) ? NOT_HERMITIAN : 0;
}

/** One row's tests: its diagonal entry d against its sums of −aᵢⱼ and |aᵢⱼ| over j ≠ i. */
function rowFails(d: number, off: number, offAbs: number): number {
  return (d - d !== 0 ? NOT_FINITE : 0) | (laplacianRow(d, off) ? 0 : NOT_LAPLACIAN) | (dominantRow(Math.abs(d), offAbs) ? 0 : NOT_DOMINANT) | (d > 0 ? 0 : NOT_POSITIVE);
}
