/**
 * Kernel-level probe for the plain-vs-SIMD DIA, ELL and SELL kernels: calls the exports of several compiled
 * builds (.wasm files, e.g. build/wasm/plain.wasm and build/wasm/simd.wasm, or copies of older builds)
 * directly on the same data in one memory, rounds interleaved, and prints min and median ms per call;
 * "BITS DIFFER" flags a build whose y is not bitwise the first build's. Run with TurboFan only, so
 * that no round times the baseline tier:
 *   npx esbuild bench/kernels-plain-probe.ts --bundle --platform=node --format=esm --outfile=build/probe.js
 *   CASES=p:dia:f32,p:dia:c64,p:sell:f32 node --no-liftoff build/probe.js build/wasm/simd.wasm build/wasm/plain.wasm
 * CASES: matrix:format:dtype (p = poisson3D_64, q = poisson3D_63, w = the 250k power-law matrix);
 * ROUNDS (15); AR, AI, BR, CONJ: α, β (β ≠ 0 fills y first) and conj; PAD: bytes between the arrays.
 */
import { readFileSync } from 'node:fs';
import { WasmHeap } from '../src/cpu/memory.js';
import { instantiateKernels } from '../src/cpu/wasm.js';
import { convert } from '../src/formats/index.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';

const files = process.argv.slice(2).filter((a) => a.endsWith('.wasm'));
const cases = (process.env.CASES ?? 'p:dia:f32,p:dia:c64,p:sell:f32').split(',');
const rounds = Number(process.env.ROUNDS ?? 15);
const heap = new WasmHeap({ shared: false, initialPages: 4000, maxPages: 32768 });
const ks = await Promise.all(files.map(async (f) => instantiateKernels(await WebAssembly.compile(readFileSync(f)), heap.memory)));
const mats: Record<string, () => any> = {
  p: () => poisson3D(64),
  q: () => poisson3D(63),
  w: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
};
const cache: Record<string, any> = {};
let yfill = false;
for (const c of cases) {
  const [m, fmt, dt] = c.split(':');
  const base = (cache[m] ??= mats[m]());
  const A = convert(base.astype(dt as any), fmt as any);
  const cplx = dt[0] === 'c';
  const put = (a: any) => heap.allocCopy(a).ptr;
  const Arr = dt === 'f32' || dt === 'c64' ? Float32Array : Float64Array;
  const x = new Arr(base.cols * (cplx ? 2 : 1));
  for (let i = 0; i < x.length; i++) x[i] = i % 97 === 5 ? -0 : Math.sin(i * 0.37);
  const pad = Number(process.env.PAD ?? 0);
  if (pad) heap.alloc(pad);
  const xp = put(x);
  if (pad) heap.alloc(pad * 2);
  const ylen = base.rows * (cplx ? 2 : 1);
  const yr = heap.alloc(ylen * Arr.BYTES_PER_ELEMENT);
  const ab = cplx ? [Number(process.env.AR ?? 1), Number(process.env.AI ?? 0), Number(process.env.BR ?? 0), 0, Number(process.env.CONJ ?? 0)] : [Number(process.env.AR ?? 1), Number(process.env.BR ?? 0)];
  if (process.env.BR) yfill = true;
  let args: number[];
  if (fmt === 'dia') args = [put(A.offsets), A.offsets.length, put(A.data), A.pitch, A.cols, xp, yr.ptr, ...ab, 0, A.rows];
  else if (fmt === 'ell') args = [put(A.colIdx), put(A.values), A.width, A.stride, xp, yr.ptr, ...ab, 0, A.rows];
  else {
    const C = A.sliceHeight;
    args = [put(A.slicePtr), C, put(A.perm), A.sortWindow === 1 ? 1 : 0, put(A.colIdx), put(A.values), xp, yr.ptr, A.rows, ...ab, 0, A.slicePtr.length - 1];
  }
  const fn = ks.map((k) => k[`${fmt}_${dt}`]);
  const ys: any[] = [];
  for (const f of fn) { { const yv = new Arr(heap.memory.buffer, yr.ptr, ylen); for (let i = 0; i < ylen; i++) yv[i] = yfill ? Math.cos(i) : 0; } f(...args); ys.push(new Uint32Array(heap.memory.buffer, yr.ptr, yr.bytes / 4).slice()); }
  const same = ys.map((y) => y.every((v: number, i: number) => v === ys[0][i]));
  const t: number[][] = fn.map(() => []);
  for (let r = 0; r < rounds; r++) for (let k = 0; k < fn.length; k++) {
    const n = 10; const t0 = performance.now(); for (let i = 0; i < n; i++) fn[k](...args); t[k].push((performance.now() - t0) / n);
  }
  const med = (a: number[]) => a.slice().sort((p, q) => p - q)[a.length >> 1];
  console.log(`${c.padEnd(14)} ` + files.map((f, k) => `${f.split('/').pop()}: min ${Math.min(...t[k]).toFixed(3)} med ${med(t[k]).toFixed(3)}${same[k] ? '' : ' BITS DIFFER'}`).join(' | '));
}
