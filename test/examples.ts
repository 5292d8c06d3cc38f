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
const webgpu = join(root, 'node_modules', 'webgpu', 'index.js');
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The environment of an example: Dawn pointed at SwiftShader's Vulkan driver where there is no other (as test/webgpu-helpers.ts does). */
function dawnEnv(): NodeJS.ProcessEnv {
  return !process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD) ? { ...process.env, VK_ICD_FILENAMES: SWIFTSHADER_ICD } : process.env;
}

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
    // 'webgpu' (Dawn, a devDependency here) resolves from the project, as from a user's app
    const text = code.replaceAll(/from 'simdgl'/g, `from '${pathToFileURL(dist).href}'`).replaceAll(/from 'webgpu'/g, `from '${pathToFileURL(webgpu).href}'`);
    writeFileSync(file, text);
    const { stdout } = await exec(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000, env: dawnEnv() });
    return stdout;
  };
}
