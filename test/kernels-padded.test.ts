/**
 * Direct tests of the padded-layout SpMV kernels (dia_*, ell_*, sell_*, dense_*) in both builds. The raw
 * arrays are built here from seeded random triplets following the contract's layouts (no dependency
 * on src/formats), and results are compared with the f64 reference on the same (f32-rounded) inputs.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { makeHarness, type Harness } from './kernel-harness.js';
import { referenceSpmv, checkAgainst, type Triplets, type RefResult } from './reference.js';
import { mulberry32 } from './random.js';

type DT = 'f32' | 'f64' | 'c64' | 'c128';
const DTS: DT[] = ['f32', 'f64', 'c64', 'c128'];
const isC = (dt: DT) => dt === 'c64' || dt === 'c128';
const isSingle = (dt: DT) => dt === 'f32' || dt === 'c64';
const comp = (dt: DT) => (isC(dt) ? 2 : 1);
const newArr = (dt: DT, n: number) => (isSingle(dt) ? new Float32Array(n) : new Float64Array(n));
const up4 = (n: number) => Math.ceil(n / 4) * 4;

/** A matrix as reference triplets plus the kernel call that multiplies by it (arrays already on the heap). */
interface Built {
  trip: Triplets;
  call(h: Harness, x: number, y: number, scal: number[], r0: number, r1: number): void;
  dispose(): void;
}

/** Collects triplets; values are read back from the typed array so they carry its rounding. */
function tripletSink(rows: number, cols: number, complex: boolean) {
  const t = { rows, cols, complex, rowIdx: [] as number[], colIdx: [] as number[], values: [] as number[] };
  return { t, add: (i: number, j: number, arr: ArrayLike<number>, e: number) => {
    t.rowIdx.push(i); t.colIdx.push(j);
    if (complex) t.values.push(arr[2 * e], arr[2 * e + 1]); else t.values.push(arr[e]);
  } };
}

function randFill(a: Float32Array | Float64Array, rng: () => number): void {
  for (let k = 0; k < a.length; k++) a[k] = 2 * rng() - 1;
}

/** DIA: A[i, i+off[d]] = data[d·pitch + i]; out-of-matrix slots and pitch padding stay 0. */
function buildDia(h: Harness, dt: DT, rng: () => number, rows: number, cols: number, offsets: number[]): Built {
  const c = comp(dt);
  const pitch = up4(rows) + (rng() < 0.5 ? 4 : 0);
  const data = newArr(dt, offsets.length * pitch * c);
  const sink = tripletSink(rows, cols, isC(dt));
  offsets.forEach((off, d) => {
    for (let i = 0; i < rows; i++) {
      const j = i + off;
      if (j < 0 || j >= cols) continue;
      const e = d * pitch + i;
      for (let t = 0; t < c; t++) data[e * c + t] = 2 * rng() - 1;
      sink.add(i, j, data, e);
    }
  });
  const off = h.put(Int32Array.from(offsets)), dat = h.put(data);
  return {
    trip: sink.t,
    call: (h, x, y, s, r0, r1) => h.kernels[`dia_${dt}`](off.ptr, offsets.length, dat.ptr, pitch, cols, x, y, ...s, r0, r1),
    dispose: () => { off.dispose(); dat.dispose(); },
  };
}

/** ELL: entry k of row i at slot k·stride + i (sorted by column); padding idx -1, value 0. */
function buildEll(h: Harness, dt: DT, rng: () => number, rows: number, cols: number, maxRow: number, minCol: number): Built {
  const c = comp(dt);
  const rowCols: number[][] = [];
  for (let i = 0; i < rows; i++) {
    const n = Math.min(Math.floor(rng() * (maxRow + 1)), cols - minCol);
    const set = new Set<number>();
    while (set.size < n) set.add(minCol + Math.floor(rng() * (cols - minCol)));
    rowCols.push([...set].sort((a, b) => a - b));
  }
  const width = Math.max(0, ...rowCols.map((r) => r.length));
  const stride = up4(rows) + (rng() < 0.5 ? 4 : 0);
  const idx = new Int32Array(width * stride).fill(-1);
  const val = newArr(dt, width * stride * c);
  const sink = tripletSink(rows, cols, isC(dt));
  rowCols.forEach((cs, i) => cs.forEach((j, k) => {
    const e = k * stride + i;
    idx[e] = j;
    for (let t = 0; t < c; t++) val[e * c + t] = 2 * rng() - 1;
    sink.add(i, j, val, e);
  }));
  const ir = h.put(idx), vr = h.put(val);
  return {
    trip: sink.t,
    call: (h, x, y, s, r0, r1) => h.kernels[`ell_${dt}`](ir.ptr, vr.ptr, width, stride, x, y, ...s, r0, r1),
    dispose: () => { ir.dispose(); vr.dispose(); },
  };
}

