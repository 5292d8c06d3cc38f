// One driver for the three browser engines the suites run in, so each suite is written once and
// parameterised by engine: Chromium (Debian's, through playwright-core), Firefox (Debian's firefox-esr
// over WebDriver BiDi, through puppeteer-core) and WebKit (Debian's WebKitGTK MiniBrowser through
// webkit2gtk-driver's WebKitWebDriver, with selenium-webdriver, on an Xvfb display this module starts).
// launch(engine) gives a page: goto, evaluate, waitFor, set a file input, screenshots, close.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { CHROMIUM, launchChromium as launchChromiumBrowser, WEBGPU_ARGS } from './isolated-page.mjs';

/** @type {readonly ['chromium', 'firefox', 'webkit']} */
export const ENGINES = ['chromium', 'firefox', 'webkit'];

export const FIREFOX = process.env.SIMDGL_FIREFOX ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.SIMDGL_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const XVFB = '/usr/bin/Xvfb';

/** WebKitGTK's MiniBrowser (the package puts it under the API version's libexec folder). */
export function webkitBrowser() {
  if (process.env.SIMDGL_WEBKIT_BROWSER) return process.env.SIMDGL_WEBKIT_BROWSER;
  for (const lib of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']) {
    if (!existsSync(lib)) continue;
    for (const d of readdirSync(lib).filter((n) => /^webkit2?gtk-[\d.]+$/.test(n)).sort().reverse()) {
      const p = `${lib}/${d}/MiniBrowser`;
      if (existsSync(p)) return p;
    }
  }
  return null;
}

/**
 * Why `engine` cannot be launched here (what to install), or null when it can. $SIMDGL_ENGINES (a
 * comma-separated list, e.g. `chromium`) leaves the others out on purpose, with the same loud warning.
 */
