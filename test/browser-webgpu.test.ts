// The runtime's WebGPU path in headless Chromium: bundles test/browser/webgpu-page.ts, serves it
// cross-origin isolated on 127.0.0.1 (a secure context, as navigator.gpu needs) and runs it in
// /usr/bin/chromium launched with WEBGPU_ARGS (WebGPU on SwiftShader). Without Chromium the suite is
// skipped loudly (as test/browser.test.ts); a Chromium without a WebGPU adapter fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage, CHROMIUM, launchChromium, serveIsolated, WEBGPU_ARGS } from '../scripts/isolated-page.mjs';
import type { CheckResult } from './browser/checks.js';
import { WEBGPU_RUNTIME_CHECKS } from './browser/runtime-checks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`\n!!  WEBGPU BROWSER SUITE SKIPPED: no Chromium at ${CHROMIUM}; the runtime's WebGPU path is NOT tested in a browser.\n`);

let server: { url: string; close(): Promise<void> } | undefined;
let browser: { close(): Promise<void> } | undefined;
let outcome: { results: Map<string, CheckResult>; error?: string } | undefined;
let setupError: unknown;

describe.skipIf(!haveChromium)('browser: the runtime with WebGPU in Chromium', () => {
  beforeAll(async () => {
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'build-shaders.mjs')], { cwd: root, stdio: 'pipe' });
      const js = await bundlePage([join(root, 'test', 'browser', 'webgpu-page.ts')], join(root, 'build', 'browser-webgpu-suite'));
      const html = '<!doctype html><meta charset="utf-8"><title>simdgl WebGPU runtime</title><script type="module" src="/webgpu-page.js"></script>';
      server = await serveIsolated({ '/': html, ...js });
      const b = (await launchChromium(WEBGPU_ARGS))!;
      browser = b;
      const page = await b.newPage();
      const log: string[] = [];
      page.on('pageerror', (err) => log.push(`[pageerror] ${err.message}`));
      await page.goto(server.url);
      await page.waitForFunction(() => (window as { __simdglResults?: unknown }).__simdglResults !== undefined, undefined, { timeout: 240_000, polling: 100 });
      const got = (await page.evaluate(() => (window as unknown as { __simdglResults: unknown }).__simdglResults)) as { results: CheckResult[]; error?: string };
      outcome = { results: new Map(got.results.map((r) => [r.name, r])), error: got.error ?? (log.length ? log.join('\n') : undefined) };
      console.log([...outcome.results.values()].map((r) => `  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.ms.toFixed(0)} ms): ${r.detail.split('\n')[0]}`).join('\n'));
    } catch (e) {
      setupError = e;
    }
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const name of WEBGPU_RUNTIME_CHECKS) {
    it(name, () => {
      if (setupError) throw setupError;
      expect(outcome?.error, 'the page threw outside a check').toBeUndefined();
      const r = outcome!.results.get(name);
      expect(r, `check "${name}" did not run`).toBeDefined();
      expect(r!.ok, r!.detail).toBe(true);
    });
  }
});
