import type { CompareRow } from './compare.js';

const num = (v: number | undefined, digits = 2): string => (v === undefined ? '-' : v.toFixed(digits));
const sci = (v: number | undefined): string => (v === undefined ? '-' : v.toExponential(1));

/**
 * One matrix's comparison as a text table: a line per format × dtype with the SIMD build's figures,
 * the plain build's time and the speedup of SIMD over plain and over the JavaScript CSR loop.
 */
export function formatCompareTable(rows: CompareRow[]): string {
  if (rows.length === 0) return '';
  const { matrix, rows: m, cols: n, nnz } = rows[0];
  const out = [`\n${matrix}  ${m}×${n}  nnz ${nnz}`];
  const mtThreads = rows.find((r) => r.impl === 'wasm-simd-mt')?.threads;
  const head = ['format', 'dtype', 'simd ms', 'GFLOP/s', 'GB/s', 'plain ms', 'simd/plain', 'js-csr/simd', 'max rel err'];
  if (mtThreads) head.push(`${mtThreads} thr ms`, `${mtThreads} thr GB/s`, `${mtThreads} thr/1`);
  const table: string[][] = [head];
  const js = new Map(rows.filter((r) => r.impl === 'js').map((r) => [r.dtype, r]));
  for (const r of rows) {
    if (r.impl === 'wasm-plain' || r.impl === 'wasm-simd-mt') continue;
    if (r.skipped) {
      table.push([r.format, r.dtype, `skipped: ${r.skipped}`]);
      continue;
    }
    const plain = r.impl === 'js' ? undefined : rows.find((p) => p.impl === 'wasm-plain' && p.format === r.format && p.dtype === r.dtype);
    const jsMs = js.get(r.dtype)?.kernelMs;
    const mt = r.impl === 'js' ? undefined : rows.find((p) => p.impl === 'wasm-simd-mt' && p.format === r.format && p.dtype === r.dtype);
    const mtCells = mtThreads ? [num(mt?.kernelMs, 3), num(mt?.gbs), mt?.kernelMs && r.kernelMs ? `${num(r.kernelMs / mt.kernelMs)}×` : '-'] : [];
    table.push([
      r.format,
      r.dtype,
      num(r.kernelMs, 3),
      num(r.gflops),
      num(r.gbs),
      num(plain?.kernelMs, 3),
      plain?.kernelMs && r.kernelMs ? `${num(plain.kernelMs / r.kernelMs)}×` : '-',
      r.impl !== 'js' && jsMs && r.kernelMs ? `${num(jsMs / r.kernelMs)}×` : '-',
      sci(r.maxRelError),
      ...mtCells,
    ]);
  }
  const widths = head.map((_, c) => Math.max(...table.filter((t) => t.length > 3).map((t) => (t[c] ?? '').length)));
  for (const t of table) {
    out.push(t.length <= 3 ? t.join('  ') : t.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  }
  return out.join('\n');
}
