import type { ComparePath, CompareRow, GpuPathId } from './compare.js';

const num = (v: number | undefined, digits = 2): string => (v === undefined ? '-' : v.toFixed(digits));
const sci = (v: number | undefined): string => (v === undefined ? '-' : v.toExponential(1));
/** two significant digits where two decimals would print 0.00 (a software adapter's figures) */
const small = (v: number | undefined): string => (v === undefined ? '-' : v >= 0.1 || v === 0 ? v.toFixed(2) : v.toPrecision(2));
const LABEL: Record<ComparePath['path'], string> = { cpu: 'CPU', webgpu: 'WebGPU', webgl2: 'WebGL2' };
const SOFTWARE = 'software adapter: the shaders run on the CPU, so its times are not a GPU’s';

/**
 * The paths asked for, a line each: where it runs, or why it is unavailable (said once, not per row).
 */
export function formatPaths(paths: ComparePath[]): string {
  return paths
    .map((p) =>
      !p.available
        ? `${LABEL[p.path]} path: unavailable — ${p.reason ?? 'no reason given'}`
        : `${LABEL[p.path]} path: ${p.device ?? 'unknown device'}${p.software ? ` (${SOFTWARE})` : ''}`,
    )
    .join('\n');
}

/** Aligned text: the first two columns left, the rest right; rows of ≤ 3 cells (skips) are joined as they are. */
function align(table: string[][]): string[] {
  const cols = table[0].length;
  const widths = Array.from({ length: cols }, (_, c) => Math.max(...table.filter((t) => t.length > 3).map((t) => (t[c] ?? '').length)));
  return table.map((t) => (t.length <= 3 ? t.join('  ') : t.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')));
}

/**
 * One matrix's comparison as text. The CPU table: a line per format × dtype with the SIMD build's
 * figures, the plain build's time and the speedup of SIMD over plain and over the JavaScript CSR loop.
 * Then a table per GPU path (its device in the heading, a software adapter said so): its time,
 * GFLOP/s, GB/s, the ratio to the SIMD build when the CPU path ran too, and the error; a format the
 * path has no kernel for shows the format it ran as.
 */
export function formatCompareTable(rows: CompareRow[], paths: ComparePath[] = []): string {
  if (rows.length === 0) return '';
  const { matrix, rows: m, cols: n, nnz } = rows[0];
  const out = [`\n${matrix}  ${m}×${n}  nnz ${nnz}`];
  const cpuRows = rows.filter((r) => r.impl !== 'webgpu' && r.impl !== 'webgl2');
  if (cpuRows.length) out.push(...cpuTable(cpuRows));
  for (const id of ['webgpu', 'webgl2'] as const) {
    const own = rows.filter((r) => r.impl === id);
    if (own.length) out.push(...gpuTable(id, own, cpuRows, paths.find((p) => p.path === id)));
  }
  return out.join('\n');
}

function cpuTable(rows: CompareRow[]): string[] {
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
  return ['CPU path', ...align(table)];
}

function gpuTable(id: GpuPathId, rows: CompareRow[], cpuRows: CompareRow[], path: ComparePath | undefined): string[] {
  const withSimd = cpuRows.some((r) => r.impl === 'wasm-simd');
  const head = ['format', 'dtype', `${id} ms`, 'GFLOP/s', 'GB/s', ...(withSimd ? ['simd/' + id] : []), 'max rel err'];
  const table: string[][] = [head];
  for (const r of rows) {
    // a skip of the whole dtype (complex matrix, real dtype) comes as the js-csr row
    const format = r.format === 'js-csr' ? 'all' : r.ranAs ? `${r.format} (as ${r.ranAs})` : r.format;
    if (r.skipped) {
      table.push([format, r.dtype, `skipped: ${r.skipped}`]);
      continue;
    }
    const simd = cpuRows.find((p) => p.impl === 'wasm-simd' && p.format === r.format && p.dtype === r.dtype)?.kernelMs;
    const ratio = simd && r.kernelMs ? [`${small(simd / r.kernelMs)}×`] : withSimd ? ['-'] : [];
    table.push([format, r.dtype, num(r.kernelMs, 3), small(r.gflops), small(r.gbs), ...ratio, sci(r.maxRelError)]);
  }
  const device = path?.device ? `: ${path.device}` : '';
  const lines = [`${LABEL[id]} path${device}${path?.software ? ` (${SOFTWARE})` : ''}`, ...align(table)];
  if (rows.some((r) => r.ranAs)) lines.push(`(as X): no kernel for that format on the ${LABEL[id]} path; the product ran as X (rt.explain)`);
  return lines;
}
