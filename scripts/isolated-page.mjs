// Shared by the browser benchmark (and usable by tests): serve a few in-memory files on 127.0.0.1 with
// the cross-origin-isolation headers that SharedArrayBuffer needs, and launch Debian's Chromium through
// playwright-core with SwiftShader for WebGL when there is no GPU.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export const CHROMIUM = process.env.SIMDGL_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--no-sandbox',
  '--disable-gpu-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Serves `files` (path → text; '/' is the HTML page) and, when `matricesDir` is given, /matrices/NAME.mtx
 * from it. Resolves to { url, close() }.
 */
export async function serveIsolated(files, matricesDir) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const send = (status, type, body) => {
      res.writeHead(status, { ...ISOLATION_HEADERS, 'Content-Type': type });
      res.end(body);
    };
    if (files[path] !== undefined) return send(200, path === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8', files[path]);
    const m = /^\/matrices\/([\w.-]+\.mtx)$/.exec(path);
    if (m && matricesDir && existsSync(join(matricesDir, m[1]))) return send(200, 'text/plain', readFileSync(join(matricesDir, m[1])));
    send(404, 'text/plain', 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

/** Launches headless Chromium (playwright-core), or returns null when the binary is missing. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
