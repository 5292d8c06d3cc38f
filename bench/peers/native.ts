/**
 * Native C peer: bench/native/spmv_csr.c (CSR SpMV, OpenMP, nnz-balanced row chunks), compiled at run
 * time with `gcc -O3 -march=native -fopenmp` into a temp dir and run as a child process on the
 * matrix written out as raw binary files. The binary times itself (warm-up, then repeats for
 * ≥ minMs, median), so process start-up and file I/O are not in the number. When gcc (or its OpenMP
 * support) is missing the peer returns `{ skipped }` instead of failing the benchmark.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CSRMatrix } from '../../src/formats/csr.js';
import type { PeerResult, RealArray } from './common.js';

const run = promisify(execFile);

export interface NativeOptions {
  /** environment for finding and running gcc and the binary (default process.env); tests drop gcc from PATH */
  env?: NodeJS.ProcessEnv;
  /** compiler command (default $SIMDGL_GCC or 'gcc') */
  gcc?: string;
  /** minimum timed milliseconds inside the binary (default 300) */
  minMs?: number;
}

/**
 * The C source. From bench/peers/*.ts it is ../native/; from the bundled build/bench.js it is
 * ../bench/native/ — try both rather than depend on which one is running.
 */
function sourcePath(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, '../native/spmv_csr.c'), path.join(here, '../bench/native/spmv_csr.c')].find((p) => existsSync(p));
}

/** Compiled binaries by gcc + source hash, so a benchmark run compiles once. */
const built = new Map<string, Promise<string | { skipped: string }>>();

/**
 * Whether the native peer can run here: gcc found and able to build the source with OpenMP.
 * Resolves to the binary's path, or `{ skipped: why }`. Compiles on first call (about a second).
 */
export function nativeAvailable(options: NativeOptions = {}): Promise<string | { skipped: string }> {
  const env = options.env ?? process.env;
  const gcc = options.gcc ?? env.SIMDGL_GCC ?? 'gcc';
  // Checked every call (cheap), not cached: the answer depends on env/PATH.
  const probe = spawnSync(gcc, ['--version'], { env, encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return Promise.resolve({ skipped: `gcc not found (${gcc}: ${probe.error?.message ?? `exit ${probe.status}`}); native C peer not run` });
  }
  const src = sourcePath();
  if (!src) return Promise.resolve({ skipped: 'bench/native/spmv_csr.c not found next to the benchmark' });
  const key = `${gcc}\n${probe.stdout}\n${src}`;
  let p = built.get(key);
  if (!p) {
    p = compile(gcc, src, probe.stdout, env);
    built.set(key, p);
  }
  return p;
}

async function compile(gcc: string, src: string, version: string, env: NodeJS.ProcessEnv): Promise<string | { skipped: string }> {
  const code = await readFile(src);
  const hash = createHash('sha256').update(version).update(code).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `simdgl-native-${hash}`);
  const exe = path.join(dir, 'spmv_csr');
  if (existsSync(exe)) return exe; // same compiler, same source: reuse an earlier run's build
  await mkdir(dir, { recursive: true });
  const tmp = `${exe}.${process.pid}`; // build under a private name, then rename: parallel runs don't see half a file
  try {
    await run(gcc, ['-O3', '-march=native', '-fopenmp', '-std=c11', src, '-o', tmp], { env });
    await rename(tmp, exe);
    return exe;
  } catch (e) {
    // e.g. a `gcc` that is clang without libomp, or -march=native unsupported
    const msg = (e as { stderr?: string }).stderr?.trim().split('\n').slice(0, 3).join(' ') || String(e);
    return { skipped: `gcc could not build the OpenMP source: ${msg}` };
  }
}

const bytes = (a: Int32Array | RealArray) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * Times y = A·x with the native C kernel on `threads` OpenMP threads (real f32/f64 only).
 * Returns the binary's median ms per product and the y it wrote, or `{ skipped }`.
 */
export async function nativeCsrSpmv(A: CSRMatrix, x: RealArray, threads: number, options: NativeOptions = {}): Promise<PeerResult> {
  if (A.dtype !== 'f32' && A.dtype !== 'f64') return { skipped: `native peer handles real dtypes only, not ${A.dtype}` };
  if (x.length !== A.cols) throw new RangeError(`nativeCsrSpmv: x has length ${x.length}, expected ${A.cols}`);
  const exe = await nativeAvailable(options);
  if (typeof exe !== 'string') return exe;
  A.validate(); // the C side trusts its input; a bad index would read out of bounds there
  const Real = A.dtype === 'f32' ? Float32Array : Float64Array;
  const xs = x instanceof Real ? x : Real.from(x); // the binary reads x in the matrix's dtype
  const dir = await mkdtemp(path.join(os.tmpdir(), 'simdgl-spmv-'));
  try {
    await Promise.all([
      writeFile(path.join(dir, 'rowptr.bin'), bytes(A.rowPtr)),
      writeFile(path.join(dir, 'colidx.bin'), bytes(A.colIdx)),
      writeFile(path.join(dir, 'values.bin'), bytes(A.values)),
      writeFile(path.join(dir, 'x.bin'), bytes(xs)),
    ]);
    const t = Math.max(1, Math.floor(threads));
    const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), OMP_NUM_THREADS: String(t) };
    // pin threads (unless the caller chose a policy) so timings don't wander between cores
    env.OMP_PROC_BIND ??= 'close';
    const args = [dir, A.dtype, A.rows, A.cols, A.nnz, t, (options.minMs ?? 300) / 1e3].map(String);
    const { stdout } = await run(exe, args, { env, maxBuffer: 1 << 20 });
    const out = JSON.parse(stdout) as { ms: number };
    const buf = await readFile(path.join(dir, 'y.bin'));
    if (buf.byteLength !== A.rows * Real.BYTES_PER_ELEMENT) throw new Error(`native peer wrote ${buf.byteLength} bytes of y`);
    const y = new Real(A.rows);
    bytes(y).set(buf); // copy: buf's offset in its ArrayBuffer need not be aligned for a typed view
    return { ms: out.ms, y };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
