/**
 * Model-based API fuzz (issue 23): seeded random sequences of operations on one runtime — uploads in
 * every format and dtype, vectors from every kind of data, spmv with every option (op, α, β, y, path),
 * BLAS-1, dense gemm/add/transpose, CG/BiCGSTAB/GMRES/MINRES, dispose and reuse after dispose, aliased
 * operands (y = x, BLAS-1 on one vector, gemm's C = A, a solver's x0 = b), special values (±Infinity,
 * NaN, −0, denormals) and bad inputs — each step checked against a plain f64 JavaScript model written
 * here: a result within the dtype's bound of the model's, or a typed error the model predicts (any of
 * the violations it sees; a failed call leaves data as it was, which later reads check bit for bit).
 * The model adopts each checked result, so bounds stay per step. The rules it follows for special
 * values (padding meets x, BLAS's α = 0 and β = 0, denormals a GPU may flush) are docs/errors.md's.
 *
 * Runs on the CPU path and on WebGPU (Dawn + SwiftShader, a smaller share: it is slower). Seeds are
 * fixed (FUZZ_SEED overrides the base, FUZZ_SCALE multiplies the runs); the test prints the steps run,
 * the seeds and the time. A failure prints fast-check's seed, path and the shrunk sequence, each step
 * written as the call it makes; FUZZ_REPLAY='<path>|<replayPath>' replays that sequence alone and
 * FUZZ_TRACE=1 prints each step as it runs.
 *
 * Numbers: entries and vector values are small integers (exact in every dtype), decimals up to 10⁴
 * and the special values, so every finite result stays far from overflow in f32 and the bound
 * (k + 4)·2u·Σ|terms| (+ an absolute term for denormals, flushed to zero on the GPU) is rigorous.
 * A complex result whose inputs hold a non-finite value is checked as a whole (infinite or NaN in
 * some part iff the model's is), as C's Annex G counts complex infinities; real ones exactly by class.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { COOMatrix, DenseMatrix, type FormatName } from '../src/formats/index.js';
import { DenseHandle, MatrixHandle, ResidentVector } from '../src/runtime/handles.js';
import { DisposedError, GpuUnavailableError, InputRangeError, InputTypeError, OptionError, ShapeError, UnsupportedError } from '../src/errors.js';
import type { DType } from '../src/dtype.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();

type PathId = 'cpu' | 'webgpu';
type C = [number, number];
type ErrClass = abstract new (...args: never[]) => Error;

const DTYPES: DType[] = ['f32', 'f64', 'c64', 'c128'];
const FORMATS = ['coo', 'csr', 'csc', 'mrs', 'dia', 'ell', 'jds', 'sell', 'hyb', 'auto', 'keep'] as const;
const SPECIALS = [Infinity, -Infinity, NaN, -0, 5e-324, 1e-310, 1.4e-40, 1e-45];

const cplx = (dt: DType) => dt === 'c64' || dt === 'c128';
const comps = (dt: DType) => (cplx(dt) ? 2 : 1);
const single = (dt: DType) => dt === 'f32' || dt === 'c64';
const fin = Number.isFinite;
/** a value as the dtype stores it */
const store = (dt: DType, v: number) => (single(dt) ? Math.fround(v) : v);
/** A finite value f32 cannot hold — IEEE rounding would make it ±Infinity, or a nonzero one 0: f32/c64 data refuses it (InputRangeError). */
const f32Refuses = (v: number) => Number.isFinite(v) && v !== 0 && (Math.fround(v) === 0 || !Number.isFinite(Math.fround(v)));

// ---- the model -------------------------------------------------------------------------------------

interface MMat { dtype: DType; rows: number; cols: number; entries: Map<number, C>; disposed: boolean }
interface MVec { dtype: DType; len: number; vals: Float64Array; disposed: boolean }
interface MDense { dtype: DType; rows: number; cols: number; vals: Float64Array; disposed: boolean }
interface Model { path: PathId; mats: MMat[]; vecs: MVec[]; dens: MDense[] }
interface Real { rt: Runtime; mats: MatrixHandle[]; vecs: ResidentVector[]; dens: DenseHandle[] }

/** Unit roundoff of a result on a path: single precision, f64 on the CPU, double-single on a GPU. */
const unit = (path: PathId, dt: DType) => (single(dt) ? 2 ** -24 : path === 'cpu' ? 2 ** -53 : 2 ** -44);
/** What a denormal operand may lose: all of it on a GPU (flush to zero), the gradual underflow step on the CPU. */
const tiny = (path: PathId, dt: DType) => (path !== 'cpu' ? 2 ** -126 : single(dt) ? 2 ** -149 : 2 ** -1074);

/**
 * How a path treats denormals: kept (the CPU path, IEEE), or possibly flushed to zero, operands and
 * results (WGSL allows it): on a GPU path a result may match either model.
 */
type Flush = (v: number) => number;
const keepDenormals: Flush = (v) => v;
const flushDenormals: Flush = (v) => (Math.abs(v) < 2 ** -126 ? 0 : v);
const flushesOf = (path: PathId): Flush[] => (path === 'cpu' ? [keepDenormals] : [keepDenormals, flushDenormals]);

/** Accumulates one result element: its value, Σ|terms|, a loose magnitude for flushed denormals, terms, and whether a non-finite input fed it. */
class Acc {
  re = 0; im = 0; mag = 0; loose = 1; k = 0; bad = false;
  constructor(readonly f: Flush = keepDenormals) {}
  /** += a·b (complex when `c`) */
  addProduct(a0: C, b0: C, c: boolean): void {
    const f = this.f;
    const [a, b]: C[] = [[f(a0[0]), f(a0[1])], [f(b0[0]), f(b0[1])]];
    this.re = f(this.re + (c ? f(f(a[0] * b[0]) - f(a[1] * b[1])) : f(a[0] * b[0])));
    if (c) this.im = f(this.im + f(f(a[0] * b[1]) + f(a[1] * b[0])));
    this.mag += Math.hypot(a[0], a[1]) * Math.hypot(b[0], b[1]);
    this.loose += Math.hypot(a[0], a[1]) + Math.hypot(b[0], b[1]) + 1;
    this.k++;
    this.bad ||= !(fin(a[0]) && fin(a[1]) && fin(b[0]) && fin(b[1]));
  }
  /** the result α·(accumulated) + β·y (β = [0, 0]: y not read) */
  scaled(alpha: C, beta: C, y: C, c: boolean): Acc {
    const r = new Acc(this.f);
    r.addProduct(alpha, [this.re, this.im], c);
    r.mag = Math.hypot(...alpha) * this.mag;
    r.loose = (Math.hypot(...alpha) + 1) * this.loose;
    r.k = this.k + 1;
    r.bad ||= this.bad;
    if (beta[0] !== 0 || beta[1] !== 0) {
      const t = new Acc(this.f);
      t.addProduct(beta, y, c);
      r.re = this.f(r.re + t.re); r.im = this.f(r.im + t.im); r.mag += t.mag; r.loose += t.loose; r.k++; r.bad ||= t.bad;
    }
    return r;
  }
}

