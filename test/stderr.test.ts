/**
 * Nothing on stderr unless asked for, in Node, on a headless Linux machine (no DISPLAY, no
 * WAYLAND_DISPLAY, no XDG_RUNTIME_DIR, as CI and servers are): each case runs the built package in a
 * child process with that environment and reads every byte it wrote on stderr.
 *  - createRuntime() (backend 'auto') prints nothing: Dawn is not loaded.
 *  - backend 'webgpu' with a Vulkan driver (SwiftShader's) prints nothing: Mesa's device-select layer
 *    is kept out of Dawn's adapter discovery (it would ask libwayland for a display, which prints
 *    "error: XDG_RUNTIME_DIR is invalid…" twice), and NODEVICE_SELECT is not left behind.
 *  - backend 'webgpu' with the machine's own drivers (here: none Dawn accepts) throws
 *    GpuUnavailableError and never prints the XDG_RUNTIME_DIR lines; what Dawn itself logs when it
 *    refuses a driver (Mesa's lavapipe in Debian 12, or no driver at all) is Dawn's own log, which a
 *    library cannot capture: it is printed here, for the record, and the README says so.
 *  - `npm start` prints the overview alone: the build steps it runs first say nothing under
 *    `npm run build --silent` (scripts/log.mjs), and `simdgl overview` prints nothing on stderr, its
 *    WebGPU row included.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageBuilt, root } from './examples.js';
import { SWIFTSHADER_ICD } from './webgpu-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'simdgl-stderr-'));
const dist = pathToFileURL(join(root, 'dist', 'index.js')).href;

/** The environment of a headless machine: no display, no XDG runtime dir, no Vulkan or Mesa choices. */
function headless(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(DISPLAY|WAYLAND_DISPLAY|XDG_RUNTIME_DIR|NODEVICE_SELECT|MESA_VK_DEVICE_SELECT|DRI_PRIME|SIMDGL_NO_SWIFTSHADER)$|^VK_/.test(k)),
  );
  return { ...env, ...extra };
}

function node(script: string, env: NodeJS.ProcessEnv, args: string[] = []): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A child that creates a runtime with `backend` and prints what came of it as JSON. */
function runtimeScript(backend: string): string {
  const file = join(dir, `${backend}.mjs`);
  writeFileSync(
    file,
    `import { createRuntime } from '${dist}';
let out;
try {
  const rt = await createRuntime({ backend: '${backend}' });
  out = { ok: true, webgpu: rt.capabilities().paths.webgpu };
  rt.dispose();
} catch (e) {
  out = { ok: false, name: e.name, message: e.message };
}
out.NODEVICE_SELECT = process.env.NODEVICE_SELECT ?? null;
console.log(JSON.stringify(out));
`,
  );
  return file;
}

describe('stderr in Node (headless)', () => {
  it('the package is built', () => expect(packageBuilt()).toBe(true));

  it("createRuntime() ('auto') writes zero bytes on stderr", () => {
    const r = node(runtimeScript('auto'), headless());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).webgpu.reason).toMatch(/opt-in/);
  });

  it("backend 'webgpu' on SwiftShader: the path works, zero bytes on stderr, the environment as it was", () => {
    expect(existsSync(SWIFTSHADER_ICD), `no SwiftShader ICD at ${SWIFTSHADER_ICD} (Debian's chromium package ships it)`).toBe(true);
    const r = node(runtimeScript('webgpu'), headless({ VK_ICD_FILENAMES: SWIFTSHADER_ICD }));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out, r.stdout).toMatchObject({ ok: true, webgpu: { available: true }, NODEVICE_SELECT: null });
    expect(r.stderr).toBe('');
  });

  it("the README's advice for Dawn created by the user: NODEVICE_SELECT=1 keeps the XDG_RUNTIME_DIR lines away", () => {
    const file = join(dir, 'own-dawn.mjs');
    const webgpu = pathToFileURL(join(root, 'node_modules', 'webgpu', 'index.js')).href;
    writeFileSync(file, `import { create } from '${webgpu}';\nconst a = await create([]).requestAdapter();\nconsole.log(JSON.stringify({ adapter: a !== null }));\n`);
    const env = headless({ VK_ICD_FILENAMES: SWIFTSHADER_ICD });
    // without the advice, the device-select layer speaks (the check below could fail)
    const before = node(file, env);
    expect(JSON.parse(before.stdout).adapter, before.stderr).toBe(true);
    expect(before.stderr).toMatch(/XDG_RUNTIME_DIR/);
    const after = node(file, { ...env, NODEVICE_SELECT: '1' });
    expect(JSON.parse(after.stdout).adapter, after.stderr).toBe(true);
    expect(after.stderr).toBe('');
  });

  it("backend 'webgpu' with the machine's own Vulkan drivers: a typed error, and no XDG_RUNTIME_DIR lines", () => {
    const r = node(runtimeScript('webgpu'), headless());
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    if (out.ok) {
      // a machine with a GPU (or a driver Dawn accepts): the path works, nothing to refuse
      expect(out.webgpu.available).toBe(true);
    } else {
      expect(out.name).toBe('GpuUnavailableError');
      expect(out.message).toMatch(/no WebGPU adapter/);
    }
    expect(out.NODEVICE_SELECT).toBeNull();
    expect(r.stderr).not.toMatch(/XDG_RUNTIME_DIR/);
    // the rest is Dawn's own log (its warnings and their source lines), never ours
    const lines = r.stderr.split('\n').filter((l) => l.trim());
    expect(lines.filter((l) => !/^(Warning|Error): |^\s+(- |at )/.test(l)), r.stderr).toEqual([]);
    console.log(`stderr suite: Dawn's own log when it refuses this machine's drivers (${r.stderr.length} bytes)${r.stderr ? `:\n${r.stderr}` : ': none'}`);
  });

  it("npm start's build steps say nothing under npm run --silent, and speak otherwise", () => {
    const say = `import('${pathToFileURL(join(root, 'scripts', 'log.mjs')).href}').then((m) => m.info('built 4 wasm variants'))`;
    const silent = spawnSync(process.execPath, ['-e', say], { env: { ...process.env, npm_config_loglevel: 'silent' }, encoding: 'utf8' });
    expect(silent.stdout + silent.stderr).toBe('');
    const plain = spawnSync(process.execPath, ['-e', say], { env: { ...process.env, npm_config_loglevel: 'notice' }, encoding: 'utf8' });
    expect(plain.stdout).toBe('built 4 wasm variants\n');
    // every build script speaks through it, and package.json's start builds with --silent
    for (const f of ['build-embedded.mjs', 'build-shaders.mjs', 'declarations.mjs']) {
      const text = readFileSync(join(root, 'scripts', f), 'utf8');
      expect(text, f).toMatch(/from '\.\/log\.mjs'/);
      expect(text, f).not.toMatch(/console\.log\(/);
    }
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start).toMatch(/^npm run build --silent && /);
  });

  it('simdgl overview (npm start) writes zero bytes on stderr, with its WebGPU row', () => {
    const r = node(join(root, 'dist', 'cli.js'), headless(), ['overview', '--n', '8']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/CPU path, 1 thread/);
    if (existsSync(SWIFTSHADER_ICD)) expect(r.stdout).toMatch(/WebGPU path/);
    expect(r.stderr).toBe('');
  });
});
