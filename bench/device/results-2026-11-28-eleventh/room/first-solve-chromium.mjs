// The first solve's cost in Chromium, a page bundled (esbuild, split) from <tree>/dist: createRuntime
// (CPU, one worker), upload + SpMV of poisson2D(32), then the first and second rt.cg, or rt.solve
// (a Cholesky factor), timed in the page; the server logs the chunks fetched during the first call and
// may delay every chunk by DELAY ms (a network's round trip). Each run a fresh browser (cold chunks).
// usage: node first-solve-chromium.mjs <tree> <cg|solve> <delayMs> <runs>
import { build } from 'esbuild';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { contentType, listenIsolated, launchChromium } from '../../../../scripts/isolated-page.mjs';

const [tree, op = 'cg', delayArg = '0', runsArg = '5'] = process.argv.slice(2);
const delay = Number(delayArg);
const page = `import { createRuntime, poisson2D } from ${JSON.stringify(join(tree, 'dist', 'index.js'))};
const mark = (m) => fetch('/mark/' + m);
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
const A = poisson2D(32), h = rt.upload(A), b = new Float64Array(A.rows).fill(1);
await rt.spmv(h, b);
await mark('before');
const run = () => (${JSON.stringify(op)} === 'cg' ? rt.cg(h, b, { tol: 1e-8 }) : rt.solve(h, b));
let t = performance.now(); const r = await run(); const first = performance.now() - t;
await mark('after');
t = performance.now(); await run(); const second = performance.now() - t;
window.__r = { first, second, method: r.method, converged: r.converged };`;
const out = await build({ stdin: { contents: page, resolveDir: tree, loader: 'js' }, bundle: true, splitting: true, format: 'esm', outdir: '/tmp/fsc-out', write: false, logLevel: 'silent', external: ['node:*'], platform: 'browser', target: 'es2022', entryNames: 'page' });
const files = {};
for (const f of out.outputFiles) files['/' + f.path.split('/').pop()] = f.contents;
const wasmDir = join(tree, 'dist', 'cpu', 'wasm');
for (const w of readdirSync(wasmDir).filter((n) => n.endsWith('.wasm'))) files['/wasm/' + w] = readFileSync(join(wasmDir, w));
let log = [];
const html = '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>';
const server = await listenIsolated((path) => {
  log.push(path);
  if (path === '/') return [200, contentType('/'), html];
  if (path.startsWith('/mark/')) return [200, 'text/plain', 'ok'];
  return files[path] !== undefined ? [200, contentType(path), files[path]] : undefined;
});
// a delayed answer: the route is synchronous, so the delay wraps the server's handler
if (delay > 0) {
  const http = await import('node:http');
  const orig = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (...a) { setTimeout(() => orig.apply(this, a), delay); return this; };
}
const results = [];
for (let i = 0; i < Number(runsArg); i++) {
  log = [];
  const browser = await launchChromium([]);
  try {
    const p = await browser.newPage();
    await p.goto(server.url);
    await p.waitForFunction(() => window.__r !== undefined, undefined, { timeout: 120_000 });
    const r = await p.evaluate(() => window.__r);
    const during = log.slice(log.indexOf('/mark/before') + 1, log.indexOf('/mark/after')).filter((x) => x.endsWith('.js'));
    results.push({ ...r, chunks: during });
  } finally {
    await browser.close();
  }
}
await server.close();
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(JSON.stringify({ tree, op, delay, firstMed: +med(results.map((r) => r.first)).toFixed(1), secondMed: +med(results.map((r) => r.second)).toFixed(1), firsts: results.map((r) => +r.first.toFixed(1)), method: results[0].method, converged: results[0].converged, chunks: results[0].chunks }));
