/**
 * Runs documentation examples as a user would: each one an ES module importing 'simdgl' (resolved to
 * the built package in dist/), in its own Node process started in the project root (so the shared
 * matrices are at data/matrices, as the examples say), and it must exit 0 within a minute.
 * An example importing 'webgpu' gets the project's Dawn (on SwiftShader without a GPU).
 * Used by readme.test.ts (README.md's ```js blocks) and apidoc.test.ts (the API reference's @example blocks).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist', 'index.js');

/** The `webgpu` package's entry in the project's install. */
const dawn = (): string => createRequire(join(root, 'package.json')).resolve('webgpu');

/** Whether the package is built, so examples have something to import. */
export function packageBuilt(): boolean {
  return existsSync(dist);
}

/** The ```js blocks of a Markdown text, without their fences. */
export function jsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The example's first comment line, to name it in the test's title. */
export function exampleTitle(code: string, fallback: string): string {
  return code.split('\n').find((l) => l.startsWith('//')) ?? fallback;
}

/** A runner writing its example files into one fresh temporary folder. */
export function exampleRunner(prefix: string): (code: string, name: string) => Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `simdgl-${prefix}-`));
  const exec = promisify(execFile);
  return async (code, name) => {
    const file = join(dir, `${name.replace(/[^\w.-]+/g, '_')}.mjs`);
    // 'simdgl' is the built package; 'webgpu' (Dawn, an optional peer) the project's install, on
    // SwiftShader where there is no GPU, as in the WebGPU suites
    if (code.includes("from 'webgpu'")) pointDawnAtSwiftShader();
    writeFileSync(file, code.replaceAll(/from 'simdgl'/g, `from '${pathToFileURL(dist).href}'`).replaceAll(/from 'webgpu'/g, `from '${pathToFileURL(dawn()).href}'`));
    const { stdout } = await exec(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    return stdout;
  };
}
