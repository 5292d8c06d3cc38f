import { components, isComplex } from '../dtype.js';
import { diagonalSums, isPrivateCanonical, type CSRMatrix } from '../formats/csr.js';
import { DIAMatrix, diaLayout, fillDia, isSmallInteger, markExactlyF32, rememberSmallIntegers } from '../formats/dia.js';
import type { SparseMatrix } from '../formats/index.js';
import { DIA_MAX_DIAGONALS, diagonalMarks, finishScan, knownScan } from '../formats/diagonal-scan.js';
import { reserveMemory, withMemoryBudget } from '../memory-budget.js';
import { rememberConstantInverseDiagonal } from './precond/jacobi.js';
import { dominantRow, laplacianRow, mirrored } from './row-tests.js';

/** What the 'auto' choices of rt.solve need to know about a square matrix; computed once per matrix. */
export interface SolveStructure {
  /** rows (= columns) */
  n: number;
  /** stored entries */
  nnz: number;
  /** A = Aᴴ (A = Aᵀ for real dtypes) to a relative 1e-12 per entry pair */
  hermitian: boolean;
  /** every diagonal entry real and > 0 */
  positiveDiagonal: boolean;
  /** rows whose diagonal entry is zero or absent */
  zeroDiagonals: number;
  /** whether every value is finite */
  finite: boolean;
  /**
   * real, every off-diagonal ≤ 0 and every row's diagonal itself (not its modulus) at least the sum of
   * its off-diagonals' moduli: the sign pattern of a diffusion stencil or a graph Laplacian, where algebraic multigrid with the constant near-null
   * space works (src/solvers/amg/auto.ts)
   */
  laplacianLike: boolean;
  /** |aᵢᵢ| ≥ Σⱼ≠ᵢ |aᵢⱼ| in every row (weakly diagonally dominant, any signs: Poisson stencils, shifted Laplacians) */
  diagonallyDominant: boolean;
  /**
   * For a Hermitian laplacianLike matrix: the graph's pseudo-diameter (the eccentricity found by two
   * breadth-first searches), which sets Jacobi-CG's iteration count on such a matrix (κ grows as its
   * square) — what decides between Jacobi and AMG. Undefined otherwise.
   */
  diameter?: number;
  /**
   * For a real matrix that is not symmetric and has zero diagonal entries: whether every other diagonal
   * entry is positive and the rows with a zero diagonal hold no entry in those rows' columns — a
   * nonsymmetric saddle point [[F, B₁ᵀ], [B₂, 0]] (the Oseen equations), which the block-triangular
   * 'saddle' preconditioner takes (src/solvers/precond/saddle.ts). Read on first use (a pass over the
   * entries); undefined for any other matrix.
   */
  saddle?: boolean;
}

/**
 * Symmetry and diagonal of a canonical CSR (sorted columns) in one pass, O(nnz): each stored entry
 * (i, j) above the diagonal meets its mirror (j, i) through a cursor into row j's part left of the
 * diagonal, which only moves forward (row i's mirrors come in the order of i); entries a cursor passes
 * or never reaches have no mirror and must be zero. (A binary search in the mirrored row per entry
 * took 60 ms of poisson3D(64)'s 1.8 M entries; this takes a third of that.) `copy`: A in the format
 * a path holds it in, where made (a DIA copy: the diagonals' pass, and a grid's diameter by formula);
 * `transient`: that copy is dropped after this call (a GPU path's upload source), so nothing made here keeps it.
 */
