import type { BlockRows, LuFactor, LuKernels, LuNumericSteps } from '../solvers/direct/lu.js';
import { finish, nextPiece } from '../solvers/direct/steps.js';
import type { BandLdltNumeric, BandLuNumeric, BandRows } from '../solvers/direct/band-lu.js';
import type { CpuBackend } from './backend.js';
import { copyI32, copyF64, freeTemporary, Layout, putF64, putI32, type Region } from './memory.js';
import { holdSolve, solveOnce, type SolveLayout } from './held-solve.js';

const DESC_WORDS = 40;

/** The LU kernels of the CPU path (assembly/lu.ts), run at once on the calling thread's instance. */
export function cpuLuKernels(B: Pick<CpuBackend, 'heap' | 'kernels'>): LuKernels {
  // a banded factor with rows (keepBandRows) solves by rows (bandLayout)
  const layout = (f: LuFactor): SolveLayout => (f.rows && !f.blocks ? bandLayout(B, f, f.rows) : luLayout(B, f));
  const steps = sparseLu(B);
  return { sparse: (...a) => finish(steps(...a)), sparseSteps: steps, band: bandLu(B), bandLdlt: bandLdlt(B), solve: (f, b, x) => solveOnce(B.heap, layout(f), b, x), hold: (f) => holdSolve(B.heap, layout(f)) };
}

/**
 * The kept factor's solve on the CPU path (assembly/lu.ts lu_solve): the factor, its permutations and
 * the work vectors b, x, y in one region of the runtime's memory, written once (held) or for one call.
 * A block triangular form's factor (f.blocks: L and U of the diagonal blocks, the entries above them as
 * they stand) adds those entries and the block starts, and solves block by block (assembly/btf.ts btf_solve).
 */
function luLayout(B: Pick<CpuBackend, 'heap' | 'kernels'>, f: LuFactor): SolveLayout {
  const { n, Lp, Up, blocks: k, inPlace: ip } = f;
  const c = f.complex ? 2 : 1;
  const lnz = Lp[n];
  const unz = Up[n];
  const fnz = k ? k.Fp[n] : 0;
  const nb = k ? k.starts.length - 1 : 0;
  // b, x, y, Lx, Ux, dinv (f64); Lp, Li, Up, Ui, pinv, q (i32); with blocks Fx (f64), Fp, Fi, starts (i32);
  // L's and U's arrays left where the numeric phase wrote them (f.inPlace) take no room here
  const { at, bytes } = Layout.of([8 * c * n, 8 * c * n, 8 * c * n, ip ? 0 : 8 * c * lnz, ip ? 0 : 8 * c * unz, 8 * c * n, 4 * (n + 1), ip ? 0 : 4 * lnz, 4 * (n + 1), ip ? 0 : 4 * unz, 4 * n, 4 * n,
    ...(k ? [8 * c * fnz, 4 * (n + 1), 4 * fnz, 4 * (nb + 1)] : [])]);
  // the byte addresses the solve reads: the region's pieces, L's and U's arrays in place
  const places = (ptr: number): number[] => {
    const P = at.map((a) => ptr + a);
    if (ip) [P[3], P[4], P[7], P[9]] = [ip.Lx, ip.Ux, ip.Li, ip.Ui];
    return P;
  };
  return {
    bytes,
    put: (ptr) => {
      const h = B.heap;
      const P = at.map((a) => ptr + a);
      if (!ip) {
        putF64(h, P[3], f.Lx.subarray(0, c * lnz));
        putF64(h, P[4], f.Ux.subarray(0, c * unz));
        putI32(h, P[7], f.Li.subarray(0, lnz));
        putI32(h, P[9], f.Ui.subarray(0, unz));
      }
      putF64(h, P[5], f.dinv!);
      putI32(h, P[6], Lp);
      putI32(h, P[8], Up);
      putI32(h, P[10], f.pinv);
      putI32(h, P[11], f.q);
      if (!k) return;
      putF64(h, P[12], k.Fx.subarray(0, c * fnz));
      putI32(h, P[13], k.Fp);
      putI32(h, P[14], k.Fi.subarray(0, fnz));
      putI32(h, P[15], k.starts);
    },
    m: c * n,
    b: at[0],
    x: at[1],
    run: (ptr) => {
      const P = places(ptr);
      if (k) B.kernels.btf_solve(n, c, nb, P[15], P[6], P[7], P[3], P[8], P[9], P[4], P[5], P[13], P[14], P[12], P[10], P[11], P[0], P[1], P[2]);
      else B.kernels.lu_solve(n, c, P[6], P[7], P[3], P[8], P[9], P[4], P[5], P[10], P[11], P[0], P[1], P[2]);
    },
  };
}

