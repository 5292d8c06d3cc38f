// End to end: the demo page (demo/serve.mjs, the same server `npm run demo` starts) in headless
// Chromium through playwright-core, with WebGPU and WebGL2 on SwiftShader when there is no GPU
// (WEBGPU_ARGS). Loads a generated matrix and a Matrix Market file (through the file input and through
// a dropped DataTransfer), races SpMV and CG on the three paths (CPU, WebGPU, WebGL2), checks the
// figures and errors each panel shows, that the software adapter is labelled, that the page logged no
// console error, and saves a screenshot to test-results/demo.png that must not be blank. A second
// browser launched without the WebGPU flags checks that the WebGPU panel then says why it is missing.
// Without /usr/bin/chromium (or $SIMDGL_CHROMIUM) the suite is skipped with a loud warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { poisson3D } from '../src/generators/index.js';
import { writeMatrixMarket } from '../src/io/index.js';
import { CHROMIUM as chromiumPath, launchChromium, WEBGPU_ARGS } from '../scripts/isolated-page.mjs';

type Path = 'cpu' | 'webgpu' | 'webgl2';
const PATHS: Path[] = ['cpu', 'webgpu', 'webgl2'];

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
  /** the panel's device line and whether it is labelled a software adapter */
  device: string;
  software: boolean;
  message: string;
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

