/**
 * Runs a bundled benchmark page in headless Chromium, cross-origin isolated (scripts/isolated-page.mjs):
 * one fresh page per query, its progress lines (window.__log) passed to `log` as they come, its result
 * read from window[key] (an object with `error` rethrown). Null when there is no Chromium.
 */
import { bundlePage, launchChromium, serveIsolated } from '../scripts/isolated-page.mjs';

export async function runInPage(
  entry: string,
  queries: string[],
  key: string,
  log: (s: string) => void,
  chromiumArgs: string[] = [],
): Promise<unknown[] | null> {
  const browser = await launchChromium(chromiumArgs);
  if (!browser) {
    log('page part skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');
    return null;
  }
  const files = await bundlePage([entry], 'build');
  const script = `/${entry.split('/').pop()!.replace(/\.ts$/, '.js')}`;
  const server = await serveIsolated({ ...files, '/': `<!doctype html><script type="module" src="${script}"></script>` });
  const results: unknown[] = [];
  try {
    for (const query of queries) {
      const page = await browser.newPage();
      try {
        page.on('console', (m) => m.type() === 'error' && log(`  page: ${m.text()}`));
        await page.goto(`${server.url}?${query}`);
        let shown = 0;
        for (;;) {
          const r = await page.evaluate((k) => {
            const w = window as unknown as Record<string, unknown> & { __log?: string[] };
            return { done: w[k], log: w.__log ?? [] };
          }, key);
          for (; shown < r.log.length; shown++) log(r.log[shown]);
          if (r.done !== undefined) {
            const e = (r.done as { error?: string }).error;
            if (e) throw new Error(e);
            results.push(r.done);
            break;
          }
          await new Promise((res) => setTimeout(res, 500));
        }
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}