export function solveStructure(A: CSRMatrix, copy?: SparseMatrix | null, pass?: () => SolveStructure | undefined, transient = false): SolveStructure {
  const dia = !isComplex(A.dtype) && copy?.format === 'dia' && copy.rows === A.rows && copy.cols === A.cols ? copy : null;
  // `pass` where given (the CPU pool's, src/cpu/tier-up.ts poolStructure: realStructure's results) and
  // it runs, else the DIA copy's, else the CSR's; the DIA pass counts each upper diagonal's nonzero
  // slots, which gridDiameter reads (else counts itself)
  const pooled = isComplex(A.dtype) ? undefined : pass?.();
  // (a copy diaCopyWithStructure wrote: its pass made with it)
  const made = dia && !pooled ? writtenWith.get(dia) : undefined;
  const nonzeros = dia && !pooled && !made ? new Int32Array(dia.offsets.length) : undefined;
  const s = isComplex(A.dtype) ? anyStructure(A) : (pooled ?? (made ? { ...made, nnz: A.nnz } : dia ? diaStructure(dia, A.nnz, nonzeros!) : realStructure(A)));
  if (s.hermitian && s.laplacianLike && s.n > 0) {
    // on first read: only 'auto' reads it, and its two breadth-first searches cost ≈ 0.3 s a million
    // rows, which a solve with its preconditioner given (rt.amg, 'jacobi', …) need not pay
    // (a DIA copy holding a grid's pattern: its diameter by formula, the two searches' answer without them;
    // now where the copy is `transient` — a GPU path's, dropped after this pass — so that nothing keeps it)
    let d = transient && dia ? gridDiameter(dia, A.nnz, nonzeros) : undefined;
    const grid = transient ? null : dia;
    Object.defineProperty(s, 'diameter', { enumerable: true, get: () => (d ??= (grid && gridDiameter(grid, A.nnz, nonzeros)) ?? csrGridDiameter(A) ?? pseudoDiameter(A)) });
  }
  if (!s.hermitian && s.zeroDiagonals > 0 && s.finite && !isComplex(A.dtype)) {
    let saddle: boolean | undefined;
    Object.defineProperty(s, 'saddle', { enumerable: true, get: () => (saddle ??= saddleShape(A)) });
  }
  return s;
}

/**
 * solveStructure's pass for a real dtype: the same tests as anyStructure's with the imaginary parts
 * zero, in one loop without them or a per-entry helper, the finiteness test included (poisson3D(64):
 * ≈ 2× faster than the general pass; test/solve-structure compares the two).
 */
function realStructure(A: CSRMatrix): SolveStructure {
  const { rows: n, rowPtr, colIdx, values } = A;
  // a runtime-private CSR's format features from the same walk (diagonals marked, row lengths): the
  // format choice that follows in rt.solve then makes no pass of its own (poisson3D(64), 1.8 M entries)
  const seen = isPrivateCanonical(A) && !knownScan(A) ? diagonalMarks(A.rows, A.cols) : null;
  const marked: number[] = [];
  const base = n - 1;
  let diagonals = 0;
  let maxRow = 0;
  let sumSq = 0;
  let hermitian = A.rows === A.cols;
  let positiveDiagonal = true;
  let zeroDiagonals = 0;
  let finite = true;
  let laplacianLike = true;
  let diagonallyDominant = true;
  const cursor = hermitian ? rowPtr.slice(0, n) : new Int32Array(0);
  for (let i = 0; i < n; i++) {
    let d = 0;
    let off = 0;
    let offAbs = 0;
    if (seen) {
      const len = rowPtr[i + 1] - rowPtr[i];
      if (len > maxRow) maxRow = len;
      sumSq += len * len;
    }
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
      const j = colIdx[k];
      const a = values[k];
      if (seen && seen[j - i + base] === 0) {
        seen[j - i + base] = 1;
        if (++diagonals <= DIA_MAX_DIAGONALS) marked.push(j - i + base);
      }
      // NaN and ±Infinity: a − a is NaN
      if (a - a !== 0) finite = false;
      if (j === i) {
        d += a;
        continue;
      }
      if (a > 0) laplacianLike = false;
      off -= a;
      offAbs += Math.abs(a);
      if (!hermitian || j < i) continue;
      let q = cursor[j];
      const end = rowPtr[j + 1];
      for (; q < end && colIdx[q] < i; q++) if (values[q] !== 0) hermitian = false;
      const found = q < end && colIdx[q] === i;
      const m = found ? values[q] : 0;
      if (!mirrored(a, m)) hermitian = false;
      cursor[j] = found ? q + 1 : q;
    }
    if (d === 0) zeroDiagonals++;
    if (!laplacianRow(d, off)) laplacianLike = false;
    if (!dominantRow(Math.abs(d), offAbs)) diagonallyDominant = false;
    if (!(d > 0)) positiveDiagonal = false;
  }
  for (let j = 0; j < n && hermitian; j++) {
    for (let q = cursor[j]; q < rowPtr[j + 1] && colIdx[q] < j; q++) if (values[q] !== 0) hermitian = false;
  }
  if (seen) finishScan(A, seen.length, marked, { diagonals, maxRow, sumSq }, true);
  return { n, nnz: A.nnz, hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
}