/**
 * A real banded factor's solve by its rows (assembly/lu.ts lu_band_solve; BandRows from keepBandRows):
 * the rows, dinv and the vectors b, x in one region.
 */
function bandLayout(B: Pick<CpuBackend, 'heap' | 'kernels'>, f: LuFactor, R: BandRows): SolveLayout {
  const n = f.n;
  const { Lptr, L, uw, Uw, U, rowOf } = R;
  // b, x, L, U, dinv (f64); Lptr, Uw, rowOf (i32)
  const { at, bytes } = Layout.of([8 * n, 8 * n, 8 * L.length, 8 * U.length, 8 * n, 4 * (n + 1), 4 * n, 4 * n]);
  return {
    bytes,
    m: n,
    b: at[0],
    x: at[1],
    put: (ptr) => {
      const h = B.heap;
      putF64(h, ptr + at[2], L);
      putF64(h, ptr + at[3], U);
      putF64(h, ptr + at[4], f.dinv!);
      putI32(h, ptr + at[5], Lptr);
      putI32(h, ptr + at[6], Uw);
      putI32(h, ptr + at[7], rowOf);
    },
    run: (ptr) => {
      B.kernels.lu_band_solve(n, ptr + at[5], ptr + at[2], uw, ptr + at[6], ptr + at[3], ptr + at[7], ptr + at[4], ptr + at[0], ptr + at[1]);
    },
  };
}

/**
 * Allocations of one factorization, freed together; each freed region is given back to the
 * operation's memory budget (counted by the heap when allocated): L and U moved to larger regions
 * were counted at every size they passed through, the old ones never subtracted.
 */
class Held {
  private regions: Region[] = [];
  constructor(private readonly B: Pick<CpuBackend, 'heap'>) {}
  alloc(bytes: number): Region {
    const r = this.B.heap.alloc(bytes);
    this.regions.push(r);
    return r;
  }
  free(r: Region): void {
    this.keep(r);
    freeTemporary(r);
  }
  /** r outlives the factorization: freeAll leaves it */
  keep(r: Region): void {
    this.regions.splice(this.regions.indexOf(r), 1);
  }
  freeAll(): void {
    for (const r of this.regions) freeTemporary(r);
    this.regions = [];
  }
}

/**
 * The sparse LU's numeric phase (LuNumeric's contract, src/solvers/direct/lu.ts): A, the ordering and
 * the work vectors go into the runtime's memory, L and U into regions that are moved to larger ones
 * when the kernel stops for room (after asking `grow`), and the factor is copied out into JavaScript arrays.
 */
