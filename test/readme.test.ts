/**
 * Every ```js example in README.md and in the guides of docs/ runs as a user would run it: as an ES
 * module importing 'simdgl' (resolved to the built package in dist/), in its own Node process, and
 * must exit 0. The README stays short (under 15 KB: what simdgl is, install, bundlers, where to read
 * on) and links every guide of docs/, the index docs/README.md lists them all.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exampleRunner, exampleTitle, jsBlocks, packageBuilt, root } from './examples.js';

const guides = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => `docs/${f}`);

describe('README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  it('is under 15 KB: long explanations and tables belong in a guide of docs/', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
  });
  it("has a Quick start of exactly the two commands: 'npm ci && npm start' and 'npm ci && npm test'", () => {
    const block = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme);
    expect(block, 'a Quick start section with one sh block').not.toBeNull();
    const commands = block![1].trim().split('\n').map((l) => l.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
  it('links the guides, and the index docs/README.md lists every one', () => {
    const index = readFileSync(join(root, 'docs', 'README.md'), 'utf8');
    expect(readme).toContain('](docs/README.md)');
    const topics = guides.filter((g) => g !== 'docs/README.md');
    expect(topics.filter((g) => !index.includes(`](${g.slice('docs/'.length)})`)), 'guides missing from docs/README.md').toEqual([]);
  });
});

describe('README examples', () => {
  const examples = jsBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  it('has examples and a built package to run them against', () => {
    expect(examples.length).toBeGreaterThan(2);
    expect(packageBuilt()).toBe(true);
  });
  const run = exampleRunner('readme');
  examples.forEach((code, i) => {
    it(`${i + 1}: ${exampleTitle(code, `example ${i + 1}`)}`, async () => {
      expect(typeof (await run(code, `example-${i}`))).toBe('string');
    });
  });
});

// a guide without ```js examples (an index, a CLI page) has nothing to run: an empty suite would fail
for (const guide of guides.filter((g) => jsBlocks(readFileSync(join(root, g), 'utf8')).length > 0)) {
  describe(`${guide} examples`, () => {
    const run = exampleRunner(guide.replace(/\W+/g, '-'));
    jsBlocks(readFileSync(join(root, guide), 'utf8')).forEach((code, i) => {
      it(`${i + 1}: ${exampleTitle(code, `example ${i + 1}`)}`, async () => {
        expect(typeof (await run(code, `example-${i}`))).toBe('string');
      });
    });
  });
}
