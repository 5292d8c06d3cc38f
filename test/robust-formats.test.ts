/**
 * Matrices built from arrays — corrupted before upload (arrays out of range, pointers that decrease,
 * fields reassigned, arrays replaced by shorter or longer ones, detached buffers) or after it — can
 * never make a kernel read or write outside its own buffers: upload refuses them with a typed error,
 * or what it accepted computes exactly what validate() vouched for; and a matrix and vectors uploaded
 * before still give their own results, bit for bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { MatrixHandle, ResidentVector } from '../src/runtime/handles.js';
import { convert, FORMATS, type FormatName, type SparseMatrix } from '../src/formats/index.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { randomMatrix } from '../src/generators/random.js';
import { SimdglError } from '../src/errors.js';
import type { DType, ValueArray } from '../src/dtype.js';
import { checkAgainst, referenceSpmv, type Op, csrTriplets } from './reference.js';
import { loadShared } from './matrices.js';
import { mulberry32 } from './random.js';

type Fields = Record<string, unknown>;
/** A corruption: a description and what it does to a matrix object (in place). */
type Corruption = { what: string; apply: (m: Fields) => void };

/** Every corruption of one matrix object: its index arrays, its numeric fields, its arrays' lengths. */
function corruptions(sample: Fields, path = ''): Corruption[] {
  const out: Corruption[] = [];
  for (const [key, v] of Object.entries(sample)) {
    const name = `${path}${key}`;
    const on = (f: (m: Fields) => void) => (m: Fields) => f(path ? (m[path.slice(0, -1)] as Fields) : m);
    if (v instanceof Int32Array && v.length > 0) {
      for (const [label, value] of [['-1', -1], ['2^31 - 1', 0x7fffffff], ['1000', 1000]] as const) {
        for (const where of ['first', 'middle', 'last'] as const) {
          out.push({
            what: `${name}[${where}] = ${label}`,
            apply: on((m) => {
              const a = m[key] as Int32Array;
              a[where === 'first' ? 0 : where === 'last' ? a.length - 1 : a.length >> 1] = value;
            }),
          });
        }
      }
      out.push({ what: `${name} reversed`, apply: on((m) => (m[key] as Int32Array).reverse()) });
    }
    if (v instanceof Int32Array || v instanceof Float32Array || v instanceof Float64Array) {
      out.push({ what: `${name} one shorter`, apply: on((m) => (m[key] = (m[key] as Int32Array).slice(0, -1))) });
      out.push({ what: `${name} four longer`, apply: on((m) => (m[key] = grow(m[key] as Int32Array, 4))) });
      out.push({ what: `${name} detached`, apply: on((m) => void structuredClone((m[key] as Int32Array).buffer, { transfer: [(m[key] as Int32Array).buffer] })) });
      out.push({ what: `${name} of the other element type`, apply: on((m) => (m[key] = otherType(m[key] as Int32Array))) });
    }
    if (typeof v === 'number') {
      for (const d of [1, 1000, -1, 0x7fffffff]) out.push({ what: `${name} ${d > 0 ? '+' : ''}${d}`, apply: on((m) => (m[key] = (m[key] as number) + d)) });
      out.push({ what: `${name} = 0`, apply: on((m) => (m[key] = 0)) });
    }
    if (key === 'dtype') out.push({ what: `${name} changed`, apply: on((m) => (m[key] = m[key] === 'f64' ? 'c128' : 'f64')) });
    if (key === 'ell' || key === 'coo') out.push(...corruptions(v as Fields, `${key}.`));
  }
  return out;
}

function grow<T extends Int32Array | Float32Array | Float64Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(a.length + n);
  b.set(a);
  return b;
}

function otherType(a: Int32Array | Float32Array | Float64Array): Int32Array | Float32Array | Float64Array {
  return a instanceof Float64Array ? Float32Array.from(a) : Float64Array.from(a);
}

/**
 * A fresh, valid matrix of `format` (its own arrays, so corruptions never touch another case): square
 * in f64, rectangular in c64 (more rows than columns, where MRS and DIA have slots outside the matrix).
 */
function build(format: FormatName, dtype: DType): SparseMatrix {
  const base = randomMatrix({ rows: 37, cols: dtype === 'f64' ? 37 : 23, meanRowLength: 4, seed: 7, dtype });
  return convert(base, format, { maxFill: 1e6 });
}


function randomVector(n: number, seed: number, f32: boolean): ValueArray {
  const rnd = mulberry32(seed);
  const v = f32 ? new Float32Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = rnd() * 2 - 1;
  return v;
}

/** α·op(A)·x through the runtime, checked against the plain-f64 reference of `expected`. */
async function checkProducts(rt: Runtime, h: MatrixHandle, expected: SparseMatrix, what: string): Promise<void> {
  const t = csrTriplets(expected.toCSR());
  const comp = t.complex ? 2 : 1;
  const single = expected.dtype === 'f32' || expected.dtype === 'c64';
  for (const op of ['N', 'T'] as Op[]) {
    const x = randomVector((op === 'N' ? t.cols : t.rows) * comp, 3, single);
    const y = await rt.spmv(h, x, { op, alpha: 1.5 });
    const bad = checkAgainst(y, referenceSpmv(t, x, null, 1.5, 0, op), single ? 'single' : 'double', t.complex);
    expect(bad, `${what}, op ${op}`).toBeNull();
  }
}

