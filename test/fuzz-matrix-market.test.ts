/**
 * Seeded mutation fuzz of the Matrix Market reader over the shared matrices. Every mutant must either
 * parse to a matrix that passes validate() or throw a ParseError naming a line of the input; none may
 * take over a second or allocate memory out of proportion to its bytes; read as a stream of 1- or
 * 7-byte chunks it must give the same outcome as read whole.
 *
 * The seeds are miniatures of the shared files (banner, comments, a size line rewritten to the first
 * 40 entries) so that mutants are small and ten thousand of them run in seconds; a few hundred more
 * mutate the whole files (truncations and flips through the full parse).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMatrixMarket, readMatrixMarket } from '../src/io/index.js';
import { ParseError, SimdglError } from '../src/errors.js';
import type { MatrixMarketResult } from '../src/io/index.js';
import { MATRIX_DIR, sharedMatrixNames } from './matrices.js';
import { mulberry32 } from './random.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Banner, comments and size line of a file plus its first `keep` entries, the size line saying so. */
function miniature(text: string, keep: number): string {
  const lines = text.split('\n');
  let i = 1;
  while (i < lines.length && (lines[i].trim() === '' || lines[i].trimStart().startsWith('%'))) i++;
  const size = lines[i].trim().split(/\s+/);
  const coordinate = /coordinate/i.test(lines[0]);
  const body = lines.slice(i + 1).filter((l) => l.trim() !== '');
  if (coordinate) {
    const entries = body.slice(0, keep);
    return [...lines.slice(0, i), `${size[0]} ${size[1]} ${entries.length}`, ...entries, ''].join('\n');
  }
  return [...lines.slice(0, i + 1), ...body, ''].join('\n');
}

const NUMBERS = ['0', '-1', '1', '2147483647', '2147483648', '4294967296', '-2147483648', '99999999999999999999999', '1e3', '', 'nan', '+7', '0x10', '1.5'];
const VALUES = ['nan', '-inf', 'Infinity', '1e99999', '-1e-99999', '1e', '-', '.', '1.2.3', '0d5', '1E+308', '4.9e-324', '+.5', '1_0'];
const WORDS = ['coordinate', 'array', 'real', 'integer', 'complex', 'pattern', 'general', 'symmetric', 'skew-symmetric', 'hermitian', 'matrix', 'vector'];
const GARBAGE = ['\0', '\r', '\r\n', '\n', '\t', ' ', '%', '\uFEFF', '\xFF', '\u00e9', '%%MatrixMarket matrix coordinate real general\n'];

type Mutator = (b: Uint8Array, rnd: () => number, seeds: Uint8Array[]) => Uint8Array;

const pick = <T>(a: readonly T[], rnd: () => number): T => a[Math.floor(rnd() * a.length)];
const at = (b: Uint8Array, rnd: () => number): number => Math.floor(rnd() * (b.length + 1));
const splice = (b: Uint8Array, from: number, to: number, ins: Uint8Array): Uint8Array => {
  const out = new Uint8Array(b.length - (to - from) + ins.length);
  out.set(b.subarray(0, from));
  out.set(ins, from);
  out.set(b.subarray(to), from + ins.length);
  return out;
};
/** The lines of a file with one replaced by f(line, its words). */
const editLine = (b: Uint8Array, rnd: () => number, f: (words: string[], index: number) => string): Uint8Array => {
  const lines = dec.decode(b).split('\n');
  const k = Math.floor(rnd() * lines.length);
  lines[k] = f(lines[k].trim().split(/[ \t]+/), k);
  return enc.encode(lines.join('\n'));
};
/** Index of the size line (first line after the banner that is neither blank nor a comment). */
const sizeLineIndex = (lines: string[]): number => {
  let i = 1;
  while (i < lines.length && (lines[i].trim() === '' || lines[i].trimStart().startsWith('%'))) i++;
  return Math.min(i, lines.length - 1);
};

