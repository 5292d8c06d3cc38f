// The demo server: bundles demo/main.ts and its parse worker with esbuild, then serves the page on
// localhost with the cross-origin isolation headers (COOP same-origin + COEP require-corp) that
// SharedArrayBuffer — and so the CPU path's worker pool — needs in a browser.
//
//   npm run demo                 # builds the kernels/shaders and the page, prints the URL
//   node demo/serve.mjs --port 8080 --no-prebuild
//
// startDemoServer() is also what test/demo.test.ts uses, so the page under test is the page users get.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage, contentType, listenIsolated } from '../scripts/isolated-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const demoDir = join(root, 'demo');

const GENERATED = [
  ['src/cpu/wasm/simd-shared.generated.ts', 'scripts/build-embedded.mjs'],
  ['src/cpu/worker-source.generated.ts', 'scripts/build-embedded.mjs'],
  ['src/gpu/shaders.generated.ts', 'scripts/build-shaders.mjs'],
];

/**
 * Regenerates the embedded kernels and shaders: 'always' (npm run demo: the page shows the current
 * sources), 'if-missing' (tests, after npm run build), or 'never'.
 */
function prebuild(mode) {
  if (mode === 'never') return;
  const scripts = new Set();
  for (const [file, script] of GENERATED) if (mode === 'always' || !existsSync(join(root, file))) scripts.add(script);
  for (const s of scripts) execFileSync(process.execPath, [join(root, s)], { cwd: root, stdio: 'pipe' });
}

/** Bundles the page; returns { '/main.js': text, '/parse-worker.js': text, '/wasm/NAME.wasm': bytes }. */
export function bundleDemo() {
  return bundlePage([join(demoDir, 'main.ts'), join(demoDir, 'parse-worker.ts')], join(root, 'build', 'demo'));
}

/**
 * Builds and starts the server. Resolves to { url, close() }. Options: port (default 5173; 0 picks a
 * free one), host (default 127.0.0.1), prebuild ('always' | 'if-missing' | 'never').
 */
export async function startDemoServer({ port = 5173, host = '127.0.0.1', prebuild: mode = 'always', log = () => {} } = {}) {
  if (mode === 'always') log('demo: building the WebAssembly kernels and shaders (about half a minute)…');
  prebuild(mode);
  log('demo: bundling the page…');
  const js = await bundleDemo();
  const statics = {
    '/': [200, 'text/html; charset=utf-8', readFileSync(join(demoDir, 'index.html'))],
    '/style.css': [200, 'text/css; charset=utf-8', readFileSync(join(demoDir, 'style.css'))],
    '/uPlot.min.css': [200, 'text/css; charset=utf-8', readFileSync(join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'))],
  };
  for (const [path, body] of Object.entries(js)) statics[path] = [200, contentType(path), body];
  return listenIsolated(
    (path, req) => (req.method !== 'GET' && req.method !== 'HEAD' ? [405, 'text/plain', 'method not allowed'] : statics[path === '/index.html' ? '/' : path]),
    { port, host },
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const portArg = args.indexOf('--port');
  const port = portArg >= 0 ? Number(args[portArg + 1]) : Number(process.env.PORT ?? 5173);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`demo: --port must be an integer in [0, 65535], got ${args[portArg + 1]}`);
    process.exit(1);
  }
  try {
    const { url } = await startDemoServer({ port, prebuild: args.includes('--no-prebuild') ? 'if-missing' : 'always', log: (m) => console.log(m) });
    console.log(`simdgl demo: ${url}  (cross-origin isolated: COOP same-origin, COEP require-corp; Ctrl-C stops)`);
  } catch (e) {
    const msg = e?.code === 'EADDRINUSE' ? `port ${port} is in use; try --port 0` : e?.errors?.length ? e.errors.map((x) => x.text).join('; ') : e?.message ?? String(e);
    console.error(`demo: ${msg}`);
    process.exit(1);
  }
}
