/**
 * Property-based attack on the direct solvers' WebAssembly kernels (assembly/lu.ts, ldl.ts, amd.ts,
 * symbolic.ts) through the public API: generated matrices of every shape the kernels meet (empty rows
 * and columns, dense rows and columns, duplicates, structurally singular, 1×1, huge and tiny values,
 * NaN/Inf, f32 and c128), every kind and ordering. The kernels write into the runtime's memory, which
 * other live matrices and factors share: after every case, canary regions laid between the kernels'
 * regions, a kept factor's solution and a resident product must be unchanged bit for bit, and the
 * runtime's live bytes back at their baseline. A result is a typed error or a true residual checked here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { Factorization } from '../src/solvers/direct/factorization.js';
import { Region, type WasmHeap } from '../src/cpu/memory.js';
import { cpuLuKernels } from '../src/cpu/lu.js';
import { reserveMemory, withMemoryBudget } from '../src/memory-budget.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DisposedError, InputRangeError, MemoryLimitError, SingularMatrixError, SimdglError, UnsupportedError } from '../src/errors.js';
import { mulberry32, pivotingTriplets } from './random.js';

let rt: Runtime;
/** Regions of known bytes, each between two holes the kernels' regions fill first. */
let canaries: { r: Region; bytes: Uint8Array }[] = [];
let keptF: Factorization;
let keptB: Float64Array;
let keptX: Float64Array;
let baseline = 0;

/** Bytes of known value before and after every region the runtime allocates (while the heap is guarded). */
const GUARD = 64;
const guarded = new Set<Guarded>();
const overruns: string[] = [];

/** A region handed out inside a larger one, between two guards checked at its dispose and by expectUntouched. */
class Guarded extends Region {
  private gone = false;
  constructor(
    private readonly h: WasmHeap,
    private readonly real: Region,
    bytes: number,
  ) {
    super(h, real.ptr + GUARD, bytes);
  }
  override get isDisposed(): boolean {
    return this.gone;
  }
  /** Whether both guards are as written. */
  intact(): boolean {
    const u8 = new Uint8Array(this.h.memory.buffer, this.real.ptr, this.real.bytes);
    for (let i = 0; i < u8.length; i++) if ((i < GUARD || i >= GUARD + this.bytes) && u8[i] !== 0xa5) return false;
    return true;
  }
  override dispose(): void {
    if (this.gone) return;
    this.gone = true;
    guarded.delete(this);
    if (!this.intact()) overruns.push(`a region of ${this.bytes} bytes at ${this.ptr}`);
    this.real.dispose();
  }
}

/** Every later allocation of `heap` gets guards (a write past either end of a region shows). */
function guardHeap(heap: WasmHeap): void {
  const alloc = heap.alloc.bind(heap);
  heap.alloc = (bytes: number): Region => {
    if (!(bytes >= 0)) return alloc(bytes);
    const real = alloc(bytes + 2 * GUARD);
    new Uint8Array(heap.memory.buffer, real.ptr, real.bytes).fill(0xa5);
    const g = new Guarded(heap, real, bytes);
    guarded.add(g);
    return g;
  };
}

/** A nonsymmetric matrix of poisson's pattern. */
function convection(P: CSRMatrix): CSRMatrix {
  const v = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] !== i) v[k] *= P.colIdx[k] > i ? 0.5 : 1.5;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
}

beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
  guardHeap(rt.cpuBackend.heap);
  keptF = await rt.factor(convection(poisson2D(12)), { kind: 'lu' });
  keptB = Float64Array.from({ length: 144 }, (_, i) => Math.sin(i + 1));
  keptX = (await keptF.solve(keptB)).x;
  // holes of many sizes between the canaries: a kernel's region lands next to one
  const heap = rt.cpuBackend.heap;
  const r = mulberry32(7);
  const holes: Region[] = [];
  for (let i = 0; i < 48; i++) {
    const c = heap.alloc(64 + 16 * Math.floor(r() * 64));
    const bytes = new Uint8Array(c.bytes);
    canaries.push({ r: c, bytes });
    holes.push(heap.alloc(16 << Math.floor(r() * 14)));
  }
  for (const h of holes) h.dispose();
  for (const c of canaries) {
    const view = new Uint8Array(heap.memory.buffer, c.r.ptr, c.bytes.length);
    for (let i = 0; i < view.length; i++) view[i] = Math.floor(r() * 256);
    c.bytes.set(view);
  }
  // the first Krylov solve keeps the backend's reduction scratch (32 bytes, CpuBackend.reductionScratch): made before the baseline
  const warm = rt.upload(poisson2D(3));
  await rt.solve(warm, new Float64Array(9).fill(1), { method: 'cg' });
  warm.dispose();
  baseline = heap.liveBytes;
});
afterAll(() => {
  for (const c of canaries) c.r.dispose();
  canaries = [];
  keptF.dispose();
  rt.dispose();
});