const MUTATORS: Record<string, Mutator> = {
  flipBit: (b, rnd) => {
    const o = b.slice();
    if (o.length) o[Math.floor(rnd() * o.length)] ^= 1 << Math.floor(rnd() * 8);
    return o;
  },
  randomBytes: (b, rnd) => {
    const o = b.slice();
    for (let n = 1 + Math.floor(rnd() * 8); n > 0 && o.length; n--) o[Math.floor(rnd() * o.length)] = Math.floor(rnd() * 256);
    return o;
  },
  truncate: (b, rnd) => b.slice(0, at(b, rnd)),
  deleteRange: (b, rnd) => {
    const s = at(b, rnd);
    return splice(b, s, Math.min(b.length, s + Math.floor(rnd() * 64)), new Uint8Array(0));
  },
  insertGarbage: (b, rnd) => {
    const s = at(b, rnd);
    return splice(b, s, s, enc.encode(pick(GARBAGE, rnd).repeat(1 + Math.floor(rnd() * 3))));
  },
  nulBytes: (b, rnd) => {
    const s = at(b, rnd);
    return splice(b, s, s, new Uint8Array(1 + Math.floor(rnd() * 4)));
  },
  crOnly: (b) => b.map((c) => (c === 10 ? 13 : c)),
  crlf: (b) => enc.encode(dec.decode(b).replaceAll('\n', '\r\n')),
  hugeSize: (b, rnd) => {
    const lines = dec.decode(b).split('\n');
    const k = sizeLineIndex(lines);
    const w = lines[k].trim().split(/[ \t]+/);
    const big = ['2147483648', '2147483647', '1073741824', '65536', '16384', '1000000', '100000000', '-1', '4294967295', '1e9'];
    for (let n = 1 + Math.floor(rnd() * 3); n > 0; n--) w[Math.floor(rnd() * w.length)] = pick(big, rnd);
    lines[k] = w.join(' ');
    // the promise stands over a tiny body: keep at most three lines after the size line
    return enc.encode(lines.slice(0, k + 1 + Math.floor(rnd() * 4)).join('\n'));
  },
  sizeWords: (b, rnd) => {
    const lines = dec.decode(b).split('\n');
    const k = sizeLineIndex(lines);
    const w = lines[k].trim().split(/[ \t]+/);
    if (rnd() < 0.3) w.push(pick(NUMBERS, rnd));
    else if (rnd() < 0.3) w.pop();
    else w[Math.floor(rnd() * w.length)] = pick(NUMBERS, rnd);
    lines[k] = w.join(pick([' ', '\t', '  '], rnd));
    return enc.encode(lines.join('\n'));
  },
  entryIndex: (b, rnd) =>
    editLine(b, rnd, (w, k) => {
      if (k === 0 || w.length < 2) return w.join(' ');
      w[Math.floor(rnd() * 2)] = pick(NUMBERS, rnd);
      return w.join(' ');
    }),
  entryValue: (b, rnd) =>
    editLine(b, rnd, (w, k) => {
      if (k === 0) return w.join(' ');
      if (w.length > 2 && rnd() < 0.8) w[2 + Math.floor(rnd() * (w.length - 2))] = pick(VALUES, rnd);
      else w.push(pick(VALUES, rnd));
      return w.join(' ');
    }),
  bannerWord: (b, rnd) =>
    editLine(b, rnd, (w, k) => {
      if (k !== 0 && rnd() < 0.9) return w.join(' ');
      const lines0 = dec.decode(b).split('\n')[0].trim().split(/[ \t]+/);
      lines0[1 + Math.floor(rnd() * 4)] = pick(WORDS, rnd);
      return (rnd() < 0.2 ? lines0.map((x) => x.toUpperCase()) : lines0).join(' ');
    }),
  duplicateLines: (b, rnd) => {
    const lines = dec.decode(b).split('\n');
    const k = Math.floor(rnd() * lines.length);
    lines.splice(k, 0, ...Array(1 + Math.floor(rnd() * 5)).fill(lines[k]));
    return enc.encode(lines.join('\n'));
  },
  swapLines: (b, rnd) => {
    const lines = dec.decode(b).split('\n');
    const i = Math.floor(rnd() * lines.length);
    const j = Math.floor(rnd() * lines.length);
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return enc.encode(lines.join('\n'));
  },
  spliceOther: (b, rnd, seeds) => {
    const o = pick(seeds, rnd);
    const s = at(o, rnd);
    return splice(b, at(b, rnd), b.length, o.subarray(s, Math.min(o.length, s + Math.floor(rnd() * 256))));
  },
  longToken: (b, rnd) => {
    const s = at(b, rnd);
    return splice(b, s, s, enc.encode(pick(['9', ' ', '%', '.', 'e', '-'], rnd).repeat(1000 + Math.floor(rnd() * 20000))));
  },
};
const MUTATOR_NAMES = Object.keys(MUTATORS);

