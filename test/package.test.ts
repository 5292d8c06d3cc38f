// The package as a user gets it: `npm pack` the built library (npm test builds dist/ first), install
// the tarball into a fresh consumer project in a temporary folder and use it only by its name,
// 'simdgl', the way the README documents:
//   - a Node ESM script runs SpMV on a pool of workers, checks the result and exits on its own (one
//     variant never calls dispose(): idle workers must not keep the process alive); `npx simdgl info`;
//   - a page bundled from the consumer folder with esbuild and with Vite runs the CPU path with workers
//     and the GPU path in each engine of scripts/browsers.mjs (Chromium, Firefox, WebKitGTK) served
//     cross-origin isolated, with nothing copied next to the bundle (the wasm and the worker script
//     come from inside the package); each bundle is built once and opened in every engine;
//   - a CommonJS script require()s it; createRuntime() prints nothing on stderr (Dawn is not loaded);
//     a minified bundle reports every error class by its name;
//   - TypeScript 7 (the repository's) and 5.x (installed into a folder of its own) type-check a
//     consumer against the published declarations with skipLibCheck: false (strict; node16 and
//     bundler resolution; with and without the DOM library), and a file of deliberate mistakes must
//     fail on every marked line;
//   - the install's size and the bundles' sizes (a readMatrixMarket-only page, a CPU-only page), with
//     their goals printed and checked.
// Fixtures live in test/package/. Dependencies come from npm's cache (--offline), or from the
// registry when the cache lacks them (--prefer-offline). An engine that is not installed skips only
// its page checks, with a loud warning.
// Set SIMDGL_KEEP_PACKAGE_TMP=1 to keep the temporary folder for inspection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { launchChromium, listenIsolated } from '../scripts/isolated-page.mjs';
import { ENGINES, launch, missing, warnMissing, type Engine } from '../scripts/browsers.mjs';
import { jsBlocks } from './examples.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(root, 'test', 'package');
const engines = ENGINES.filter((e) => !missing(e));
const viteBin = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const tscBin = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const bar = '!'.repeat(100);
const loud = (lines: string[]) => console.warn(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n`);

warnMissing('the installed package in a page (esbuild and Vite bundles, workers, GPU path)');

const tmp = mkdtempSync(join(tmpdir(), 'simdgl-package-'));
const consumer = join(tmp, 'consumer');
let tarball = '';
let packedFiles: string[] = [];
let installLog = '';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

// what a user's shell has: without the variables vitest sets (with VITEST or NODE_ENV=test in the
// environment, Vite builds and logs differently)
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|TEST$|NODE_ENV$)/.test(k)));

function run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000): Run {
  const t0 = performance.now();
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 << 20,
    env: { ...userEnv, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', SIMDGL_DEBUG: '' },
  });
  const ms = performance.now() - t0;
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  const plain = (t: string) => t.replace(/\x1b\[[0-9;]*m/g, '');
  return { code: r.status, signal: r.signal, stdout: plain(r.stdout ?? ''), stderr: plain(r.stderr ?? String(r.error ?? '')), ms, timedOut };
}

const INSTALL_GOAL_MB = 10;

/** Bytes of the files under `dir` (what `du --apparent-size` counts), links not followed. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += sizeOf(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

const describeRun = (r: Run) => `exit ${r.code} signal ${r.signal} after ${r.ms.toFixed(0)} ms${r.timedOut ? ' (TIMED OUT)' : ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const quiet = (s: string) => s.split('\n').filter((l) => l && !/Unknown (user|env|project) config/.test(l)).join('\n');

beforeAll(() => {
  // pack exactly what `npm publish` would publish
  const pack = run('npm', ['pack', '--json', '--pack-destination', tmp], root);
  if (pack.code !== 0) throw new Error(`npm pack failed: ${describeRun(pack)}`);
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(tmp, info[0].filename);
  packedFiles = info[0].files.map((f) => f.path);

  // a fresh consumer project that knows nothing of the repository
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'simdgl-consumer', private: true, version: '1.0.0', type: 'module' }, null, 2));
  const base = ['install', tarball, '--no-audit', '--no-fund', '--no-package-lock'];
  let inst = run('npm', [...base, '--offline'], consumer, 120_000);
  installLog = `npm install --offline: ${inst.code === 0 ? 'ok' : 'failed'} in ${inst.ms.toFixed(0)} ms`;
  if (inst.code !== 0) {
    // npm's cache lacks a dependency: fetch what is missing from the registry
    inst = run('npm', [...base, '--prefer-offline'], consumer, 240_000);
    installLog += `; npm install --prefer-offline: ${inst.code === 0 ? 'ok' : 'failed'} in ${inst.ms.toFixed(0)} ms`;
  }
  if (inst.code !== 0) throw new Error(`npm install of the tarball failed: ${describeRun(inst)}`);
  console.log(`package suite: ${info[0].filename} (${packedFiles.length} files) in ${tmp}; ${installLog}`);
  const engine = quiet(inst.stderr).split('\n').filter((l) => /EBADENGINE\s+(package|required):/.test(l));
  if (engine.length) loud(['npm install warns that a dependency needs a newer Node than this one:', ...engine, `(node ${process.version}; simdgl's engines say ${pkg().engines?.node})`]);
  for (const f of ['node-spmv.mjs', 'node-cjs.cjs', 'error-names.js', 'mm-only.js', 'cpu-only.js', 'page.js', 'index.html', 'ts/consumer.ts', 'ts/bare.ts', 'ts/bad.ts']) copyFileSync(join(fixtures, f), join(consumer, f.replace('ts/', '')));
}, 400_000);

