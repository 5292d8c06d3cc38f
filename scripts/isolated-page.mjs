// Shared by the browser benchmark, the demo server and the browser, demo and package suites: serve
// pages on 127.0.0.1 with the cross-origin-isolation headers that SharedArrayBuffer needs, and launch
// Debian's Chromium through playwright-core with SwiftShader for WebGL when there is no GPU.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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
 * Starts an HTTP server on `host`:`port` (default 127.0.0.1 and a free port) whose every response
 * carries ISOLATION_HEADERS. `route(path, req)` answers the URL's path (not percent-decoded) with
 * [status, contentType, body], or undefined for 404 (204 for /favicon.ico); HEAD gets no body.
 * Rejects when the port cannot be bound. Resolves to { url, close() }.
 */
export async function listenIsolated(route, { port = 0, host = '127.0.0.1' } = {}) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const [status, type, body] = route(path, req) ?? (path === '/favicon.ico' ? [204, 'text/plain', ''] : [404, 'text/plain', 'not found']);
    res.writeHead(status, { ...ISOLATION_HEADERS, 'Content-Type': type });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${server.address().port}/`;
  return { url, close: () => new Promise((r) => server.close(() => r())) };
}

/** The Content-Type of a bundled page's file: '/' is the HTML page, *.wasm kernels, the rest JavaScript. */
export function contentType(path) {
  return path === '/' ? 'text/html; charset=utf-8' : path.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8';
}

/**
 * Serves `files` (path → text; '/' is the HTML page, *.wasm kernels, the rest JavaScript) and, when
 * `matricesDir` is given, /matrices/NAME.mtx from it. Resolves to { url, close() }.
 */
export function serveIsolated(files, matricesDir) {
  return listenIsolated((path) => {
    if (files[path] !== undefined) return [200, contentType(path), files[path]];
    const m = /^\/matrices\/([\w.-]+\.mtx)$/.exec(path);
    if (m && matricesDir && existsSync(join(matricesDir, m[1]))) return [200, 'text/plain', readFileSync(join(matricesDir, m[1]))];
    return undefined;
  });
}

/**
 * Bundles browser entry points in memory with esbuild: ES2022 modules, inline source maps, node:
 * imports left external (the library's Node-only branches import them dynamically; they never run in a
 * page). `outdir` only names the outputs. Resolves to { '/NAME.js': text } per entry point, plus the
 * kernels' files at /wasm/NAME.wasm, where the bundle's new URL('./wasm/…', import.meta.url) points
 * (esbuild does not copy them; without them a page would fall back to the embedded copy after a 404).
 */
export async function bundlePage(entryPoints, outdir) {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints,
    outdir,
    entryNames: '[name]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    sourcemap: 'inline',
    logLevel: 'silent',
    external: ['node:*'],
  });
  const files = {};
  for (const f of out.outputFiles) files['/' + f.path.split('/').pop()] = f.text;
  const wasm = join(root, 'src', 'cpu', 'wasm');
  for (const f of readdirSync(wasm).filter((f) => f.endsWith('.wasm'))) files[`/wasm/${f}`] = readFileSync(join(wasm, f));
  return files;
}

/** Launches headless Chromium (playwright-core), or returns null when the binary is missing. */
// WebGPU in headless Chromium: an adapter on SwiftShader (navigator.gpu needs a secure context:
// http://127.0.0.1 or localhost is one)
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

export async function launchChromium(extraArgs = []) {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
