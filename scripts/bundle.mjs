// Builds dist/ (what the package publishes) and build/bench.js with esbuild:
// - the library as ES modules, one per source file (dist/index.js, dist/formats/csr.js, …), not one
//   bundle: a user's bundler then keeps only the modules a page reaches (package.json says
//   sideEffects: false), e.g. readMatrixMarket alone without the runtime, and splits the lazily
//   imported GPU paths and embedded wasm fallbacks into chunks of their own;
// - the kernels' .wasm files beside dist/cpu/wasm.js, which loads them with new URL(…, import.meta.url);
// - twgl.js, the library's one npm dependency, bundled into dist/vendor/twgl.js (only the functions
//   the WebGL2 path calls), so the package has no runtime dependencies;
// - the CLI as dist/cli.js with commander and cli-progress bundled in (they are devDependencies: a
//   library install does not download them) and the library imported from dist/ (not copied);
// - self-contained declarations (scripts/declarations.mjs, after tsc).
import { build } from 'esbuild';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

// start from an empty dist/ so nothing stale is ever packed
rmSync(dist, { recursive: true, force: true });

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

// The CLI (src/cli.ts, src/cli/) and the worker's entry (bundled into worker-source.generated.ts by
// build-embedded.mjs) are not library modules.
const isCli = (p) => p === join(src, 'cli.ts') || p.startsWith(join(src, 'cli') + sep);
const libraryFiles = walk(src).filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !isCli(p) && p !== join(src, 'cpu', 'worker-entry.ts'));

const common = { format: 'esm', target: 'es2022', logLevel: 'warning' };
const generated = (p) => p.endsWith('.generated.ts'); // embedded data: a source map would repeat it
const modules = { ...common, outdir: dist, outbase: src, bundle: false, platform: 'neutral' };
await build({ ...modules, entryPoints: libraryFiles.filter((p) => !generated(p)), sourcemap: true });
await build({ ...modules, entryPoints: libraryFiles.filter(generated) });
for (const f of readdirSync(join(src, 'cpu', 'wasm')).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(src, 'cpu', 'wasm', f), join(dist, 'cpu', 'wasm', f));

// twgl.js: the named functions the sources call, bundled into one vendored module that the output
// imports by a relative path
const twglNames = new Set();
const importsTwgl = [];
for (const p of libraryFiles) {
  const text = readFileSync(p, 'utf8');
  if (!/from 'twgl\.js'/.test(text)) continue;
  importsTwgl.push(p);
  for (const m of text.matchAll(/\btwgl\.([a-z]\w*)\(/g)) twglNames.add(m[1]);
}
await build({
  ...common,
  stdin: { contents: `export { ${[...twglNames].sort().join(', ')} } from 'twgl.js';`, resolveDir: root, sourcefile: 'twgl-entry.js' },
  outfile: join(dist, 'vendor', 'twgl.js'),
  bundle: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  legalComments: 'inline',
});
for (const p of importsTwgl) {
  const out = join(dist, relative(src, p)).replace(/\.ts$/, '.js');
  const rel = relative(dirname(out), join(dist, 'vendor', 'twgl.js')).split(sep).join('/');
  const text = readFileSync(out, 'utf8');
  const next = text.replace(/from "twgl\.js"/g, `from "${rel.startsWith('.') ? rel : `./${rel}`}"`);
  if (next === text) throw new Error(`bundle: ${out} should import twgl.js`);
  writeFileSync(out, next);
}

// The CLI and the benchmark run in Node. The CLI bundles its own dependencies and imports the
// library's modules from dist/ as they are; `webgpu` (Dawn, an optional peer) stays a bare import.
const libraryFromDist = {
  name: 'library-from-dist',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      if (!target.startsWith(src + sep) || isCli(target)) return undefined;
      return { path: `./${relative(src, target).split(sep).join('/').replace(/\.ts$/, '.js')}`, external: true };
    });
  },
};
// a bundled CommonJS dependency calls require() for Node's builtins: give the ES module one
const requireShim = "import { createRequire as __simdglCreateRequire } from 'node:module'; const require = __simdglCreateRequire(import.meta.url);";
await build({
  ...common,
  entryPoints: [join(src, 'cli.ts')],
  outfile: join(dist, 'cli.js'),
  bundle: true,
  platform: 'node',
  external: ['webgpu'],
  plugins: [libraryFromDist],
  banner: { js: `#!/usr/bin/env node\n${requireShim}` },
});
// the benchmark is not part of the published package (dist/): it needs the devDependencies' peers
await build({ ...common, entryPoints: ['bench/run.ts'], outfile: 'build/bench.js', bundle: true, platform: 'node', packages: 'external', sourcemap: true, banner: { js: '#!/usr/bin/env node' } });