/** Whether `got` (interleaved parts) is the model's result (built under each denormal rule of the path) within the bound; a message if not. */
function checkModel(what: string, got: ArrayLike<number>, at: number, build: (f: Flush) => Acc, c: boolean, path: PathId, dt: DType): string | null {
  let first: string | null = null;
  for (const f of flushesOf(path)) {
    const msg = checkAcc(what, got, at, build(f), c, path, dt);
    if (!msg) return null;
    first ??= msg;
  }
  return first;
}

function checkAcc(what: string, got: ArrayLike<number>, at: number, e: Acc, c: boolean, path: PathId, dt: DType): string | null {
  const g: C = [got[at], c ? got[at + 1] : 0];
  const want: C = [e.re, c ? e.im : 0];
  const show = `${what}: got ${c ? `[${g}]` : g[0]}, the model says ${c ? `[${want}]` : want[0]}`;
  if (c && e.bad) {
    const nf = (v: C) => !fin(v[0]) || !fin(v[1]);
    return nf(g) === nf(want) ? null : `${show} (a non-finite input: the result must be non-finite iff the model's is)`;
  }
  const bound = (e.k + 4) * 2 * unit(path, dt) * e.mag + (e.k + 4) * 4 * tiny(path, dt) * e.loose;
  for (let p = 0; p < (c ? 2 : 1); p++) {
    const [x, w] = [g[p], want[p]];
    const ok = Number.isNaN(w) ? Number.isNaN(x) : !fin(w) ? x === w : fin(x) && Math.abs(x - w) <= bound;
    if (!ok) return `${show} (bound ${bound.toExponential(2)})`;
  }
  return null;
}

const at = (v: ArrayLike<number>, i: number, c: boolean): C => [v[c ? 2 * i : i], c ? v[2 * i + 1] : 0];

// ---- values, data and their reproducer text -----------------------------------------------------------

const num = (v: number): string => (Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : String(v));
const nums = (a: ArrayLike<number>): string => `[${Array.from(a, num).join(', ')}]`;

const valueArb = (specials: number) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: -4, max: 4 }) },
    { weight: 3, arbitrary: fc.double({ min: -1e4, max: 1e4, noNaN: true }) },
    { weight: specials, arbitrary: fc.constantFrom(...SPECIALS) },
  );
const poolArb = (specials: number) => fc.array(valueArb(specials), { minLength: 16, maxLength: 16 });
const take = (pool: number[], n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => pool[(from + i) % pool.length]);

const DATA_KINDS = ['f64', 'f64', 'f64', 'f32', 'array', 'i32', 'u16', 'big', 'arraylike', 'null', 'str', 'lenobj', 'mixed', 'bigbig'] as const;
type DataKind = (typeof DATA_KINDS)[number];

/** Vector data of a kind built from numbers: the object passed, what the model reads from it, or the error it predicts. */
function makeData(kind: DataKind, values: number[]): { data: unknown; vals: Float64Array | null; err: ErrClass | null; text: string } {
  const ints = values.map((v) => (fin(v) ? Math.trunc(v) : 0));
  const ok = (data: unknown, text: string) => ({ data, vals: Float64Array.from(data as ArrayLike<number>, Number), err: null, text });
  switch (kind) {
    case 'f64': return ok(Float64Array.from(values), `new Float64Array(${nums(values)})`);
    case 'f32': return ok(Float32Array.from(values), `new Float32Array(${nums(values)})`);
    case 'array': return ok([...values], nums(values));
    case 'i32': return ok(Int32Array.from(ints), `new Int32Array(${nums(ints)})`);
    case 'u16': return ok(Uint16Array.from(ints), `new Uint16Array(${nums(ints)})`);
    case 'big': return { ...ok(BigInt64Array.from(ints, BigInt), ''), vals: Float64Array.from(ints), text: `new BigInt64Array([${ints.map((v) => `${v}n`)}])` };
    case 'arraylike': return ok(Object.assign({}, values, { length: values.length }), `{ length: ${values.length}, ...${nums(values)} }`);
    case 'null': return { data: null, vals: null, err: InputTypeError, text: 'null' };
    case 'str': return { data: 'abc', vals: null, err: InputTypeError, text: "'abc'" };
    case 'lenobj': return values.length ? { data: { length: values.length }, vals: null, err: InputTypeError, text: `{ length: ${values.length} }` } : ok({ length: 0 }, '{ length: 0 }');
    case 'mixed': return { data: [...values, 'x'], vals: null, err: InputTypeError, text: `[...${nums(values)}, 'x']` };
    case 'bigbig': return { data: BigInt64Array.from([2n ** 60n, ...ints.map(BigInt)]), vals: null, err: InputRangeError, text: `new BigInt64Array([2n ** 60n, …])` };
  }
}

/**
 * Scalars (α, β) are normal numbers, zero or special: a denormal α becomes 0 in an f32 kernel or a GPU
 * uniform, where α = 0 has rules of its own (dense ops skip A), so which one applies would be up to the
 * kernel. Denormals stay in the data.
 */
function normalScalar(v: number): number {
  return v !== 0 && Math.abs(v) < 2 ** -126 ? 2 ** -100 : v;
}

/** A scalar option as given: a number, [re, im], or a bad value; what it is as [re, im], or the error it predicts. */
const scalarValueArb = (specials: number) => valueArb(specials).map(normalScalar);
const scalarArb = (specials: number) =>
  fc.oneof(
    { weight: 8, arbitrary: scalarValueArb(specials) },
    { weight: 3, arbitrary: fc.tuple(scalarValueArb(specials), scalarValueArb(specials)) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, '2', [1, 2, 3], [1], undefined) },
  );
function scalarOf(s: unknown, dt: DType, fallback: number): C | ErrClass {
  if (s === undefined) return [fallback, 0];
  if (typeof s === 'number') return [s, 0];
  if (Array.isArray(s) && s.length === 2 && typeof s[0] === 'number' && typeof s[1] === 'number') return !cplx(dt) && s[1] !== 0 ? UnsupportedError : [s[0], s[1]];
  return InputTypeError;
}
const showArg = (v: unknown): string =>
  typeof v === 'number' ? num(v) : Array.isArray(v) ? `[${v.map(showArg).join(', ')}]` : typeof v === 'string' ? `'${v}'` : String(v);

// ---- the steps ------------------------------------------------------------------------------------------

let steps = 0;
const TRACE = process.env.FUZZ_TRACE === '1';

/** Runs a call the model expects to succeed (violations empty) or to fail with one of the violations' classes. */
async function outcome<T>(violations: ErrClass[], what: string, call: () => Promise<T> | T): Promise<T | undefined> {
  let result: T | undefined;
  let error: unknown = null;
  try {
    result = await call();
  } catch (e) {
    error = e;
  }
  if (violations.length) {
    const names = [...new Set(violations.map((v) => v.name))].join(' or ');
    if (!error) throw new Error(`${what}: succeeded, the model expects ${names}`);
    if (!violations.some((v) => error instanceof v)) throw new Error(`${what}: threw ${(error as Error)?.name}: ${(error as Error)?.message}; the model expects ${names}`);
    return undefined;
  }
  if (error) throw new Error(`${what}: threw ${(error as Error)?.name}: ${(error as Error)?.message}; the model expects success`, { cause: error });
  return result;
}