export function missing(engine) {
  const only = process.env.SIMDGL_ENGINES?.split(',').map((e) => e.trim());
  if (only && !only.includes(engine)) return `left out by SIMDGL_ENGINES=${process.env.SIMDGL_ENGINES}`;
  if (engine === 'chromium') return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set SIMDGL_CHROMIUM)`;
  if (engine === 'firefox' && !existsSync(FIREFOX)) return `no Firefox at ${FIREFOX} (apt-get install firefox-esr, or set SIMDGL_FIREFOX)`;
  if (engine === 'webkit' && !existsSync(WEBKIT_DRIVER)) return `no WebKitWebDriver at ${WEBKIT_DRIVER} (apt-get install webkit2gtk-driver)`;
  if (engine === 'webkit' && !webkitBrowser()) return 'no WebKitGTK MiniBrowser (apt-get install webkit2gtk-driver, which brings libwebkit2gtk)';
  // both need an X display for WebGL (Firefox) or at all (WebKitGTK): $DISPLAY, else an Xvfb of ours
  if (!process.env.DISPLAY && !existsSync(XVFB)) return 'no X display and no Xvfb (apt-get install xvfb)';
  return null;
}

/** Prints one loud warning per engine that cannot run, naming what the suite does NOT test. */
export function warnMissing(suite) {
  for (const e of ENGINES) {
    const why = missing(e);
    if (!why) continue;
    const bar = '!'.repeat(100);
    console.warn(`\n${bar}\n!!  ${suite.toUpperCase()} SKIPPED IN ${e.toUpperCase()}: ${why}.\n!!  CI (.ci/run) installs it, so there it always runs.\n${bar}\n`);
  }
}

// ---- an Xvfb display for Firefox and WebKitGTK, shared by every session of the process ----------------
let xvfb;
async function display() {
  if (process.env.DISPLAY) return process.env.DISPLAY;
  xvfb ??= new Promise((resolve, reject) => {
    // a shell watches this process and stops Xvfb when it is gone, however it ends (a test worker is
    // often killed without an 'exit' event)
    const watch = `"${XVFB}" -displayfd 1 -screen 0 1400x1000x24 -nolisten tcp & x=$!; while kill -0 ${process.pid} 2>/dev/null && kill -0 $x 2>/dev/null; do sleep 2; done; kill $x 2>/dev/null`;
    const child = spawn('sh', ['-c', watch], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve({ child, name: `:${m[1]}` });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
    child.unref();
    child.stdout.unref?.();
  });
  return (await xvfb).name;
}

/**
 * Launches `engine` headless with one page. `webgpu` asks for the engine's WebGPU (Chromium: the
 * SwiftShader adapter's switches; Firefox: the dom.webgpu.enabled pref; WebKitGTK: the WebGPU feature).
 * `viewport` sizes the page (default 1400×1000).
 */
export async function launch(engine, { webgpu = false, viewport = { width: 1400, height: 1000 } } = {}) {
  const why = missing(engine);
  if (why) throw new Error(`cannot launch ${engine}: ${why}`);
  if (engine === 'chromium') return launchChromium(webgpu, viewport);
  if (engine === 'firefox') return launchFirefox(webgpu, viewport);
  if (engine === 'webkit') return launchWebKit(webgpu, viewport);
  throw new Error(`unknown engine ${engine}`);
}

async function launchChromium(webgpu, viewport) {
  const browser = await launchChromiumBrowser(webgpu ? WEBGPU_ARGS : []);
  const page = await browser.newPage({ viewport });
  const log = [];
  page.on('console', (m) => log.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => log.push({ type: 'pageerror', text: e.message }));
  return {
    engine: 'chromium',
    version: browser.version(),
    log,
    errors: async () => errorsOf(log),
    goto: (url) => page.goto(url).then(() => undefined),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    waitFor: (fn, arg, timeout = 60_000) => page.waitForFunction(fn, arg, { timeout, polling: 100 }).then(() => undefined),
    setInputFile: (selector, name, text) => page.setInputFiles(selector, { name, mimeType: 'text/plain', buffer: Buffer.from(text) }),
    screenshot: () => page.screenshot({ fullPage: true }),
    screenshotElement: (selector) => page.locator(selector).screenshot(),
    close: () => browser.close(),
  };
}

async function launchFirefox(webgpu, viewport) {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    // headless Firefox finds no GL driver without an X display: on Xvfb it gets Mesa's llvmpipe
    env: { ...process.env, DISPLAY: await display() },
    defaultViewport: viewport,
    // WebGL on the software rasteriser when there is no GPU; no update checks or telemetry
    extraPrefsFirefox: {
      'dom.webgpu.enabled': webgpu,
      'webgl.force-enabled': true,
      'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
    },
  });
  const page = await browser.newPage();
  const log = [];
  page.on('console', (m) => log.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => log.push({ type: 'pageerror', text: e.message }));
  return {
    engine: 'firefox',
    version: await browser.version(),
    log,
    errors: async () => errorsOf(log),
    goto: (url) => page.goto(url).then(() => undefined),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    waitFor: (fn, arg, timeout = 60_000) => page.waitForFunction(fn, { timeout, polling: 100 }, arg).then(() => undefined),
    setInputFile: (selector, name, text) => page.evaluate(setFileInPage, { selector, name, text }),
    screenshot: async () => Buffer.from(await page.screenshot({ fullPage: true })),
    screenshotElement: async (selector) => Buffer.from(await (await page.$(selector)).screenshot()),
    close: () => browser.close(),
  };
}

/** The console errors and uncaught page errors of a log. */
function errorsOf(log) {
  return log.filter((l) => l.type === 'error' || l.type === 'pageerror').map((l) => l.text);
}

/** WebKit: records console.error calls and uncaught errors from now on in window.__engineErrors. */
function hookErrors() {
  if (window.__engineErrors) return;
  const errors = (window.__engineErrors = []);
  const original = console.error.bind(console);
  console.error = (...args) => {
    errors.push(args.map(String).join(' '));
    original(...args);
  };
  // "ResizeObserver loop completed with undelivered notifications" is the spec's notice that a layout
  // settled one frame late, dispatched as an error event; no exception was thrown (Chromium's and
  // Firefox's drivers do not report it either)
  window.addEventListener('error', (e) => {
    if (!/^ResizeObserver loop/.test(e.message)) errors.push(`[pageerror] ${e.message}`);
  });
  window.addEventListener('unhandledrejection', (e) => errors.push(`[pageerror] ${e.reason?.message ?? e.reason}`));
}

/** WebKit: the element `selector`'s box cut out of `png` (a base64 picture of the window), as base64 PNG. */
async function cropInPage({ selector, png }) {
  const img = new Image();
  img.src = `data:image/png;base64,${png}`;
  await img.decode();
  const r = document.querySelector(selector).getBoundingClientRect();
  const scale = img.naturalWidth / window.innerWidth;
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(r.width * scale));
  c.height = Math.max(1, Math.round(r.height * scale));
  c.getContext('2d').drawImage(img, r.left * scale, r.top * scale, c.width, c.height, 0, 0, c.width, c.height);
  return c.toDataURL('image/png').split(',')[1];
}

/** Puts a file into a file input through a DataTransfer and fires `change`, as a user's choice does. */
function setFileInPage({ selector, name, text }) {
  const input = document.querySelector(selector);
  const dt = new DataTransfer();
  dt.items.add(new File([text], name, { type: 'text/plain' }));
  input.files = dt.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}

/** A free TCP port on 127.0.0.1 (for WebKitWebDriver, which takes its port on the command line). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Spawns WebKitWebDriver and waits until it answers /status; resolves to { url, child }. */
async function startWebKitDriver(env) {
  const port = await freePort();
  const child = spawn(WEBKIT_DRIVER, [`--port=${port}`], { env, stdio: 'ignore' });
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`WebKitWebDriver exited with ${code}`))));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 30_000;
  for (;;) {
    const up = await Promise.race([fetch(`${url}/status`).then((r) => r.ok, () => false), exited]);
    if (up) return { url, child };
    if (Date.now() > end) {
      child.kill();
      throw new Error('WebKitWebDriver did not answer within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function launchWebKit(webgpu, viewport) {
  const { Builder } = await import('selenium-webdriver');
  // a real locale: under LANG=C WebKitGTK reports navigator.language 'C', which Intl rejects (uPlot in the demo)
  const env = { ...process.env, DISPLAY: await display(), LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' };
  const server = await startWebKitDriver(env);
  let driver;
  try {
    driver = await new Builder()
      .usingServer(server.url)
      .withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: webkitBrowser(), args: ['--automation', ...(webgpu ? ['--features=+WebGPU'] : [])] },
      })
      .build();
    await driver.manage().setTimeouts({ script: 600_000, pageLoad: 120_000 });
    await driver.manage().window().setRect({ width: viewport.width, height: viewport.height }).catch(() => {});
  } catch (e) {
    server.child.kill();
    throw e;
  }
  const caps = await driver.getCapabilities();
  // WebDriver classic has no console stream: errors the page reports itself (window.__demo.errors,
  // the suites' own logs) are what the suites read in WebKit
  const log = [];
  const evaluate = async (fn, arg) => {
    const r = await driver.executeAsyncScript(
      `const done = arguments[arguments.length - 1];
       Promise.resolve().then(() => (${fn})(arguments[0])).then(
         (value) => done({ value: value === undefined ? null : value }),
         (e) => done({ error: String(e && e.stack || e) }));`,
      arg ?? null,
    );
    if (r.error !== undefined) throw new Error(`in WebKit: ${r.error}`);
    return r.value;
  };
  return {
    engine: 'webkit',
    version: `WebKitGTK ${caps.get('browserVersion')}`,
    log,
    async errors() {
      return (await evaluate(() => window.__engineErrors ?? [])).concat();
    },
    async goto(url) {
      await driver.get(url);
      await evaluate(hookErrors);
    },
    evaluate,
    async waitFor(fn, arg, timeout = 60_000) {
      const end = Date.now() + timeout;
      for (;;) {
        if (await evaluate(fn, arg)) return;
        if (Date.now() > end) throw new Error(`waitFor timed out after ${timeout} ms: ${String(fn).slice(0, 200)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    setInputFile: (selector, name, text) => evaluate(setFileInPage, { selector, name, text }),
    screenshot: async () => Buffer.from(await driver.takeScreenshot(), 'base64'),
    async screenshotElement(selector) {
      // WebKitWebDriver's element screenshots of some elements (the demo's panels) come back blank, so
      // the element is brought into view and cut out of a picture of the window, in the page
      await evaluate((s) => document.querySelector(s).scrollIntoView({ block: 'center' }), selector);
      const png = await driver.takeScreenshot();
      const crop = await evaluate(cropInPage, { selector, png });
      return Buffer.from(crop, 'base64');
    },
    async close() {
      await driver.quit().catch(() => {});
      server.child.kill();
    },
  };
}
