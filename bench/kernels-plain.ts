/**
 * The build without SIMD against the SIMD build: SpMV in every format × dtype, one thread, through the
 * runtime (`createRuntime({ simd: false })` vs `simd: 'auto'`), on poisson3D_64 and the power-law
 * matrix of `npm run bench`, and the ratio plain / SIMD per combination (goal: ≤ 2.5× everywhere). Run:
 *   npx esbuild bench/kernels-plain.ts --bundle --platform=node --format=esm --outfile=build/kernels-plain.js && node build/kernels-plain.js
 * (`npm run bench -- --only plain` runs the same.) SIMDGL_FORMATS=dia,sell and SIMDGL_DTYPES=f32,c64 time only
 * those cells (comma lists; default every format and dtype); every cell is the median of SIMDGL_ROUNDS
 * (default 3) whole passes.
 */
import { compare, type CompareRow, type MatrixSource } from '../src/cli/compare.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import type { DType } from '../src/dtype.js';
import { median } from '../src/metrics.js';
import { FORMATS, type FormatName } from '../src/formats/index.js';

export const PLAIN_GOAL = 2.5;

export interface PlainRatio {
  matrix: string;
  format: string;
  dtype: DType;
  simdMs: number;
  plainMs: number;
}

export const plainSources: MatrixSource[] = [
  { name: 'poisson3D_64', load: () => poisson3D(64) },
  {
    name: 'powerlaw_250k',
    load: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  },
];

/** Times every format × dtype in both builds (same run, same data) and returns the pairs. */
export async function benchPlain(log: (s: string) => void, sources = plainSources, minMs = 200): Promise<PlainRatio[]> {
  const rows: CompareRow[] = [];
  const pick = <T extends string>(all: readonly T[], env: string | undefined) => (env ? all.filter((v) => env.split(',').includes(v)) : all);
  const formats = pick<FormatName>(FORMATS, process.env.SIMDGL_FORMATS);
  const dtypes = pick<DType>(['f32', 'f64', 'c64', 'c128'], process.env.SIMDGL_DTYPES);
  // whole passes over every cell, `rounds` of them (SIMDGL_ROUNDS, default 3), each cell's ms the median of
  // its passes: on a shared machine a cell's single timing can move 2× while the rest stay put
  const rounds = Number(process.env.SIMDGL_ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`SIMDGL_ROUNDS = ${JSON.stringify(process.env.SIMDGL_ROUNDS)}: expected a positive integer`);
  for (let k = 0; k < rounds; k++) for await (const r of compare(sources, { minMs, formats, dtypes })) rows.push(r);
  const ms = (r: CompareRow, impl: CompareRow['impl']): number | undefined => {
    const t = rows
      .filter((q) => q.impl === impl && q.matrix === r.matrix && q.format === r.format && q.dtype === r.dtype && q.kernelMs !== undefined)
      .map((q) => q.kernelMs!);
    return t.length ? median(t) : undefined;
  };
  const out: PlainRatio[] = [];
  for (const r of rows) {
    if (r.impl !== 'wasm-simd' || r.skipped || r.kernelMs === undefined) continue;
    if (out.some((o) => o.matrix === r.matrix && o.format === r.format && o.dtype === r.dtype)) continue;
    const simdMs = ms(r, 'wasm-simd'), plainMs = ms(r, 'wasm-plain');
    if (simdMs !== undefined && plainMs !== undefined) out.push({ matrix: r.matrix, format: r.format, dtype: r.dtype, simdMs, plainMs });
  }
  const skipped = [...new Set(rows.filter((r) => r.skipped && r.format !== 'js-csr').map((r) => `${r.matrix} ${r.format} ${r.dtype}`))];
  for (const m of new Set(out.map((o) => o.matrix))) {
    log(`\n${m}: ms per SpMV, one thread, median of ${rounds} passes (plain / SIMD, goal ≤ ${PLAIN_GOAL}×)`);
    log(`${'format'.padEnd(8)}${(['f32', 'f64', 'c64', 'c128'] as const).map((d) => d.padStart(26)).join('')}`);
    for (const f of new Set(out.filter((o) => o.matrix === m).map((o) => o.format))) {
      const cells = (['f32', 'f64', 'c64', 'c128'] as const).map((d) => {
        const o = out.find((q) => q.matrix === m && q.format === f && q.dtype === d);
        if (!o) return '—'.padStart(26);
        const t = `${o.plainMs.toFixed(2)} / ${o.simdMs.toFixed(2)} = ${(o.plainMs / o.simdMs).toFixed(2)}×`;
        return (o.plainMs / o.simdMs > PLAIN_GOAL ? `!${t}` : t).padStart(26);
      });
      log(`${f.padEnd(8)}${cells.join('')}`);
    }
  }
  if (skipped.length) log(`not measured (format refused the matrix): ${skipped.join(', ')}`);
  const worst = out.reduce((w, o) => (o.plainMs / o.simdMs > w.plainMs / w.simdMs ? o : w), out[0]);
  if (worst) log(`worst plain / SIMD: ${(worst.plainMs / worst.simdMs).toFixed(2)}× (${worst.matrix} ${worst.format} ${worst.dtype})`);
  return out;
}

// run directly (not when bundled into build/bench.js, whose import.meta.url is the bundle's)
if (typeof process !== 'undefined' && /kernels-plain\.[jt]s$/.test(process.argv[1] ?? '')) {
  await benchPlain((s) => console.log(s));
}