/**
 * solveStructure's pass for a real A over `D`, a DIA copy of it (the CPU path's resident format of a
 * stencil, made before rt.solve reads the structure): realStructure's tests and results, from the
 * contiguous diagonals — entry (i, i + o) meets its mirror (i + o, i) at the same place of diagonal −o
 * — where the CSR's pass follows a cursor into each mirrored row (poisson3D(64), 1.8 M entries, with
 * the format choice's scan that pass made as well: 15 against 27–29 ms, process CPU time at load 19–21).
 * A slot holding 0 is an entry the CSR lacks or
 * stores as 0, which none of the tests counts, and each row's off-diagonals are summed in the same
 * ascending column order, a block of rows at a time. `nnz`: A's.
 */
function diaStructure(D: DIAMatrix, nnz: number, nonzeros: Int32Array): SolveStructure {
  const { rows: n, offsets, pitch, data } = D;
  const nd = offsets.length;
  const main = offsets.indexOf(0);
  const mirror = Int32Array.from(offsets, (o) => offsets.indexOf(-o));
  let hermitian = D.rows === D.cols;
  let positiveDiagonal = true;
  let zeroDiagonals = 0;
  let finite = true;
  let laplacianLike = true;
  let diagonallyDominant = true;
  // the rows' sums of −aᵢⱼ and |aᵢⱼ| over j ≠ i, a block of rows at a time (kept in L1)
  const block = 1024;
  const off = new Float64Array(block);
  const offAbs = new Float64Array(block);
  for (let b0 = 0; b0 < n; b0 += block) {
    const b1 = Math.min(n, b0 + block);
    off.fill(0);
    offAbs.fill(0);
    for (let d = 0; d < nd; d++) {
      const o = offsets[d];
      if (o === 0) continue;
      const lo = Math.max(b0, -o);
      const hi = Math.min(b1, D.cols - o);
      const at = d * pitch;
      const m = mirror[d];
      // above the diagonal each entry meets its mirror in the same pass (0 where diagonal −o is not
      // stored); below it, a diagonal without a mirror must hold zeros (one with a mirror is met from above)
      const pairs = hermitian && o > 0;
      const mt = m >= 0 ? m * pitch + o : -1;
      let nz = 0;
      for (let i = lo; i < hi; i++) {
        const a = data[at + i];
        if (a !== 0) nz++;
        // NaN and ±Infinity: a − a is NaN
        const bad = a - a !== 0;
        if (bad) finite = false;
        if (a > 0) laplacianLike = false;
        off[i - b0] -= a;
        offAbs[i - b0] += Math.abs(a);
        if (pairs) {
          const v = mt >= 0 ? data[mt + i] : 0;
          // equal finite values pass the test as they are (±Infinity against itself fails it, as in realStructure)
          if ((a !== v || bad) && !mirrored(a, v)) hermitian = false;
        }
      }
      nonzeros[d] += nz;
      if (hermitian && o < 0 && m < 0) for (let i = lo; i < hi; i++) if (data[at + i] !== 0) hermitian = false;
    }
    for (let i = b0; i < b1; i++) {
      const d = main >= 0 ? data[main * pitch + i] : 0;
      if (d - d !== 0) finite = false;
      if (d === 0) zeroDiagonals++;
      if (!laplacianRow(d, off[i - b0])) laplacianLike = false;
      if (!dominantRow(Math.abs(d), offAbs[i - b0])) diagonallyDominant = false;
      if (!(d > 0)) positiveDiagonal = false;
    }
  }
  return { n, nnz, hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
}

/** diaStructure's results for the DIA copies diaCopyWithStructure wrote (gridDiameter then counts its diagonals' nonzero slots itself). */
const writtenWith = new WeakMap<DIAMatrix, SolveStructure>();

/**
 * DIAMatrix.fromCSR(A) (the same offsets, pitch and data; PaddingLimitError the same), with, for a
 * runtime-private f64 A whose diagonals the slot table holds, what the passes over that copy would
 * find made in the same walk of A's entries and kept for the copy: diaStructure's results
 * (solveStructure then makes no pass), constantInverseDiagonal, the values as bytes where they are
 * all integers in [-128, 127] (the WebGPU upload's), and whether they are exactly f32. A GPU path's
 * copy for rt.solve's first structure read (src/runtime/runtime.ts matrixOnNow): the conversion 110 ms,
 * the structure pass 116, the bytes 66 and the diagonal 30 of poisson3D(128)'s first WebGPU solve on
 * the H200 machine's host, each a pass over 14.7 M values. Each row's sums run in diaStructure's order
 * (its off-diagonals by ascending column, a slot A lacks adding 0, which changes no sum), and each
 * mirror pair is met at its lower entry's row, where the upper one is written already.
 */
export function diaCopyWithStructure(A: CSRMatrix): DIAMatrix {
  return withMemoryBudget(undefined, () => {
    const c = A.toCSR();
    if (c.dtype !== 'f64' || !isPrivateCanonical(c)) return DIAMatrix.fromCSR(c);
    const { rows: n, cols, rowPtr, colIdx } = c;
    const values = c.values as Float64Array;
    const layout = diaLayout(c);
    const { offsets, slotOf, pitch } = layout;
    const data = layout.data as Float64Array;
    if (!slotOf) {
      fillDia(c, offsets, slotOf, pitch, data);
      return new DIAMatrix(n, cols, 'f64', offsets, pitch, data);
    }
    const main = offsets.indexOf(0);
    const mirror = Int32Array.from(offsets, (o) => offsets.indexOf(-o));
    reserveMemory(data.length, `DIA: ${data.length} values as bytes`);
    const w: RowsWritten = { exact: true, small: true, bytes: new Int8Array(data.length) };
    const t: RowsTested = {
      hermitian: n === cols, positiveDiagonal: true, zeroDiagonals: 0, finite: true, laplacianLike: true, diagonallyDominant: true,
      // constantInverseDiagonal: every 1/aᵢᵢ one finite value (row 0's), no aᵢᵢ zero or non-finite
      constant: n > 0 && main >= 0, first: 0, inverse: 0,
      main,
      // the diagonals whose pairs a row meets: those below the main one (offsets ascend: d < lower), each
      // pair's upper entry at mirrorAt[d] + i (−1: no mirror, zeros only), and the upper ones without a
      // mirror (`lone`), which diaStructure pairs with 0
      lower: offsets.filter((o) => o < 0).length,
      mirrorAt: Int32Array.from(offsets, (o, d) => (mirror[d] >= 0 ? mirror[d] * pitch + o : -1)),
      lone: Int32Array.from(offsets.keys()).filter((d) => offsets[d] > 0 && mirror[d] < 0),
    };
    // a block of rows written, then tested while its values are in cache: two simple loops (one loop with
    // every test measured the same, 217–251 against 218–249 ms on poisson3D(128))
    for (let r0 = 0; r0 < n; r0 += 4096) {
      const r1 = Math.min(n, r0 + 4096);
      writeRows(c, offsets.length, slotOf, pitch, data, w, r0, r1);
      testRows(c, offsets, pitch, data, t, r0, r1);
    }
    const { exact, small, bytes } = w;
    const { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant, constant, inverse } = t;
    if (exact) markExactlyF32(c, data);
    if (small) rememberSmallIntegers(data, bytes);
    const D = new DIAMatrix(n, cols, 'f64', offsets, pitch, data);
    writtenWith.set(D, { n, nnz: c.nnz, hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant });
    rememberConstantInverseDiagonal(D, constant ? inverse : null);
    return D;
  });
}

/** What writeRows found of the values it wrote: all exactly f32, all integers in [-128, 127] (and then `bytes` holds them). */
interface RowsWritten {
  exact: boolean;
  small: boolean;
  bytes: Int8Array;
}

/** Rows r0..r1 of c into their DIA slots (fromCSR's loop), with their values as bytes and w's tests. */
function writeRows(c: CSRMatrix, nd: number, slotOf: Int32Array, pitch: number, data: Float64Array, w: RowsWritten, r0: number, r1: number): void {
  const { rowPtr, colIdx } = c;
  const values = c.values as Float64Array;
  const bytes = w.bytes;
  let exact = w.exact;
  let small = w.small;
  for (let i = r0, base = c.rows - 1; i < r1; i++) {
    const k0 = rowPtr[i];
    const e = rowPtr[i + 1];
    // a row holding every diagonal's entry holds them in the diagonals' order (fromCSR's fast rows)
    if (e - k0 === nd) {
      for (let k = k0, at = i; k < e; k++, at += pitch) {
        const v = values[k];
        data[at] = v;
        if (Math.fround(v) !== v) exact = false;
        if (!isSmallInteger(v)) small = false;
        bytes[at] = v;
      }
      continue;
    }
    for (let k = k0; k < e; k++) {
      const v = values[k];
      const at = slotOf[colIdx[k] - i + base] * pitch + i;
      data[at] = v;
      if (Math.fround(v) !== v) exact = false;
      if (!isSmallInteger(v)) small = false;
      bytes[at] = v;
    }
  }
  w.exact = exact;
  w.small = small;
}

/** diaStructure's tests of rows r0..r1 (written already), and constantInverseDiagonal's, into t. */
interface RowsTested extends Pick<SolveStructure, 'hermitian' | 'positiveDiagonal' | 'zeroDiagonals' | 'finite' | 'laplacianLike' | 'diagonallyDominant'> {
  constant: boolean;
  first: number;
  inverse: number;
  main: number;
  lower: number;
  mirrorAt: Int32Array;
  lone: Int32Array;
}

/**
 * diaStructure's tests of rows r0..r1 of c, written into `data`, into t: each row's sums in its order
 * (the off-diagonals by ascending column; a slot c lacks adds 0, which changes no sum), and each
 * mirror pair met at its lower entry's row, its upper one written already.
 */
function testRows(c: CSRMatrix, offsets: Int32Array, pitch: number, data: Float64Array, t: RowsTested, r0: number, r1: number): void {
  const { rowPtr, colIdx, cols } = c;
  const values = c.values as Float64Array;
  const { main, lower, mirrorAt, lone } = t;
  let { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant, constant } = t;
  for (let i = r0; i < r1; i++) {
    let dv = 0;
    let off = 0;
    let offAbs = 0;
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
      const v = values[k];
      // NaN and ±Infinity: v − v is NaN
      if (v - v !== 0) finite = false;
      if (colIdx[k] === i) {
        dv = v;
        continue;
      }
      if (v > 0) laplacianLike = false;
      off -= v;
      offAbs += Math.abs(v);
    }
    // the row's pairs (its slots c lacks, 0, included): diaStructure's test with the upper entry first
    for (let d = 0; d < lower && hermitian; d++) {
      if (i + offsets[d] < 0) continue;
      const v = data[d * pitch + i];
      const m = mirrorAt[d];
      const a = m >= 0 ? data[m + i] : 0;
      if (m < 0 ? v !== 0 : (a !== v || a - a !== 0) && !mirrored(a, v)) hermitian = false;
    }
    for (let q = 0; q < lone.length && hermitian; q++) {
      const d = lone[q];
      if (i + offsets[d] >= cols) continue;
      const a = data[d * pitch + i];
      if ((a !== 0 || a - a !== 0) && !mirrored(a, 0)) hermitian = false;
    }
    if (dv === 0) zeroDiagonals++;
    if (!laplacianRow(dv, off)) laplacianLike = false;
    if (!dominantRow(Math.abs(dv), offAbs)) diagonallyDominant = false;
    if (!(dv > 0)) positiveDiagonal = false;
    // (an entry equal to row 0's valid one has its inverse)
    if (constant && (i === 0 || dv !== t.first)) {
      const inv = 1 / dv;
      if (dv === 0 || !Number.isFinite(dv) || !Number.isFinite(inv) || (i > 0 && inv !== t.inverse)) constant = false;
      if (i === 0) {
        t.first = dv;
        t.inverse = inv;
      }
    }
  }
  Object.assign(t, { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant, constant });
}

