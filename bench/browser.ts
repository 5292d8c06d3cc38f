/**
 * `npm run bench -- --only browser`: the GPU path against the CPU path for SpMV in headless Chromium.
 * Without a GPU, Chromium's WebGL runs on SwiftShader, a software rasteriser: those GPU figures say
 * nothing about a real GPU, and the table says so.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { launchChromium, serveIsolated } from '../scripts/isolated-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function benchBrowser(log: (s: string) => void): Promise<void> {
  const browser = await launchChromium();
  if (!browser) {
    log('browser benchmark skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');
    return;
  }
  const out = await build({
    entryPoints: [join(root, 'bench', 'browser-page.ts')],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, external: ['node:*'],
    mainFields: ['module', 'main'], logLevel: 'silent',
  });
  const matricesDir = join(root, 'data', 'matrices');
  const server = await serveIsolated({ '/': '<!doctype html><script type="module" src="/bench.js"></script>', '/bench.js': out.outputFiles[0].text }, matricesDir);
  const names = existsSync(matricesDir) ? ['bcsstk13', 'rajat01', 'Groebner_id2003_aug', 'qc324'] : [];
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}?matrices=${names.join(',')}`);
    await page.waitForFunction(() => (window as unknown as { __bench?: unknown }).__bench !== undefined, undefined, { timeout: 600_000, polling: 500 });
    const r = (await page.evaluate(() => (window as unknown as { __bench: unknown }).__bench)) as {
      error?: string; renderer: string; threads: number;
      rows: Array<{ matrix: string; dtype: string; path: string; rows: number; nnz: number; format: string; kernelMs: number; totalMs: number; gflops: number; gbs: number }>;
    };
    if (r.error) throw new Error(r.error);
    log(`\nGPU: ${r.renderer}`);
    if (/swiftshader/i.test(r.renderer)) log('!! SwiftShader is a software rasteriser on the CPU: these GPU figures say nothing about a real GPU.');
    log(`CPU: WebAssembly SIMD × ${r.threads} workers in the page`);
    log('matrix                dtype path format   kernel ms   total ms  GFLOP/s    GB/s  gpu/cpu kernel');
    for (const row of r.rows) {
      const cpu = r.rows.find((c) => c.path === 'cpu' && c.matrix === row.matrix && c.dtype === row.dtype)!;
      log(
        [row.matrix.padEnd(21), row.dtype.padEnd(5), row.path.padEnd(4), row.format.padEnd(6), row.kernelMs.toFixed(3).padStart(10),
          row.totalMs.toFixed(1).padStart(10), row.gflops.toFixed(2).padStart(8), row.gbs.toFixed(2).padStart(7),
          row.path === 'gpu' ? `${(row.kernelMs / cpu.kernelMs).toFixed(1)}×`.padStart(14) : ''].join(' '),
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