describe('corrupted matrices cannot reach outside their buffers', () => {
  let rt: Runtime;
  let victim: MatrixHandle;
  let vx: ResidentVector;
  let vy: ResidentVector;
  let canary: ResidentVector;
  let victimY: ValueArray;
  let canaryData: ValueArray;

  beforeAll(async () => {
    // inlineThreshold 0: every product runs on the pool, partitioned by the matrix's cost prefix
    rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    const V = loadShared('494_bus');
    victim = rt.upload(V, { format: 'keep' });
    vx = rt.vector(randomVector(V.cols, 11, false));
    vy = rt.vector(V.rows);
    canaryData = randomVector(1000, 12, false);
    canary = rt.vector(canaryData);
    await rt.spmv(victim, vx, { y: vy });
    victimY = await vy.read();
    const bad = checkAgainst(victimY, referenceSpmv(csrTriplets(V.toCSR()), await vx.read(), null, 1, 0), 'double', false);
    expect(bad).toBeNull();
  });
  afterAll(() => rt?.dispose());

  /** The victim matrix and vectors give exactly what they gave before. */
  async function victimsIntact(what: string): Promise<void> {
    await rt.spmv(victim, vx, { y: vy });
    expect(await vy.read(), `victim product after ${what}`).toEqual(victimY);
    expect(await canary.read(), `canary vector after ${what}`).toEqual(canaryData);
  }

  for (const dtype of ['f64', 'c64'] as DType[]) {
    for (const format of FORMATS) {
      it(`${format} ${dtype}: corrupted before upload → a typed error, or exactly what validate() accepted`, async () => {
        const counts = { refused: 0, accepted: 0 };
        const list = corruptions(build(format, dtype) as unknown as Fields);
        for (const c of list) {
          const A = build(format, dtype);
          let h: MatrixHandle | null = null;
          try {
            c.apply(A as unknown as Fields);
            h = rt.upload(A, { format: 'keep' });
          } catch (e) {
            if (!(e instanceof SimdglError)) throw new Error(`${format} ${dtype}, ${c.what}: untyped ${(e as Error).name}: ${(e as Error).message}`);
            counts.refused++;
          }
          if (h) {
            counts.accepted++;
            // still valid (e.g. a larger COO shape): it must compute the matrix validate() accepted
            await checkProducts(rt, h, A, `${format} ${dtype}, ${c.what}`);
            h.dispose();
          }
          await victimsIntact(`${format} ${dtype}, ${c.what}`);
        }
        // an index out of range or a pointer past the end is always refused
        expect(counts.refused, `${format}: ${JSON.stringify(counts)}`).toBeGreaterThan(list.length / 3);
      });
    }
  }

  // one dtype suffices here: what is tested is that the upload is a copy
  for (const format of FORMATS) {
    it(`${format} f64: corrupted after upload → products of the matrix as uploaded`, async () => {
      for (const c of corruptions(build(format, 'f64') as unknown as Fields)) {
        const A = build(format, 'f64');
        const h = rt.upload(A, { format: 'keep' });
        const reference = build(format, 'f64');
        c.apply(A as unknown as Fields);
        await checkProducts(rt, h, reference, `${format} f64, ${c.what} after upload`);
        h.dispose();
        await victimsIntact(`${format} f64, ${c.what} after upload`);
      }
    });
  }

  it('dense operands with reassigned shapes or arrays → a typed error, victims intact', async () => {
    const mk = () => new DenseMatrix(6, 5, 'f64', randomVector(30, 5, false) as Float64Array);
    const cases: [string, (m: Fields) => void][] = [
      ['rows + 100', (m) => (m.rows = (m.rows as number) + 100)],
      ['cols + 100', (m) => (m.cols = (m.cols as number) + 100)],
      ['values shorter', (m) => (m.values = (m.values as Float64Array).slice(0, 3))],
      ['values f32', (m) => (m.values = Float32Array.from(m.values as Float64Array))],
    ];
    for (const [what, f] of cases) {
      for (const which of ['A', 'B', 'C'] as const) {
        const A = mk();
        const B = new DenseMatrix(5, 6, 'f64', randomVector(30, 6, false) as Float64Array);
        const C = new DenseMatrix(6, 6, 'f64', new Float64Array(36));
        f((which === 'A' ? A : which === 'B' ? B : C) as unknown as Fields);
        await expect(rt.gemm(A, B, { C, beta: 1 }), `gemm, ${which} ${what}`).rejects.toBeInstanceOf(SimdglError);
      }
      const A = mk();
      f(A as unknown as Fields);
      await expect(rt.transpose(A), `transpose, ${what}`).rejects.toBeInstanceOf(SimdglError);
      await expect(rt.add(A, mk()), `add, ${what}`).rejects.toBeInstanceOf(SimdglError);
      await victimsIntact(`dense ${what}`);
    }
  });
});