function fail(msg: string | null): void {
  if (msg) throw new Error(msg);
}

/** A step: its reproducer text, whether it applies to the model's state, and what it does. */
class Step implements fc.AsyncCommand<Model, Real> {
  constructor(
    private readonly text: (m: Model) => string,
    /** `say` sets the text of a step that knows it only once it has resolved its operands */
    private readonly body: (m: Model, r: Real, label: string, say: (text: string) => string) => Promise<void>,
    private readonly applies: (m: Model) => boolean = () => true,
  ) {}
  private label = '';
  check(m: Readonly<Model>): boolean {
    return this.applies(m as Model);
  }
  async run(m: Model, r: Real): Promise<void> {
    steps++;
    this.label = this.text(m);
    try {
      await this.body(m, r, this.label, (text) => (this.label = text));
    } finally {
      if (TRACE) console.log(this.label);
    }
  }
  toString(): string {
    return this.label || '(not run)';
  }
}

/** A step whose text is known only once its body has resolved the operands (the body calls `say`). */
const lateStep = (body: (m: Model, r: Real, say: (text: string) => string) => Promise<void>, applies: (m: Model) => boolean): Step =>
  new Step(() => '', (m, r, _label, say) => body(m, r, say), applies);

/** The operand a step picks (its index modulo the list), its dtype, and DisposedError once it is disposed. */
function pick<T extends { dtype: DType; disposed: boolean }>(list: T[], i: number): { index: number; it: T; dt: DType; c: boolean; violations: ErrClass[] } {
  const index = i % list.length;
  const it = list[index];
  return { index, it, dt: it.dtype, c: cplx(it.dtype), violations: it.disposed ? [DisposedError] : [] };
}

/** rt.upload of a COO matrix (duplicates add up) in a format and dtype */
const uploadArb = (specials: number) =>
  fc
    .record({
      rows: fc.integer({ min: 1, max: 5 }),
      cols: fc.integer({ min: 1, max: 5 }),
      square: fc.boolean(),
      dtype: fc.constantFrom(...DTYPES),
      format: fc.constantFrom(...FORMATS),
      triplets: fc.array(fc.tuple(fc.nat(), fc.nat(), valueArb(specials), valueArb(specials)), { maxLength: 12 }),
      diagonal: fc.boolean(),
    })
    .map((s) => {
      const cols = s.square ? s.rows : s.cols;
      const trip = s.triplets.map(([i, j, re, im]) => [i % s.rows, j % cols, re, im] as const);
      // a dominant diagonal makes most solves converge, so their answers get checked
      if (s.diagonal && s.square) for (let i = 0; i < s.rows; i++) trip.push([i, i, 8 + i, 0] as const);
      const c = cplx(s.dtype);
      const values = trip.flatMap(([, , re, im]) => (c ? [re, im] : [re]));
      const text = `rt.upload(new COOMatrix(${s.rows}, ${cols}, '${s.dtype}', new Int32Array(${nums(trip.map((t) => t[0]))}), new Int32Array(${nums(trip.map((t) => t[1]))}), ${single(s.dtype) ? 'Float32Array' : 'Float64Array'}.from(${nums(values)})), { format: '${s.format}' })`;
      return new Step(
        (m) => `M${m.mats.length} = ${text}`,
        async (m, r, label) => {
          const arr = single(s.dtype) ? Float32Array.from(values) : Float64Array.from(values);
          const coo = new COOMatrix(s.rows, cols, s.dtype, Int32Array.from(trip, (t) => t[0]), Int32Array.from(trip, (t) => t[1]), arr);
          const h = await outcome([], label, () => r.rt.upload(coo, { format: s.format as FormatName | 'auto' | 'keep' }));
          const entries = new Map<number, C>();
          trip.forEach(([i, j], k) => {
            const key = i * cols + j;
            const old = entries.get(key) ?? [0, 0];
            // summed in the dtype, as the conversion sums duplicates
            entries.set(key, [store(s.dtype, old[0] + arr[c ? 2 * k : k]), c ? store(s.dtype, old[1] + arr[2 * k + 1]) : 0]);
          });
          m.mats.push({ dtype: s.dtype, rows: s.rows, cols, entries, disposed: false });
          r.mats.push(h!);
        },
      );
    });

/** rt.vector from data of any kind (or a length), with or without a dtype */
const vectorArb = (specials: number) =>
  fc.record({ kind: fc.constantFrom(...DATA_KINDS), len: fc.integer({ min: 0, max: 6 }), dtype: fc.option(fc.constantFrom<unknown>(...DTYPES, 'f16'), { freq: 2 }), pool: poolArb(specials), zeros: fc.boolean() }).map(
    (s) => {
      const given = s.dtype ?? undefined;
      return new Step(
        (m) => `V${m.vecs.length} = rt.vector(${s.zeros ? s.len : makeData(s.kind, take(s.pool, s.len)).text}${given === undefined ? '' : `, '${given}'`})`,
        async (m, r, label) => {
          const violations: ErrClass[] = [];
          let vals: Float64Array;
          let dtype: DType;
          let data: unknown = s.len;
          if (s.zeros) {
            dtype = (given ?? 'f64') as DType;
            vals = new Float64Array(s.len * comps(dtype));
          } else {
            const d = makeData(s.kind, take(s.pool, s.len));
            data = d.data;
            if (d.err) violations.push(d.err);
            dtype = (given ?? (d.data instanceof Float32Array ? 'f32' : 'f64')) as DType;
            vals = d.vals ?? new Float64Array(0);
          }
          if (!DTYPES.includes(dtype)) violations.push(UnsupportedError);
          else if (!s.zeros && vals.length % comps(dtype)) violations.push(ShapeError);
          else if (single(dtype) && vals.some(f32Refuses)) violations.push(InputRangeError);
          const v = await outcome(violations, label, () => r.rt.vector(data as number[], given as DType));
          if (!v) return;
          const stored = vals.map((x) => store(dtype, x));
          fail(bitsDiffer(await v.read(), stored, label));
          expect(v.dtype).toBe(dtype);
          m.vecs.push({ dtype, len: stored.length / comps(dtype), vals: Float64Array.from(stored), disposed: false });
          r.vecs.push(v);
        },
      );
    },
  );

function bitsDiffer(got: ArrayLike<number>, want: ArrayLike<number>, label: string): string | null {
  if (got.length !== want.length) return `${label}: ${got.length} numbers, the model has ${want.length}`;
  for (let i = 0; i < got.length; i++) if (!Object.is(got[i], want[i]) && !(got[i] === 0 && want[i] === 0)) return `${label}: [${i}] is ${num(got[i])}, the model has ${num(want[i])}`;
  return null;
}