type Outcome = { ok: true; r: MatrixMarketResult } | { ok: false; e: unknown };

function parseWhole(bytes: Uint8Array): Outcome {
  try {
    return { ok: true, r: parseMatrixMarket(bytes) };
  } catch (e) {
    return { ok: false, e };
  }
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function parseStream(bytes: Uint8Array, size: number): Promise<Outcome> {
  try {
    return { ok: true, r: await readMatrixMarket(chunked(bytes, size)) };
  } catch (e) {
    return { ok: false, e };
  }
}

/** Lines the input holds, counting an unterminated last line and the end of input after a final '\n'. */
function lineCount(bytes: Uint8Array): number {
  let n = 1;
  for (const c of bytes) if (c === 10) n++;
  return n;
}

/** Throws (with the mutant) when an outcome breaks the contract; returns the outcome's class name. */
function judge(o: Outcome, bytes: Uint8Array, what: string): string {
  if (o.ok) {
    try {
      o.r.matrix.validate();
    } catch (e) {
      throw new Error(`${what}: parsed to a matrix that fails validate(): ${(e as Error).message}\n${show(bytes)}`);
    }
    return 'valid';
  }
  const e = o.e;
  if (!(e instanceof ParseError)) {
    const kind = e instanceof SimdglError ? 'a typed error without a line' : 'an untyped error';
    throw new Error(`${what}: ${kind}: ${(e as Error)?.name}: ${(e as Error)?.message}\n${show(bytes)}`);
  }
  if (!(Number.isInteger(e.line) && e.line >= 1 && e.line <= lineCount(bytes)) || !e.message.startsWith(`line ${e.line}`)) {
    throw new Error(`${what}: ParseError names line ${e.line} of ${lineCount(bytes)}: ${e.message}\n${show(bytes)}`);
  }
  return e.name;
}

function show(bytes: Uint8Array): string {
  return JSON.stringify(dec.decode(bytes.subarray(0, 400)));
}

function sameOutcome(a: Outcome, b: Outcome, bytes: Uint8Array, what: string): void {
  if (a.ok !== b.ok) throw new Error(`${what}: whole gives ${a.ok ? 'a matrix' : (a.e as Error).message}, chunked ${b.ok ? 'a matrix' : (b.e as Error).message}\n${show(bytes)}`);
  if (!a.ok || !b.ok) {
    expect((b as { e: Error }).e.message, what).toBe((a as { e: Error }).e.message);
    return;
  }
  const [x, y] = [a.r.matrix, b.r.matrix];
  expect([y.format, y.rows, y.cols, y.dtype], what).toEqual([x.format, x.rows, x.cols, x.dtype]);
  expect(y.values, what).toEqual(x.values);
  if (x.format === 'coo' && y.format === 'coo') {
    expect(y.rowIdx, what).toEqual(x.rowIdx);
    expect(y.colIdx, what).toEqual(x.colIdx);
  }
}

/**
 * Bytes of ArrayBuffers an outcome may hold or have allocated: COO f64 is 16 bytes per entry of at least
 * 4 text bytes, doubled by symmetric expansion and by geometric growth; a dense array of n² elements
 * comes from at least n²/2 lines of 2 bytes; plus a fixed allowance for the first buffers.
 */
const BYTES_PER_INPUT_BYTE = 32;
const FIXED_ALLOWANCE = 256 * 1024;

const MUTANTS = 12_000;
const STREAM_EVERY = 12; // every 12th mutant is also read as 1-byte and 7-byte chunk streams

describe('Matrix Market reader under mutation', () => {
  const names = sharedMatrixNames();
  const files = names.map((n) => readFileSync(`${MATRIX_DIR}${n}.mtx`));
  const seeds = files.map((f) => enc.encode(miniature(dec.decode(f), 40)));

  it(`${MUTANTS} seeded mutants of miniatures of the shared matrices: a valid matrix or a ParseError with its line, < 1 s and bounded memory each`, async () => {
    const rnd = mulberry32(0x5eed12);
    const counts: Record<string, number> = {};
    const perMutator: Record<string, number> = {};
    let worstMs = 0;
    let worstGrowth = 0;
    const t0 = performance.now();
    for (let m = 0; m < MUTANTS; m++) {
      let bytes: Uint8Array = seeds[m % seeds.length];
      const ops = 1 + Math.floor(rnd() * 3);
      const applied: string[] = [];
      for (let k = 0; k < ops; k++) {
        const name = pick(MUTATOR_NAMES, rnd);
        applied.push(name);
        bytes = MUTATORS[name](bytes, rnd, seeds);
      }
      const what = `mutant ${m} of ${names[m % seeds.length]} (${applied.join(', ')})`;
      const before = process.memoryUsage().arrayBuffers;
      const s = performance.now();
      const whole = parseWhole(bytes);
      const ms = performance.now() - s;
      const grown = process.memoryUsage().arrayBuffers - before;
      const cls = judge(whole, bytes, what);
      counts[cls] = (counts[cls] ?? 0) + 1;
      for (const a of applied) perMutator[a] = (perMutator[a] ?? 0) + 1;
      if (ms > 1000) throw new Error(`${what} took ${ms.toFixed(0)} ms\n${show(bytes)}`);
      if (grown > BYTES_PER_INPUT_BYTE * bytes.length + FIXED_ALLOWANCE) {
        throw new Error(`${what}: ${grown} bytes of ArrayBuffers for ${bytes.length} input bytes\n${show(bytes)}`);
      }
      worstMs = Math.max(worstMs, ms);
      worstGrowth = Math.max(worstGrowth, grown);
      if (m % STREAM_EVERY === 0) {
        for (const size of [1, 7]) {
          const before2 = process.memoryUsage().arrayBuffers;
          const s2 = performance.now();
          const streamed = await parseStream(bytes, size);
          const ms2 = performance.now() - s2;
          const grown2 = process.memoryUsage().arrayBuffers - before2;
          if (ms2 > 1000) throw new Error(`${what} as ${size}-byte chunks took ${ms2.toFixed(0)} ms`);
          if (grown2 > BYTES_PER_INPUT_BYTE * bytes.length + FIXED_ALLOWANCE) {
            throw new Error(`${what} as ${size}-byte chunks: ${grown2} bytes of ArrayBuffers for ${bytes.length} input bytes\n${show(bytes)}`);
          }
          judge(streamed, bytes, `${what}, ${size}-byte chunks`);
          sameOutcome(whole, streamed, bytes, `${what}, ${size}-byte chunks`);
        }
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `Matrix Market fuzz: ${MUTANTS} mutants (${Math.ceil(MUTANTS / STREAM_EVERY)} also as 1- and 7-byte streams) in ${seconds.toFixed(1)} s; ` +
        `outcomes ${JSON.stringify(counts)}; slowest ${worstMs.toFixed(1)} ms; ` +
        `largest ArrayBuffer growth ${(worstGrowth / 1024).toFixed(0)} KiB; mutators ${JSON.stringify(perMutator)}`,
    );
    // the mix must exercise both outcomes, or the fuzz tests nothing
    expect(counts.valid).toBeGreaterThan(MUTANTS / 20);
    expect(counts.ParseError).toBeGreaterThan(MUTANTS / 5);
  });

  it('size lines promising 2^31 rows, columns or entries over a tiny body allocate by the bytes, not the promise', async () => {
    const bodies = ['1 1 1\n2 2 2\n3 3 3\n', '1 1 1\n', ''];
    const sizes = ['2147483647 2147483647 2147483647', '2147483647 2147483647 3', '1 1 2147483647', '1000000 1000000 1000000'];
    const cases: string[] = [];
    for (const s of sizes) for (const b of bodies) cases.push(`%%MatrixMarket matrix coordinate real general\n${s}\n${b}`);
    for (const s of ['16384 16384', '10000 10000', '2147483647 1', '46340 46340']) {
      for (const sym of ['general', 'symmetric']) cases.push(`%%MatrixMarket matrix array real ${sym}\n${s}\n1\n2\n3\n`);
    }
    for (const text of cases) {
      const bytes = enc.encode(text);
      for (const read of [() => parseWhole(bytes), () => parseStream(bytes, 1), () => parseStream(bytes, 4096)]) {
        const before = process.memoryUsage().arrayBuffers;
        const o = await read();
        const grown = process.memoryUsage().arrayBuffers - before;
        // "2147483647 2147483647 3" over three entries is a valid (huge, nearly empty) matrix
        judge(o, bytes, text);
        expect(grown, text).toBeLessThan(FIXED_ALLOWANCE);
      }
    }
  });

  it('stream chunks of any byte view read as their bytes; chunks that hold no bytes are a TypeError', async () => {
    const bytes = seeds[0];
    const whole = parseWhole(bytes);
    async function* views(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 8) {
        const part = bytes.slice(i, i + 8);
        yield (i % 16 ? new DataView(part.buffer) : part.buffer) as unknown as Uint8Array;
      }
    }
    sameOutcome(whole, await readMatrixMarket(views()).then((r) => ({ ok: true as const, r }), (e) => ({ ok: false as const, e })), bytes, 'views');
    async function* bad(): AsyncGenerator<Uint8Array> {
      yield bytes.subarray(0, 10);
      yield 42 as unknown as Uint8Array;
    }
    await expect(readMatrixMarket(bad())).rejects.toThrow(/must be a string, an ArrayBuffer or a Uint8Array.*got 42/);
  });

  it('mutants of the whole shared files: truncations, flips and CR-only line ends', async () => {
    const rnd = mulberry32(0xf11e5);
    const counts: Record<string, number> = {};
    let slowest = { ms: 0, what: '' };
    for (let f = 0; f < files.length; f++) {
      const reps = files[f].length > 200_000 ? 3 : 12;
      for (let r = 0; r < reps; r++) {
        const name = pick(['truncate', 'flipBit', 'randomBytes', 'crOnly', 'nulBytes', 'hugeSize'], rnd);
        const bytes = MUTATORS[name](files[f], rnd, seeds);
        const what = `${name} of the whole ${names[f]}`;
        const before = process.memoryUsage().arrayBuffers;
        const s = performance.now();
        const o = parseWhole(bytes);
        const ms = performance.now() - s;
        const grown = process.memoryUsage().arrayBuffers - before;
        const cls = judge(o, bytes, what);
        counts[cls] = (counts[cls] ?? 0) + 1;
        expect(ms, what).toBeLessThan(1000);
        if (ms > slowest.ms) slowest = { ms, what };
        expect(grown, what).toBeLessThan(BYTES_PER_INPUT_BYTE * bytes.length + FIXED_ALLOWANCE);
        if (r === 0 && bytes.length < 100_000) sameOutcome(o, await parseStream(bytes, 7), bytes, `${what}, 7-byte chunks`);
      }
    }
    console.log(`whole-file mutants: ${JSON.stringify(counts)}; slowest ${slowest.ms.toFixed(0)} ms (${slowest.what})`);
  });
});