/** solveStructure's pass for any dtype (the complex ones take it). */
export function anyStructure(A: CSRMatrix): SolveStructure {
  const { rows: n, rowPtr, colIdx, values } = A;
  const c = components(A.dtype);
  const complex = isComplex(A.dtype);
  let hermitian = A.rows === A.cols;
  let positiveDiagonal = true;
  let zeroDiagonals = 0;
  let finite = true;
  let laplacianLike = !complex;
  let diagonallyDominant = true;
  for (let k = 0; k < values.length; k++) if (!Number.isFinite(values[k])) finite = false;
  // cursor[j]: the next entry of row j left of its diagonal that no mirror has matched yet
  const cursor = hermitian ? rowPtr.slice(0, n) : new Int32Array(0);
  // |a − conj(m)| ≤ 1e-12·max(|a|, |m|), squared (no hypot: this runs once per entry pair) where the
  // squares stay in range; beyond |a| ≈ 1e±145 by hypot (Infinity ≤ Infinity, or 0 ≤ 0, took any pair
  // for a mirror: a non-Hermitian A·1e160 was given to CG)
  const mirrors = (re: number, im: number, mr: number, mi: number): boolean => {
    const m = Math.max(re * re + im * im, mr * mr + mi * mi);
    if (m > 1e-290 && m < 1e290) return (re - mr) ** 2 + (im + mi) ** 2 <= 1e-24 * m;
    return Math.hypot(re - mr, im + mi) <= 1e-12 * Math.max(Math.hypot(re, im), Math.hypot(mr, mi));
  };
  // |z|, by its square where that stays in range
  const mag = (re: number, im: number): number => {
    const a = re * re + im * im;
    return a > 1e-290 && a < 1e290 ? Math.sqrt(a) : Math.hypot(re, im);
  };
  for (let i = 0; i < n; i++) {
    let dr = 0;
    let di = 0;
    let off = 0;
    let offAbs = 0;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const j = colIdx[k];
      const re = values[c * k];
      const im = complex ? values[c * k + 1] : 0;
      if (j === i) {
        dr += re;
        di += im;
        continue;
      }
      if (re > 0) laplacianLike = false;
      off -= re;
      offAbs += complex ? mag(re, im) : Math.abs(re);
      if (!hermitian || j < i) continue;
      // the mirror (j, i): row j's entries left of column i that the cursor passes have none
      let q = cursor[j];
      const end = rowPtr[j + 1];
      for (; q < end && colIdx[q] < i; q++) if (values[c * q] !== 0 || (complex && values[c * q + 1] !== 0)) hermitian = false;
      const found = q < end && colIdx[q] === i;
      if (!mirrors(re, im, found ? values[c * q] : 0, found && complex ? values[c * q + 1] : 0)) hermitian = false;
      cursor[j] = found ? q + 1 : q;
    }
    if (dr === 0 && di === 0) zeroDiagonals++;
    if (!laplacianRow(dr, off)) laplacianLike = false;
    if (!dominantRow(mag(dr, di), offAbs)) diagonallyDominant = false;
    if (!(dr > 0) || (complex && di !== 0)) positiveDiagonal = false;
    if (complex && di !== 0 && hermitian) hermitian = false;
  }
  // entries left of a diagonal that no mirror reached
  for (let j = 0; j < n && hermitian; j++) {
    for (let q = cursor[j]; q < rowPtr[j + 1] && colIdx[q] < j; q++) if (values[c * q] !== 0 || (complex && values[c * q + 1] !== 0)) hermitian = false;
  }
  return { n, nnz: A.nnz, hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
}