/** Nothing outside the kernels' own regions changed, and everything they held was freed. */
async function expectUntouched(): Promise<void> {
  await expectUntouchedBut();
  expect(rt.cpuBackend.heap.liveBytes).toBe(baseline);
}

/** No guard, canary or kept result changed (a factor may still be alive). */
async function expectUntouchedBut(): Promise<void> {
  for (const g of guarded) if (!g.intact()) overruns.push(`a live region of ${g.bytes} bytes at ${g.ptr}`);
  expect(overruns.splice(0)).toEqual([]);
  const heap = rt.cpuBackend.heap;
  for (const c of canaries) {
    const now = new Uint8Array(heap.memory.buffer, c.r.ptr, c.bytes.length);
    expect(Buffer.compare(Buffer.from(now), Buffer.from(c.bytes))).toBe(0);
  }
  const x = (await keptF.solve(keptB)).x;
  expect(Buffer.compare(Buffer.from(x.buffer, x.byteOffset, x.byteLength), Buffer.from(keptX.buffer, keptX.byteOffset, keptX.byteLength))).toBe(0);
}

type Dtype = 'f64' | 'f32' | 'c128' | 'c64';
const single = (d: Dtype): boolean => d === 'f32' || d === 'c64';
const complex = (d: Dtype): boolean => d === 'c128' || d === 'c64';
interface Case {
  n: number;
  dtype: Dtype;
  /** 'dom': diagonally dominant (must factorize); 'sym': symmetric dominant with a positive diagonal; 'free': anything */
  kind: 'dom' | 'spd' | 'free';
  density: number;
  /** > 0: a band of this half-width, mostly stored (the banded LU, the band LDLᵀ) */
  band: number;
  emptyCols: number;
  denseRows: number;
  denseCols: number;
  dups: number;
  scale: number;
  special: 'none' | 'nan' | 'inf';
  seed: number;
}