function sparseLu(B: Pick<CpuBackend, 'heap' | 'kernels'>): LuNumericSteps {
  return function* (n, Ap, Ai, Ax, complex, q, tol, guess, grow, denseFrom = n, denseTo = n, rows, paused = false) {
    const c = complex ? 2 : 1;
    const nnz = Ap[n];
    const k1 = Math.min(n, Math.max(0, denseTo));
    const k0 = Math.min(k1, Math.max(0, denseFrom));
    const m = k1 - k0;
    // desc, Ap, Ai, Ax, q, Lp, Up, pinv, x, xi/stack/pstack/mark/Lpend/leaves, D, rows, at, dpos; with `rows`
    // matchOf, blockOf, B's columns (Bp, Bi, Bx: the kernel splits A there), and the entries above the
    // blocks (btf_above: block starts, Fp and Fi one after another, then Fx)
    const b = rows ? 1 : 0;
    const above = rows?.above ?? 0;
    const { at, bytes } = Layout.of([4 * DESC_WORDS, 4 * (n + 1), 4 * nnz, 8 * c * nnz, 4 * n, 4 * (n + 1), 4 * (n + 1), 4 * n, 8 * c * n, 24 * n, 8 * c * m * m, 4 * m, 4 * n, 4 * m,
      b * 4 * n, b * 4 * n, b * 4 * (n + 1), b * 4 * nnz, b * 8 * c * nnz, b * 4 * (2 * n + 2 + above), b * 8 * c * above]);
    const held = new Held(B);
    const alloc = (b: number): Region => held.alloc(b);
    try {
      const W = alloc(bytes);
      const w = W.ptr;
      const P = at.map((a) => w + a);
      const cap0 = Math.max(guess, n);
      const side = (cap: number): Region => alloc(Math.ceil((4 * cap) / 16) * 16 + 8 * c * cap);
      const valuesAt = (r: Region, cap: number): number => r.ptr + Math.ceil((4 * cap) / 16) * 16;
      let L = side(cap0);
      let U = side(cap0);
      let capL = cap0;
      let capU = cap0;
      // the whole memory's views after the last allocation (heap.words: made again when it grows)
      const h = B.heap;
      let { i32, f64 } = h.words;
      i32.set(Ap.subarray(0, n + 1), P[1] >> 2);
      i32.set(Ai.subarray(0, nnz), P[2] >> 2);
      f64.set(Ax.subarray(0, c * nnz), P[3] >> 3);
      i32.set(q, P[4] >> 2);
      i32.fill(-1, P[7] >> 2, (P[7] >> 2) + n);
      f64.fill(0, P[8] >> 3, (P[8] >> 3) + c * n);
      // xi, stack, pstack need no start; mark zero, Lpend −1
      i32.fill(0, (P[9] >> 2) + 3 * n, (P[9] >> 2) + 4 * n);
      i32.fill(-1, (P[9] >> 2) + 4 * n, (P[9] >> 2) + 5 * n);
      f64.fill(0, P[10] >> 3, (P[10] >> 3) + c * m * m);
      if (rows) {
        i32.set(rows.matchOf, P[14] >> 2);
        i32.set(rows.blockOf, P[15] >> 2);
      }
      const d = P[0] >> 2;
      i32.set([n, c, P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], P[9] + 4 * n, P[9] + 8 * n, P[9] + 12 * n, P[9] + 16 * n,
        L.ptr, valuesAt(L, capL), capL, U.ptr, valuesAt(U, capU), capU, 0, 0, 0, k0, P[10], P[11], P[12], P[13], 0, 0, k1, 0, b * P[14], b * P[15], b * P[16], b * P[17], b * P[18], P[9] + 20 * n, 0], d);
      const kernel = B.kernels.lu_factor;
      let r: number;
      // moves the first `used` entries of a side to one of `cap` entries
      const moved = (old: Region, oldCap: number, cap: number, used: number): Region => {
        grow((cap - oldCap) * (4 + 8 * c));
        const nu = side(cap);
        ({ i32, f64 } = h.words);
        i32.copyWithin(nu.ptr >> 2, old.ptr >> 2, (old.ptr >> 2) + used);
        f64.copyWithin(valuesAt(nu, cap) >> 3, valuesAt(old, oldCap) >> 3, (valuesAt(old, oldCap) >> 3) + c * used);
        held.free(old);
        return nu;
      };
      // paused: runs of `steps` steps (grown or shrunk toward PIECE_MS a call), a yield after each
      let steps = 16;
      for (;;) {
        if (paused) i32[d + 39] = Math.min(n, i32[d + 21] + steps);
        const t0 = paused ? performance.now() : 0;
        r = kernel(P[0], tol);
        if (r === -4) {
          steps = nextPiece(steps, performance.now() - t0);
          yield;
          ({ i32, f64 } = h.words);
          continue;
        }
        if (r !== -2) break;
        // read before moving: a move may grow the memory (the views are then made again)
        const [lnz, unz, needL, needU] = [i32[d + 22], i32[d + 23], i32[d + 29], i32[d + 30]];
        if (needL > capL) {
          const cap = Math.max(needL, Math.ceil(capL * 1.5));
          L = moved(L, capL, cap, lnz);
          capL = cap;
        }
        if (needU > capU) {
          const cap = Math.max(needU, Math.ceil(capU * 1.5));
          U = moved(U, capU, cap, unz);
          capU = cap;
        }
        ({ i32, f64 } = h.words);
        i32.set([L.ptr, valuesAt(L, capL), capL, U.ptr, valuesAt(U, capU), capU], d + 15);
      }
      if (r === -3) throw new Error(`internal: the LU's dense window ${k0}..${k1} is not the tail of a diagonal block`);
      if (r >= 0) return r;
      const buf = h.memory.buffer;
      const lnz = i32[d + 22];
      const unz = i32[d + 23];
      const Li = new Int32Array(buf, L.ptr, lnz);
      const Lx = new Float64Array(buf, valuesAt(L, capL), c * lnz);
      const Ui = new Int32Array(buf, U.ptr, unz);
      const Ux = new Float64Array(buf, valuesAt(U, capU), c * unz);
      // Lp, Up and pinv copied out as views of one array (fewer arrays to allocate and collect)
      const ints = new Int32Array(3 * n + 2);
      const words = (p: number, length: number): Int32Array => i32.subarray(p >> 2, (p >> 2) + length);
      const [Lp, Up, pinv] = [ints.subarray(0, n + 1), ints.subarray(n + 1, 2 * n + 2), ints.subarray(2 * n + 2)];
      Lp.set(words(P[5], n + 1));
      Up.set(words(P[6], n + 1));
      if (rows) rowsPivots(words(P[7], n), rows, pinv);
      else pinv.set(words(P[7], n));
      const f: LuFactor = {
        n, complex, q, Lp, Up, pinv,
        ...(rows ? { blocks: aboveBlocks(B, n, c, above, P) } : {}),
        // a shared memory's views stay valid as it grows: L and U stay where the kernel wrote them, these
        // arrays views of them (copying them out and back in for the solve took ≈ 5% of west0479's
        // factor + solve); an unshared memory's would be detached by its next growth: copies
        ...(B.heap.shared ? { Li, Lx, Ui, Ux, inPlace: keptInPlace(held, L, U, Li, Lx, Ui, Ux) } : { Li: Li.slice(), Lx: Lx.slice(), Ui: Ui.slice(), Ux: Ux.slice() }),
      };
      return f;
    } finally {
      held.freeAll();
    }
  };
}