/** rt.spmv with every option: x as data or a resident vector, y none / typed array / resident (maybe x itself) */
const spmvArb = (specials: number, path: PathId) =>
  fc
    .record({
      mat: fc.nat(),
      xRes: fc.boolean(),
      xVec: fc.nat(),
      xKind: fc.constantFrom<DataKind>('f64', 'f64', 'f32', 'array', 'i32', 'big', 'mixed', 'null'),
      xWrongLen: fc.integer({ min: 0, max: 12 }),
      pool: poolArb(specials),
      op: fc.constantFrom<unknown>('N', 'N', 'T', 'H', null, 'X', undefined),
      alpha: scalarArb(specials),
      beta: fc.oneof(fc.constant<unknown>(0), fc.constant<unknown>(undefined), scalarArb(specials)),
      y: fc.constantFrom('none', 'typed', 'wrongTyped', 'resident', 'x'),
      yVec: fc.nat(),
      pathOpt: fc.constantFrom<unknown>(undefined, undefined, undefined, path, 'cpu', 'tpu', path === 'cpu' ? 'webgpu' : undefined),
      typo: fc.boolean(),
    })
    .map((s) =>
      lateStep(
        async (m, r, say) => {
          let text: string;
          const { index: Mi, it: M, dt, c, violations } = pick(m.mats, s.mat);
          const op = s.op === undefined ? 'N' : s.op;
          if (op !== 'N' && op !== 'T' && op !== 'H') violations.push(UnsupportedError);
          const alpha = scalarOf(s.alpha, dt, 1);
          const beta = scalarOf(s.beta, dt, 0);
          for (const a of [alpha, beta]) if (typeof a === 'function') violations.push(a);
          if (s.pathOpt === 'tpu') violations.push(OptionError);
          if (s.pathOpt === 'webgpu' && path === 'cpu') violations.push(GpuUnavailableError);
          const [inLen, outLen] = op === 'N' ? [M.cols, M.rows] : [M.rows, M.cols];
          // x
          let x: unknown;
          let xVals: Float64Array | null = null;
          let xText: string;
          let xv: MVec | null = null;
          if (s.xRes && m.vecs.length) {
            const i = s.xVec % m.vecs.length;
            xv = m.vecs[i];
            x = r.vecs[i];
            xText = `V${i}`;
            if (xv.disposed) violations.push(DisposedError);
            if (xv.dtype !== dt || xv.len !== inLen) violations.push(ShapeError);
            xVals = xv.vals;
          } else {
            const n = (s.xWrongLen === 0 ? inLen + 1 : inLen) * comps(dt);
            const d = makeData(s.xKind, take(s.pool, n));
            x = d.data;
            xText = d.text;
            if (d.err) violations.push(d.err);
            else if (s.xWrongLen === 0) violations.push(ShapeError);
            xVals = d.vals && d.vals.map((v) => store(dt, v));
          }
          // y
          let y: unknown;
          let yText = '';
          let yv: MVec | null = null;
          let yVals: Float64Array | null = null;
          let yIndex = -1;
          if (s.y === 'typed' || s.y === 'wrongTyped') {
            const want = single(dt) !== (s.y === 'wrongTyped');
            const vals = take(s.pool, outLen * comps(dt), 5);
            y = want ? Float32Array.from(vals) : Float64Array.from(vals);
            yText = `new ${want ? 'Float32Array' : 'Float64Array'}(${nums(y as ArrayLike<number>)})`;
            if (s.y === 'wrongTyped') violations.push(ShapeError);
            yVals = Float64Array.from(y as ArrayLike<number>);
          } else if ((s.y === 'resident' && m.vecs.length) || (s.y === 'x' && xv)) {
            yIndex = s.y === 'x' ? r.vecs.indexOf(x as ResidentVector) : s.yVec % m.vecs.length;
            yv = m.vecs[yIndex];
            y = r.vecs[yIndex];
            yText = `V${yIndex}`;
            if (yv.disposed) violations.push(DisposedError);
            if (yv.dtype !== dt || yv.len !== outLen) violations.push(ShapeError);
            yVals = yv.vals;
          }
          const options: Record<string, unknown> = {};
          if (s.op !== undefined) options.op = s.op;
          if (s.alpha !== undefined) options.alpha = s.alpha;
          if (s.beta !== undefined) options.beta = s.beta;
          if (y !== undefined) options.y = y;
          if (s.pathOpt !== undefined) options.path = s.pathOpt;
          if (s.typo) {
            options.alhpa = 1;
            violations.push(OptionError);
          }
          const optText = Object.entries(options).map(([k, v]) => `${k}: ${k === 'y' ? yText : showArg(v)}`).join(', ');
          text = say(`rt.spmv(M${Mi}, ${xText}${optText ? `, { ${optText} }` : ''})`);
          const before = yVals?.slice();
          const got = await outcome(violations, text, () => r.rt.spmv(r.mats[Mi], x as Float64Array, options as never));
          if (got === undefined) return;
          // the model: y ← α·op(A)·x + β·y over the stored entries; a conversion may drop the explicitly
          // stored zeros (which then meet no ∞ of x), so a result may match either variant (docs/errors.md)
          const model = (f: Flush, dropZeros: boolean) => {
            const accs = Array.from({ length: outLen }, () => new Acc(f));
            for (const [key, a] of M.entries) {
              if (dropZeros && a[0] === 0 && a[1] === 0) continue;
              const [i, j] = [Math.floor(key / M.cols), key % M.cols];
              const [o, inn, av] = op === 'N' ? [i, j, a] : [j, i, op === 'H' ? ([a[0], -a[1]] as C) : a];
              accs[o].addProduct(av, at(xVals!, inn, c), c);
            }
            return accs;
          };
          const variants = [false, true].map((drop) => new Map(flushesOf(path).map((f) => [f, model(f, drop)])));
          const b = beta as C;
          const readY = b[0] !== 0 || b[1] !== 0;
          const vals = got instanceof ResidentVector ? await got.read() : (got as ArrayLike<number>);
          if (got instanceof ResidentVector) expect(got).toBe(y);
          else if (y !== undefined) expect(got).toBe(y);
          expect(vals.length).toBe(outLen * comps(dt));
          // padded formats store zeros in their padding, which meet x like stored entries: a NaN or ±∞ of
          // x in a column a row does not store may make that row NaN there (docs/errors.md)
          const padded = path !== 'cpu' || ['dia', 'ell', 'sell', 'hyb', 'mrs'].includes(r.mats[Mi].format);
          const stored = new Set([...M.entries.keys()].map((key) => (op === 'N' ? key : (key % M.cols) * M.rows + Math.floor(key / M.cols))));
          const badCols = Array.from({ length: inLen }, (_, j) => at(xVals!, j, c)).flatMap((v, j) => (fin(v[0]) && fin(v[1]) ? [] : [j]));
          for (let i = 0; i < outLen; i++) {
            if (padded && badCols.some((j) => !stored.has(i * inLen + j)) && (Number.isNaN(vals[c ? 2 * i : i]) || (c && Number.isNaN(vals[2 * i + 1])))) continue;
            // no y given: a zero y is read when β ≠ 0
            const y0: C = readY && before ? at(before, i, c) : [0, 0];
            const msgs = variants.map((v) => checkModel(`${text}, row ${i}`, vals, c ? 2 * i : i, (f) => v.get(f)![i].scaled(alpha as C, b, y0, c), c, path, dt));
            if (msgs.every(Boolean)) fail(msgs[0]);
          }
          if (yv) yv.vals = Float64Array.from(vals);
        },
        (m) => m.mats.length > 0,
      ),
    );

