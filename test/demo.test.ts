// End to end: the demo page (demo/serve.mjs, the same server `npm run demo` starts) in headless
// Chromium through playwright-core, SwiftShader's WebGL2 when there is no GPU. Loads a generated
// matrix and a Matrix Market file (through the file input and through a dropped DataTransfer), races
// SpMV and CG on both paths, checks the figures and errors each panel shows, that the page logged no
// console error, and saves a screenshot to test-results/demo.png that must not be blank.
// Without /usr/bin/chromium (or $SIMDGL_CHROMIUM) the suite is skipped with a loud warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { poisson3D } from '../src/generators/index.js';
import { writeMatrixMarket } from '../src/io/index.js';
import { CHROMIUM as chromiumPath, launchChromium } from '../scripts/isolated-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const haveChromium = existsSync(chromiumPath);
const screenshotPath = join(root, 'test-results', 'demo.png');

if (!haveChromium) {
  const bar = '!'.repeat(100);
  console.warn(
    `\n${bar}\n!!  DEMO END-TO-END TEST SKIPPED: no Chromium at ${chromiumPath}.\n` +
      `!!  The demo page is NOT tested in this run. Install chromium (apt-get install chromium)\n` +
      `!!  or point SIMDGL_CHROMIUM at a Chromium binary.\n${bar}\n`,
  );
}


interface PanelView {
  state: string;
  status: string;
  text: string;
  maxError?: number;
  residual?: number;
  kernelMs?: number;
  totalMs?: number;
  gflops?: number;
  gbs?: number;
}

let server: { url: string; close(): Promise<void> } | undefined;
let browser: Browser | undefined;
let page: Page;
const consoleErrors: string[] = [];

async function panel(path: 'cpu' | 'gpu'): Promise<PanelView> {
  return page.evaluate((p) => {
    const el = document.getElementById(`panel-${p}`)!;
    const d = el.dataset;
    const num = (v?: string) => (v === undefined ? undefined : Number(v));
    return {
      state: d.state ?? '',
      status: el.querySelector('.status')?.textContent ?? '',
      text: el.innerText,
      maxError: num(d.maxError),
      residual: num(d.residual),
      kernelMs: num(d.kernelMs),
      totalMs: num(d.totalMs),
      gflops: num(d.gflops),
      gbs: num(d.gbs),
    };
  }, path);
}

async function select(id: string, value: string): Promise<void> {
  await page.selectOption(`#${id}`, value);
}

/** Sets the given selects (id → value) in order, clicks Run and waits for the race to finish; returns both panels. */
async function race(selects: Record<string, string> = {}): Promise<Record<'cpu' | 'gpu', PanelView>> {
  for (const [id, value] of Object.entries(selects)) await select(id, value);
  const before = await page.evaluate(() => (window as any).__demo.runs as number);
  await page.click('#run');
  await page.waitForFunction((n) => (window as any).__demo.runs > n, before, { timeout: 180_000, polling: 100 });
  return { cpu: await panel('cpu'), gpu: await panel('gpu') };
}

function expectFigures(p: PanelView, what: string): void {
  expect(p.state, `${what}: ${p.text}`).toBe('done');
  for (const k of ['kernelMs', 'totalMs', 'gbs'] as const) {
    expect(p[k], `${what}: ${k}`).toBeGreaterThan(0);
    expect(Number.isFinite(p[k]), `${what}: ${k} finite`).toBe(true);
  }
  expect(p.text).toMatch(/kernel time/);
  expect(p.text).toMatch(/GFLOP\/s/);
}

/** The GPU panel's checks (SwiftShader always offers WebGL2, so the GPU path must run). */
function expectGpu(p: PanelView, check: (p: PanelView) => void): void {
  check(p);
}

async function waitMatrix(pred: string): Promise<void> {
  await page.waitForFunction(pred, undefined, { timeout: 60_000, polling: 100 });
}

