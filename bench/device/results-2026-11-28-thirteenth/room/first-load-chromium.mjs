// A page's first load in Chromium, bundled (esbuild, split, minified) from <tree>/dist: the times since
// navigation start at which the page's script runs, createRuntime (CPU, one worker) resolves, the first
// upload + SpMV of poisson2D(32) is done, explain('solve') answers and the first rt.solve is done; the
// server may delay every answer by DELAY ms (a network's round trip). Each run a fresh browser (cold).
// usage: node first-load-chromium.mjs <tree> <delayMs> <runs> [esbuild|webpack]   (webpack: the README's
// webpack.config.mjs over a copy of <tree>/dist installed as simdgl, as /work/wt/wpsize.sh builds it)
import { build } from 'esbuild';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { contentType, listenIsolated, launchChromium } from '../../../../scripts/isolated-page.mjs';

const [tree, delayArg = '0', runsArg = '5', bundler = 'esbuild'] = process.argv.slice(2);
const delay = Number(delayArg);
const page = `const script = performance.now();
import { createRuntime, poisson2D } from ${JSON.stringify(join(tree, 'dist', 'index.js'))};
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
const created = performance.now();
const A = poisson2D(32), h = rt.upload(A), b = new Float64Array(A.rows).fill(1);
await rt.spmv(h, b);
const spmv = performance.now();
rt.explain('solve', h);
const explained = performance.now();
await rt.solve(h, b);
const solved = performance.now();
window.__r = { script, created, spmv, explained, solved };`;
const files = {};
if (bundler === 'webpack') {
  const T = mkdtempSync('/tmp/flc-wp-');
  mkdirSync(join(T, 'node_modules', 'simdgl'), { recursive: true });
  mkdirSync(join(T, 'app', 'src'), { recursive: true });
  cpSync(join(tree, 'dist'), join(T, 'node_modules', 'simdgl', 'dist'), { recursive: true });
  cpSync(join(tree, 'package.json'), join(T, 'node_modules', 'simdgl', 'package.json'));
  symlinkSync('/work/main/node_modules/webpack', join(T, 'node_modules', 'webpack'));
  writeFileSync(join(T, 'app', 'src', 'index.js'), page.replace(JSON.stringify(join(tree, 'dist', 'index.js')), "'simdgl'"));
  const readme = readFileSync(join(tree, 'README.md'), 'utf8');
  const config = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith('// webpack.config.mjs\n'));
  writeFileSync(join(T, 'app', 'webpack.config.mjs'), config);
  execFileSync(process.execPath, ['/work/main/node_modules/webpack-cli/bin/cli.js', '--config', 'webpack.config.mjs', '--no-color'], { cwd: join(T, 'app'), stdio: 'ignore' });
  const dist = join(T, 'app', 'dist');
  for (const f of readdirSync(dist)) files['/' + f] = readFileSync(join(dist, f));
  files['/page.js'] = files['/main.js'];
} else {
  const out = await build({ stdin: { contents: page, resolveDir: tree, loader: 'js' }, bundle: true, splitting: true, minify: true, format: 'esm', outdir: '/tmp/flc-out', write: false, logLevel: 'silent', external: ['node:*'], platform: 'browser', target: 'es2022', entryNames: 'page' });
  for (const f of out.outputFiles) files['/' + f.path.split('/').pop()] = f.contents;
  const wasmDir = join(tree, 'dist', 'cpu', 'wasm');
  for (const w of readdirSync(wasmDir).filter((n) => n.endsWith('.wasm'))) files['/wasm/' + w] = readFileSync(join(wasmDir, w));
}
let log = [];
const html = `<!doctype html><meta charset="utf-8"><script${bundler === 'webpack' ? '' : ' type="module"'} src="/page.js"></script>`;
const server = await listenIsolated((path) => {
  log.push(path);
  if (path === '/') return [200, contentType('/'), html];
  return files[path] !== undefined ? [200, contentType(path), files[path]] : undefined;
});
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
    results.push(await p.evaluate(() => window.__r));
  } finally {
    await browser.close();
  }
}
await server.close();
const med = (k) => +[...results.map((r) => r[k])].sort((x, y) => x - y)[results.length >> 1].toFixed(1);
const pageKB = +(files['/page.js'].length / 1024).toFixed(1);
for (const r of results) [r.createMs, r.solveMs] = [r.created - r.script, r.solved - r.explained];
console.log(JSON.stringify({ tree, bundler, delay, pageKB, script: med('script'), created: med('created'), createMs: med('createMs'), solveMs: med('solveMs'), solveMsAll: results.map((r) => +r.solveMs.toFixed(1)), spmv: med('spmv'), explained: med('explained'), solved: med('solved'), createMsAll: results.map((r) => +r.createMs.toFixed(1)), scriptAll: results.map((r) => +r.script.toFixed(1)), requests: log.filter((x) => x.endsWith('.js') || x.endsWith('.wasm')) }));