/** BLAS-1 on resident vectors, x = y included */
const blasArb = (specials: number) =>
  fc.record({ op: fc.constantFrom('axpy', 'aypx', 'scal', 'copy', 'dot', 'nrm2'), x: fc.nat(), y: fc.nat(), same: fc.boolean(), alpha: scalarArb(specials), conj: fc.constantFrom<unknown>(undefined, true, false, 'yes') }).map(
    (s) =>
      lateStep(
        async (m, r, say) => {
          let text: string;
          const xi = s.x % m.vecs.length;
          const yi = s.same ? xi : s.y % m.vecs.length;
          const [X, Y] = [m.vecs[xi], m.vecs[yi]];
          const [x, y] = [r.vecs[xi], r.vecs[yi]];
          const dt = X.dtype;
          const c = cplx(dt);
          const violations: ErrClass[] = [];
          const oneOperand = s.op === 'scal' || s.op === 'nrm2';
          if (X.disposed || (!oneOperand && Y.disposed)) violations.push(DisposedError);
          if (!oneOperand && (X.dtype !== Y.dtype || X.len !== Y.len)) violations.push(ShapeError);
          const withAlpha = s.op === 'axpy' || s.op === 'aypx' || s.op === 'scal';
          const alpha = withAlpha ? (s.alpha === undefined ? InputTypeError : scalarOf(s.alpha, dt, 0)) : ([0, 0] as C);
          if (typeof alpha === 'function') violations.push(alpha);
          if (s.op === 'dot' && s.conj !== undefined && typeof s.conj !== 'boolean') violations.push(InputTypeError);
          const rt = r.rt;
          const call: Record<string, () => Promise<unknown>> = {
            axpy: () => rt.axpy(s.alpha as number, x, y),
            aypx: () => rt.aypx(s.alpha as number, x, y),
            scal: () => rt.scal(s.alpha as number, x),
            copy: () => rt.copy(x, y),
            dot: () => rt.dot(x, y, s.conj === undefined ? {} : { conj: s.conj as boolean }),
            nrm2: () => rt.nrm2(x),
          };
          text = say(
            s.op === 'scal' || s.op === 'nrm2'
              ? `rt.${s.op}(${s.op === 'scal' ? `${showArg(s.alpha)}, ` : ''}V${xi})`
              : `rt.${s.op}(${withAlpha ? `${showArg(s.alpha)}, ` : ''}V${xi}, V${yi}${s.op === 'dot' && s.conj !== undefined ? `, { conj: ${showArg(s.conj)} }` : ''})`,
          );
          const got = await outcome(violations, text, call[s.op]);
          if (violations.length) return;
          const a = alpha as C;
          const n = X.len;
          const xs = X.vals.slice();
          const ys = Y.vals.slice();
          if (s.op === 'dot' || s.op === 'nrm2') {
            const sum = (f: Flush) => {
              const e = new Acc(f);
              for (let i = 0; i < n; i++) {
                const xv = at(xs, i, c);
                const conj = s.op === 'nrm2' || s.conj === true;
                e.addProduct(conj ? [xv[0], -xv[1]] : xv, at(s.op === 'nrm2' ? xs : ys, i, c), c);
              }
              return e;
            };
            if (s.op === 'nrm2') {
              // ‖x‖ = sqrt(Σ|xᵢ|²): checked on the square, within the bound of the sum
              const g = got as number;
              fail(checkModel(text, [g * g], 0, sum, false, m.path, dt));
              if (!(g >= 0) && !Number.isNaN(g * g)) fail(`${text}: ${g} is not a norm`);
              return;
            }
            const g = got as number | C;
            fail(checkModel(text, c ? (g as C) : [g as number], 0, sum, c, m.path, dt));
            return;
          }
          const out = s.op === 'scal' ? X : Y;
          const vals = await (s.op === 'scal' ? x : y).read();
          for (let i = 0; i < n; i++) {
            const element = (f: Flush) => {
              const e = new Acc(f);
              if (s.op === 'copy') e.addProduct([1, 0], at(xs, i, c), c);
              else if (s.op === 'scal') {
                // α = 0 writes zeros (NaN in x does not survive), as documented
                if (a[0] !== 0 || a[1] !== 0) e.addProduct(a, at(xs, i, c), c);
              } else {
                // α = 0 does not read the scaled operand (BLAS: axpy leaves y, aypx copies x; assembly/blas1.ts)
                const [scaled, plain] = s.op === 'axpy' ? [at(xs, i, c), at(ys, i, c)] : [at(ys, i, c), at(xs, i, c)];
                if (a[0] !== 0 || a[1] !== 0) e.addProduct(a, scaled, c);
                e.addProduct([1, 0], plain, c);
              }
              return e;
            };
            fail(checkModel(`${text}, element ${i}`, vals, c ? 2 * i : i, element, c, m.path, dt));
          }
          out.vals = Float64Array.from(vals);
        },
        (m) => m.vecs.length > 0,
      ),
  );

/** rt.dense from a DenseMatrix or a shape */
const denseArb = (specials: number) =>
  fc.record({ dtype: fc.constantFrom(...DTYPES), rows: fc.integer({ min: 1, max: 4 }), cols: fc.integer({ min: 1, max: 4 }), zeros: fc.boolean(), pool: poolArb(specials) }).map((s) => {
    const n = s.rows * s.cols * comps(s.dtype);
    const vals = take(s.pool, n).map((v) => store(s.dtype, v));
    const arr = single(s.dtype) ? 'Float32Array' : 'Float64Array';
    return new Step(
      (m) => `D${m.dens.length} = rt.dense(${s.zeros ? `{ dtype: '${s.dtype}', rows: ${s.rows}, cols: ${s.cols} }` : `new DenseMatrix(${s.rows}, ${s.cols}, '${s.dtype}', ${arr}.from(${nums(vals)}))`})`,
      async (m, r, label) => {
        const from = s.zeros ? { dtype: s.dtype, rows: s.rows, cols: s.cols } : hostDense(s.dtype, s.rows, s.cols, vals);
        const h = await outcome([], label, () => r.rt.dense(from));
        m.dens.push({ dtype: s.dtype, rows: s.rows, cols: s.cols, vals: s.zeros ? new Float64Array(n) : Float64Array.from(vals), disposed: false });
        r.dens.push(h!);
      },
    );
  });

