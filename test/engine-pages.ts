// The Node side of the in-page check suites, written once for every engine: bundles a page of
// test/browser/, serves it cross-origin isolated (with /matrices/ from data/matrices), opens it in one
// engine through scripts/browsers.mjs, waits for window.__simdglResults and hands back the checks.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage, serveIsolated } from '../scripts/isolated-page.mjs';
import { launch, type Engine } from '../scripts/browsers.mjs';
import type { CheckResult } from './browser/checks.js';
import type { EnginePaths } from './browser/runtime-checks.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface PageOutcome {
  engine: Engine;
  version: string;
  results: Map<string, CheckResult>;
  log: string[];
  /** what the page threw outside a check */
  error?: string;
  isolated: boolean;
  /** what the engine offers each path (pages that report it) */
  paths?: EnginePaths;
}

export interface PageSpec {
  /** entry points under test/browser/ (the first is the page's script) */
  entries: string[];
  title: string;
  /** query string of the page's URL, e.g. '?matrices=1' */
  query?: string;
  /** serve data/matrices under /matrices/ */
  matrices?: boolean;
  /** launch the engine with its WebGPU switched on */
  webgpu?: boolean;
  /** how long the page may run, in ms */
  timeout?: number;
}

/** Bundles, serves and runs the page of `spec` in `engine`; the checks' results and the page's log. */
export async function runChecksPage(engine: Engine, spec: PageSpec): Promise<PageOutcome> {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-shaders.mjs')], { cwd: root, stdio: 'pipe' });
  const entries = spec.entries.map((e) => join(root, 'test', 'browser', e));
  const js = await bundlePage(entries, join(root, 'build', `browser-suite-${engine}`));
  const main = '/' + spec.entries[0].replace(/\.ts$/, '.js');
  const html = `<!doctype html><meta charset="utf-8"><title>${spec.title}</title><script type="module" src="${main}"></script>`;
  const server = await serveIsolated({ '/': html, ...js }, spec.matrices ? join(root, 'data', 'matrices') : undefined);
  const page = await launch(engine, { webgpu: spec.webgpu });
  try {
    await page.goto(`${server.url}${spec.query ?? ''}`);
    const timeout = spec.timeout ?? 540_000;
    await page.waitFor(() => (window as { __simdglResults?: unknown }).__simdglResults !== undefined, undefined, timeout).catch(async (e: Error) => {
      const done = await page
        .evaluate(() => ((window as { __simdglProgress?: CheckResult[] }).__simdglProgress ?? []).map((r) => `${r.ok ? 'ok' : 'FAIL'} ${r.name} (${r.ms.toFixed(0)} ms)`))
        .catch(() => [] as string[]);
      const console = page.log.slice(-20).map((l) => `  [${l.type}] ${l.text}`).join('\n');
      throw new Error(`${engine}: the page did not finish in ${timeout / 1000} s (${e.message}); ${done.length} checks done, the last: ${done.slice(-3).join('; ')}${console ? `\nthe console's last lines:\n${console}` : ''}`);
    });
    const got = await page.evaluate(() => {
      const r = (window as unknown as { __simdglResults: { results: CheckResult[]; log: string[]; error?: string; paths?: EnginePaths } }).__simdglResults;
      return { ...r, isolated: crossOriginIsolated };
    });
    const log = [...got.log, ...page.log.map((l) => `[${l.type}] ${l.text}`)];
    return {
      engine,
      version: page.version,
      results: new Map(got.results.map((r) => [r.name, r])),
      log,
      error: got.error ?? undefined,
      isolated: got.isolated,
      paths: got.paths ?? undefined,
    };
  } finally {
    await page.close();
    await server.close();
  }
}

/** One line per check (first line of its detail), for the suite's console output. */
export function summary(o: PageOutcome): string {
  return [...o.results.values()].map((r) => `  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.ms.toFixed(0)} ms): ${r.detail.split('\n')[0]}`).join('\n');
}