/**
 * SELL-C-σ: rows sorted by decreasing length within windows of σ (ties in row order), position p holds
 * row perm[p]; entry k of position s·C + r at slot slicePtr[s] + k·C + r, slice width its longest row;
 * padding idx -1, value 0. Positions past `rows` in the last slice are all padding.
 */
function buildSell(h: Harness, dt: DT, rng: () => number, rows: number, cols: number, maxRow: number, minCol: number, C: number, sigma: number) {
  const c = comp(dt);
  const rowCols: number[][] = [];
  for (let i = 0; i < rows; i++) {
    // a few long rows among short ones, so slices differ in width
    const n = Math.min(rng() < 0.1 ? maxRow * 3 : Math.floor(rng() * (maxRow + 1)), cols - minCol);
    const set = new Set<number>();
    while (set.size < n) set.add(minCol + Math.floor(rng() * (cols - minCol)));
    rowCols.push([...set].sort((a, b) => a - b));
  }
  const perm: number[] = [];
  for (let w0 = 0; w0 < rows; w0 += sigma) {
    const win = Array.from({ length: Math.min(sigma, rows - w0) }, (_, r) => w0 + r);
    if (sigma > 1) win.sort((a, b) => rowCols[b].length - rowCols[a].length || a - b);
    perm.push(...win);
  }
  const slices = Math.ceil(rows / C);
  const slicePtr = new Int32Array(slices + 1);
  for (let s = 0; s < slices; s++) {
    let w = 0;
    for (let p = s * C; p < Math.min(rows, s * C + C); p++) w = Math.max(w, rowCols[perm[p]].length);
    slicePtr[s + 1] = slicePtr[s] + w * C;
  }
  const idx = new Int32Array(slicePtr[slices]).fill(-1);
  const val = newArr(dt, slicePtr[slices] * c);
  const sink = tripletSink(rows, cols, isC(dt));
  perm.forEach((i, p) => rowCols[i].forEach((j, k) => {
    const e = slicePtr[Math.floor(p / C)] + k * C + (p % C);
    idx[e] = j;
    for (let t = 0; t < c; t++) val[e * c + t] = 2 * rng() - 1;
    sink.add(i, j, val, e);
  }));
  const sp = h.put(slicePtr), pr = h.put(Int32Array.from(perm)), ir = h.put(idx), vr = h.put(val);
  return {
    trip: sink.t,
    perm,
    slices,
    call: (h: Harness, x: number, y: number, s: number[], s0: number, s1: number) =>
      h.kernels[`sell_${dt}`](sp.ptr, C, pr.ptr, sigma === 1 ? 1 : 0, ir.ptr, vr.ptr, x, y, rows, ...s, s0, s1),
    dispose: () => { sp.dispose(); pr.dispose(); ir.dispose(); vr.dispose(); },
  };
}

/** Dense row-major. */
function buildDense(h: Harness, dt: DT, rng: () => number, rows: number, cols: number): Built {
  const a = newArr(dt, rows * cols * comp(dt));
  randFill(a, rng);
  const sink = tripletSink(rows, cols, isC(dt));
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) sink.add(i, j, a, i * cols + j);
  const ar = h.put(a);
  return {
    trip: sink.t,
    call: (h, x, y, s, r0, r1) => h.kernels[`dense_${dt}`](ar.ptr, cols, x, y, ...s, r0, r1),
    dispose: () => ar.dispose(),
  };
}

interface Scal { alpha: number | [number, number]; beta: number | [number, number]; conj: 0 | 1 }
const REAL_SCALS: Scal[] = [
  { alpha: 1, beta: 0, conj: 0 }, { alpha: 0, beta: 1, conj: 0 }, { alpha: -1.25, beta: 0.5, conj: 0 },
  { alpha: 0.3, beta: 1, conj: 0 }, { alpha: 0, beta: 0, conj: 0 }, { alpha: 2, beta: -1, conj: 0 },
];
const CPLX_SCALS: Scal[] = [
  { alpha: [1, 0], beta: [0, 0], conj: 0 }, { alpha: [1, 0], beta: [0, 0], conj: 1 },
  { alpha: [0, 0], beta: [1, 0], conj: 0 }, { alpha: [0.5, -1.25], beta: [0.75, 0.25], conj: 0 },
  { alpha: [0.5, -1.25], beta: [0.75, 0.25], conj: 1 }, { alpha: [0, 1], beta: [0, 0], conj: 1 },
  { alpha: [-0.3, 0.7], beta: [0, -1], conj: 0 },
];
const isZero = (b: Scal['beta']) => (typeof b === 'number' ? b === 0 : b[0] === 0 && b[1] === 0);