function hostDense(dt: DType, rows: number, cols: number, vals: ArrayLike<number>): DenseMatrix {
  return new DenseMatrix(rows, cols, dt, single(dt) ? Float32Array.from(vals) : Float64Array.from(vals));
}

/** gemm (C = α·A·B + β·C, C none / a handle, maybe A itself / a DenseMatrix), add (α·A + β·B), transpose */
const denseOpArb = (specials: number) =>
  fc
    .record({
      op: fc.constantFrom('gemm', 'gemm', 'add', 'transpose'),
      a: fc.nat(),
      bHandle: fc.boolean(),
      b: fc.nat(),
      fit: fc.constantFrom(true, true, true, false),
      k: fc.integer({ min: 1, max: 4 }),
      cKind: fc.constantFrom('none', 'handle', 'A', 'host'),
      c: fc.nat(),
      alpha: scalarArb(specials),
      beta: scalarArb(specials),
      pool: poolArb(specials),
    })
    .map((s) =>
      lateStep(
        async (m, r, say) => {
          let text: string;
          const { index: ai, it: A, dt, c, violations } = pick(m.dens, s.a);
          const a = r.dens[ai];
          let gotVals: ArrayLike<number> | undefined;
          let outModel: MDense | null = null;
          if (s.op === 'transpose') {
            text = say(`rt.transpose(D${ai})`);
            const T = await outcome(violations, text, () => r.rt.transpose(a));
            if (!T) return;
            gotVals = (await T.read()).values;
            expect([T.rows, T.cols]).toEqual([A.cols, A.rows]);
            for (let i = 0; i < A.cols; i++) {
              for (let j = 0; j < A.rows; j++) {
                const element = (f: Flush) => {
                  const e = new Acc(f);
                  e.addProduct([1, 0], at(A.vals, j * A.cols + i, c), c);
                  return e;
                };
                fail(checkModel(`${text} [${i}, ${j}]`, gotVals, (i * A.rows + j) * comps(dt), element, c, m.path, dt));
              }
            }
            m.dens.push({ dtype: dt, rows: A.cols, cols: A.rows, vals: Float64Array.from(gotVals), disposed: false });
            r.dens.push(T);
            return;
          }
          // B: a handle, or a host matrix that fits A (or not)
          let B: MDense;
          let b: DenseHandle | DenseMatrix;
          let bText: string;
          if (s.bHandle) {
            const bi = s.b % m.dens.length;
            [B, b, bText] = [m.dens[bi], r.dens[bi], `D${bi}`];
            if (B.disposed) violations.push(DisposedError);
          } else {
            const [rows, cols] = s.op === 'gemm' ? [s.fit ? A.cols : s.k, s.k] : [s.fit ? A.rows : s.k, s.fit ? A.cols : 1];
            const vals = take(s.pool, rows * cols * comps(dt)).map((v) => store(dt, v));
            B = { dtype: dt, rows, cols, vals: Float64Array.from(vals), disposed: false };
            b = hostDense(dt, rows, cols, vals);
            bText = `new DenseMatrix(${rows}, ${cols}, '${dt}', ${single(dt) ? 'Float32Array' : 'Float64Array'}.from(${nums(vals)}))`;
          }
          if (B.dtype !== dt) violations.push(ShapeError);
          if (s.op === 'add') {
            if (B.rows !== A.rows || B.cols !== A.cols) violations.push(ShapeError);
            const alpha = scalarOf(s.alpha, dt, 1);
            const beta = scalarOf(s.beta, dt, 1);
            for (const x of [alpha, beta]) if (typeof x === 'function') violations.push(x);
            text = say(`rt.add(D${ai}, ${bText}, { alpha: ${showArg(s.alpha)}, beta: ${showArg(s.beta)} })`);
            const S = await outcome(violations, text, () => r.rt.add(a, b as DenseHandle, { alpha: s.alpha as number, beta: s.beta as number }));
            if (!S) return;
            gotVals = (await S.read()).values;
            for (let i = 0; i < A.rows * A.cols; i++) {
              const element = (f: Flush) => {
                const e = new Acc(f);
                // α = 0: A is not read; β = 0: B is not read (BLAS's rule, src/cpu/dense.ts)
                const [al, be] = [alpha as C, beta as C];
                if (al[0] !== 0 || al[1] !== 0) e.addProduct(al, at(A.vals, i, c), c);
                if (be[0] !== 0 || be[1] !== 0) e.addProduct(be, at(B.vals, i, c), c);
                return e;
              };
              fail(checkModel(`${text} [${i}]`, gotVals, i * comps(dt), element, c, m.path, dt));
            }
            m.dens.push({ dtype: dt, rows: A.rows, cols: A.cols, vals: Float64Array.from(gotVals), disposed: false });
            r.dens.push(S);
            return;
          }
          // gemm: α, β are real numbers
          if (B.rows !== A.cols) violations.push(ShapeError);
          const alpha = s.alpha === undefined ? 1 : s.alpha;
          const beta = s.beta === undefined ? 0 : s.beta;
          for (const x of [alpha, beta]) if (typeof x !== 'number') violations.push(InputTypeError);
          let C: MDense | null = null;
          let cArg: DenseHandle | DenseMatrix | undefined;
          let cText = '';
          if (s.cKind === 'A') {
            [C, cArg, cText] = [A, a, `D${ai}`];
            violations.push(ShapeError);
          } else if (s.cKind === 'handle') {
            const ci = s.c % m.dens.length;
            [C, cArg, cText] = [m.dens[ci], r.dens[ci], `D${ci}`];
            if (C.disposed) violations.push(DisposedError);
            if (C === A || C === B) violations.push(ShapeError);
            if (C.dtype !== dt || C.rows !== A.rows || C.cols !== B.cols) violations.push(ShapeError);
          } else if (s.cKind === 'host') {
            const vals = take(s.pool, A.rows * B.cols * comps(dt), 7).map((v) => store(dt, v));
            C = { dtype: dt, rows: A.rows, cols: B.cols, vals: Float64Array.from(vals), disposed: false };
            cArg = hostDense(dt, A.rows, B.cols, vals);
            cText = `new DenseMatrix(${A.rows}, ${B.cols}, '${dt}', ${single(dt) ? 'Float32Array' : 'Float64Array'}.from(${nums(vals)}))`;
          }
          text = say(`rt.gemm(D${ai}, ${bText}, { alpha: ${showArg(alpha)}, beta: ${showArg(beta)}${cArg ? `, C: ${cText}` : ''} })`);
          const before = C?.vals.slice();
          const P = await outcome(violations, text, () => r.rt.gemm(a, b as DenseHandle, { alpha: alpha as number, beta: beta as number, ...(cArg ? { C: cArg as DenseHandle } : {}) }));
          if (!P) return;
          if (cArg) expect(P).toBe(cArg);
          gotVals = P instanceof DenseHandle ? (await P.read()).values : (P as DenseMatrix).values;
          const n = B.cols;
          for (let i = 0; i < A.rows; i++) {
            for (let j = 0; j < n; j++) {
              const element = (f: Flush) => {
                const e = new Acc(f);
                for (let k = 0; k < A.cols; k++) e.addProduct(at(A.vals, i * A.cols + k, c), at(B.vals, k * n + j, c), c);
                const y: C = C && before ? at(before, i * n + j, c) : [0, 0];
                // α = 0: A and B are not read (BLAS's rule, src/cpu/dense.ts)
                if (alpha === 0) {
                  const z = new Acc(f);
                  return z.scaled([0, 0], [beta as number, 0], y, c);
                }
                return e.scaled([alpha as number, 0], [beta as number, 0], y, c);
              };
              fail(checkModel(`${text} [${i}, ${j}]`, gotVals, (i * n + j) * comps(dt), element, c, m.path, dt));
            }
          }
          if (C && cArg instanceof DenseHandle) C.vals = Float64Array.from(gotVals);
          else if (!cArg && P instanceof DenseHandle) {
            outModel = { dtype: dt, rows: A.rows, cols: n, vals: Float64Array.from(gotVals), disposed: false };
            m.dens.push(outModel);
            r.dens.push(P);
          }
        },
        (m) => m.dens.length > 0,
      ),
    );