/**
 * The eccentricity of the node farthest from row 0 (two breadth-first searches over a symmetric
 * pattern, O(nnz)): a lower bound of the diameter, within a factor 2, and exact on a grid. A graph in
 * several pieces gives the largest piece's that row 0 reaches.
 */
export function pseudoDiameter(A: CSRMatrix): number {
  const { rows: n, rowPtr, colIdx } = A;
  // a byte per node marks it reached (a quarter of an Int32 distance's memory, where the search's
  // loads of it miss the cache most) and the levels are counted as the queue passes their ends:
  // poisson3D(64)'s two searches, medians of 9 in 6 alternating rounds at load 9–11: 34–56 against
  // 51–82 ms with a distance per node
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  const [far] = eccentricity(rowPtr, colIdx, seen, queue, 0);
  return eccentricity(rowPtr, colIdx, seen, queue, far)[1];
}

/**
 * pseudoDiameter(A) for a symmetric A (zero where its mirror is, so the pattern is symmetric), from
 * `D`, its DIA copy, when A's diagonal is nonzero and its stored off-diagonal entries are exactly the
 * edges of a tensor grid m₁ × … × m_d in natural order — offsets ±s_k with s₁ = 1, s_{k+1} = m_k·s_k,
 * n = m_d·s_d, entry (i, i + s_k) stored and nonzero just where i's k-th digit in that mixed radix is
 * below m_k − 1, none stored as 0 — else undefined. On such a grid the two searches go from node 0 to
 * node n − 1 (the one node at distance Σ(m_k − 1), whatever the search order) and back: their answer
 * is Σ(m_k − 1). `nonzeros`: each diagonal's nonzero slots where counted already (diaStructure's
 * pass), else counted here; then only the slots that must be zero are read, where the searches take
 * two passes over A's entries with a load of a node's mark per entry (poisson3D(64): ≈ 20–25 ms a solve).
 */
