/**
 * The docs site (`npm run docs`, TypeDoc over src/index.ts with README.md and the guides of docs/)
 * builds with zero warnings, holds every guide of docs/ (each linked from the guide index, docs/README.md), so every export is documented (typedoc.json turns an undocumented one into
 * an error) and every link of a guide resolves; every exported function
 * and class, and every method of Runtime, has an @example; and the examples are honest: each ```js
 * block runs as a user would run it (the README examples' runner), each ```ts block (for browsers)
 * says on its first line why it is not run.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exampleRunner, exampleTitle, packageBuilt, root } from './examples.js';

// TypeDoc's reflection kinds (typedoc/src/lib/models/kind.ts)
const FUNCTION = 64;
const CLASS = 128;
const METHOD = 2048;

interface Part {
  kind: string;
  text: string;
}
interface Comment {
  summary: Part[];
  blockTags?: { tag: string; content: Part[] }[];
}
interface Reflection {
  name: string;
  kind: number;
  comment?: Comment;
  signatures?: Reflection[];
  children?: Reflection[];
}

// the build runs while the tests are collected: its JSON names the examples to run
const out = mkdtempSync(join(tmpdir(), 'simdgl-apidoc-'));
const json = join(out, 'api.json');
const build = spawnSync(process.execPath, [join(root, 'scripts', 'apidoc.mjs'), '--json', json, '--out', join(out, 'html')], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  timeout: 300_000,
});
const log = `${build.stdout ?? ''}${build.stderr ?? ''}`;
const built: Reflection = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : { name: 'missing', kind: 1 };
// with the guides of docs/ in the site (projectDocuments), the entry point stays one module of the project
const MODULE = 2;
const project: Reflection = built.children?.length === 1 && built.children[0].kind === MODULE ? built.children[0] : built;
const exported = project.children ?? [];

/** The comments of a reflection: its own and those of its call signatures (functions, methods). */
function comments(r: Reflection): Comment[] {
  return [r.comment, ...(r.signatures ?? []).map((s) => s.comment)].filter((c): c is Comment => c !== undefined);
}

/** The @example texts of a reflection (overloads repeat their comment: each text once). */
function examplesOf(r: Reflection): string[] {
  const texts = comments(r).flatMap((c) => (c.blockTags ?? []).filter((t) => t.tag === '@example').map((t) => t.content.map((p) => p.text).join('')));
  return [...new Set(texts)];
}

/** Every @example in the reference, with the full name of what it documents. */
function allExamples(r: Reflection, prefix: string, into: { name: string; text: string }[] = []): { name: string; text: string }[] {
  for (const c of r.children ?? []) {
    const name = prefix ? `${prefix}.${c.name}` : c.name;
    examplesOf(c).forEach((text, i, all) => into.push({ name: all.length > 1 ? `${name}#${i + 1}` : name, text }));
    allExamples(c, name, into);
  }
  return into;
}

const examples = allExamples(project, '');
const blocks = examples.flatMap(({ name, text }) =>
  [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m, i, all) => ({ name: all.length > 1 ? `${name}-${i + 1}` : name, lang: m[1], code: m[2] })),
);

describe('API reference', () => {
  it('builds with zero warnings (every export documented, every link resolved)', () => {
    expect(log).not.toMatch(/\[(warning|error)\]/);
    expect(build.status, log).toBe(0);
    expect(existsSync(join(out, 'html', 'index.html'))).toBe(true);
  });

  it('is one site: every guide of docs/ is a page of it, linked from the guide index, which the front page links', () => {
    const html = join(out, 'html');
    const guides = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => f.replace(/\.md$/, ''));
    expect(guides.length).toBeGreaterThan(10);
    expect(guides.filter((g) => !existsSync(join(html, 'documents', `${g}.html`))), 'guides missing from the site').toEqual([]);
    const hrefs = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/href="([^"#]+)/g)].map((m) => m[1]));
    const index = hrefs(join(html, 'documents', 'README.html'));
    expect(guides.filter((g) => g !== 'README' && !index.has(`${g}.html`)), 'guides that docs/README.md does not link').toEqual([]);
    expect(hrefs(join(html, 'index.html')).has('documents/README.html'), "the front page (README.md) does not link the guide index").toBe(true);
  });

  it('documents every export of the built package', async () => {
    expect(packageBuilt()).toBe(true);
    const names = Object.keys(await import(pathToFileURL(join(root, 'dist', 'index.js')).href));
    const documented = new Set(exported.map((r) => r.name));
    expect(names.filter((n) => !documented.has(n))).toEqual([]);
  });

  it('has an @example for every exported function and class and every method of Runtime', () => {
    const runtime = exported.find((r) => r.name === 'Runtime');
    const needing = [
      ...exported.filter((r) => r.kind === FUNCTION || r.kind === CLASS).map((r) => ({ name: r.name, r })),
      ...(runtime?.children ?? []).filter((r) => r.kind === METHOD).map((r) => ({ name: `Runtime.${r.name}`, r })),
    ];
    expect(needing.length).toBeGreaterThan(50);
    expect(needing.filter(({ r }) => examplesOf(r).length === 0).map(({ name }) => name)).toEqual([]);
  });

  it('has a code block in every @example: ```js to run, or ```ts whose first line says why it is not run', () => {
    expect(examples.filter(({ text }) => !/```(js|ts)\n/.test(text)).map(({ name }) => name)).toEqual([]);
    expect(blocks.filter((b) => b.lang !== 'js' && b.lang !== 'ts').map((b) => `${b.name}: \`\`\`${b.lang}`)).toEqual([]);
    expect(blocks.filter((b) => b.lang === 'ts' && !/^\/\/ not run: \S/.test(b.code)).map((b) => b.name)).toEqual([]);
  });

  describe.concurrent('examples', () => {
    const run = exampleRunner('apidoc');
    // ```ts blocks need what Node lacks (a browser GPU, a failing worker); the test above holds each to
    // its stated reason, and they are not registered as skipped tests
    for (const b of blocks.filter((x) => x.lang === 'js')) {
      it(`${b.name}: ${exampleTitle(b.code, 'example')}`, async () => {
        expect(typeof (await run(b.code, b.name))).toBe('string');
      });
    }
  });
});