/** cg / bicgstab: b and x0 as data or resident vectors (maybe one), options good and bad */
const solveArb = (specials: number) =>
  fc
    .record({
      method: fc.constantFrom('cg', 'bicgstab', 'gmres', 'minres'),
      mat: fc.nat(),
      bRes: fc.boolean(),
      b: fc.nat(),
      bKind: fc.constantFrom<DataKind>('f64', 'array', 'i32', 'null'),
      x0: fc.constantFrom('none', 'data', 'b'),
      pool: poolArb(specials),
      tol: fc.constantFrom<unknown>(undefined, 1e-6, 1e-3, 0, '1e-3', -1),
      maxIter: fc.constantFrom<unknown>(undefined, 0, 1, 5, 20, '10', 1.5),
      pre: fc.constantFrom<unknown>(undefined, 'none', 'jacobi', 'jacobi', null),
      onIteration: fc.constantFrom<unknown>(undefined, 'fn', 5),
    })
    .map((s) =>
      lateStep(
        async (m, r, say) => {
          let text: string;
          const { index: Mi, it: M, dt, c, violations } = pick(m.mats, s.mat);
          const n = M.rows;
          if (M.rows !== M.cols) violations.push(ShapeError);
          const operand = (res: boolean, vecIndex: number, kind: DataKind, from: number): { arg: unknown; vals: Float64Array | null; text: string; vec: MVec | null } => {
            if (res && m.vecs.length) {
              const i = vecIndex % m.vecs.length;
              const v = m.vecs[i];
              if (v.disposed) violations.push(DisposedError);
              if (v.dtype !== dt || v.len !== n) violations.push(ShapeError);
              return { arg: r.vecs[i], vals: v.vals.slice(), text: `V${i}`, vec: v };
            }
            const d = makeData(kind, take(s.pool, n * comps(dt), from));
            if (d.err) violations.push(d.err);
            return { arg: d.data, vals: d.vals && d.vals.map((v) => store(dt, v)), text: d.text, vec: null };
          };
          const b = operand(s.bRes, s.b, s.bKind, 0);
          const x0 = s.x0 === 'none' ? null : s.x0 === 'b' ? b : operand(false, 0, 'f64', 3);
          const opts: Record<string, unknown> = {};
          if (s.tol !== undefined) opts.tol = s.tol;
          if (s.maxIter !== undefined) opts.maxIter = s.maxIter;
          if (s.pre !== undefined) opts.preconditioner = s.pre;
          let iterCalls = 0;
          if (s.onIteration !== undefined) opts.onIteration = s.onIteration === 'fn' ? () => void iterCalls++ : s.onIteration;
          if (x0) opts.x0 = x0.arg;
          if (typeof s.tol !== 'number' && s.tol !== undefined) violations.push(InputTypeError);
          if (typeof s.tol === 'number' && s.tol < 0) violations.push(InputRangeError);
          if (typeof s.maxIter === 'string') violations.push(InputTypeError);
          if (typeof s.maxIter === 'number' && !Number.isInteger(s.maxIter)) violations.push(InputRangeError);
          if (s.pre === null) violations.push(UnsupportedError);
          if (s.onIteration === 5) violations.push(InputTypeError);
          // Jacobi needs a nonzero finite diagonal (as the dtype stores it)
          if (s.pre === 'jacobi' && M.rows === M.cols) {
            for (let i = 0; i < n; i++) {
              // its inverse must be finite in the dtype (1/1e-40 overflows f32)
              const d = M.entries.get(i * n + i) ?? [0, 0];
              const sc = Math.max(Math.abs(d[0]), Math.abs(d[1]));
              const q = (d[0] / sc) ** 2 + (d[1] / sc) ** 2;
              const inverse = [store(dt, d[0] / sc / q / sc), store(dt, d[1] / sc / q / sc)];
              if (sc === 0 || !fin(sc) || !inverse.every(fin)) violations.push(ShapeError);
            }
          }
          const shown = Object.entries(opts).map(([k, v]) => `${k}: ${k === 'x0' ? x0!.text : k === 'onIteration' && typeof v === 'function' ? '() => {}' : showArg(v)}`);
          text = say(`rt.${s.method}(M${Mi}, ${b.text}${shown.length ? `, { ${shown.join(', ')} }` : ''})`);
          const run = r.rt[s.method].bind(r.rt);
          const out = await outcome(violations, text, () => run(r.mats[Mi], b.arg as Float64Array, opts as never));
          if (!out) return;
          const maxIter = typeof s.maxIter === 'number' ? s.maxIter : Math.max(100, 10 * n);
          expect(['converged', 'maxIter', 'breakdown', 'nan', 'stagnated']).toContain(out.reason);
          expect(out.reason).not.toBe('aborted');
          expect(out.converged).toBe(out.reason === 'converged');
          expect(out.iterations).toBeLessThanOrEqual(maxIter);
          expect(out.history.length, `${text}: history`).toBe(out.iterations + 1);
          if (typeof s.onIteration === 'string') expect(iterCalls, `${text}: onIteration calls`).toBe(out.iterations);
          expect(out.x.length).toBe(n * comps(dt));
          // a resident b is read, never written
          if (b.vec) fail(bitsDiffer(await (b.arg as ResidentVector).read(), b.vec.vals, `${text}: b afterwards`));
          const tol = typeof s.tol === 'number' ? s.tol : 1e-8;
          if (!out.converged) return;
          expect(out.relativeResidual).toBeLessThanOrEqual(tol);
          // the true residual ‖b − A·x‖ (0·anything is 0 here: an x that is 0 has no term)
          const bv = b.vals!;
          let rr = 0, bb = 0, aa = 0, xx = 0;
          const res = Float64Array.from(bv);
          for (const [key, a] of M.entries) {
            const [i, j] = [Math.floor(key / n), key % n];
            const xj = at(out.x, j, c);
            aa += a[0] ** 2 + a[1] ** 2;
            if (xj[0] === 0 && xj[1] === 0) continue;
            res[c ? 2 * i : i] -= a[0] * xj[0] - a[1] * xj[1];
            if (c) res[2 * i + 1] -= a[0] * xj[1] + a[1] * xj[0];
          }
          for (let i = 0; i < res.length; i++) [rr, bb, xx] = [rr + res[i] ** 2, bb + bv[i] ** 2, xx + out.x[i] ** 2];
          const u = unit(m.path, dt);
          // relative to ‖b‖, or absolute when b = 0 (the solvers' scale is then 1)
          const allowed = tol * (bb > 0 ? Math.sqrt(bb) : 1) * 1.01 + 64 * (out.iterations + 2) * u * (Math.sqrt(aa) * Math.sqrt(xx) + Math.sqrt(bb)) * Math.sqrt(n);
          if (rr !== 0 && !(Math.sqrt(rr) <= allowed)) fail(`${text}: converged, but ‖b − A·x‖ = ${Math.sqrt(rr)} > ${allowed}`);
        },
        (m) => m.mats.length > 0,
      ),
    );