/**
 * The entries of A above the diagonal blocks as the block solve reads them (LuFactor.blocks; assembly/btf.ts
 * btf_above, from A's columns, the ordering, the rows and B's pivot steps the factorization left at the
 * addresses P), copied out: the block starts, Fp and Fi views of one array, and Fx.
 */
function aboveBlocks(B: Pick<CpuBackend, 'heap' | 'kernels'>, n: number, c: number, above: number, P: number[]): NonNullable<LuFactor['blocks']> {
  const F = P[19];
  const nb = B.kernels.btf_above(n, c, P[1], P[2], P[3], P[4], P[14], P[15], P[7], F, F + 4 * (n + 1), F + 8 * (n + 1), P[20]);
  const ints = copyI32(B.heap, F, 2 * n + 2 + above);
  return { starts: ints.subarray(0, nb + 1), Fp: ints.subarray(n + 1, 2 * n + 2), Fi: ints.subarray(2 * n + 2), Fx: copyF64(B.heap, P[20], c * above) };
}

/** The kernel's pivot steps of B's rows as those of A's rows (row r of A is row matchOf[r] of B), into `out`. */
function rowsPivots(pinv: Int32Array, rows: BlockRows, out: Int32Array): void {
  for (let r = 0; r < out.length; r++) out[r] = pinv[rows.matchOf[r]];
}

/** L's and U's regions of a factor left in place that nobody released: freed when its inPlace is collected. */
const unreleased = new FinalizationRegistry<Region[]>((regions) => regions.forEach((r) => r.dispose()));

/**
 * L's and U's regions taken out of the factorization's allocations and kept for the factor (LuFactor.inPlace):
 * the byte addresses of the four arrays (the views'), and release() freeing the regions once (or the
 * collection of the object returned, which every held solve of the factor references).
 */
function keptInPlace(held: Held, L: Region, U: Region, Li: Int32Array, Lx: Float64Array, Ui: Int32Array, Ux: Float64Array): NonNullable<LuFactor['inPlace']> {
  held.keep(L);
  held.keep(U);
  const ip = {
    Li: Li.byteOffset, Lx: Lx.byteOffset, Ui: Ui.byteOffset, Ux: Ux.byteOffset,
    release: () => {
      unreleased.unregister(ip);
      L.dispose();
      U.dispose();
    },
  };
  unreleased.register(ip, [L, U], ip);
  return ip;
}

