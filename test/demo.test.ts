// End to end: the demo page (demo/serve.mjs, the same server `npm run demo` starts) in each engine of
// scripts/browsers.mjs (Chromium, Firefox, WebKitGTK), launched with its WebGPU switched on. Loads a generated matrix and a Matrix Market file (through the file input and through
// a dropped DataTransfer), races SpMV and CG on the three paths (CPU, WebGPU, WebGL2), checks the
// figures and errors each panel shows, that the software adapter is labelled, that the page logged no
// console error, and saves a screenshot to test-results/demo.png that must not be blank. A second
// browser launched without the WebGPU flags checks that the WebGPU panel then says why it is missing.
// Without /usr/bin/chromium (or $SIMDGL_CHROMIUM) the suite is skipped with a loud warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { poisson3D } from '../src/generators/index.js';
import { writeMatrixMarket } from '../src/io/index.js';
import { ENGINES, launch, missing, warnMissing, type Engine, type EnginePage as Page } from '../scripts/browsers.mjs';

type Path = 'cpu' | 'webgpu' | 'webgl2';
const PATHS: Path[] = ['cpu', 'webgpu', 'webgl2'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const engines = ENGINES.filter((e) => !missing(e));
warnMissing('the demo end-to-end test');

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

async function panel(on: Page, path: Path): Promise<PanelView> {
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

/** Sets a select or input (by id) as a user would: the value, then input and change events. */
async function setValue(on: Page, id: string, value: string): Promise<void> {
  await on.evaluate(
    ([i, v]) => {
      const el = document.getElementById(i) as HTMLInputElement | HTMLSelectElement;
      el.value = v;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [id, value] as [string, string],
  );
}

const innerText = (on: Page, selector: string) => on.evaluate((s) => (document.querySelector(s) as HTMLElement).innerText, selector);

/** Sets the given selects (id → value) in order, clicks Run and waits for the race to finish; returns every panel. */
async function race(on: Page, selects: Record<string, string> = {}): Promise<Record<Path, PanelView>> {
  for (const [id, value] of Object.entries(selects)) await setValue(on, id, value);
  const before = await on.evaluate(() => (window as any).__demo.runs as number);
  await on.evaluate(() => (document.getElementById('run') as HTMLButtonElement).click());
  await on.waitFor((n) => (window as any).__demo.runs > n, before, 240_000);
  return { cpu: await panel(on, 'cpu'), webgpu: await panel(on, 'webgpu'), webgl2: await panel(on, 'webgl2') };
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

async function waitMatrix(on: Page, pred: string): Promise<void> {
  await on.waitFor(new Function(`return ${pred}`) as () => boolean, undefined, 60_000);
}

// one server for every engine, the same one `npm run demo` starts
beforeAll(async () => {
  if (!engines.length) return;
  // @ts-expect-error the server is plain JavaScript
  const { startDemoServer } = await import('../demo/serve.mjs');
  server = await startDemoServer({ port: 0, prebuild: 'if-missing' });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Opens the demo in `engine` and waits until it has started. */
async function openDemo(engine: Engine, webgpu: boolean): Promise<Page> {
  const p = await launch(engine, { webgpu, viewport: { width: 1400, height: 1000 } });
  await p.goto(server!.url);
  await p.waitFor(() => (window as any).__demo?.ready === true || (window as any).__demo?.errors.length > 0, undefined, 120_000);
  return p;
}

describe.each(engines)('demo page end to end in %s (its WebGPU switched on)', (engine: Engine) => {
  let page: Page;
  /** the paths this engine runs: all three, or cpu and webgl2 where it has no WebGPU adapter (the panel says why) */
  let racing: Path[] = PATHS;
  let webgpuWhy = '';

  beforeAll(async () => {
    page = await openDemo(engine, true);
  }, 240_000);

  afterAll(async () => {
    await page?.close();
  });

  it('starts cross-origin isolated with a device report', async () => {
    expect(await page.evaluate(() => (window as any).__demo.errors)).toEqual([]);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const webgpu = await panel(page, 'webgpu');
    if (webgpu.state === 'unavailable') {
      // Chromium has SwiftShader's adapter; another engine may lack WebGPU, and then must say why
      expect(engine, `Chromium's WebGPU panel is unavailable: ${webgpu.text}`).not.toBe('chromium');
      expect(webgpu.message).toMatch(/WebGPU|adapter|navigator\.gpu/i);
      webgpuWhy = webgpu.message;
      racing = ['cpu', 'webgl2'];
      console.log(`demo in ${engine}: the WebGPU panel says "${webgpu.message}"`);
    }
    for (const p of racing) {
      const v = await panel(page, p);
      expect(v.state, `the ${p} path is unavailable: ${v.text}`).not.toBe('unavailable');
      expect(v.device, `${p} device`).toMatch(/\S/);
    }
    expect((await panel(page, 'cpu')).device).toMatch(/WebAssembly SIMD, \d+ threads?/);
    expect((await panel(page, 'cpu')).software).toBe(false);
    const report = await innerText(page, '#device-report');
    expect(report).toMatch(/SIMD\s+yes/);
    expect(report).toMatch(/threads\s+\d+/);
    expect(report).toMatch(/cross-origin isolated yes/);
    if (racing.includes('webgpu')) {
      // a software adapter (SwiftShader's runs on the CPU) must be labelled so
      if (/swiftshader|llvmpipe|lavapipe/i.test(webgpu.device)) {
        expect(webgpu.software).toBe(true);
        expect(webgpu.device).toMatch(/software adapter/);
        expect(report).toMatch(/software\s+yes/);
      }
      expect(report).toMatch(/WebGPU path \(WGSL compute\)\n\s+available\s+yes\n\s+device\s+\S+/);
      expect(report).toMatch(/maxStorageBufferBindingSize\s+\d+/);
    } else {
      expect(report).toMatch(/WebGPU path \(WGSL compute\)\n\s+available\s+no — \S+/);
    }
    expect(report).toMatch(/WebGL2 path \(fragment shaders\)\n\s+available\s+yes\n\s+device\s+\S+/);
    expect(report).toMatch(/maxTextureSize\s+\d+/);
    expect(report).toMatch(/colorBufferFloat\s+yes/);
  });

  it('SpMV on a generated 2-D Poisson matrix, every path, small errors', async () => {
    await setValue(page, 'generator', 'poisson2d');
    await setValue(page, 'size', '48');
    await waitMatrix(page, 'window.__demo.matrix?.rows === 2304');
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
    const r = await race(page, { op: 'spmv', dtype: 'f32', format: 'auto' });
    for (const p of racing) {
      expectFigures(r[p], `${p} spmv f32`);
      expect(r[p].maxError!, p).toBeLessThan(1e-5);
      expect(r[p].text).toMatch(/format on this path/);
    }
    if (!racing.includes('webgpu')) {
      expect(r.webgpu.state).toBe('unavailable');
      expect(r.webgpu.message).toBe(webgpuWhy);
      expect(r.webgpu.kernelMs ?? undefined).toBeUndefined(); // (WebDriver classic returns undefined as null)
      expect(await page.evaluate(() => (window as any).__demo.results.webgpu)).toEqual({ unavailable: webgpuWhy });
    }
    // one of them is marked the fastest
    expect(await page.evaluate(() => document.querySelectorAll('.panel .winner').length)).toBe(1);
    const shown = PATHS.map((p) => `${{ cpu: 'CPU', webgpu: 'WebGPU', webgl2: 'WebGL2' }[p]}: ${racing.includes(p) ? '.* ms in \\w+' : 'not available'}`);
    expect(await innerText(page, '#explain')).toMatch(new RegExp(`estimates — ${shown.join('; ')}`));
  });

  it('solve on the same matrix, every path, residual histories on one chart', async () => {
    await setValue(page, 'op', 'solve');
    // CG on every path: 'auto' may pick a sparse direct factorization on the CPU path for a matrix this
    // small (no iterations, no GB/s to show), and this race is about iterative solves
    await setValue(page, 'method', 'cg');
    await setValue(page, 'dtype', 'f32');
    await setValue(page, 'tol', '1e-5');
    const r = await race(page);
    for (const p of racing) {
      expectFigures(r[p], `${p} solve f32`);
      expect(r[p].residual!, p).toBeLessThan(1e-4);
      expect(r[p].maxError!, p).toBeLessThan(1e-2);
      expect(r[p].text).toMatch(/iterations\s+\d+/);
    }
    expect(await page.evaluate(() => {
      const c = document.querySelector('#chart .uplot canvas') as HTMLElement | null;
      return c !== null && c.getBoundingClientRect().width > 0;
    })).toBe(true);
    const legend = await innerText(page, '#chart');
    for (const p of racing) expect(legend).toMatch(new RegExp({ cpu: 'CPU', webgpu: 'WebGPU', webgl2: 'WebGL2' }[p]));
  });

  it('Stokes and Oseen saddle points: MINRES and BiCGSTAB with the saddle preconditioner on every path, measured by their true residual', async () => {
    // the Stokes flow (symmetric: MINRES, the block-diagonal form) and the Oseen flow (nonsymmetric: BiCGSTAB, the
    // block-triangular form), each 4 719 unknowns; the page's CG reference does not apply to either: said, not a
    // wrong error column
    for (const [generator, method, form] of [['stokes2d', 'minres', 'diagonal'], ['oseen2d', 'bicgstab', 'triangular']] as const) {
      await setValue(page, 'generator', generator);
      await setValue(page, 'size', '40');
      await waitMatrix(page, 'window.__demo.matrix?.rows === 4719');
      const r = await race(page, { op: 'solve', method, preconditioner: 'auto', dtype: 'f64', tol: '1e-8' });
      for (const p of racing) {
        expectFigures(r[p], `${p} ${method} ${generator}(40)`);
        expect(r[p].residual!, p).toBeLessThan(1e-7);
        expect(r[p].text, p).toMatch(new RegExp(`preconditioner\\s+saddle \\(block ${form}`));
        expect(r[p].maxError ?? undefined, p).toBeUndefined(); // (WebDriver classic returns undefined as null)
        expect(r[p].message, p).toBe('indefinite system: the error column compares nothing; see the true residual');
      }
    }
    await setValue(page, 'generator', 'poisson2d');
  });

  it('a malformed dropped file gives its line number; a chosen file is parsed in a worker and raced', async () => {
    // a drop of a broken file, through a real DataTransfer
    await page.evaluate(() => {
      const text = '%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n';
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'broken.mtx', { type: 'text/plain' }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitFor(() => document.getElementById('parse-status')!.dataset.state === 'error', undefined, 30_000);
    expect(await innerText(page, '#parse-status')).toMatch(/broken\.mtx: .*line 4/);

    // a good file through the file input
    const mtx = writeMatrixMarket(poisson3D(8), { symmetry: 'symmetric', comment: 'poisson3D(8) for the demo test' });
    await page.setInputFile('#file', 'poisson3d_8.mtx', mtx);
    await waitMatrix(page, "window.__demo.matrix?.name === 'poisson3d_8.mtx'");
    expect(await innerText(page, '#parse-status')).toMatch(/parsed off the main thread/);
    expect(await page.evaluate(() => (window as any).__demo.matrix)).toMatchObject({ rows: 512, cols: 512, nnz: 3200 });

    const s = await race(page, { op: 'spmv', dtype: 'f64', format: 'csr' });
    expectFigures(s.cpu, 'cpu spmv f64 (file)');
    expect(s.cpu.maxError!).toBeLessThan(1e-14);
    for (const p of racing.filter((q) => q !== 'cpu')) {
      expectFigures(s[p], `${p} spmv f64 (file)`);
      expect(s[p].maxError!, p).toBeLessThan(1e-9); // double-single
    }

    await setValue(page, 'op', 'solve');
    await setValue(page, 'tol', '1e-8');
    const c = await race(page);
    expectFigures(c.cpu, 'cpu cg f64 (file)');
    expect(c.cpu.residual!).toBeLessThan(1e-7);
    for (const p of racing.filter((q) => q !== 'cpu')) {
      expectFigures(c[p], `${p} cg f64 (file)`);
      expect(c[p].residual!, p).toBeLessThan(1e-6);
    }
  });

  it('the workers slider resizes the CPU pool live', async () => {
    const max = Number(await page.evaluate(() => document.getElementById('workers')!.getAttribute('max')));
    const want = Math.min(2, max);
    await setValue(page, 'workers', String(want));
    await page.waitFor((n) => new RegExp(`threads\\s+${n}\\b`).test(document.getElementById('device-report')!.innerText), want, 30_000);
  });

  it('saves a screenshot that is not blank, and the page logged no console error', async () => {
    const shot = join(root, 'test-results', `demo-${engine}.png`);
    mkdirSync(dirname(shot), { recursive: true });
    const png = await page.screenshot();
    writeFileSync(shot, png);
    expect(png.length).toBeGreaterThan(30_000);
    // regions of the page differ from one another (a blank or single-colour page gives equal pictures)
    const crops: string[] = [];
    for (const id of ['panel-cpu', 'panel-webgpu', 'panel-webgl2', 'sparsity', 'device']) crops.push((await page.screenshotElement(`#${id}`)).toString('base64'));
    expect(new Set(crops).size).toBe(crops.length);
    // the panels have text
    for (const p of PATHS) expect((await panel(page, p)).text.length).toBeGreaterThan(40);
    // the three panels side by side, in one row
    const tops = await page.evaluate(() => ['cpu', 'webgpu', 'webgl2'].map((p) => document.getElementById(`panel-${p}`)!.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    expect(await page.errors()).toEqual([]);
  });
});

// Chromium without the WebGPU flags: the panel that says why, where Chromium otherwise has an adapter
describe.skipIf(!engines.includes('chromium'))('demo page without WebGPU (Chromium launched without the WebGPU flags)', () => {
  let p: Page;

  beforeAll(async () => {
    p = await openDemo('chromium', false);
  }, 240_000);

  afterAll(async () => {
    await p?.close();
  });

  it('the WebGPU panel says why instead of numbers; the other paths race', async () => {
    expect(await p.evaluate(() => (window as any).__demo.errors)).toEqual([]);
    const before = await panel(p, 'webgpu');
    expect(before.state).toBe('unavailable');
    expect(before.message.length, before.text).toBeGreaterThan(10);
    expect(before.message).toMatch(/WebGPU|adapter|navigator\.gpu/i);
    expect(await innerText(p, '#device-report')).toMatch(/WebGPU path \(WGSL compute\)\n\s+available\s+no — \S+/);
    await setValue(p, 'size', '16');
    await waitMatrix(p, 'window.__demo.matrix?.rows === 256');
    const r = await race(p, { op: 'spmv', dtype: 'f32', format: 'auto' });
    expectFigures(r.cpu, 'cpu spmv f32 (no WebGPU)');
    expectFigures(r.webgl2, 'webgl2 spmv f32 (no WebGPU)');
    expect(r.webgpu.state).toBe('unavailable');
    expect(r.webgpu.message).toBe(before.message);
    expect(r.webgpu.kernelMs).toBeUndefined();
    expect(await p.evaluate(() => (window as any).__demo.results.webgpu)).toEqual({ unavailable: before.message });
    mkdirSync(join(root, 'test-results'), { recursive: true });
    writeFileSync(join(root, 'test-results', 'demo-no-webgpu.png'), await p.screenshot());
    expect(await p.errors()).toEqual([]);
  });
});