/** Triplets of the case (duplicates kept), the matrix from them, and its entries summed per (row, col). */
function build(c: Case): { A: CSRMatrix; rows: number[]; cols: number[]; re: number[]; im: number[] } {
  const r = mulberry32(c.seed);
  const { n } = c;
  // f32 data stays in f32's range (1e±200 would be 0 or ∞ there)
  const scale = single(c.dtype) && (c.scale > 1e38 || c.scale < 1e-37) ? (c.scale > 1 ? 1e30 : 1e-30) : c.scale;
  const rows: number[] = [];
  const cols: number[] = [];
  const re: number[] = [];
  const im: number[] = [];
  const cx = complex(c.dtype);
  const round = single(c.dtype) ? Math.fround : (v: number) => v;
  const put = (i: number, j: number, a: number, b = 0): void => {
    rows.push(i);
    cols.push(j);
    re.push(round(a * scale));
    im.push(cx ? round(b * scale) : 0);
  };
  const empty = new Set<number>();
  if (c.kind === 'free') for (let e = 0; e < c.emptyCols; e++) empty.add(Math.floor(r() * n));
  // a symmetric case stores each pair once (three summands of one entry may round differently in its two triangles)
  const seen = new Set<number>();
  const off = (i: number, j: number): void => {
    if (i === j || empty.has(j) || (c.kind === 'spd' && (empty.has(i) || seen.has(Math.min(i, j) * n + Math.max(i, j))))) return;
    seen.add(Math.min(i, j) * n + Math.max(i, j));
    const a = 2 * r() - 1;
    const b = cx ? 2 * r() - 1 : 0;
    put(i, j, a, b);
    if (c.kind === 'spd') put(j, i, a, -b);
  };
  const nnzTarget = Math.max(1, Math.floor(c.density * n * n));
  if (c.band > 0) {
    for (let i = 0; i < n; i++) for (let j = i - c.band; j <= i + c.band; j++) if (j >= 0 && j < n && (c.kind !== 'spd' || j > i) && r() < 0.9) off(i, j);
  } else for (let t = 0; t < nnzTarget; t++) off(Math.floor(r() * n), Math.floor(r() * n));
  for (let d = 0; d < c.denseRows; d++) {
    const i = Math.floor(r() * n);
    for (let j = 0; j < n; j++) off(i, j);
  }
  for (let d = 0; d < c.denseCols; d++) {
    const j = Math.floor(r() * n);
    for (let i = 0; i < n; i++) off(i, j);
  }
  // duplicates of stored entries: a value split into halves, each entry once (exact sums: the triangles of a symmetric case stay equal)
  const stored = rows.length;
  const split = new Set<number>();
  for (let d = 0; d < c.dups && stored > 0; d++) {
    const t = Math.floor(r() * stored);
    if (split.has(t)) continue;
    split.add(t);
    const h = re[t] / 2;
    re[t] = round(h);
    rows.push(rows[t]);
    cols.push(cols[t]);
    re.push(round(h));
    im.push(0);
  }
  // the diagonal: past the row's and column's off-diagonal sums for 'dom' and 'spd', random for 'free'
  const rowSum = new Float64Array(n);
  const colSum = new Float64Array(n);
  for (let t = 0; t < rows.length; t++) {
    const a = Math.hypot(re[t], im[t]);
    rowSum[rows[t]] += a;
    colSum[cols[t]] += a;
  }
  for (let i = 0; i < n; i++) {
    if (empty.has(i)) continue;
    if (c.kind === 'free') {
      if (r() < 0.7) put(i, i, 2 * r() - 1, cx ? r() : 0);
    } else {
      const d = (Math.max(rowSum[i], colSum[i]) / scale) * 1.5 + 1;
      put(i, i, c.kind === 'dom' && r() < 0.5 ? -d : d, 0);
    }
  }
  if (c.special !== 'none' && rows.length > 0) re[Math.floor(r() * rows.length)] = c.special === 'nan' ? NaN : Infinity;
  const inter = cx ? re.flatMap((a, t) => [a, im[t]]) : re;
  const vals = single(c.dtype) ? Float32Array.from(inter) : Float64Array.from(inter);
  const A = CSRMatrix.fromTriplets(n, n, c.dtype, Int32Array.from(rows), Int32Array.from(cols), vals);
  return { A, rows, cols, re, im };
}

/** ‖b − A·x‖₂ / ‖b‖₂ in f64 from the triplets (the independent reference). */
function residual(t: ReturnType<typeof build>, n: number, cx: boolean, b: Float64Array, x: Float64Array): number {
  const c = cx ? 2 : 1;
  const r = Float64Array.from(b);
  for (let k = 0; k < t.rows.length; k++) {
    const i = t.rows[k];
    const j = t.cols[k];
    if (cx) {
      r[2 * i] -= t.re[k] * x[2 * j] - t.im[k] * x[2 * j + 1];
      r[2 * i + 1] -= t.re[k] * x[2 * j + 1] + t.im[k] * x[2 * j];
    } else r[i] -= t.re[k] * x[j];
  }
  let rr = 0;
  let bb = 0;
  for (let i = 0; i < c * n; i++) {
    rr += r[i] * r[i];
    bb += b[i] * b[i];
  }
  return Math.sqrt(rr / bb);
}

/** A's off-diagonal entries scaled by a factor in [0.5, 1.5) that depends on the pair {row, col} only. */
function rescaled(A: CSRMatrix): CSRMatrix {
  const c = complex(A.dtype as Dtype) ? 2 : 1;
  const v = A.values.slice();
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      if (i === j) continue;
      const h = Math.sin(Math.min(i, j) * 7919 + Math.max(i, j) * 104729 + 0.5) * 43758.5453;
      for (let e = 0; e < c; e++) v[c * k + e] *= 0.5 + (h - Math.floor(h));
    }
  }
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, v);
}

/** A stored matrix as the reference's triplets. */
function tripletsOf(A: CSRMatrix): ReturnType<typeof build> {
  const cx = complex(A.dtype as Dtype);
  const t = { A, rows: [] as number[], cols: [] as number[], re: [] as number[], im: [] as number[] };
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      t.rows.push(i);
      t.cols.push(A.colIdx[k]);
      t.re.push(cx ? A.values[2 * k] : A.values[k]);
      t.im.push(cx ? A.values[2 * k + 1] : 0);
    }
  }
  return t;
}

