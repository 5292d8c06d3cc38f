// The browser suite: the GPU path in real Chromium (SwiftShader's WebGL2 when there is no GPU).
// Bundles test/browser/page.ts with esbuild, serves it cross-origin isolated on 127.0.0.1 with
// /matrices/ from data/matrices, runs it in /usr/bin/chromium through playwright-core and turns
// every in-page check into one vitest test. Without /usr/bin/chromium (or $SIMDGL_CHROMIUM) the suite
// is skipped with a loud warning; CI installs Chromium, so there it always runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage, CHROMIUM as chromiumPath, launchChromium, serveIsolated } from '../scripts/isolated-page.mjs';
import { BASIC_CHECKS, dtypeChecks, generatedChecks, sharedChecks, type CheckResult } from './browser/checks.js';
import { DENSE_CHECKS } from './browser/dense-checks.js';
import { RUNTIME_CHECKS } from './browser/runtime-checks.js';
import { CHUNKED_DIA_SPECIAL_CHECKS, SPECIAL_VALUE_CHECKS } from './browser/special-values-checks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const haveChromium = existsSync(chromiumPath);
const matricesDir = join(root, 'data', 'matrices');

if (!haveChromium) {
  const bar = '!'.repeat(100);
  console.warn(
    `\n${bar}\n!!  BROWSER SUITE SKIPPED: no Chromium at ${chromiumPath}.\n` +
      `!!  The WebGL2 GPU path is NOT tested in this run. Install chromium (apt-get install chromium)\n` +
      `!!  or point SIMDGL_CHROMIUM at a Chromium binary. CI installs it, so there this suite always runs.\n${bar}\n`,
  );
}

let server: { url: string; close(): Promise<void> } | undefined;
let browser: { close(): Promise<void> } | undefined;
let outcome: { results: Map<string, CheckResult>; log: string[]; error?: string; isolated: boolean } | undefined;
let setupError: unknown;

async function runPage(): Promise<NonNullable<typeof outcome>> {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-shaders.mjs')], { cwd: root, stdio: 'pipe' });
  const js = await bundlePage([join(root, 'test', 'browser', 'page.ts'), join(root, 'test', 'browser', 'worker.ts')], join(root, 'build', 'browser-suite'));
  const html = '<!doctype html><meta charset="utf-8"><title>simdgl browser suite</title><script type="module" src="/page.js"></script>';
  server = await serveIsolated({ '/': html, ...js }, matricesDir);
  const b = (await launchChromium())!;
  browser = b;
  const page = await b.newPage();
  const log: string[] = [];
  page.on('console', (msg) => log.push(`[console.${msg.type()}] ${msg.text()}`));
  page.on('pageerror', (err) => log.push(`[pageerror] ${err.message}`));
  await page.goto(`${server.url}?matrices=1`);
  await page.waitForFunction(() => (window as { __simdglResults?: unknown }).__simdglResults !== undefined, undefined, { timeout: 240_000, polling: 100 });
  const got = (await page.evaluate(() => (window as unknown as { __simdglResults: unknown }).__simdglResults)) as {
    results: CheckResult[];
    log: string[];
    error?: string;
  };
  const isolated = (await page.evaluate(() => crossOriginIsolated)) as boolean;
  return { results: new Map(got.results.map((r) => [r.name, r])), log: [...got.log, ...log], error: got.error, isolated };
}

describe.skipIf(!haveChromium)('browser: GPU path in Chromium (WebGL2)', () => {
  beforeAll(async () => {
    try {
      outcome = await runPage();
      const lines = [...outcome.results.values()].map((r) => `  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.ms.toFixed(0)} ms): ${r.detail.split('\n')[0]}`);
      console.log(`browser suite (crossOriginIsolated: ${outcome.isolated})\n${lines.join('\n')}\n${outcome.log.join('\n')}`);
    } catch (e) {
      setupError = e;
    }
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  function result(name: string): CheckResult {
    if (setupError) throw setupError;
    expect(outcome?.error, 'the page threw outside a check').toBeUndefined();
    const r = outcome!.results.get(name);
    expect(r, `check "${name}" did not run`).toBeDefined();
    return r!;
  }

  it('the page is cross-origin isolated', () => {
    result('capabilities');
    expect(outcome!.isolated).toBe(true);
  });

  for (const name of [...BASIC_CHECKS, ...RUNTIME_CHECKS, ...dtypeChecks(), ...generatedChecks(), ...DENSE_CHECKS, ...SPECIAL_VALUE_CHECKS, ...CHUNKED_DIA_SPECIAL_CHECKS]) {
    it(name, () => {
      const r = result(name);
      expect(r.ok, r.detail).toBe(true);
    });
  }

  for (const name of sharedChecks()) {
    it(name, () => {
      const r = result(name);
      expect(r.ok, r.detail).toBe(true);
    });
  }
});

// The same code in Node, where there is no WebGL: never a crash, always a reason; and the layout math.
describe('GPU path in Node (no WebGL)', () => {
  async function gpuModule() {
    execFileSync(process.execPath, [join(root, 'scripts', 'build-shaders.mjs')], { cwd: root, stdio: 'pipe' });
    return import('../src/gpu/index.js');
  }

  it('GpuBackend.create() is unavailable with a reason, without throwing', async () => {
    const { GpuBackend } = await gpuModule();
    const r = GpuBackend.create();
    expect(r.available).toBe(false);
    if (!r.available) {
      expect(r.reason).toMatch(/neither OffscreenCanvas nor document/);
      expect(r.capabilities.webgl2).toBe(false);
    }
    const fake = GpuBackend.create({ context: {} as WebGL2RenderingContext });
    expect(fake.available).toBe(false);
  });

  it('tiled layouts: near-square single layers, full square layers past one tile, typed error past the limit', async () => {
    const { layoutFor, layoutLimits, GpuLimitError } = await gpuModule();
    const big = layoutLimits(16384, 2048);
    expect(big.maxShift).toBe(14);
    expect(layoutFor(0, big, 'x')).toEqual({ texels: 1, shift: 0, width: 1, height: 1, layers: 1 });
    expect(layoutFor(5, big, 'x')).toEqual({ texels: 5, shift: 2, width: 4, height: 2, layers: 1 });
    expect(layoutFor(1 << 20, big, 'x')).toEqual({ texels: 1 << 20, shift: 10, width: 1024, height: 1024, layers: 1 });
    const small = layoutLimits(16384, 2048, { maxTextureSize: 100, maxLayers: 3 }); // 100 → 64
    expect(layoutFor(5625, small, 'x')).toEqual({ texels: 5625, shift: 6, width: 64, height: 64, layers: 2 });
    expect(layoutFor(3 * 4096, small, 'x').layers).toBe(3);
    expect(() => layoutFor(3 * 4096 + 1, small, 'the values')).toThrow(GpuLimitError);
    expect(() => layoutFor(2 ** 31, layoutLimits(32768, 4096), 'x')).toThrow(/int32 texel index/);
  });
});
