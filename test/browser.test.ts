// The browser suite: the GPU path and the runtime in a page, in each engine of scripts/browsers.mjs —
// Chromium (SwiftShader's WebGL2 when there is no GPU), Firefox and WebKitGTK (Mesa's llvmpipe on
// Xvfb). Bundles test/browser/page.ts with esbuild, serves it cross-origin isolated on 127.0.0.1 with
// /matrices/ from data/matrices, runs it in the engine and turns every in-page check into one vitest
// test. An engine that is not installed is skipped with a loud warning; CI installs all three.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ENGINES, missing, warnMissing, type Engine } from '../scripts/browsers.mjs';
import { BASIC_CHECKS, dtypeChecks, generatedChecks, sharedChecks, type CheckResult } from './browser/checks.js';
import { DENSE_CHECKS } from './browser/dense-checks.js';
import { RUNTIME_CHECKS } from './browser/runtime-checks.js';
import { CHUNKED_DIA_SPECIAL_CHECKS, SPECIAL_VALUE_CHECKS } from './browser/special-values-checks.js';
import { root, runChecksPage, summary, type PageOutcome } from './engine-pages.js';

warnMissing('the browser suite (WebGL2 GPU path, runtime in a page)');

describe.each(ENGINES.filter((e) => !missing(e)))('browser: GPU path and runtime in %s (WebGL2)', (engine: Engine) => {
  let outcome: PageOutcome | undefined;
  let setupError: unknown;

  beforeAll(async () => {
    try {
      outcome = await runChecksPage(engine, { entries: ['page.ts', 'worker.ts'], title: 'simdgl browser suite', query: '?matrices=1', matrices: true });
      console.log(`browser suite in ${engine} ${outcome.version} (crossOriginIsolated: ${outcome.isolated})\n${summary(outcome)}\n${outcome.log.join('\n')}`);
    } catch (e) {
      setupError = e;
    }
  }, 600_000);

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

  for (const name of [...BASIC_CHECKS, ...RUNTIME_CHECKS, ...dtypeChecks(), ...generatedChecks(), ...DENSE_CHECKS, ...SPECIAL_VALUE_CHECKS, ...CHUNKED_DIA_SPECIAL_CHECKS, ...sharedChecks()]) {
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
