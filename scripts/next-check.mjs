// The README's Next.js recipe, for real: `node scripts/next-check.mjs` (after `npm run build`) packs the
// package, installs the tarball with Next, React and React DOM (from the registry, into a temporary
// folder: about 340 MB, which is why this is not a devDependency nor part of `npm test`) into a fresh app
// with the README's next.config.mjs, whose page shows docs/bundlers.md's client component (app/product.js)
// and imports test/package/page.js once mounted;
// builds it with Turbopack (Next's default) and with webpack, serves each with `next start` and opens
// it in Chromium. Each build passes when the document carries both isolation headers, the page's checks
// pass (the CPU path on two workers, the GPU path, both against a plain loop), the component shows its
// product, and exactly one .wasm was fetched, from the build's own files. Exits 1 on any failure. docs/bundlers.md records the last run.
//   NEXT_VERSION=16.4.6 (default) picks the version; SIMDGL_KEEP_NEXT_TMP=1 keeps the folder.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './isolated-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const version = process.env.NEXT_VERSION ?? '16.4.6';
const tmp = mkdtempSync(join(tmpdir(), 'simdgl-next-'));
const app = join(tmp, 'app');
const plain = (t) => String(t).replace(/\x1b\[[0-9;]*m/g, '');
const sh = (cmd, args, cwd) => plain(execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } }));

/** The ```lang block of a Markdown file whose first line is `// <file>`. */
function recipe(markdown, lang, file) {
  const blocks = [...readFileSync(join(root, markdown), 'utf8').matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
  const block = blocks.find((b) => b.startsWith(`// ${file}\n`));
  if (!block) throw new Error(`${markdown} has no \`\`\`${lang} block starting with '// ${file}'`);
  return block;
}

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

function setUp() {
  const [tarball] = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', tmp], root).replace(/^[^[]*/, ''));
  mkdirSync(join(app, 'app'), { recursive: true });
  mkdirSync(join(app, 'lib'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'simdgl-next-app', private: true, version: '1.0.0' }, null, 2));
  const t0 = performance.now();
  sh('npm', ['install', join(tmp, tarball.filename), `next@${version}`, 'react@19', 'react-dom@19', '--no-audit', '--no-fund', '--no-package-lock'], app);
  const mb = Number(sh('du', ['-sm', join(app, 'node_modules')], app).split('\t')[0]);
  console.log(`next-check: installed ${tarball.filename}, next@${version}, react@19, react-dom@19 in ${((performance.now() - t0) / 1000).toFixed(0)} s: node_modules ${mb} MB (${tmp})`);
  writeFileSync(join(app, 'next.config.mjs'), recipe('README.md', 'js', 'next.config.mjs'));
  writeFileSync(join(app, 'app', 'product.js'), recipe('docs/bundlers.md', 'jsx', 'app/product.js'));
  writeFileSync(join(app, 'app', 'layout.js'), "export default function RootLayout({ children }) {\n  return (<html lang=\"en\"><body>{children}</body></html>);\n}\n");
  writeFileSync(
    join(app, 'app', 'page.js'),
    "'use client';\nimport { useEffect } from 'react';\nimport Product from './product.js';\n\n// docs/bundlers.md's component, and the package test's page, which runs once mounted, in the browser only\nexport default function Page() {\n  useEffect(() => { import('../lib/check.js'); }, []);\n  return <Product />;\n}\n",
  );
  copyFileSync(join(root, 'test', 'package', 'page.js'), join(app, 'lib', 'check.js'));
}

/** Builds with `bundler`, serves with next start, checks the page in Chromium; returns the failures. */
async function check(bundler) {
  rmSync(join(app, '.next'), { recursive: true, force: true });
  const t0 = performance.now();
  sh(process.execPath, [join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build', `--${bundler}`], app);
  const buildS = (performance.now() - t0) / 1000;
  const port = await freePort();
  // its own process group: next start runs the server in a child process, ended with it
  const server = spawn(process.execPath, [join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: app,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  let log = '';
  server.stdout.on('data', (d) => (log += d));
  server.stderr.on('data', (d) => (log += d));
  const browser = await launchChromium();
  const failures = [];
  try {
    for (let t = Date.now(); !/Ready in/.test(plain(log)); ) {
      if (Date.now() - t > 60_000 || server.exitCode !== null) throw new Error(`next start did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = await browser.newPage();
    const requests = [];
    const pageLog = [];
    page.on('response', (r) => requests.push(`${r.status()} ${new URL(r.url()).pathname}`));
    page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
    const response = await page.goto(`http://127.0.0.1:${port}/?wasm=file`);
    const headers = response.headers();
    if (headers['cross-origin-opener-policy'] !== 'same-origin' || headers['cross-origin-embedder-policy'] !== 'require-corp') {
      failures.push(`the document's headers: COOP ${headers['cross-origin-opener-policy']}, COEP ${headers['cross-origin-embedder-policy']}`);
    }
    await page.waitForFunction(() => window.__pkgResults !== undefined, undefined, { timeout: 120_000, polling: 100 });
    const got = await page.evaluate(() => window.__pkgResults);
    if (got.error) failures.push(`the page threw: ${got.error}`);
    for (const c of got.checks) if (!c.ok) failures.push(`${c.name}: ${c.detail}`);
    if (got.checks.length !== 3) failures.push(`expected 3 checks, got ${got.checks.map((c) => c.name)}`);
    await page.waitForFunction(() => document.querySelector('#product')?.textContent !== 'computing…', undefined, { timeout: 60_000, polling: 100 });
    const product = await page.evaluate(() => document.querySelector('#product')?.textContent);
    if (product !== '2 1 2 1 0 1 2 1 2') failures.push(`docs/bundlers.md's component shows ${JSON.stringify(product)}, expected "2 1 2 1 0 1 2 1 2"`);
    const wasm = requests.filter((r) => r.endsWith('.wasm'));
    if (wasm.length !== 1 || !/^200 \/_next\/static\/media\/[\w.-]+\.wasm$/.test(wasm[0])) failures.push(`wasm requests: ${wasm.join(', ') || 'none'}`);
    console.log(
      `next-check: next build --${bundler} in ${buildS.toFixed(0)} s; page: ${got.checks.map((c) => `${c.ok ? 'ok' : 'FAIL'} ${c.name} (${c.detail.split('\n')[0]})`).join('; ')}; component: ${product}; wasm: ${wasm.join(', ')}` +
        (pageLog.length ? `\n${pageLog.join('\n')}` : ''),
    );
  } catch (e) {
    failures.push(`${e.message}\nnext start:\n${log}`);
  } finally {
    await browser.close();
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  return failures.map((f) => `${bundler}: ${f}`);
}

let failures = [];
try {
  setUp();
  for (const bundler of ['turbopack', 'webpack']) failures.push(...(await check(bundler)));
} catch (e) {
  failures.push(plain(e.stack ?? e));
} finally {
  if (process.env.SIMDGL_KEEP_NEXT_TMP) console.log(`next-check: kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`next-check: FAILED\n${failures.join('\n')}`);
  process.exit(1);
}
console.log('next-check: the README\'s Next.js recipe works with Turbopack and webpack');
