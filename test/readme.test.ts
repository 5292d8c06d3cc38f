/**
 * Every ```js example in README.md runs as a user would run it: as an ES module importing 'simdgl'
 * (resolved to the built package in dist/), in its own Node process, and must exit 0.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const dist = pathToFileURL(join(root, 'dist', 'index.js')).href;

describe('README examples', () => {
  it('has examples and a built package to run them against', () => {
    expect(examples.length).toBeGreaterThan(2);
    expect(existsSync(join(root, 'dist', 'index.js'))).toBe(true);
  });
  const dir = mkdtempSync(join(tmpdir(), 'simdgl-readme-'));
  examples.forEach((code, i) => {
    const first = code.split('\n').find((l) => l.startsWith('//')) ?? `example ${i + 1}`;
    it(`${i + 1}: ${first}`, () => {
      const file = join(dir, `example-${i}.mjs`);
      writeFileSync(file, code.replaceAll(/from 'simdgl'/g, `from '${dist}'`));
      // the shared matrices are addressed relative to the project root, as in the README
      const out = execFileSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      expect(typeof out).toBe('string');
    });
  });
});
