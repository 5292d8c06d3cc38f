// A page loads only the shaders of the paths it uses (issue 22, item 3). The page of
// test/browser/lazy-shaders-page.ts is bundled with esbuild's code splitting (as an app's bundler
// would), so the WGSL and the GLSL sources become chunks of their own; the server logs every request
// and the page marks the end of each stage. In Chromium with WebGPU and WebGL2 (SwiftShader): a
// runtime with backend 'auto' doing CPU work, capabilities and explain fetches neither shader chunk;
// the first WebGPU product fetches the WGSL chunk only, the first WebGL2 product the GLSL one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build } from 'esbuild';
import { contentType, listenIsolated } from '../scripts/isolated-page.mjs';
import { launch, missing, warnMissing } from '../scripts/browsers.mjs';
import { root } from './engine-pages.js';

warnMissing('which shader chunks a page loads');

const WGSL = /var<storage/;
const GLSL = /#version 300 es/;

describe.runIf(!missing('chromium'))('browser: a page loads the shaders of the paths it uses, when it first uses them (chromium)', () => {
  const files: Record<string, string> = {};
  const requests: string[] = [];
  let result: Record<string, unknown> | undefined;
  let server: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    const out = await build({
      entryPoints: [join(root, 'test', 'browser', 'lazy-shaders-page.ts')],
      outdir: join(root, 'build', 'lazy-shaders'),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      external: ['node:*'],
    });
    for (const f of out.outputFiles) files['/' + f.path.split('/').pop()] = f.text;
    const html = '<!doctype html><meta charset="utf-8"><title>lazy shaders</title><script type="module" src="/lazy-shaders-page.js"></script>';
    server = await listenIsolated((path: string) => {
      requests.push(path);
      if (path === '/') return [200, contentType('/'), html];
      if (path.startsWith('/mark/')) return [200, 'text/plain', 'ok'];
      return files[path] !== undefined ? [200, contentType(path), files[path]] : undefined;
    });
    const page = await launch('chromium', { webgpu: true });
    try {
      await page.goto(server.url);
      await page.waitFor(() => (globalThis as { __lazyResult?: unknown }).__lazyResult !== undefined, undefined, 120_000);
      result = await page.evaluate(() => (globalThis as { __lazyResult?: Record<string, unknown> }).__lazyResult);
    } finally {
      await page.close();
    }
  }, 180_000);
  afterAll(() => server?.close());

  /** The shader chunks requested during a stage (between the marks before and after it). */
  function stage(from: string | null, to: string): { wgsl: string[]; glsl: string[] } {
    const start = from ? requests.indexOf(`/mark/${from}`) : 0;
    const end = requests.indexOf(`/mark/${to}`);
    expect(end, `the page never reached ${to}: ${JSON.stringify(result)}`).toBeGreaterThan(start);
    const got = requests.slice(start, end).filter((p) => files[p] !== undefined);
    return { wgsl: got.filter((p) => WGSL.test(files[p])), glsl: got.filter((p) => GLSL.test(files[p])) };
  }

  it('the bundle has one WGSL chunk and one GLSL chunk, apart from the page', () => {
    const wgsl = Object.keys(files).filter((p) => WGSL.test(files[p]));
    const glsl = Object.keys(files).filter((p) => GLSL.test(files[p]));
    console.log(`chunks: ${Object.entries(files).map(([p, t]) => `${p} ${(t.length / 1024).toFixed(0)} KB${WGSL.test(t) ? ' (WGSL)' : ''}${GLSL.test(t) ? ' (GLSL)' : ''}`).join(', ')}`);
    expect(wgsl).toHaveLength(1);
    expect(glsl).toHaveLength(1);
    expect(wgsl[0]).not.toBe(glsl[0]);
    expect(WGSL.test(files['/lazy-shaders-page.js']) || GLSL.test(files['/lazy-shaders-page.js'])).toBe(false);
  });

  it("the page has all three paths and the GPU products are right", () => {
    expect(result?.error).toBeUndefined();
    expect(result?.paths, JSON.stringify(result)).toMatchObject({ webgpu: true, webgl2: true });
    expect(result?.gpuMatchesCpu).toBe(true);
  });

  it("createRuntime('auto'), capabilities, explain and CPU work load no shaders", () => {
    expect(result?.explained).toBe('cpu');
    expect(result?.cgPath).toBe('cpu');
    console.log(`requests until the CPU work was done: ${requests.slice(0, requests.indexOf('/mark/cpu-done')).join(', ')}`);
    expect(stage(null, 'cpu-done')).toEqual({ wgsl: [], glsl: [] });
  });

  it('the first WebGPU product loads the WGSL chunk only, the first WebGL2 product the GLSL chunk', () => {
    const webgpu = stage('cpu-done', 'webgpu-done');
    expect(webgpu.wgsl).toHaveLength(1);
    expect(webgpu.glsl).toEqual([]);
    const webgl2 = stage('webgpu-done', 'webgl2-done');
    expect(webgl2.glsl).toHaveLength(1);
    expect(webgl2.wgsl).toEqual([]);
  });
});