const caseArb = (maxN: number): fc.Arbitrary<Case> =>
  fc.record({
    n: fc.oneof(fc.constantFrom(1, 2, 3), fc.integer({ min: 4, max: maxN })),
    dtype: fc.constantFrom<Dtype>('f64', 'f32', 'c128', 'c64'),
    kind: fc.constantFrom<Case['kind']>('dom', 'spd', 'free'),
    density: fc.constantFrom(0, 0.01, 0.05, 0.2, 0.6),
    band: fc.constantFrom(0, 0, 0, 1, 2, 7),
    emptyCols: fc.integer({ min: 0, max: 2 }),
    denseRows: fc.integer({ min: 0, max: 2 }),
    denseCols: fc.integer({ min: 0, max: 2 }),
    dups: fc.constantFrom(0, 3, 40),
    scale: fc.constantFrom(1, 1e-200, 1e-30, 1e30, 1e200),
    special: fc.constantFrom<Case['special']>('none', 'none', 'none', 'none', 'nan', 'inf'),
    seed: fc.integer({ min: 1, max: 1 << 30 }),
  });

const kinds = ['auto', 'lu', 'ldlt', 'cholesky'] as const;
const orderings = ['auto', 'amd', 'nd', 'natural', 'amd-ata'] as const;

/** One case: rt.factor, F.solve and F.refactor give a checked answer or a typed error; nothing else in the memory changes. */
async function attack(c: Case, kind: (typeof kinds)[number], ordering: (typeof orderings)[number]): Promise<void> {
  const t = build(c);
  const cx = complex(c.dtype);
  const n = c.n;
  const r = mulberry32(c.seed ^ 0x5bd1e995);
  const b = Float64Array.from({ length: (cx ? 2 : 1) * n }, () => 2 * r() - 1);
  const symmetricKind = kind === 'ldlt' || kind === 'cholesky';
  let F: Factorization | undefined;
  try {
    F = await rt.factor(t.A, { kind, ordering });
  } catch (e) {
    // a typed error, saying what
    expect(e, String(e)).toBeInstanceOf(Error);
    const typed = e instanceof SimdglError || e instanceof InputRangeError || e instanceof MemoryLimitError;
    expect(typed, `untyped ${String(e)}`).toBe(true);
    if (e instanceof SingularMatrixError) {
      expect(e.column).toBeGreaterThanOrEqual(0);
      expect(e.column).toBeLessThan(n);
    }
    // the column ordering is for LU alone (documented, typed)
    if (ordering === 'amd-ata' && kind !== 'lu' && e instanceof UnsupportedError) {
      await expectUntouched();
      return;
    }
    // a nonsingular case with finite values must factorize with LU (and 'auto')
    if (c.special === 'none' && c.kind !== 'free' && (kind === 'lu' || kind === 'auto')) throw new Error(`${kind} refused a dominant matrix: ${String(e)}`);
    if (c.special === 'none' && c.kind === 'spd' && symmetricKind && !cx) throw new Error(`${kind} refused an SPD matrix: ${String(e)}`);
    if (c.special !== 'none') expect(e instanceof InputRangeError || e instanceof SimdglError, String(e)).toBe(true);
    await expectUntouched();
    return;
  }
  try {
    expect(c.special, 'factorized a matrix holding NaN or Inf').toBe('none');
    const s = await F.solve(b);
    const res = residual(t, n, cx, b, s.x);
    expect(s.x.every(Number.isFinite)).toBe(true);
    // f32/c64 data: the sums of duplicates round in f32 (CSRMatrix.fromTriplets), and the solve may run in f32
    const tol = single(c.dtype) ? 1e-5 : 1e-9;
    if (c.kind !== 'free') expect(res, `n ${n} ${c.dtype} ${kind} ${ordering}`).toBeLessThan(tol);
    // the residual it reports is the true one (or it is far from converged and says so)
    if (res < 1e-3) expect(Math.abs(s.relativeResidual - res)).toBeLessThanOrEqual(1e-6 + res * 1e-3);
    // three right-hand sides at once (b, 2b, −b): each checked against the reference
    const many = new Float64Array(3 * b.length);
    many.set(b);
    many.set(b.map((v) => 2 * v), b.length);
    many.set(b.map((v) => -v), 2 * b.length);
    const sm = await F.solve(many);
    for (const k of [0, 1, 2]) {
      const xk = sm.x.subarray(k * b.length, (k + 1) * b.length);
      if (c.kind !== 'free') expect(residual(t, n, cx, many.subarray(k * b.length, (k + 1) * b.length), xk), `rhs ${k}`).toBeLessThan(tol);
      else expect(xk.every(Number.isFinite)).toBe(true);
    }
    await expectUntouchedBut();
    // refactor for other values of the pattern (off-diagonals scaled by 0.5..1.5, alike in both
    // triangles: a dominant case stays dominant, a symmetric one symmetric; the pivots may change)
    const A2 = rescaled(t.A);
    const t2 = tripletsOf(A2);
    const e2 = await F.refactor(A2).then(() => null, (err: unknown) => err);
    if (e2 !== null) {
      expect(c.kind, String(e2)).toBe('free');
      expect(e2 instanceof SimdglError || e2 instanceof InputRangeError, String(e2)).toBe(true);
    } else {
      const s2 = await F.solve(b);
      const res2 = residual(t2, n, cx, b, s2.x);
      if (c.kind !== 'free') expect(res2).toBeLessThan(tol);
      if (res2 < 1e-3) expect(Math.abs(s2.relativeResidual - res2)).toBeLessThanOrEqual(1e-6 + res2 * 1e-3);
    }
  } finally {
    F.dispose();
  }
  await expectUntouched();
}