/** The banded LU (BandLuNumeric's contract, src/solvers/direct/band-lu.ts): the band and the factor's arrays in one region, the factor copied out. */
function bandLu(B: Pick<CpuBackend, 'heap' | 'kernels'>): BandLuNumeric {
  return (n, Ap, Ai, Ax, complex, band, tol) => {
    const c = complex ? 2 : 1;
    const nnz = Ap[n];
    const kl = band.lower;
    const kv = band.lower + band.upper;
    const lda = 2 * kl + band.upper + 1;
    // desc, Ap, Ai, Ax, W, rowAt, posOf, Lp, Li, Lx, Up, Ui, Ux, pinv
    const { at, bytes } = Layout.of([4 * DESC_WORDS, 4 * (n + 1), 4 * nnz, 8 * c * nnz, 8 * c * n * lda, 4 * n, 4 * n, 4 * (n + 1), 4 * n * (kl + 1), 8 * c * n * (kl + 1),
      4 * (n + 1), 4 * n * (kv + 1), 8 * c * n * (kv + 1), 4 * n]);
    const held = new Held(B);
    try {
      const R = held.alloc(bytes);
      const P = at.map((a) => R.ptr + a);
      putColumns(B, P.slice(1, 5), n, c, Ap, Ai, Ax, n * lda);
      putI32(B.heap, P[0], [n, c, P[1], P[2], P[3], kl, band.upper, ...P.slice(4), 0, 0]);
      const r = B.kernels.lu_band(P[0], tol);
      if (r >= 0) return r;
      const s = B.heap.words.i32;
      const d = P[0] >> 2;
      return factorOut(B, P.slice(7, 13), n, complex, s[d + 17], s[d + 18], copyI32(B.heap, P[13], n));
    } finally {
      held.freeAll();
    }
  };
}

/** The symmetric band's LDLᵀ (BandLdltNumeric's contract, src/solvers/direct/band-lu.ts): the band and the factor's arrays in one region, the factor copied out. */
function bandLdlt(B: Pick<CpuBackend, 'heap' | 'kernels'>): BandLdltNumeric {
  return (n, Ap, Ai, Ax, complex, lower, tol) => {
    const c = complex ? 2 : 1;
    const nnz = Ap[n];
    const cap = n * (lower + 1);
    // Ap, Ai, Ax, W, Lp, Li, Lx, Up, Ui, Ux
    const { at, bytes } = Layout.of([4 * (n + 1), 4 * nnz, 8 * c * nnz, 8 * c * cap, 4 * (n + 1), 4 * cap, 8 * c * cap, 4 * (n + 1), 4 * cap, 8 * c * cap]);
    const held = new Held(B);
    try {
      const R = held.alloc(bytes);
      const P = at.map((a) => R.ptr + a);
      putColumns(B, P.slice(0, 4), n, c, Ap, Ai, Ax, cap);
      const lnz = B.kernels.lu_band_ldlt(n, c, P[0], P[1], P[2], lower, tol, P[3], P[4], P[5], P[6], P[7], P[8], P[9]);
      if (lnz < 0) return null;
      // U = D·Lᵀ: L's pattern transposed, as many entries; no row exchanges
      return factorOut(B, P.slice(4, 10), n, complex, lnz, lnz, null);
    } finally {
      held.freeAll();
    }
  };
}

/**
 * A by columns (Ap, Ai and `c` values an entry) copied into the memory at the first three addresses of
 * `at`, and the band kernels' work array at the fourth zeroed for `slots` entries.
 */
function putColumns(B: Pick<CpuBackend, 'heap'>, at: number[], n: number, c: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, slots: number): void {
  const h = B.heap;
  const nnz = Ap[n];
  putI32(h, at[0], Ap.subarray(0, n + 1));
  putI32(h, at[1], Ai.subarray(0, nnz));
  putF64(h, at[2], Ax.subarray(0, c * nnz));
  h.words.f64.fill(0, at[3] >> 3, (at[3] >> 3) + c * slots);
}

/**
 * A band kernel's factor copied out of the memory — Lp, Li, Lx, Up, Ui, Ux at the addresses `at`, lnz
 * and unz entries — in the natural column order, with the row order `pinv` (null: natural too).
 */
function factorOut(B: Pick<CpuBackend, 'heap'>, at: number[], n: number, complex: boolean, lnz: number, unz: number, pinv: Int32Array | null): LuFactor {
  const h = B.heap;
  const c = complex ? 2 : 1;
  // the natural column order (a loop: Int32Array.from with a map function took 146 µs for n = 1000)
  const q = new Int32Array(n);
  for (let k = 0; k < n; k++) q[k] = k;
  return {
    n, complex, q,
    Lp: copyI32(h, at[0], n + 1),
    Li: copyI32(h, at[1], lnz),
    Lx: copyF64(h, at[2], c * lnz),
    Up: copyI32(h, at[3], n + 1),
    Ui: copyI32(h, at[4], unz),
    Ux: copyF64(h, at[5], c * unz),
    pinv: pinv ?? q.slice(),
  };
}
