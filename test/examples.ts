/**
 * Runs documentation examples as a user would: each one an ES module importing 'simdgl' (resolved to
 * the built package in dist/), in its own Node process started in the project root (so the shared
 * matrices are at data/matrices, as the examples say), and it must exit 0 within a minute.
 * Used by readme.test.ts (README.md's ```js blocks) and apidoc.test.ts (the API reference's @example blocks).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist', 'index.js');

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
    writeFileSync(file, code.replaceAll(/from 'simdgl'/g, `from '${pathToFileURL(dist).href}'`));
    const { stdout } = await exec(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    return stdout;
  };
}