describe('generated matrices through rt.factor / F.solve / F.refactor', () => {
  it('small matrices, every kind and ordering (fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb(40), fc.constantFrom(...kinds), fc.constantFrom(...orderings), async (c, kind, ordering) => attack(c, kind, ordering)),
      { seed: 20261127, numRuns: 300, endOnFailure: true },
    );
  }, 60_000);

  it("rt.solve with method 'direct' and 'auto' on an uploaded matrix: converged means the true residual, else a reason", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb(60), fc.constantFrom('direct', 'auto' as const), async (c, method) => {
        const t = build(c);
        const cx = complex(c.dtype);
        const r = mulberry32(c.seed + 1);
        const b = Float64Array.from({ length: (cx ? 2 : 1) * c.n }, () => 2 * r() - 1);
        const h = rt.upload(t.A);
        try {
          const out = await rt.solve(h, b, { method, tol: 1e-8 });
          if (c.special !== 'none') expect(out.converged).toBe(false);
          if (out.converged) {
            const res = residual(t, c.n, cx, b, out.x instanceof Float64Array ? out.x : Float64Array.from(out.x as ArrayLike<number>));
            expect(res, `${method} n ${c.n} ${c.dtype} ${out.method}`).toBeLessThanOrEqual(single(c.dtype) ? 1e-5 : 1e-7);
          } else expect(out.reason).not.toBe('converged');
          if (c.kind !== 'free' && c.special === 'none' && method === 'direct' && !single(c.dtype)) expect(out.converged, out.reason).toBe(true);
        } catch (e) {
          expect(e instanceof SimdglError || e instanceof InputRangeError || e instanceof MemoryLimitError, String(e)).toBe(true);
        } finally {
          h.dispose();
        }
        await expectUntouched();
      }),
      { seed: 777, numRuns: 120, endOnFailure: true },
    );
  }, 60_000);

  it('larger sparse matrices (n up to 2000)', async () => {
    await fc.assert(
      fc.asyncProperty(
        caseArb(2000).map((c) => ({ ...c, density: Math.min(c.density, 4 / c.n), denseRows: Math.min(c.denseRows, 1), denseCols: Math.min(c.denseCols, 1) })),
        fc.constantFrom(...kinds),
        fc.constantFrom(...orderings),
        async (c, kind, ordering) => attack(c, kind, ordering),
      ),
      { seed: 4242, numRuns: 14, endOnFailure: true },
    );
  }, 60_000);
});

