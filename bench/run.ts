/**
 * `npm run bench`: single-thread SpMV in every format on poisson3D_64 and a power-law random matrix
 * (~2M nonzeros), the SIMD build against the plain build and the plain JavaScript CSR loop in the same
 * run, then Matrix Market parse speed. Prints tables, the ratios and whether each goal is met.
 */
import os from 'node:os';
import { compare, type CompareRow, type MatrixSource } from '../src/cli/compare.js';
import { formatCompareTable } from '../src/cli/table.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { benchMatrixMarket } from './mm-parse.js';

const sources: MatrixSource[] = [
  { name: 'poisson3D_64', load: () => poisson3D(64) },
  {
    name: 'powerlaw_250k',
    load: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  },
];

console.log(`simdgl bench — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version}, one thread`);
const rows: CompareRow[] = [];
for await (const r of compare(sources, { dtypes: ['f32', 'f64'], minMs: 300 })) rows.push(r);
for (const s of sources) console.log(formatCompareTable(rows.filter((r) => r.matrix === s.name)));

console.log('\nGoals');
const ms = (m: string, f: string, d: string, impl: string) =>
  rows.find((r) => r.matrix === m && r.format === f && r.dtype === d && r.impl === impl)?.kernelMs;
let failed = 0;
const goal = (label: string, ratio: number | undefined, min: number) => {
  const ok = ratio !== undefined && ratio >= min;
  if (!ok) failed++;
  console.log(`  ${ok ? 'met ' : 'MISS'}  ${label}: ${ratio === undefined ? 'n/a' : ratio.toFixed(2)}× (goal ≥ ${min}×)`);
};
for (const s of sources) {
  for (const d of ['f32', 'f64']) {
    const simd = ms(s.name, 'csr', d, 'wasm-simd');
    const js = ms(s.name, 'js-csr', d, 'js');
    goal(`${s.name} CSR ${d}: JS loop / SIMD`, js && simd ? js / simd : undefined, 3);
  }
}
for (const s of sources) {
  for (const r of rows.filter((r) => r.matrix === s.name && r.impl === 'wasm-simd' && !r.skipped)) {
    const plain = ms(s.name, r.format, r.dtype, 'wasm-plain');
    goal(`${s.name} ${r.format} ${r.dtype}: plain / SIMD`, plain && r.kernelMs ? plain / r.kernelMs : undefined, 1);
  }
}

const mm = await benchMatrixMarket();
const mmOk = mm.mbPerSecond >= 100;
if (!mmOk) failed++;
console.log(`  ${mmOk ? 'met ' : 'MISS'}  Matrix Market parse: ${mm.mbPerSecond.toFixed(0)} MB/s on ${(mm.bytes / 1e6).toFixed(0)} MB (goal ≥ 100 MB/s)`);
console.log(failed ? `\n${failed} goal(s) missed` : '\nall goals met');