describe.skipIf(!haveChromium)('demo page end to end (Chromium, SwiftShader WebGL2)', () => {
  beforeAll(async () => {
    // @ts-expect-error the server is plain JavaScript
    const { startDemoServer } = await import('../demo/serve.mjs');
    server = await startDemoServer({ port: 0, prebuild: 'if-missing' });
    browser = (await launchChromium()) as Browser;
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`[pageerror] ${err.message}`));
    await page.goto(server!.url);
    await page.waitForFunction(() => (window as any).__demo?.ready === true || (window as any).__demo?.errors.length > 0, undefined, {
      timeout: 120_000,
      polling: 100,
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('starts cross-origin isolated with a device report', async () => {
    expect(await page.evaluate(() => (window as any).__demo.errors)).toEqual([]);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const gpu = await panel('gpu');
    expect(gpu.state, `the GPU path is unavailable: ${gpu.text}`).not.toBe('unavailable');
    const report = await page.innerText('#device-report');
    expect(report).toMatch(/SIMD\s+yes/);
    expect(report).toMatch(/threads\s+\d+/);
    expect(report).toMatch(/cross-origin isolated yes/);
    expect(report).toMatch(/renderer\s+\S+/);
    expect(report).toMatch(/max texture size\s+\d+/);
    expect(report).toMatch(/reported by the GPU runtime/);
    expect(report).toMatch(/EXT_color_buffer_float/);
  });

  it('SpMV on a generated 2-D Poisson matrix, both paths, small errors', async () => {
    await select('generator', 'poisson2d');
    await page.evaluate(() => {
      const s = document.getElementById('size') as HTMLInputElement;
      s.value = '48';
      s.dispatchEvent(new Event('input'));
    });
    await waitMatrix('window.__demo.matrix?.rows === 2304');
    // the sparsity picture has ink in it
    const inked = await page.evaluate(() => {
      const c = document.getElementById('sparsity') as HTMLCanvasElement;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let dark = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200) dark++;
      return dark / (d.length / 4);
    });
    expect(inked).toBeGreaterThan(0.005);
    expect(inked).toBeLessThan(0.5);
    const r = await race({ op: 'spmv', dtype: 'f32', format: 'auto' });
    expectFigures(r.cpu, 'cpu spmv f32');
    expect(r.cpu.maxError!).toBeLessThan(1e-5);
    expectGpu(r.gpu, (g) => {
      expectFigures(g, 'gpu spmv f32');
      expect(g.maxError!).toBeLessThan(1e-5);
    });
    expect(await page.innerText('#explain')).not.toBe('');
  });

  it('CG on the same matrix, both paths, residual histories on one chart', async () => {
    await select('op', 'cg');
    await select('dtype', 'f32');
    await page.fill('#tol', '1e-5');
    const r = await race();
    expectFigures(r.cpu, 'cpu cg f32');
    expect(r.cpu.residual!).toBeLessThan(1e-4);
    expect(r.cpu.maxError!).toBeLessThan(1e-2);
    expect(r.cpu.text).toMatch(/iterations\s+\d+/);
    expectGpu(r.gpu, (g) => {
      expectFigures(g, 'gpu cg f32');
      expect(g.residual!).toBeLessThan(1e-4);
      expect(g.maxError!).toBeLessThan(1e-2);
    });
    expect(await page.isVisible('#chart .uplot canvas')).toBe(true);
    const legend = await page.innerText('#chart');
    expect(legend).toMatch(/CPU/);
    expect(legend).toMatch(/GPU/);
  });

  it('a malformed dropped file gives its line number; a chosen file is parsed in a worker and raced', async () => {
    // a drop of a broken file, through a real DataTransfer
    await page.evaluate(() => {
      const text = '%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n';
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'broken.mtx', { type: 'text/plain' }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.getElementById('parse-status')!.dataset.state === 'error', undefined, { timeout: 30_000 });
    expect(await page.innerText('#parse-status')).toMatch(/broken\.mtx: .*line 4/);

    // a good file through the file input
    const mtx = writeMatrixMarket(poisson3D(8), { symmetry: 'symmetric', comment: 'poisson3D(8) for the demo test' });
    await page.setInputFiles('#file', { name: 'poisson3d_8.mtx', mimeType: 'text/plain', buffer: Buffer.from(mtx) });
    await waitMatrix("window.__demo.matrix?.name === 'poisson3d_8.mtx'");
    expect(await page.innerText('#parse-status')).toMatch(/parsed off the main thread/);
    expect(await page.evaluate(() => (window as any).__demo.matrix)).toMatchObject({ rows: 512, cols: 512, nnz: 3200 });

    const s = await race({ op: 'spmv', dtype: 'f64', format: 'csr' });
    expectFigures(s.cpu, 'cpu spmv f64 (file)');
    expect(s.cpu.maxError!).toBeLessThan(1e-14);
    expectGpu(s.gpu, (g) => {
      expectFigures(g, 'gpu spmv f64 (file)');
      expect(g.maxError!).toBeLessThan(1e-9); // double-single
    });

    await select('op', 'cg');
    await page.fill('#tol', '1e-8');
    const c = await race();
    expectFigures(c.cpu, 'cpu cg f64 (file)');
    expect(c.cpu.residual!).toBeLessThan(1e-7);
    expectGpu(c.gpu, (g) => {
      expectFigures(g, 'gpu cg f64 (file)');
      expect(g.residual!).toBeLessThan(1e-6);
    });
  });

  it('the workers slider resizes the CPU pool live', async () => {
    const max = Number(await page.getAttribute('#workers', 'max'));
    const want = Math.min(2, max);
    await page.evaluate((n) => {
      const w = document.getElementById('workers') as HTMLInputElement;
      w.value = String(n);
      w.dispatchEvent(new Event('change'));
    }, want);
    await page.waitForFunction((n) => new RegExp(`threads\\s+${n}\\b`).test(document.getElementById('device-report')!.innerText), want, {
      timeout: 30_000,
    });
  });

  it('saves a screenshot that is not blank, and the page logged no console error', async () => {
    mkdirSync(dirname(screenshotPath), { recursive: true });
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(screenshotPath, png);
    expect(png.length).toBeGreaterThan(30_000);
    // regions of the page differ from one another (a blank or single-colour page gives equal crops)
    const boxes = await page.evaluate(() =>
      ['panel-cpu', 'panel-gpu', 'sparsity', 'device'].map((id) => {
        const r = document.getElementById(id)!.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY };
      }),
    );
    const crops: string[] = [];
    for (const b of boxes) {
      const clip = { x: b.x, y: b.y, width: 200, height: 120 };
      crops.push((await page.screenshot({ clip, fullPage: true })).toString('base64'));
    }
    expect(new Set(crops).size).toBe(crops.length);
    // the panels have text
    for (const p of ['cpu', 'gpu'] as const) expect((await panel(p)).text.length).toBeGreaterThan(40);
    expect(consoleErrors).toEqual([]);
  });
});