describe('lifecycle', () => {
  it('refactor with another pattern is a typed error; the factor still solves; many factorizations at once', async () => {
    const A = convection(poisson2D(9));
    const F = await rt.factor(A, { kind: 'lu' });
    const b = Float64Array.from({ length: 81 }, (_, i) => Math.cos(i));
    const x = (await F.solve(b)).x;
    const wrong = CSRMatrix.fromTriplets(81, 81, 'f64', Int32Array.from({ length: 81 }, (_, i) => i), Int32Array.from({ length: 81 }, (_, i) => (i * 7) % 81), new Float64Array(81).fill(1));
    await expect(F.refactor(wrong)).rejects.toBeInstanceOf(SimdglError);
    expect(Array.from((await F.solve(b)).x)).toEqual(Array.from(x));
    // a refactor meeting a singular matrix, then a good one
    const sing = new CSRMatrix(81, 81, 'f64', A.rowPtr, A.colIdx, A.values.map((v, k) => (A.colIdx[k] === 5 ? 0 : v)));
    await expect(F.refactor(sing)).rejects.toBeInstanceOf(SingularMatrixError);
    await F.refactor(A);
    expect(Array.from((await F.solve(b)).x)).toEqual(Array.from(x));
    // disposed while a solve is pending: the solve rejects, or (an LU factor held in JavaScript) ends with the same x
    const pending = F.solve(b);
    F.dispose();
    const late = await pending.then((s) => s.x, (e: unknown) => e);
    if (late instanceof Float64Array) expect(Array.from(late)).toEqual(Array.from(x));
    else expect(late).toBeInstanceOf(DisposedError);
    await expect(F.solve(b)).rejects.toBeInstanceOf(DisposedError);
    await expectUntouched();
    // many at once in one runtime: each the same as alone
    const cases = [convection(poisson2D(20)), poisson2D(15), convection(poisson2D(6)), poisson2D(30)];
    const kindsOf = ['lu', 'ldlt', 'auto', 'cholesky'] as const;
    const alone: number[][] = [];
    for (let i = 0; i < cases.length; i++) {
      const G = await rt.factor(cases[i], { kind: kindsOf[i] });
      alone.push(Array.from((await G.solve(new Float64Array(cases[i].rows).fill(1))).x));
      G.dispose();
    }
    const Fs = await Promise.all(cases.map((M, i) => rt.factor(M, { kind: kindsOf[i] })));
    const xs = await Promise.all(Fs.map((G, i) => G.solve(new Float64Array(cases[i].rows).fill(1))));
    expect(xs.map((s) => Array.from(s.x))).toEqual(alone);
    for (const G of Fs) G.dispose();
    await expectUntouched();
  });
});

describe('the sparse LU kernel growing L and U from their smallest size (src/cpu/lu.ts)', () => {
  it('any start size, dense switch step and pivot tolerance: the factor of ample room, bit for bit; a refused growth frees all', async () => {
    const kernels = cpuLuKernels(rt.cpuBackend);
    let grew = 0;
    let refusedCases = 0;
    await fc.assert(
      fc.asyncProperty(caseArb(120), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(0.001, 0.1, 1), fc.integer({ min: 1, max: 6 }), async (c, from, tol, refuseAt) => {
        const { A } = build({ ...c, special: 'none' });
        const n = c.n;
        const C = A.transpose(); // A by columns
        const cx = complex(c.dtype);
        const Ax = Float64Array.from(C.values);
        const r = mulberry32(c.seed);
        const q = Int32Array.from({ length: n }, (_, i) => i);
        for (let i = n - 1; i > 0; i--) {
          const j = Math.floor(r() * (i + 1));
          [q[i], q[j]] = [q[j], q[i]];
        }
        const denseFrom = Math.floor((from / 1000) * (n + 1));
        const run = (guess: number, grow: (b: number) => void) => kernels.sparse(n, C.rowPtr, C.colIdx, Ax, cx, q, tol, guess, grow, denseFrom);
        const ample = run(4 * n * n + n, () => {});
        let grows = 0;
        const small = run(0, () => grows++);
        if (typeof ample === 'number') expect(small).toBe(ample);
        else {
          expect(typeof small).toBe('object');
          const s = small as Exclude<typeof small, number>;
          for (const k of ['Lp', 'Li', 'Lx', 'Up', 'Ui', 'Ux', 'pinv'] as const) expect(Array.from(s[k]), k).toEqual(Array.from(ample[k]));
          // L and U left in the runtime's memory (a shared one's: LuFactor.inPlace) are the factor's until released
          s.inPlace?.release();
          ample.inPlace?.release();
        }
        await expectUntouched();
        // growth refused at its refuseAt-th request: the error passes through, everything freed
        if (grows > 0) grew++;
        if (grows >= refuseAt) {
          refusedCases++;
          let asked = 0;
          const refused = new MemoryLimitError(1, 'refused');
          expect(() =>
            run(0, () => {
              if (++asked === refuseAt) throw refused;
            }),
          ).toThrow(refused);
          await expectUntouched();
        }
      }),
      { seed: 99, numRuns: 150, endOnFailure: true },
    );
    // the cases did reach the growth and its refusal
    expect(grew).toBeGreaterThan(100);
    expect(refusedCases).toBeGreaterThan(50);
  }, 60_000);
});