afterAll(() => {
  if (process.env.SIMDGL_KEEP_PACKAGE_TMP) console.log(`package suite: kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
});

function pkg(): {
  version: string;
  exports: Record<string, Record<string, string> | string>;
  main?: string;
  types?: string;
  bin: Record<string, string>;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
} {
  return JSON.parse(readFileSync(join(consumer, 'node_modules', 'simdgl', 'package.json'), 'utf8'));
}

describe('package: the tarball', () => {
  it('holds every file package.json points at, and no sources', () => {
    const p = pkg();
    const targets = new Set<string>();
    for (const entry of Object.values(p.exports)) for (const t of typeof entry === 'string' ? [entry] : Object.values(entry)) targets.add(t);
    for (const t of [p.main, p.types, ...Object.values(p.bin)]) if (t) targets.add(t);
    for (const t of targets) expect(packedFiles, `${t} is referenced by package.json but not packed`).toContain(normalize(t).replace(/^\.\//, ''));
    expect(packedFiles).toContain('README.md');
    expect(packedFiles).toContain('LICENSE');
    expect(readFileSync(join(consumer, 'node_modules', 'simdgl', 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    // one wasm file per kernel build, loaded with new URL(…, import.meta.url) from dist/cpu/wasm.js
    expect(packedFiles.filter((f) => f.endsWith('.wasm')).sort()).toEqual(['plain-shared', 'plain', 'simd-shared', 'simd'].map((v) => `dist/cpu/wasm/${v}.wasm`).sort());
    const strays = packedFiles.filter((f) => /^(src|test|assembly|scripts|bench|demo|glsl|build)\//.test(f));
    expect(strays, 'sources or build leftovers in the tarball').toEqual([]);
    // the declarations are complete: every relative import in them resolves inside the tarball
    for (const d of packedFiles.filter((f) => f.endsWith('.d.ts'))) {
      const text = readFileSync(join(consumer, 'node_modules', 'simdgl', d), 'utf8');
      for (const m of text.matchAll(/from '(\.[^']+)\.js'/g)) {
        const target = normalize(join(dirname(d), `${m[1]}.d.ts`));
        expect(packedFiles, `${d} imports ${m[1]}.js`).toContain(target);
      }
    }
  });

  it('every bare import in the packed JavaScript is a dependency or a Node builtin', () => {
    const p = JSON.parse(readFileSync(join(consumer, 'node_modules', 'simdgl', 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const deps = new Set(Object.keys(p.dependencies ?? {}));
    const missing: string[] = [];
    for (const f of packedFiles.filter((x) => x.endsWith('.js'))) {
      const text = readFileSync(join(consumer, 'node_modules', 'simdgl', f), 'utf8');
      for (const m of text.matchAll(/(?:^import\s[^;]*?\sfrom\s*|^import\s*|\bimport\(\s*)"([^"./][^"]*)"/gm)) {
        const spec = m[1];
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!spec.startsWith('node:') && !deps.has(name)) missing.push(`${f} imports ${spec}`);
      }
    }
    expect(missing, 'packed files import packages a user does not get').toEqual([]);
  });

  it('has no runtime dependencies; webgpu (Dawn) is an optional peer; require and import resolve', () => {
    const p = pkg();
    expect(p.dependencies ?? {}, 'the CLI bundles its own dependencies and twgl.js is vendored').toEqual({});
    expect(Object.keys(p.peerDependencies ?? {})).toEqual(['webgpu']);
    expect(p.peerDependenciesMeta?.webgpu?.optional).toBe(true);
    const dot = p.exports['.'] as Record<string, string>;
    expect(Object.keys(dot)).toEqual(['types', 'import', 'require', 'default']);
    expect(existsSync(join(consumer, 'node_modules', 'webgpu')), 'npm installed the optional peer webgpu').toBe(false);
  });

  it('one version everywhere: package.json, the CHANGELOG and simdgl --version', () => {
    const { version } = pkg();
    expect(version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const changelog = readFileSync(join(consumer, 'node_modules', 'simdgl', 'CHANGELOG.md'), 'utf8');
    expect(/^## (\d+\.\d+\.\d+)/m.exec(changelog)?.[1], 'the CHANGELOG\'s newest section').toBe(version);
    const r = run(process.execPath, [join(consumer, 'node_modules', '.bin', 'simdgl'), '--version'], consumer, 60_000);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it(`installs in at most ${INSTALL_GOAL_MB} MB (node_modules of a fresh project)`, () => {
    const bytes = sizeOf(join(consumer, 'node_modules'));
    console.log(`package suite: install size ${(bytes / 1e6).toFixed(2)} MB (goal ≤ ${INSTALL_GOAL_MB} MB); tarball ${(statSync(tarball).size / 1e6).toFixed(2)} MB`);
    expect(bytes).toBeLessThanOrEqual(INSTALL_GOAL_MB * 1e6);
  });

  it('the bin is an executable Node script with a shebang', () => {
    const cli = join(consumer, 'node_modules', 'simdgl', pkg().bin.simdgl);
    expect(readFileSync(cli, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(join(consumer, 'node_modules', '.bin', 'simdgl')).mode & 0o111, 'node_modules/.bin/simdgl is not executable').not.toBe(0);
  });
});

describe('package: Node', () => {
  const TIMEOUT = 60_000;
  for (const mode of ['dispose', 'no-dispose'] as const) {
    it(`an ESM script runs SpMV on workers and exits on its own (${mode})`, () => {
      const r = run(process.execPath, ['node-spmv.mjs', mode], consumer, TIMEOUT);
      expect(r.timedOut, `the script did not exit within ${TIMEOUT} ms: ${describeRun(r)}`).toBe(false);
      expect(r.signal, describeRun(r)).toBeNull();
      expect(r.code, describeRun(r)).toBe(0);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
      expect(out).toMatchObject({ mode, threads: 2, workers: true, sharedMemory: true, tinyOk: true, finite: true, rows: 4096 });
      expect(out.maxErr as number).toBeLessThanOrEqual(1e-12);
      expect(out.residentDiff as number).toBeLessThanOrEqual(1e-12);
      // createRuntime() in Node: nothing on stderr (Dawn is opt-in, so its driver warnings never print)
      expect(r.stderr, 'the script wrote to stderr').toBe('');
      expect(out.webgpuReason).toMatch(/in Node the WebGPU path is opt-in/);
      expect(out.notes, 'the kernels came from the embedded copy, not from their .wasm file').toEqual([]);
      console.log(`package suite: node-spmv.mjs ${mode}: exit 0 in ${r.ms.toFixed(0)} ms (${out.wasm} kernels, ${out.threads} threads)`);
    });
  }

  it('a CommonJS script require()s the package, runs SpMV and a kept factorization', () => {
    const r = run(process.execPath, ['node-cjs.cjs'], consumer, 60_000);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stderr, 'require(esm) printed on stderr').toBe('');
    const out = JSON.parse(r.stdout.trim()) as { y: number[]; errorName: string; factorization: boolean; factorKind: string; factorErr: number };
    expect(out.y).toEqual([2, 1, 2, 1, 0, 1, 2, 1, 2]);
    expect(out.errorName).toBe('ShapeError');
    // rt.factor imported the direct solvers on first use; what it returned is an instance of the export
    expect(out).toMatchObject({ factorization: true, factorKind: 'cholesky' });
    expect(out.factorErr).toBeLessThanOrEqual(1e-14);
  });

  it('a minified bundle reports every exported error class by its own name', async () => {
    const outfile = join(consumer, 'out-names', 'error-names.js');
    await build({ absWorkingDir: consumer, entryPoints: ['error-names.js'], outfile, bundle: true, minify: true, format: 'esm', platform: 'node', logLevel: 'silent' });
    expect(readFileSync(outfile, 'utf8'), 'the bundle is not minified').not.toMatch(/class ShapeError/);
    const r = run(process.execPath, [outfile], consumer, 60_000);
    expect(r.code, describeRun(r)).toBe(0);
    const names = JSON.parse(r.stdout.trim()) as Record<string, string>;
    expect(Object.keys(names).length).toBeGreaterThanOrEqual(10);
    for (const [exported, name] of Object.entries(names)) expect(name, exported).toBe(exported);
  });

  it('npx simdgl info runs the installed bin', () => {
    const r = run('npx', ['--no', 'simdgl', 'info'], consumer, 60_000);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toMatch(/CPU path \(WebAssembly\)/);
    expect(r.stdout).toMatch(/SIMD:\s+(yes|no)/);
    expect(r.stdout).toMatch(/GPU path \(WebGL2\)/);
  });
});

/** TypeScript 5.x, installed into a folder of its own (npm's cache first, else the registry). */
function installTypeScript5(): string {
  const dir = join(tmp, 'ts5');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'ts5', private: true, version: '1.0.0' }));
  const base = ['install', 'typescript@5', '--no-audit', '--no-fund', '--no-package-lock'];
  let inst = run('npm', [...base, '--offline'], dir, 120_000);
  if (inst.code !== 0) inst = run('npm', [...base, '--prefer-offline'], dir, 240_000);
  if (inst.code !== 0) throw new Error(`npm install typescript@5 failed (needed for the TypeScript 5.x checks): ${describeRun(inst)}`);
  return join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
}

describe('package: TypeScript declarations', () => {
  const compilerOptions = { target: 'ES2022', strict: true, noEmit: true, types: [] as string[] };
  const compilers: Record<string, () => string> = { '7': () => tscBin, '5': installTypeScript5 };
  const bins: Record<string, string> = {};
  function tsc(version: string, name: string, options: Record<string, unknown>, files: string[]): Run {
    bins[version] ??= compilers[version]();
    const config = join(consumer, `tsconfig.${name}.ts${version}.json`);
    writeFileSync(config, JSON.stringify({ compilerOptions: { ...compilerOptions, ...options }, files }, null, 2));
    return run(process.execPath, [bins[version], '-p', config, '--pretty', 'false'], consumer, 120_000);
  }
  const errorsIn = (r: Run) => (r.stdout + r.stderr).split('\n').filter((l) => /error TS\d+/.test(l));

  for (const version of Object.keys(compilers)) {
    it(`TypeScript ${version}: the compiler is the one asked for`, () => {
      bins[version] ??= compilers[version]();
      const r = run(process.execPath, [bins[version], '--version'], consumer, 60_000);
      expect(r.stdout, describeRun(r)).toMatch(new RegExp(`^Version ${version}\\.`));
      console.log(`package suite: TypeScript ${r.stdout.trim()}`);
    });

    for (const [name, options] of [
      ['node16', { module: 'Node16', moduleResolution: 'Node16', lib: ['ES2022', 'DOM'] }],
      ['bundler', { module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'] }],
      // a Node project without the DOM library (its types come from @types/node)
      ['node16-no-dom', { module: 'Node16', moduleResolution: 'Node16', lib: ['ES2022'], types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] }],
      // no DOM, no @types/node: the declarations alone (bare.ts uses nothing but ES2022 and simdgl)
      ['node16-bare', { module: 'Node16', moduleResolution: 'Node16', lib: ['ES2022'] }],
    ] as const) {
      it(`TypeScript ${version}: a strict consumer and the declarations type-check with skipLibCheck false (${name})`, () => {
        const r = tsc(version, name, { ...options, skipLibCheck: false }, [name === 'node16-bare' ? 'bare.ts' : 'consumer.ts']);
        expect(errorsIn(r), describeRun(r)).toEqual([]);
        expect(r.code, describeRun(r)).toBe(0);
      });
    }

    it(`TypeScript ${version}: a file of deliberate mistakes fails on every marked line and on no other`, () => {
      const r = tsc(version, 'bad', { module: 'Node16', moduleResolution: 'Node16', lib: ['ES2022', 'DOM'], skipLibCheck: false }, ['bad.ts']);
      expect(r.code, 'bad.ts type-checked: the declarations accept anything').not.toBe(0);
      const source = readFileSync(join(consumer, 'bad.ts'), 'utf8').split('\n');
      const marked = source.flatMap((l, i) => (/\/\/ error$/.test(l) ? [i + 1] : []));
      const failed = new Set(errorsIn(r).flatMap((l) => {
        const m = /^bad\.ts\((\d+),\d+\)/.exec(l);
        return m ? [Number(m[1])] : [];
      }));
      expect(marked.length).toBeGreaterThanOrEqual(10);
      expect(marked.filter((n) => !failed.has(n)), `marked lines that type-checked:\n${describeRun(r)}`).toEqual([]);
      expect([...failed].filter((n) => !marked.includes(n)), `unexpected errors:\n${describeRun(r)}`).toEqual([]);
    });
  }
});

// ---- bundle sizes: what a page downloads first (the entry chunk, minified and gzipped) ----

const MM_GOAL_KB = 15;
const MM_RATIO_GOAL = 1.5;
const CPU_PAGE_GOAL_KB = 120;

/**
 * What a page loads before it runs, from an esbuild bundle of a consumer fixture (minified, chunks
 * split): the entry chunk and the chunks it imports statically (with the solver set-up's, which
 * createRuntime waits for, where the page makes a runtime), gzipped one by one, and the modules in
 * them (`inputs`) and in the rest (`lazy`). Other chunks behind a dynamic import (GPU paths, the
 * embedded wasm fallback, the direct solvers' numeric phases) load only when used and are not counted.
 */
async function pageBytes(entry: string, fromSources: boolean): Promise<{ raw: number; gzip: number; files: string[]; inputs: Set<string>; lazy: Set<string> }> {
  const result = await build({
    absWorkingDir: consumer,
    entryPoints: [entry],
    outdir: join(consumer, `out-size-${fromSources ? 'src' : 'pkg'}`),
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    ...(fromSources ? { alias: { simdgl: join(root, 'src', 'index.ts') } } : {}),
  });
  const byName = new Map(result.outputFiles.map((f) => [f.path.split('/').pop()!, f.contents]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = new TextDecoder().decode(byName.get(name));
    for (const m of text.matchAll(/\bimport\s*(?:[\w$\s{},*]+from\s*)?"\.\/([\w.-]+\.js)"/g)) visit(m[1]);
  };
  visit(entry);
  // the solver set-up's chunk, which createRuntime waits for (src/runtime/solver-setup-chunk.ts): a page
  // that makes a runtime loads it before its first operation
  const outputs = result.metafile!.outputs;
  const chunkOf = (m: string) => Object.keys(outputs).find((o) => Object.keys(outputs[o].inputs).some((i) => i.endsWith(m)));
  const runtime = chunkOf('/runtime/runtime.js');
  if (runtime && seen.has(runtime.split('/').pop()!)) visit(chunkOf('/runtime/solver-setup.js')!.split('/').pop()!);
  const files = [...seen];
  const raw = files.reduce((a, f) => a + byName.get(f)!.length, 0);
  const inputs = new Set<string>();
  const lazy = new Set<string>();
  for (const [out, o] of Object.entries(result.metafile!.outputs)) for (const i of Object.keys(o.inputs)) (seen.has(out.split('/').pop()!) ? inputs : lazy).add(i);
  return { raw, gzip: files.reduce((a, f) => a + gzipSync(byName.get(f)!).length, 0), files, inputs, lazy };
}

/** The direct solvers' numeric phases and their CPU kernels: a page loads them with its first factorization. */
const DIRECT_NUMERIC = ['solvers/direct/factor.js', 'solvers/direct/supernodal.js', 'solvers/direct/band-lu.js', 'cpu/cholesky.js', 'cpu/lu.js'].map((m) => `node_modules/simdgl/dist/${m}`);

describe('package: bundle sizes (esbuild, minified, gzipped)', () => {
  it(`a readMatrixMarket-only page: ≤ ${MM_GOAL_KB} KB and within ${MM_RATIO_GOAL}× of the same import from the sources`, async () => {
    const pkgSize = await pageBytes('mm-only.js', false);
    const srcSize = await pageBytes('mm-only.js', true);
    const ratio = pkgSize.gzip / srcSize.gzip;
    console.log(`package suite: readMatrixMarket only: ${(pkgSize.gzip / 1024).toFixed(1)} KB min+gzip from the package (goal ≤ ${MM_GOAL_KB} KB), ${(srcSize.gzip / 1024).toFixed(1)} KB from the sources: ${ratio.toFixed(2)}× (goal ≤ ${MM_RATIO_GOAL}×)`);
    expect(pkgSize.gzip).toBeLessThanOrEqual(MM_GOAL_KB * 1024);
    expect(ratio).toBeLessThanOrEqual(MM_RATIO_GOAL);
  });

  it(`a CPU-only page (createRuntime, SpMV, CG, the reader): ≤ ${CPU_PAGE_GOAL_KB} KB`, async () => {
    const size = await pageBytes('cpu-only.js', false);
    console.log(`package suite: CPU-only page: ${(size.gzip / 1024).toFixed(1)} KB min+gzip, ${(size.raw / 1024).toFixed(1)} KB minified in ${size.files.length} file(s) (goal ≤ ${CPU_PAGE_GOAL_KB} KB; the one .wasm it fetches is not counted)`);
    expect(size.gzip).toBeLessThanOrEqual(CPU_PAGE_GOAL_KB * 1024);
    // the direct solvers' numeric phases are in the bundle, behind the dynamic import, not in what loads first
    expect(DIRECT_NUMERIC.filter((m) => size.inputs.has(m)), 'loaded before the page runs').toEqual([]);
    expect(DIRECT_NUMERIC.filter((m) => !size.lazy.has(m)), 'missing from the lazy chunks').toEqual([]);
  });
});

// ---- the browser: a static server with the cross-origin isolation headers, opened in each engine ----

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.map': 'application/json', '.wasm': 'application/wasm' };

interface PageCheck {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

/** Serves `dir` (only what a bundler wrote there) cross-origin isolated; logs every request. */
async function serve(dir: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = await listenIsolated((rawPath: string) => {
    if (rawPath === '/favicon.ico') return undefined; // 204, not logged
    const path = decodeURIComponent(rawPath);
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    const found = file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile();
    requests.push(`${found ? 200 : 404} ${path}`);
    return [found ? 200 : 404, TYPES[extname(file)] ?? 'application/octet-stream', found ? readFileSync(file) : 'not found'];
  });
  return { ...server, requests };
}

async function runPage(engine: Engine, dir: string, wasm: 'file' | 'embedded'): Promise<{ checks: PageCheck[]; error?: string; log: string[]; requests: string[] }> {
  const server = await serve(dir);
  const page = await launch(engine);
  const log = () => page.log.map((l) => `[${l.type}] ${l.text}`);
  try {
    await page.goto(`${server.url}?wasm=${wasm}`);
    await page.waitFor(() => (window as { __pkgResults?: unknown }).__pkgResults !== undefined, undefined, 150_000);
    const got = (await page.evaluate(() => (window as unknown as { __pkgResults: unknown }).__pkgResults)) as { checks: PageCheck[]; error?: string };
    return { checks: got.checks, error: got.error ?? undefined, log: log(), requests: server.requests };
  } catch (e) {
    throw new Error(`${(e as Error).message}\npage log:\n${log().join('\n')}\nrequests:\n${server.requests.join('\n')}`);
  } finally {
    await page.close();
    await server.close();
  }
}

/** The bundle's own JavaScript files, by bundler: esbuild's entry and chunks, Vite's assets/ (default). */
const BUNDLE_FILES = /^200 \/(|index\.html|page\.js|assets\/[\w.-]+\.js|[\w.-]+-[\w]+\.js)$/;
/** webpack's: main.js and its numbered chunks. */
const WEBPACK_FILES = /^200 \/(|index\.html|main\.js|\d+\.js)$/;

function assertPage(label: string, got: Awaited<ReturnType<typeof runPage>>, wasm: 'file' | 'embedded', ownFiles = BUNDLE_FILES): void {
  const summary = got.checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name} (${c.ms.toFixed(0)} ms): ${c.detail.split('\n')[0]}`).join('\n');
  console.log(`package suite: ${label} page\n${summary}\n  requests: ${got.requests.join(', ')}${got.log.length ? `\n${got.log.join('\n')}` : ''}`);
  expect(got.error, `the page threw outside a check\n${got.log.join('\n')}`).toBeUndefined();
  expect(got.checks.map((c) => c.name)).toEqual(['cpu: workers', 'cpu: a factorization (the direct solvers, loaded on first use)', 'gpu: backend gpu']);
  for (const c of got.checks) expect(c.ok, `${label}: ${c.name}: ${c.detail}\n${got.log.join('\n')}`).toBe(true);
  // one kernel build fetched (found, or missing where the embedded copy stands in), no worker script,
  // and otherwise only the bundle's own files
  const wasmRequests = got.requests.filter((r) => r.endsWith('.wasm'));
  expect(wasmRequests, 'the page should try exactly one wasm variant').toHaveLength(1);
  expect(wasmRequests[0]).toMatch(wasm === 'file' ? /^200 / : /^404 /);
  if (wasm === 'file') expect(got.requests.filter((r) => /(simd|plain)(-shared)?\.generated/.test(r)), 'the embedded wasm was loaded as well').toEqual([]);
  expect(got.requests.filter((r) => !r.endsWith('.wasm') && !ownFiles.test(r))).toEqual([]);
}

// each bundle is built once (building does not depend on the engine) and opened in every engine
const ESBUILD_VARIANTS = ['recipe', 'fallback'] as const;
const bundles = new Map<string, Promise<string | null>>();
const once = (key: string, make: () => Promise<string | null>) => {
  if (!bundles.has(key)) bundles.set(key, make());
  return bundles.get(key)!;
};

// recipe (the README's): chunks split and the package's .wasm files copied to <outdir>/wasm/, where
// the bundle's new URL('./wasm/…', import.meta.url) points; fallback: one file, nothing copied,
// so the kernels come from the copy embedded in the library
async function buildEsbuild(variant: (typeof ESBUILD_VARIANTS)[number]): Promise<string> {
  const outdir = join(consumer, `out-esbuild-${variant}`);
  const result = await build({
    absWorkingDir: consumer,
    entryPoints: ['page.js'],
    outdir,
    bundle: true,
    splitting: variant === 'recipe',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
  });
  expect(result.warnings.map((w) => w.text)).toEqual([]);
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs, 'esbuild did not take simdgl from the installed package').toContain('node_modules/simdgl/dist/index.js');
  const js = readFileSync(join(outdir, 'page.js'), 'utf8');
  // lines of doc comments (the API reference's examples import node:assert) are not imports
  const code = js.split('\n').filter((l) => !/^\s*(\*|\/\/)/.test(l)).join('\n');
  expect(code, 'a static node: import reached the browser bundle').not.toMatch(/(\bfrom\s*|\bimport\s*|require\()["']node:/);
  if (variant === 'recipe') {
    const wasmDir = join(consumer, 'node_modules', 'simdgl', 'dist', 'cpu', 'wasm');
    mkdirSync(join(outdir, 'wasm'));
    for (const f of readdirSync(wasmDir).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(wasmDir, f), join(outdir, 'wasm', f));
  }
  writeFileSync(join(outdir, 'index.html'), readFileSync(join(consumer, 'index.html'), 'utf8'));
  return outdir;
}

async function buildVite(): Promise<string | null> {
  if (!existsSync(viteBin)) {
    loud([`VITE CHECK SKIPPED: no Vite at ${viteBin} (it comes with vitest).`]);
    return null;
  }
  const outDir = join(consumer, 'out-vite');
  const r = run(process.execPath, [viteBin, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], consumer, 120_000);
  expect(r.code, `vite build failed: ${describeRun(r)}`).toBe(0);
  const externalized = [...new Set([...(r.stdout + r.stderr).matchAll(/Module "(node:[\w/]+)" has been externalized for browser compatibility/g)].map((m) => m[1]))];
  const stubs = readdirSync(join(outDir, 'assets')).filter((f) => f.includes('vite-browser-external'));
  if (externalized.length || stubs.length) {
    loud([
      `Vite externalizes ${externalized.join(' and ')} for the browser: Rolldown folds simdgl's`,
      "`const wt = 'node:…'; await import(wt)` (Node-only branches) into literal imports and warns.",
      `Stub chunks in the output: ${stubs.join(', ') || 'none'}. The page still works (those branches never run in a`,
      'browser); the fix belongs in src (e.g. process.getBuiltinModule in the Node-only branches).',
    ]);
  }
  // what Vite wrote: the page's JavaScript (entry and lazy chunks) and the kernels' files
  const assets = readdirSync(join(outDir, 'assets')).map((f) => {
    const bytes = readFileSync(join(outDir, 'assets', f));
    return { f, raw: bytes.length, gzip: gzipSync(bytes).length };
  });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`package suite: Vite output (minified; gzip):\n${assets.map((a) => `  ${a.f}: ${kb(a.raw)}; ${kb(a.gzip)}`).join('\n')}`);
  expect(assets.filter((a) => a.f.endsWith('.wasm')), 'Vite did not emit the four kernel files').toHaveLength(4);
  return outDir;
}

const webpackCli = join(root, 'node_modules', 'webpack-cli', 'bin', 'cli.js');

/** A recipe of the README: the ```js block whose first line is `// <file>`. */
function readmeRecipe(file: string): string {
  const block = jsBlocks(readFileSync(join(root, 'README.md'), 'utf8')).find((b) => b.startsWith(`// ${file}\n`));
  expect(block, `README.md has no \`\`\`js block starting with '// ${file}'`).toBeDefined();
  return block!;
}

// the README's webpack recipe, as printed there, in a fresh webpack app inside the consumer project
// (page.js as its src/index.js, an index.html of its own), built with `webpack --config`: webpack emits
// the four .wasm files as assets of their own, and the page must fetch one of them
async function buildWebpack(): Promise<string> {
  expect(existsSync(webpackCli), `no webpack-cli at ${webpackCli}: it is a devDependency (npm ci)`).toBe(true);
  const app = join(consumer, 'webpack-app');
  mkdirSync(join(app, 'src'), { recursive: true });
  copyFileSync(join(fixtures, 'page.js'), join(app, 'src', 'index.js'));
  writeFileSync(join(app, 'webpack.config.mjs'), readmeRecipe('webpack.config.mjs'));
  const r = run(process.execPath, [webpackCli, '--config', 'webpack.config.mjs', '--no-color'], app, 240_000);
  expect(r.code, `webpack failed: ${describeRun(r)}`).toBe(0);
  const out = r.stdout + r.stderr;
  expect(out, 'webpack compiled with warnings or errors').toMatch(/compiled successfully/);
  expect(out).not.toMatch(/WARNING|ERROR/);
  const dist = join(app, 'dist');
  const files = readdirSync(dist);
  const kb = (f: string) => `${(statSync(join(dist, f)).size / 1024).toFixed(1)} KB`;
  console.log(`package suite: webpack output (minified): ${files.map((f) => `${f} ${kb(f)}`).join(', ')}`);
  expect(files.filter((f) => f.endsWith('.wasm')), 'webpack did not emit the four kernel files').toHaveLength(4);
  copyFileSync(join(fixtures, 'webpack-index.html'), join(dist, 'index.html'));
  return dist;
}

describe.each(engines)('package: a page bundled from the consumer, in %s', (engine: Engine) => {
  for (const variant of ESBUILD_VARIANTS) {
    it(`esbuild bundle (${variant === 'recipe' ? 'split, wasm files copied' : 'one file, nothing copied'}): CPU path with workers and GPU path`, async () => {
      const outdir = (await once(`esbuild-${variant}`, () => buildEsbuild(variant)))!;
      const wasm = variant === 'recipe' ? 'file' : 'embedded';
      assertPage(`esbuild ${variant} in ${engine}`, await runPage(engine, outdir, wasm), wasm);
    }, 200_000);
  }

  it('Vite bundle: CPU path with workers and GPU path', async () => {
    const outDir = await once('vite', buildVite);
    if (outDir) assertPage(`Vite in ${engine}`, await runPage(engine, outDir, 'file'), 'file');
  }, 200_000);

  it("webpack bundle (the README's webpack.config.mjs): CPU path with workers and GPU path", async () => {
    const dist = (await once('webpack', buildWebpack))!;
    assertPage(`webpack in ${engine}`, await runPage(engine, dist, 'file'), 'file', WEBPACK_FILES);
  }, 400_000);
});

// The Next.js recipe without Next (which would add 341 MB to the install; the README says how it was
// checked with next build + next start): its headers() as Next calls it, and the packed JavaScript free
// of what Next's minifier (SWC) breaks: `(await x) ** 2` lost its parentheses there (Next 16.4.6), and
// `await x ** 2` is a syntax error that failed the whole chunk in the browser.
describe("package: the README's Next.js recipe", () => {
  it('next.config.mjs sends both isolation headers on every route', async () => {
    const file = join(consumer, 'next.config.mjs');
    writeFileSync(file, readmeRecipe('next.config.mjs'));
    const config = (await import(pathToFileURL(file).href)).default as { headers(): Promise<{ source: string; headers: { key: string; value: string }[] }[]> };
    const routes = await config.headers();
    expect(routes.map((r) => r.source)).toEqual(['/:path*']);
    expect(Object.fromEntries(routes[0].headers.map((h) => [h.key, h.value]))).toEqual({ 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  });

  it('no packed module raises an await or unary operand to a power (SWC drops the parentheses)', async () => {
    // acorn comes with webpack; preserveParens keeps the parentheses in the tree
    const { parse } = await import('acorn');
    type Node = { type: string; operator?: string; left?: Node; expression?: Node; start: number; [k: string]: unknown };
    const found: string[] = [];
    for (const f of packedFiles.filter((x) => x.endsWith('.js'))) {
      const text = readFileSync(join(consumer, 'node_modules', 'simdgl', f), 'utf8').replace(/^#!.*/, '');
      const walk = (n: unknown): void => {
        if (!n || typeof n !== 'object') return;
        if (Array.isArray(n)) return n.forEach(walk);
        const node = n as Node;
        if (node.type === 'BinaryExpression' && node.operator === '**' && node.left?.type === 'ParenthesizedExpression' && /^(AwaitExpression|UnaryExpression)$/.test(node.left.expression!.type)) {
          found.push(`${f}: ${text.slice(node.start, node.start + 60)}`);
        }
        for (const v of Object.values(node)) if (v && typeof v === 'object') walk(v);
      };
      walk(parse(text, { ecmaVersion: 'latest', sourceType: 'module', preserveParens: true }));
    }
    expect(found).toEqual([]);
  });
});

// the README's Vite dev-server recipe: once, in Chromium (the check watches every response the page gets)
describe.skipIf(missing('chromium') !== null)('package: the Vite dev server, in Chromium', () => {
  it("Vite dev server with the README's vite.config.js: the kernels come from their file", async () => {
    if (!existsSync(viteBin)) {
      loud([`VITE CHECK SKIPPED: no Vite at ${viteBin} (it comes with vitest).`]);
      return;
    }
    // the README's recipe, as printed there
    writeFileSync(join(consumer, 'vite.dev.config.js'), readmeRecipe('vite.config.js'));
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    const child = spawn(process.execPath, [viteBin, '--config', 'vite.dev.config.js', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: consumer, env: userEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const browser = (await launchChromium())!;
    const page = await browser.newPage();
    const log: string[] = [];
    const requests: string[] = [];
    page.on('console', (msg) => log.push(`[console.${msg.type()}] ${msg.text()}`));
    page.on('pageerror', (err) => log.push(`[pageerror] ${err.message}`));
    page.on('response', (r) => requests.push(`${r.status()} ${new URL(r.url()).pathname}`));
    try {
      const url = `http://127.0.0.1:${port}/`;
      // Vite colours its banner when FORCE_COLOR is set (as CI sets it): 'Local' and ':' come apart by an escape code
      for (let t0 = Date.now(); !/Local:/.test(output.replace(/\x1b\[[0-9;]*m/g, '')); ) {
        if (Date.now() - t0 > 60_000 || child.exitCode !== null) throw new Error(`vite did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.goto(`${url}?wasm=file`);
      await page.waitForFunction(() => (window as { __pkgResults?: unknown }).__pkgResults !== undefined, undefined, { timeout: 150_000, polling: 100 });
      const got = (await page.evaluate(() => (window as unknown as { __pkgResults: unknown }).__pkgResults)) as { checks: PageCheck[]; error?: string };
      const context = `\n${log.join('\n')}\nrequests: ${requests.join(', ')}\nvite:\n${output}`;
      console.log(`package suite: Vite dev page\n${got.checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail.split('\n')[0]}`).join('\n')}\n  wasm requests: ${requests.filter((r) => r.endsWith('.wasm')).join(', ')}`);
      expect(got.error, context).toBeUndefined();
      for (const c of got.checks) expect(c.ok, `${c.name}: ${c.detail}${context}`).toBe(true);
      // one kernel file, served from the package's own folder; the embedded copy never loaded
      expect(requests.filter((r) => r.endsWith('.wasm')), context).toEqual([expect.stringMatching(/^200 \/node_modules\/simdgl\/dist\/cpu\/wasm\/simd-shared\.wasm$/)]);
      expect(requests.filter((r) => /(simd|plain)(-shared)?\.generated/.test(r)), context).toEqual([]);
    } finally {
      await browser.close();
      child.kill('SIGTERM');
    }
  }, 200_000);
});