export function gridDiameter(D: DIAMatrix, nnz: number, nonzeros?: Int32Array): number | undefined {
  const { rows: n, offsets, pitch, data } = D;
  const main = offsets.indexOf(0);
  const up = offsets.filter((o) => o > 0);
  // the offsets are ±s_k and 0, nothing else; A's nnz: n diagonal entries and every edge twice (no stored zeros)
  if (main < 0 || up.length === 0 || offsets.length !== 2 * up.length + 1 || up[0] !== 1) return undefined;
  let edges = 0;
  let diameter = 0;
  for (let k = 0; k < up.length; k++) {
    const s = up[k];
    const span = k + 1 < up.length ? up[k + 1] : n;
    if (span % s !== 0 || offsets.indexOf(-s) < 0) return undefined;
    const m = span / s;
    edges += n - n / m;
    diameter += m - 1;
  }
  if (n % up[up.length - 1] !== 0 || nnz !== n + 2 * edges) return undefined;
  // each kind of array read by a function of its own: a process solving f64 and f32 matrices re-optimized
  // one loop over both kinds (poisson3D(64): a call's first runs 9–23 ms against 3–14, alternated)
  const nonzero = (from: number, to: number) => (data instanceof Float64Array ? nonzeroSlots64(data, from, to) : nonzeroSlots32(data as Float32Array, from, to));
  // n stored diagonal entries, so nnz − n off the diagonal
  if (nonzero(main * pitch, main * pitch + n) !== n) return undefined;
  // each s_k's slots in blocks of span = m_k·s_k rows: the first (m_k − 1)·s_k nonzero, the last s_k
  // zero — the zeros probed, and then as many nonzero slots as the grid has edges there: no other zero
  for (let k = 0; k < up.length; k++) {
    const s = up[k];
    const span = k + 1 < up.length ? up[k + 1] : n;
    const d = offsets.indexOf(s);
    const at = d * pitch;
    const nz = nonzeros ? nonzeros[d] : nonzero(at, at + n - s);
    if (nz !== n - n / (span / s)) return undefined;
    for (let b = 0; b < n; b += span) if (nonzero(at + b + span - s, at + Math.min(b + span, n - s)) !== 0) return undefined;
  }
  return diameter;
}

