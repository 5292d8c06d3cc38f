/**
 * Where rt.amg's setups spend their time on the CPU pool, kernel by kernel (issue 21): the wall time of
 * each pool phase (CpuBackend.runChunksSync) and each calling-thread kernel, summed per kernel, for three
 * setups of poisson3D(n) in one process — the first against the warm ones (V8's baseline code, fresh
 * memory). Measurement only: it wraps the backend's two entry points and the session's copy of an operand
 * into the memory (its upload: the fine A's, ≈ 175 MB at n = 128). Bundled by amg-build.sh.
 *   node [--no-liftoff] amg-setup-kernels.mjs [--n 128] [--workers 16]
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { CpuSparseSession } from '../../src/cpu/spgemm.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const n = arg('--n', 128);
const rt = await createRuntime({ workers: arg('--workers', 16) });
const B = rt.cpuBackend;
const proto = Object.getPrototypeOf(B);
let acc = new Map<string, number>();
const add = (k: string, t: number) => acc.set(k, (acc.get(k) ?? 0) + t);
let depth = 0;
const timed = <T>(k: string, f: () => T): T => {
  const t = performance.now();
  depth++;
  try {
    return f();
  } finally {
    depth--;
    if (depth === 0) add(k, performance.now() - t);
  }
};
const chunks = proto.runChunksSync;
proto.runChunksSync = function (k: string, ...a: unknown[]) {
  return timed(k, () => chunks.call(this, k, ...a));
};
const kernel = proto.kernel;
proto.kernel = function (name: string) {
  const f = kernel.call(this, name);
  return (...a: number[]) => timed(name, () => f(...a));
};
// the session's copies of operands into the pool's memory (the fine A's above all), timed as one entry
const session = CpuSparseSession.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const upload = session.upload;
session.upload = function (...a: unknown[]) {
  return timed('(session upload: copies into the memory)', () => upload.apply(this, a));
};
const h = rt.upload(poisson3D(n));
rt.explain('solve', h); // the structure made, as after the bench's plain CG
const rows: [number, number, Map<string, number>][] = [];
for (let k = 0; k < 3; k++) {
  acc = new Map();
  const c = process.cpuUsage();
  const t = performance.now();
  const M = rt.amg(h);
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  rows.push([wall, (u.user + u.system) / 1000, acc]);
  M.dispose();
}
console.log(`# poisson3D(${n}), ${B.threads} threads, ${process.execArgv.join(' ')}; setups: wall ${rows.map(([w]) => w.toFixed(0)).join(' / ')} ms, process CPU ${rows.map(([, c]) => c.toFixed(0)).join(' / ')} ms`);
const names = [...new Set(rows.flatMap(([, , a]) => [...a.keys()]))].sort((x, y) => (rows[0][2].get(y) ?? 0) - (rows[0][2].get(x) ?? 0));
const sum = rows.map(([, , a]) => [...a.values()].reduce((s, v) => s + v, 0));
console.log(`${'in kernels'.padEnd(30)}${sum.map((v) => v.toFixed(1).padStart(8)).join('')}`);
for (const nm of names) console.log(`${nm.padEnd(30)}${rows.map(([, , a]) => (a.get(nm) ?? 0).toFixed(1).padStart(8)).join('')}`);
rt.dispose();