function ranges(rows: number): Array<[number, number]> {
  const r: Array<[number, number]> = [[0, rows], [1, rows - 1], [3, Math.min(rows, 21)], [(rows >> 1) | 1, rows],
    [0, Math.min(rows, 6)], [5, Math.min(rows, 38)], [2, 2]];
  return r.filter(([a, b]) => a >= 0 && a <= b && b <= rows);
}

/** Runs `m` for every scalar case and row range; returns the failures (empty when all pass). */
function exercise(h: Harness, dt: DT, m: Built, x: Float32Array | Float64Array, rng: () => number, label: string): string[] {
  const c = comp(dt);
  const { rows } = m.trip;
  const fails: string[] = [];
  // conj = use conj(A): the reference gets conjugated values and op N
  const conjTrip: Triplets = { ...m.trip, values: Array.from(m.trip.values, (v, k) => (k % 2 ? -v : v)) };
  const xr = h.put(x);
  for (const s of isC(dt) ? CPLX_SCALS : REAL_SCALS) {
    for (const [r0, r1] of ranges(rows)) {
      const y0 = newArr(dt, rows * c);
      randFill(y0, rng);
      // β = 0 must not read y: poison the rows being written
      if (isZero(s.beta)) y0.fill(NaN, r0 * c, r1 * c);
      const yr = h.put(y0);
      const scal = isC(dt)
        ? [...(s.alpha as number[]), ...(s.beta as number[]), s.conj]
        : [s.alpha as number, s.beta as number];
      m.call(h, xr.ptr, yr.ptr, scal, r0, r1);
      const got = h.get(yr, isSingle(dt) ? 'f32' : 'f64', rows * c);
      yr.dispose();
      const what = `${label} α=${s.alpha} β=${s.beta} conj=${s.conj} rows [${r0},${r1})`;
      for (let k = 0; k < rows * c; k++) {
        if ((k < r0 * c || k >= r1 * c) && !Object.is(got[k], y0[k])) {
          fails.push(`${what}: component ${k} outside the range was written`);
          break;
        }
      }
      const ref = referenceSpmv(s.conj ? conjTrip : m.trip, x, y0, s.alpha, s.beta);
      const part: RefResult = { y: ref.y.slice(r0 * c, r1 * c), scale: ref.scale.slice(r0 * c, r1 * c), terms: ref.terms.slice(r0, r1) };
      const err = checkAgainst(got.slice(r0 * c, r1 * c), part, isSingle(dt) ? 'single' : 'double', isC(dt));
      if (err) fails.push(`${what}: ${err}`);
    }
  }
  xr.dispose();
  return fails;
}

// rows × cols: multiples of 4 and not, tall and wide, big enough for the SIMD blocks (16 f32 rows)
const SHAPES: Array<[number, number]> = [[1, 1], [3, 5], [13, 7], [7, 13], [37, 37], [50, 23], [23, 50], [67, 64], [130, 97], [64, 200]];

function randomOffsets(rng: () => number, rows: number, cols: number): number[] {
  // extremes (a single in-bounds slot), near-main, and random ones; -rows < off < cols
  const s = new Set<number>([0, -(rows - 1), cols - 1]);
  for (const o of [1, -1, 2, -3, 5]) if (o > -rows && o < cols && rng() < 0.7) s.add(o);
  for (let k = 0; k < 3; k++) s.add(Math.floor(rng() * (rows + cols - 1)) - (rows - 1));
  return [...s].sort((a, b) => a - b);
}