/**
 * gridDiameter's answer from A's CSR itself, where no DIA copy is at hand (a GPU path holding A as SELL,
 * an f32 stencil's): the strides s_k are row 0's columns right of its diagonal (node 0 has an edge in
 * every direction), and each row must hold exactly i − s_k where its k-th digit is above 0, i, and
 * i + s_k where it is below m_k − 1, in column order, none stored as 0 — one sequential pass over the
 * entries with the digits counted as the rows go, where the two searches load a node's mark per entry
 * (poisson3D(128)'s f32 first rt.solve on the H100 machine's host: 365–590 ms). Else undefined.
 */
export function csrGridDiameter(A: CSRMatrix): number | undefined {
  const { rows: n, rowPtr, colIdx, values } = A;
  if (n === 0 || A.cols !== n || isComplex(A.dtype)) return undefined;
  const up: number[] = [];
  for (let k = rowPtr[0]; k < rowPtr[1]; k++) if (colIdx[k] > 0) up.push(colIdx[k]);
  if (up.length === 0 || up[0] !== 1) return undefined;
  const dims = up.length;
  const m = new Int32Array(dims);
  let diameter = 0;
  for (let k = 0; k < dims; k++) {
    const span = k + 1 < dims ? up[k + 1] : n;
    if (span % up[k] !== 0 || span / up[k] < 2) return undefined;
    m[k] = span / up[k];
    diameter += m[k] - 1;
  }
  // the digits of row i in the mixed radix m (an odometer), and the next entry q of A's to match
  const digit = new Int32Array(dims);
  let q = 0;
  for (let i = 0; i < n; i++) {
    if (q !== rowPtr[i]) return undefined;
    for (let k = dims - 1; k >= 0; k--) if (digit[k] > 0 && (colIdx[q] !== i - up[k] || values[q++] === 0)) return undefined;
    if (colIdx[q] !== i || values[q++] === 0) return undefined;
    for (let k = 0; k < dims; k++) if (digit[k] < m[k] - 1 && (colIdx[q] !== i + up[k] || values[q++] === 0)) return undefined;
    for (let k = 0; k < dims && ++digit[k] === m[k]; k++) digit[k] = 0;
  }
  return q === rowPtr[n] ? diameter : undefined;
}

