// The runtime's paths in each engine, with the engine's WebGPU switched on (Chromium: an adapter on
// SwiftShader; Firefox: the dom.webgpu.enabled pref; WebKitGTK: its WebGPU feature): bundles
// test/browser/webgpu-page.ts, serves it cross-origin isolated on 127.0.0.1 (a secure context, as
// navigator.gpu needs) and opens it in each engine of scripts/browsers.mjs. Every engine reports what
// it offers each path — printed as one engine × path table and written to test-results/engine-paths.json —
// and every missing path must come with a reason that forcing the path repeats. The WebGPU runtime
// checks run wherever there is an adapter and must pass; Chromium must have one (SwiftShader). Where an
// engine has no adapter, each WebGPU check asserts instead that it did not run and that the engine said why
// (and that forcing the path rejects with that reason): nothing is skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES, missing, warnMissing, type Engine } from '../scripts/browsers.mjs';
import { ENGINE_CHECKS, WEBGPU_RUNTIME_CHECKS, type EnginePaths } from './browser/runtime-checks.js';
import { root, runChecksPage, summary, type PageOutcome } from './engine-pages.js';

warnMissing("the runtime's paths and the WebGPU path in a page");

const table = new Map<Engine, { version: string; paths: EnginePaths }>();

/** One cell of the table: "yes (device)" or "no — reason". */
function cell(p: { available: boolean; reason?: string; device?: string }): string {
  return p.available ? `yes (${p.device ?? '?'})` : `no — ${p.reason}`;
}

afterAll(() => {
  if (table.size === 0) return;
  const lines = ['engine × path availability (capabilities() in a cross-origin isolated page):'];
  for (const [engine, { version, paths: p }] of table) {
    lines.push(`  ${engine} ${version}`);
    lines.push(`    cpu:    ${cell(p.paths.cpu)}, ${p.threads} thread(s)`);
    lines.push(`    webgl2: ${cell(p.paths.webgl2)}`);
    lines.push(`    webgpu: ${cell(p.paths.webgpu)}`);
    for (const n of p.notes) lines.push(`    note: ${n}`);
  }
  console.log(lines.join('\n'));
  mkdirSync(join(root, 'test-results'), { recursive: true });
  writeFileSync(join(root, 'test-results', 'engine-paths.json'), JSON.stringify(Object.fromEntries(table), null, 2));
});

describe.each(ENGINES.filter((e) => !missing(e)))("browser: the runtime's paths in %s, WebGPU switched on", (engine: Engine) => {
  let outcome: PageOutcome | undefined;
  let setupError: unknown;

  beforeAll(async () => {
    try {
      outcome = await runChecksPage(engine, { entries: ['webgpu-page.ts'], title: 'simdgl WebGPU runtime', webgpu: true });
      if (outcome.paths) table.set(engine, { version: outcome.version, paths: outcome.paths });
      console.log(`WebGPU runtime suite in ${engine} ${outcome.version}\n${summary(outcome)}${outcome.log.length ? `\n${outcome.log.join('\n')}` : ''}`);
    } catch (e) {
      setupError = e;
    }
  }, 300_000);

  function passed(name: string): void {
    if (setupError) throw setupError;
    expect(outcome?.error, 'the page threw outside a check').toBeUndefined();
    const r = outcome!.results.get(name);
    expect(r, `check "${name}" did not run`).toBeDefined();
    expect(r!.ok, r!.detail).toBe(true);
  }

  for (const name of ENGINE_CHECKS) it(name, () => passed(name));

  if (engine === 'chromium') {
    it('Chromium has a WebGPU adapter (SwiftShader without a GPU)', () => {
      passed('paths in this engine');
      expect(outcome!.paths!.paths.webgpu.available, outcome!.paths!.paths.webgpu.reason).toBe(true);
    });
  }

  for (const name of WEBGPU_RUNTIME_CHECKS) {
    it(`${name} (or, without an adapter, not run and the engine's reason given)`, () => {
      if (setupError) throw setupError;
      const webgpu = outcome?.paths?.paths.webgpu;
      expect(webgpu, 'the page reported no paths').toBeDefined();
      if (engine === 'chromium' || webgpu!.available) return passed(name);
      // an engine without an adapter: the page must not pretend to run the check, and must say why
      expect(outcome!.results.get(name), `${engine} has no WebGPU adapter, yet "${name}" ran`).toBeUndefined();
      expect(webgpu!.reason ?? '', `${engine}: WebGPU unavailable without a reason`).toMatch(/\S.{9,}/);
      passed('webgpu runtime: unavailable says why');
    });
  }
});