for (const flavor of ['simd', 'plain'] as const) {
  describe(`padded-layout kernels (${flavor})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await makeHarness(flavor);
    });

    for (const dt of DTS) {
      it(`dia_${dt}`, () => {
        const rng = mulberry32(1000 + DTS.indexOf(dt));
        const fails: string[] = [];
        for (const [rows, cols] of SHAPES) {
          // a stencil's few near diagonals leave interior blocks (every diagonal in range, x in bounds)
          const stencil = [-3, -1, 0, 2, 5].filter((o) => o > -rows && o < cols);
          for (const offsets of [randomOffsets(rng, rows, cols), [], [Math.min(cols - 1, 1)], stencil]) {
            const m = buildDia(h, dt, rng, rows, cols, offsets);
            const x = newArr(dt, cols * comp(dt));
            randFill(x, rng);
            fails.push(...exercise(h, dt, m, x, rng, `dia ${rows}x${cols} offsets [${offsets}]`));
            m.dispose();
          }
        }
        expect(fails.slice(0, 5)).toEqual([]);
      });

      it(`ell_${dt} (padding masked against NaN/Inf in x[0])`, () => {
        const rng = mulberry32(2000 + DTS.indexOf(dt));
        const fails: string[] = [];
        for (const [rows, cols] of SHAPES) {
          for (const poison of [false, true]) {
            if (poison && cols < 2) continue;
            const m = buildEll(h, dt, rng, rows, cols, 1 + Math.floor(rng() * 9), poison ? 1 : 0);
            const x = newArr(dt, cols * comp(dt));
            randFill(x, rng);
            // column 0 is unused when poisoned, so only padding could pick these up
            if (poison) x.fill(rows % 2 ? NaN : Infinity, 0, comp(dt));
            fails.push(...exercise(h, dt, m, x, rng, `ell ${rows}x${cols}${poison ? ' poisoned x[0]' : ''}`));
            m.dispose();
          }
        }
        expect(fails.slice(0, 5)).toEqual([]);
      });

      it(`sell_${dt}: every C and σ, slice ranges, padding masked against NaN/Inf around x, bits independent of the split`, () => {
        const rng = mulberry32(4000 + DTS.indexOf(dt));
        const c = comp(dt);
        const fails: string[] = [];
        const params: Array<[number, number]> = [[1, 1], [2, 1], [2, 8], [3, 6], [4, 1], [4, 16], [5, 5], [8, 1], [8, 32], [12, 24], [16, 1], [16, 64]];
        for (const [rows, cols] of SHAPES) {
          for (const [C, sigma] of params) {
            const poison = cols >= 2 && rng() < 0.5;
            const m = buildSell(h, dt, rng, rows, cols, 1 + Math.floor(rng() * 6), poison ? 1 : 0, C, sigma);
            // x with one element before it: a padding slot's index −1 points there
            const xb = newArr(dt, (cols + 1) * c);
            randFill(xb, rng);
            xb.fill(rows % 2 ? NaN : Infinity, 0, c);
            if (poison) xb.fill(rows % 2 ? Infinity : NaN, c, 2 * c); // column 0 unused: only padding could read it
            const xr = h.put(xb);
            const xp = xr.ptr + c * xb.BYTES_PER_ELEMENT;
            const x = xb.slice(c);
            const label = `sell ${rows}x${cols} C=${C} σ=${sigma}${poison ? ' poisoned x[0]' : ''}`;
            for (const sc of isC(dt) ? CPLX_SCALS : REAL_SCALS) {
              const scal = isC(dt) ? [...(sc.alpha as number[]), ...(sc.beta as number[]), sc.conj] : [sc.alpha as number, sc.beta as number];
              const trip = sc.conj ? { ...m.trip, values: Array.from(m.trip.values, (v, k) => (k % 2 ? -v : v)) } : m.trip;
              const y0 = newArr(dt, rows * c);
              randFill(y0, rng);
              const ref = referenceSpmv(trip, x, y0, sc.alpha, sc.beta);
              const run = (ranges: Array<[number, number]>) => {
                const yr = h.put(y0);
                for (const [s0, s1] of ranges) m.call(h, xp, yr.ptr, scal, s0, s1);
                const got = h.get(yr, isSingle(dt) ? 'f32' : 'f64', rows * c);
                yr.dispose();
                return got;
              };
              const whole = run([[0, m.slices]]);
              const what = `${label} α=${sc.alpha} β=${sc.beta} conj=${sc.conj}`;
              const err = checkAgainst(whole, ref, isSingle(dt) ? 'single' : 'double', isC(dt));
              if (err) fails.push(`${what}: ${err}`);
              // part of the slices: exactly their rows change; three parts: the same bits as one call
              const s0 = Math.min(1, m.slices), s1 = Math.max(s0, m.slices - 1);
              const part = run([[s0, s1]]);
              const inPart = new Set(m.perm.slice(s0 * C, s1 * C));
              for (let i = 0; i < rows; i++) {
                for (let t = 0; t < c; t++) {
                  const k = i * c + t;
                  if (!Object.is(part[k], inPart.has(i) ? whole[k] : y0[k])) fails.push(`${what}: slices [${s0},${s1}) row ${i} component ${t}`);
                }
              }
              const split = run([[0, s0], [s0, s1], [s1, m.slices]]);
              if (split.some((v, k) => !Object.is(v, whole[k]))) fails.push(`${what}: a split run differs from one call`);
            }
            xr.dispose();
            m.dispose();
          }
        }
        expect(fails.slice(0, 5)).toEqual([]);
      });

      it(`dense_${dt}`, () => {
        const rng = mulberry32(3000 + DTS.indexOf(dt));
        const fails: string[] = [];
        for (const [rows, cols] of [...SHAPES, [9, 1], [6, 2], [5, 3]] as Array<[number, number]>) {
          const m = buildDense(h, dt, rng, rows, cols);
          const x = newArr(dt, cols * comp(dt));
          randFill(x, rng);
          fails.push(...exercise(h, dt, m, x, rng, `dense ${rows}x${cols}`));
          m.dispose();
        }
        expect(fails.slice(0, 5)).toEqual([]);
      });
    }
  });
}