async function panel(path: Path, on: Page = page): Promise<PanelView> {
  return on.evaluate((p) => {
    const el = document.getElementById(`panel-${p}`)!;
    const d = el.dataset;
    const num = (v?: string) => (v === undefined ? undefined : Number(v));
    return {
      state: d.state ?? '',
      status: el.querySelector('.status')?.textContent ?? '',
      text: el.innerText,
      device: el.querySelector('.device')?.textContent ?? '',
      software: d.software === 'true' && el.querySelector('.device .software') !== null,
      message: el.querySelector('.message')?.textContent ?? '',
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

/** Sets the given selects (id → value) in order, clicks Run and waits for the race to finish; returns every panel. */
async function race(selects: Record<string, string> = {}, on: Page = page): Promise<Record<Path, PanelView>> {
  for (const [id, value] of Object.entries(selects)) await on.selectOption(`#${id}`, value);
  const before = await on.evaluate(() => (window as any).__demo.runs as number);
  await on.click('#run');
  await on.waitForFunction((n) => (window as any).__demo.runs > n, before, { timeout: 240_000, polling: 100 });
  return { cpu: await panel('cpu', on), webgpu: await panel('webgpu', on), webgl2: await panel('webgl2', on) };
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

async function waitMatrix(pred: string): Promise<void> {
  await page.waitForFunction(pred, undefined, { timeout: 60_000, polling: 100 });
}

// one server for both browsers, the same one `npm run demo` starts
beforeAll(async () => {
  if (!haveChromium) return;
  // @ts-expect-error the server is plain JavaScript
  const { startDemoServer } = await import('../demo/serve.mjs');
  server = await startDemoServer({ port: 0, prebuild: 'if-missing' });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Opens the demo in a new page of `b` and waits until it has started; console errors go to `errors`. */
async function openDemo(b: Browser, errors: string[]): Promise<Page> {
  const p = await b.newPage({ viewport: { width: 1400, height: 1000 } });
  p.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  p.on('pageerror', (err) => errors.push(`[pageerror] ${err.message}`));
  await p.goto(server!.url);
  await p.waitForFunction(() => (window as any).__demo?.ready === true || (window as any).__demo?.errors.length > 0, undefined, {
    timeout: 120_000,
    polling: 100,
  });
  return p;
}

describe.skipIf(!haveChromium)('demo page end to end (Chromium, SwiftShader WebGPU and WebGL2)', () => {
  beforeAll(async () => {
    browser = (await launchChromium(WEBGPU_ARGS)) as Browser;
    page = await openDemo(browser, consoleErrors);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('starts cross-origin isolated with a device report', async () => {
    expect(await page.evaluate(() => (window as any).__demo.errors)).toEqual([]);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    for (const p of PATHS) {
      const v = await panel(p);
      expect(v.state, `the ${p} path is unavailable: ${v.text}`).not.toBe('unavailable');
      expect(v.device, `${p} device`).toMatch(/\S/);
    }
    expect((await panel('cpu')).device).toMatch(/WebAssembly SIMD, \d+ threads?/);
    // SwiftShader's WebGPU adapter runs on the CPU: the panel must say so
    const webgpu = await panel('webgpu');
    expect(webgpu.device).toMatch(/swiftshader/i);
    expect(webgpu.software).toBe(true);
    expect(webgpu.device).toMatch(/software adapter/);
    expect((await panel('cpu')).software).toBe(false);
    const report = await page.innerText('#device-report');
    expect(report).toMatch(/SIMD\s+yes/);
    expect(report).toMatch(/threads\s+\d+/);
    expect(report).toMatch(/cross-origin isolated yes/);
    expect(report).toMatch(/WebGPU path \(WGSL compute\)\n\s+available\s+yes\n\s+device\s+\S+/);
    expect(report).toMatch(/software\s+yes/);
    expect(report).toMatch(/maxStorageBufferBindingSize\s+\d+/);
    expect(report).toMatch(/WebGL2 path \(fragment shaders\)\n\s+available\s+yes\n\s+device\s+\S+/);
    expect(report).toMatch(/maxTextureSize\s+\d+/);
    expect(report).toMatch(/colorBufferFloat\s+yes/);
  });

  it('SpMV on a generated 2-D Poisson matrix, every path, small errors', async () => {
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
    for (const p of PATHS) {
      expectFigures(r[p], `${p} spmv f32`);
      expect(r[p].maxError!, p).toBeLessThan(1e-5);
      expect(r[p].text).toMatch(/format on this path/);
    }
    // one of them is marked the fastest
    expect(await page.locator('.panel .winner').count()).toBe(1);
    expect(await page.innerText('#explain')).toMatch(/estimates — CPU: .* ms in \w+; WebGPU: .* ms in \w+; WebGL2: .* ms in \w+/);
  });

  it('solve on the same matrix, every path, residual histories on one chart', async () => {
    await select('op', 'solve');
    await select('dtype', 'f32');
    await page.fill('#tol', '1e-5');
    const r = await race();
    for (const p of PATHS) {
      expectFigures(r[p], `${p} solve f32`);
      expect(r[p].residual!, p).toBeLessThan(1e-4);
      expect(r[p].maxError!, p).toBeLessThan(1e-2);
      expect(r[p].text).toMatch(/iterations\s+\d+/);
    }
    expect(await page.isVisible('#chart .uplot canvas')).toBe(true);
    const legend = await page.innerText('#chart');
    for (const name of ['CPU', 'WebGPU', 'WebGL2']) expect(legend).toMatch(new RegExp(name));
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
    for (const p of ['webgpu', 'webgl2'] as const) {
      expectFigures(s[p], `${p} spmv f64 (file)`);
      expect(s[p].maxError!, p).toBeLessThan(1e-9); // double-single
    }

    await select('op', 'solve');
    await page.fill('#tol', '1e-8');
    const c = await race();
    expectFigures(c.cpu, 'cpu cg f64 (file)');
    expect(c.cpu.residual!).toBeLessThan(1e-7);
    for (const p of ['webgpu', 'webgl2'] as const) {
      expectFigures(c[p], `${p} cg f64 (file)`);
      expect(c[p].residual!, p).toBeLessThan(1e-6);
    }
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
      ['panel-cpu', 'panel-webgpu', 'panel-webgl2', 'sparsity', 'device'].map((id) => {
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
    for (const p of PATHS) expect((await panel(p)).text.length).toBeGreaterThan(40);
    // the three panels side by side, in one row
    const tops = await page.evaluate(() => ['cpu', 'webgpu', 'webgl2'].map((p) => document.getElementById(`panel-${p}`)!.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    expect(consoleErrors).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('demo page without WebGPU (Chromium launched without the WebGPU flags)', () => {
  let plain: Browser | undefined;
  let p: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    plain = (await launchChromium()) as Browser;
    p = await openDemo(plain, errors);
  }, 240_000);

  afterAll(async () => {
    await plain?.close();
  });

  it('the WebGPU panel says why instead of numbers; the other paths race', async () => {
    expect(await p.evaluate(() => (window as any).__demo.errors)).toEqual([]);
    const before = await panel('webgpu', p);
    expect(before.state).toBe('unavailable');
    expect(before.message.length, before.text).toBeGreaterThan(10);
    expect(before.message).toMatch(/WebGPU|adapter|navigator\.gpu/i);
    expect(await p.innerText('#device-report')).toMatch(/WebGPU path \(WGSL compute\)\n\s+available\s+no — \S+/);
    await p.evaluate(() => {
      const s = document.getElementById('size') as HTMLInputElement;
      s.value = '16';
      s.dispatchEvent(new Event('input'));
    });
    await p.waitForFunction('window.__demo.matrix?.rows === 256', undefined, { timeout: 60_000, polling: 100 });
    const r = await race({ op: 'spmv', dtype: 'f32', format: 'auto' }, p);
    expectFigures(r.cpu, 'cpu spmv f32 (no WebGPU)');
    expectFigures(r.webgl2, 'webgl2 spmv f32 (no WebGPU)');
    expect(r.webgpu.state).toBe('unavailable');
    expect(r.webgpu.message).toBe(before.message);
    expect(r.webgpu.kernelMs).toBeUndefined();
    expect(await p.evaluate(() => (window as any).__demo.results.webgpu)).toEqual({ unavailable: before.message });
    writeFileSync(join(root, 'test-results', 'demo-no-webgpu.png'), await p.screenshot({ fullPage: true }));
    expect(errors).toEqual([]);
  });
});