/** pivotingTriplets (test/random.ts) as build() gives a case. */
function pivoting(n: number, seed: number): ReturnType<typeof build> {
  const { rows, cols, values } = pivotingTriplets(n, seed);
  const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(values));
  return { A, rows, cols, re: values, im: values.map(() => 0) };
}

describe('a memory budget that refuses the LU mid-factorization (createRuntime maxMemoryMB)', () => {
  it("the sparse LU counts what it holds at once: a budget of its peak regions plus its growth is enough", async () => {
    // before, the regions L and U moved out of (and the work region) were never given back to the
    // operation's count: grown from their smallest size, this LU was refused at peak + growth (13 MiB)
    const plain = await createRuntime({ workers: 1, backend: 'cpu' });
    const heap = plain.cpuBackend.heap;
    const lu = cpuLuKernels(plain.cpuBackend).sparse;
    const n = 1200;
    const C = pivoting(n, 3).A.transpose();
    const q = Int32Array.from({ length: n }, (_, i) => i);
    const Ax = Float64Array.from(C.values);
    const start = heap.liveBytes;
    let peak = 0;
    const alloc = heap.alloc.bind(heap);
    heap.alloc = (bytes: number): Region => {
      const r = alloc(bytes);
      peak = Math.max(peak, heap.liveBytes - start);
      return r;
    };
    let grown = 0;
    const grow = (bytes: number): void => {
      grown += bytes;
      reserveMemory(bytes, 'growth');
    };
    // the factor's arrays as copies, L and U released where they stay in the runtime's memory (LuFactor.inPlace)
    const run = (): unknown => {
      const f = lu(n, C.rowPtr, C.colIdx, Ax, false, q, 1, 0, grow, n);
      if (typeof f === 'number') return f;
      const { inPlace, ...arrays } = f;
      const copy = Object.fromEntries(Object.entries(arrays).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v]));
      inPlace?.release();
      return copy;
    };
    const ample = withMemoryBudget(4096, run);
    const exact = (peak + grown) / 1048576;
    expect(peak + grown).toBeLessThan(64 * 1048576);
    grown = 0;
    expect(withMemoryBudget(exact, run)).toEqual(ample);
    expect(heap.liveBytes).toBe(start);
    plain.dispose();
  });


  it('every budget from below the estimate up: a checked factor or MemoryLimitError, and the runtime as before', async () => {
    // a random pattern with a small diagonal under strict partial pivoting: far more fill than the
    // symmetric estimate, so the refusals come from the estimate, the kernel's regions and the growth
    const n = 1200;
    const t = pivoting(n, 3);
    const A = t.A;
    const r = mulberry32(4);
    const b = Float64Array.from({ length: n }, () => 2 * r() - 1);
    const messages = new Set<string>();
    let ok = 0;
    // (8.5 MiB: refused while growing, the only such budget since the dense block is no longer counted twice)
    for (let mb = 2.5; mb <= 20; mb += 2) {
      const small = await createRuntime({ workers: 1, backend: 'cpu', maxMemoryMB: mb });
      guardHeap(small.cpuBackend.heap);
      const keep = await small.factor(convection(poisson2D(6)), { kind: 'lu' });
      const kb = new Float64Array(36).fill(1);
      const kx = Array.from((await keep.solve(kb)).x);
      const before = small.cpuBackend.heap.liveBytes;
      try {
        const F = await small.factor(A, { kind: 'lu', ordering: 'amd', pivotTolerance: 1 });
        expect(residual(t, n, false, b, (await F.solve(b)).x)).toBeLessThan(1e-9);
        F.dispose();
        ok++;
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(MemoryLimitError);
        messages.add(String(e).replace(/ would take.*/, ''));
      }
      expect(small.cpuBackend.heap.liveBytes).toBe(before);
      expect(overruns.splice(0)).toEqual([]);
      expect(Array.from((await keep.solve(kb)).x)).toEqual(kx);
      keep.dispose();
      small.dispose();
    }
    // refused at the estimate, while growing, and by the kernel's regions; and factorized once allowed
    expect([...messages].sort()).toEqual([
      'MemoryLimitError: WebAssembly memory',
      'MemoryLimitError: factor: the LU factor (estimated from the symbolic phase)',
      'MemoryLimitError: factor: the LU factor growing past its estimate',
    ]);
    expect(ok).toBeGreaterThan(0);
  });
});