/** dispose a matrix, vector or dense handle (a second dispose does nothing) */
const disposeArb = fc.record({ kind: fc.constantFrom('mats', 'vecs', 'dens'), i: fc.nat() }).map((s) => {
  const name = { mats: 'M', vecs: 'V', dens: 'D' }[s.kind];
  return new Step(
    (m) => `${name}${s.i % m[s.kind].length}.dispose()`,
    async (m, r) => {
      const i = s.i % m[s.kind].length;
      r[s.kind][i].dispose();
      m[s.kind][i].disposed = true;
      expect(r[s.kind][i].disposed).toBe(true);
    },
    (m) => m[s.kind].length > 0,
  );
});

/** read a vector or dense handle: bit for bit what the model holds (or DisposedError) */
const readArb = fc.record({ dense: fc.boolean(), i: fc.nat() }).map(
  (s) =>
    new Step(
      (m) => (s.dense ? `await D${s.i % m.dens.length}.read()` : `await V${s.i % m.vecs.length}.read()`),
      async (m, r, label) => {
        const list = s.dense ? m.dens : m.vecs;
        const i = s.i % list.length;
        const want = list[i];
        const got = await outcome(want.disposed ? [DisposedError] : [], label, () => (s.dense ? r.dens[i].read().then((d) => d.values) : r.vecs[i].read()));
        if (got) fail(bitsDiffer(got, want.vals, label));
      },
      (m) => (s.dense ? m.dens : m.vecs).length > 0,
    ),
);

/** rt.explain on a handle (disposed: DisposedError) */
const explainArb = fc.nat().map(
  (i) =>
    new Step(
      (m) => `rt.explain('spmv', M${i % m.mats.length})`,
      async (m, r, label) => {
        const k = i % m.mats.length;
        const e = await outcome(m.mats[k].disposed ? [DisposedError] : [], label, () => r.rt.explain('spmv', r.mats[k]));
        if (e) expect(['cpu', 'webgpu']).toContain(e.path);
      },
      (m) => m.mats.length > 0,
    ),
);

function commandsFor(path: PathId, specials: number) {
  return [
    uploadArb(specials),
    vectorArb(specials),
    vectorArb(specials),
    spmvArb(specials, path),
    spmvArb(specials, path),
    spmvArb(specials, path),
    blasArb(specials),
    blasArb(specials),
    denseArb(specials),
    denseOpArb(specials),
    solveArb(specials),
    disposeArb,
    readArb,
    explainArb,
  ];
}

// ---- the runs ---------------------------------------------------------------------------------------

const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/**
 * FUZZ_REPLAY='<path>|<replayPath>' (a failure's report gives both) replays its shrunk sequence alone;
 * FUZZ_TRACE=1 prints every step as it runs
 */
const [REPLAY, REPLAY_COMMANDS] = (process.env.FUZZ_REPLAY ?? '').split('|');
const BASE_SEED = Number(process.env.FUZZ_SEED ?? 2300);

/** Runs `runs` random sequences on one runtime; each sequence's handles are freed after it. */
async function fuzz(path: PathId, runs: number, maxCommands: number, seed: number): Promise<{ steps: number; ms: number }> {
  const rt = await createRuntime({ backend: path, workers: path === 'cpu' ? 2 : 1 });
  if (path === 'webgpu' && !rt.capabilities().paths.webgpu.available) throw new Error('NO WEBGPU ADAPTER (Dawn + SwiftShader expected)');
  const start = steps;
  const t0 = performance.now();
  try {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandsFor(path, 2), { maxCommands, size: 'max', ...(REPLAY_COMMANDS ? { replayPath: REPLAY_COMMANDS } : {}) }), async (cmds) => {
        const real: Real = { rt, mats: [], vecs: [], dens: [] };
        try {
          await fc.asyncModelRun(() => ({ model: { path, mats: [], vecs: [], dens: [] } as Model, real }), cmds);
        } finally {
          for (const h of [...real.mats, ...real.vecs, ...real.dens]) h.dispose();
        }
      }),
      { seed, numRuns: runs, verbose: 1, ...(REPLAY ? { path: REPLAY, endOnFailure: true } : {}) },
    );
    expect(rt.memoryInUse, 'every handle freed').toBeLessThan(1 << 20);
  } finally {
    rt.dispose();
  }
  return { steps: steps - start, ms: performance.now() - t0 };
}

describe('model-based API fuzz', () => {
  const report: string[] = [];
  afterAll(() => console.log(report.join('\n')));
  let total = 0;

  it('CPU path', async () => {
    const seed = BASE_SEED;
    const runs = Math.round(1900 * SCALE);
    const { steps: n, ms } = await fuzz('cpu', runs, 120, seed);
    total += n;
    report.push(`fuzz-api cpu: ${n} steps in ${runs} sequences, seed ${seed} (runs 0..${runs - 1}), ${(ms / 1000).toFixed(1)} s`);
    // the sequences are fixed by the seed: fewer steps means steps stopped applying (a change to the model)
    if (!REPLAY) expect(n).toBeGreaterThanOrEqual(Math.floor(95_000 * SCALE));
  }, 600_000);

  it('WebGPU path (Dawn + SwiftShader)', async () => {
    const seed = BASE_SEED + 1;
    const runs = Math.round(60 * SCALE);
    const { steps: n, ms } = await fuzz('webgpu', runs, 120, seed);
    total += n;
    report.push(`fuzz-api webgpu: ${n} steps in ${runs} sequences, seed ${seed} (runs 0..${runs - 1}), ${(ms / 1000).toFixed(1)} s`);
    report.push(`fuzz-api total: ${total} steps`);
    if (!REPLAY) expect(n).toBeGreaterThanOrEqual(Math.floor(2_500 * SCALE));
  }, 600_000);
});
