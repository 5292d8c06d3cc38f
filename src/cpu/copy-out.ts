/**
 * Fresh JavaScript arrays copied out of the runtime's WebAssembly memory, each built whole by one
 * thread: rt.spgemm's product (row pointers, columns, values) is a fresh array each, and filling one
 * (its pages' first touch, then the copy) costs as much as a third of the product, so the pool's
 * workers build some while the calling thread builds the others, and hand them over by transfer
 * (WorkerPool.copyOutSync; Node only, where the calling thread can take a message synchronously).
 *
 * A description in the memory at `desc` (i32 words): the number of arrays, then for each array the
 * word offset (from desc) of its record: kind (ARRAY_I32, ARRAY_F64, or ARRAY_F32 rounded from f64),
 * length, the number of segments, then per segment its byte address and elements; the segments,
 * one after another, fill the array.
 */
export const ARRAY_I32 = 0;
export const ARRAY_F64 = 1;
export const ARRAY_F32 = 2;

export type OutArray = Int32Array | Float64Array | Float32Array;

/** One array of a description: its kind, length and the [byte address, elements] of its segments. */
export interface OutSpec {
  kind: number;
  length: number;
  segments: [number, number][];
}

/** The i32 words of the description of `specs`. */
export function describe(specs: OutSpec[]): Int32Array {
  const words: number[] = [specs.length];
  const offsets = words.length;
  for (let k = 0; k < specs.length; k++) words.push(0);
  specs.forEach((s, k) => {
    words[offsets + k] = words.length;
    words.push(s.kind, s.length, s.segments.length, ...s.segments.flat());
  });
  return Int32Array.from(words);
}

/** `a` (fresh) with a write per 4 KiB page: their first touches, page faults, taken now rather than during a copy on the critical path. */
export function touched<T extends OutArray>(a: T): T {
  for (let i = 0; i < a.length; i += 4096 / a.BYTES_PER_ELEMENT) a[i] = 0;
  return a;
}

/** The array class of `kind`. */
export function arrayClass(kind: number): Int32ArrayConstructor | Float64ArrayConstructor | Float32ArrayConstructor {
  return kind === ARRAY_I32 ? Int32Array : kind === ARRAY_F64 ? Float64Array : Float32Array;
}

/** Whether `a` is of the kind and length of array k of the description at desc. */
export function fits(a: OutArray | null, buffer: ArrayBufferLike, desc: number, k: number): a is OutArray {
  const w = new Int32Array(buffer, desc);
  const r = w[1 + k];
  return a instanceof arrayClass(w[r]) && a.length === w[r + 1];
}

/**
 * Builds array k of the description at desc in `buffer` (the memory's current buffer): into `into`
 * (of its kind and length) when given, else a fresh array.
 */
export function buildArray(buffer: ArrayBufferLike, desc: number, k: number, into?: OutArray): OutArray {
  const w = new Int32Array(buffer, desc);
  const r = w[1 + k];
  const [kind, length, count] = [w[r], w[r + 1], w[r + 2]];
  const out = into ?? new (arrayClass(kind))(length);
  let at = 0;
  for (let s = 0; s < count; s++) {
    const [ptr, len] = [w[r + 3 + 2 * s] >>> 0, w[r + 4 + 2 * s]];
    out.set(kind === ARRAY_I32 ? new Int32Array(buffer, ptr, len) : new Float64Array(buffer, ptr, len), at);
    at += len;
  }
  if (at !== length) throw new Error(`internal: copy-out array ${k} has ${at} of its ${length} elements`);
  return out;
}