/** The slots in [from, to) of `data` that hold neither +0 nor −0 (NaN counts): gridDiameter's f64 reads. */
function nonzeroSlots64(data: Float64Array, from: number, to: number): number {
  let nz = 0;
  for (let i = from; i < to; i++) if (data[i] !== 0) nz++;
  return nz;
}

/** nonzeroSlots64 over an f32 copy (a function of its own: each stays optimized for one kind of array). */
function nonzeroSlots32(data: Float32Array, from: number, to: number): number {
  let nz = 0;
  for (let i = from; i < to; i++) if (data[i] !== 0) nz++;
  return nz;
}

/** A breadth-first search from `start`: the last node it reaches and that node's distance. */
function eccentricity(rowPtr: Int32Array, colIdx: Int32Array, seen: Uint8Array, queue: Int32Array, start: number): [number, number] {
  seen.fill(0);
  seen[start] = 1;
  queue[0] = start;
  let head = 0;
  let tail = 1;
  for (let level = 0; ; level++) {
    const end = tail;
    for (; head < end; head++) {
      const i = queue[head];
      for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
        const j = colIdx[k];
        if (seen[j] === 0) {
          seen[j] = 1;
          queue[tail++] = j;
        }
      }
    }
    if (tail === end) return [queue[end - 1], level];
  }
}

/** SolveStructure.saddle: A's nonzero diagonal entries all positive, and its zero-diagonal rows' block [2, 2] empty. */
function saddleShape(A: CSRMatrix): boolean {
  const d = diagonalSums(A);
  if (!d.every((v) => v >= 0)) return false;
  const { rows, rowPtr, colIdx } = A;
  for (let i = 0; i < rows; i++) {
    if (d[i] !== 0) continue;
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (colIdx[k] !== i && d[colIdx[k]] === 0) return false;
  }
  return true;
}