describe('a failed refactor (docs/direct.md: F unusable until a refactor succeeds)', () => {
  const cases: [string, CSRMatrix, 'lu' | 'ldlt' | 'cholesky'][] = [
    ['LU', convection(poisson2D(12)), 'lu'],
    ['LDLᵀ', poisson2D(12), 'ldlt'],
    ['supernodal Cholesky', poisson2D(40), 'cholesky'],
  ];
  for (const [what, A, kind] of cases) {
    it(`${what}: singular, NaN and indefinite A2 each leave a typed error on solve, nothing changed around it, and a good refactor answers as before`, async () => {
      const F = await rt.factor(A, { kind });
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(i));
      const x = Array.from((await F.solve(b)).x);
      const held = rt.cpuBackend.heap.liveBytes;
      const bad = [
        new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map(() => 0)),
        new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v, k) => (k === 17 ? NaN : v))),
        new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v) => -v)),
      ];
      for (const A2 of bad) {
        const e = await F.refactor(A2).then(() => null, (err: unknown) => err);
        if (e === null) {
          // −A is a valid LU and LDLᵀ: its solution is −x
          expect(kind).not.toBe('cholesky');
          const s = (await F.solve(b)).x;
          expect(Array.from(s).map((v) => -v)).toEqual(x);
        } else {
          expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
          const s = await F.solve(b).then(() => null, (err: unknown) => err);
          expect(s, 'a solve after a failed refactor answered').toBeInstanceOf(Error);
        }
        expect(overruns.splice(0)).toEqual([]);
        expect(rt.cpuBackend.heap.liveBytes).toBeLessThanOrEqual(held);
      }
      await F.refactor(A);
      expect(Array.from((await F.solve(b)).x)).toEqual(x);
      expect(rt.cpuBackend.heap.liveBytes).toBe(held);
      F.dispose();
      await expectUntouched();
    });
  }
});

describe('factorizations at once in one runtime while the memory grows', () => {
  it('supernodal Cholesky on the pool beside LUs that grow their arrays and the memory: each as alone, bit for bit', async () => {
    const jobs: [CSRMatrix, 'cholesky' | 'lu' | 'ldlt', 'amd' | 'amd-ata' | 'nd'][] = [
      [poisson3D(14), 'cholesky', 'nd'],
      [pivoting(1500, 11).A, 'lu', 'amd'],
      [poisson2D(50), 'ldlt', 'amd'],
      [pivoting(900, 12).A, 'lu', 'amd-ata'],
      [poisson3D(12), 'cholesky', 'amd'],
    ];
    const solveAll = async (Fs: Factorization[]): Promise<number[][]> =>
      Promise.all(Fs.map(async (F, i) => Array.from((await F.solve(Float64Array.from({ length: jobs[i][0].rows }, (_, k) => Math.sin(k)), { refine: 0 })).x)));
    const alone: Factorization[] = [];
    for (const [A, kind, ordering] of jobs) alone.push(await rt.factor(A, { kind, ordering, pivotTolerance: kind === 'lu' ? 1 : undefined }));
    expect(alone[0].info.method).toBe('supernodal');
    const want = await solveAll(alone);
    for (const F of alone) F.dispose();
    for (let round = 0; round < 2; round++) {
      const together = await Promise.all(jobs.map(([A, kind, ordering]) => rt.factor(A, { kind, ordering, pivotTolerance: kind === 'lu' ? 1 : undefined })));
      expect(await solveAll(together)).toEqual(want);
      for (const F of together) F.dispose();
      await expectUntouched();
    }
  }, 30_000);
});
