// esbuild split build of a page that creates a runtime, from <tree>/dist (as first-load-chromium.mjs
// bundles it); prints each output chunk (size, static and dynamic imports, modules), then the chunks a
// createRuntime fetches after the page's, the imports from outside that share them, and the entries
// that reach each. usage: node esbuild-chunks.mjs <tree>
import { build } from 'esbuild';
import { join } from 'node:path';
const tree = process.argv[2];
const page = `import { createRuntime, poisson2D } from ${JSON.stringify(join(tree, 'dist', 'index.js'))};
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
window.__rt = rt;`;
const out = await build({ stdin: { contents: page, resolveDir: tree, loader: 'js' }, bundle: true, splitting: true, minify: true, format: 'esm', outdir: '/tmp/flc-out', write: false, logLevel: 'silent', external: ['node:*'], platform: 'browser', target: 'es2022', entryNames: 'page', metafile: true });
const m = out.metafile.outputs;
const short = (p) => p.split('/').pop();
for (const [name, o] of Object.entries(m)) {
  if (!name.endsWith('.js')) continue;
  const st = o.imports.filter((i) => i.kind === 'import-statement').map((i) => short(i.path));
  const dyn = o.imports.filter((i) => i.kind === 'dynamic-import').map((i) => short(i.path));
  const mods = Object.keys(o.inputs).map((p) => p.replace(/^.*\/dist\//, ''));
  console.log(`${short(name)} ${o.bytes} B entry=${o.entryPoint ?? '-'}\n  static: ${st.join(' ')}\n  dynamic: ${dyn.join(' ')}\n  modules(${mods.length}): ${mods.slice(0, 40).join(' ')}`);
}
// the chunks a createRuntime fetches after the page's: the set-up's and rt.solve's driver's entries and
// the chunks they import that the page did not (found only once those entries are in: a second wave)
const byShort = Object.fromEntries(Object.entries(m).map(([k, o]) => [short(k), o]));
const statics = (n) => byShort[n].imports.filter((i) => i.kind === 'import-statement').map((i) => short(i.path));
const closure = (roots) => {
  const seen = new Set();
  const visit = (n) => { if (seen.has(n)) return; seen.add(n); for (const d of statics(n)) visit(d); };
  roots.forEach(visit);
  return seen;
};
const pageSet = closure(['page.js']);
const later = Object.keys(byShort).filter((n) => /^(solver-setup|solve-run)-/.test(n));
const after = [...closure(later)].filter((n) => !pageSet.has(n) && !later.includes(n));
console.log(`\nafter the page: entries ${later.join(' ')}; then ${after.length} chunks (${after.reduce((s, n) => s + byShort[n].bytes, 0)} B): ${after.map((n) => `${n}[${Object.keys(byShort[n].inputs).map((p) => p.replace(/^.*\/dist\//, '')).join(',')}]`).join(' ')}`);
// which modules outside those chunks import their modules (the import edges that make them shared)
const inputs = out.metafile.inputs;
const sharedMods = new Set(after.flatMap((n) => Object.keys(byShort[n].inputs)));
const chunkOf = {};
for (const [n, o] of Object.entries(byShort)) for (const p of Object.keys(o.inputs)) chunkOf[p] = n;
const edges = [];
for (const [p, i] of Object.entries(inputs)) {
  if (sharedMods.has(p)) continue;
  for (const imp of i.imports) if (imp.kind === 'import-statement' && sharedMods.has(imp.path)) edges.push(`${p.replace(/^.*\/dist\//, '')} (${chunkOf[p]}) -> ${imp.path.replace(/^.*\/dist\//, '')}`);
}
console.log(`\nimports into those chunks from outside them:\n${edges.join('\n')}`);
// the entries (dynamic-import targets and the page) whose static import graph reaches each of them
const entryChunks = Object.keys(byShort).filter((n) => byShort[n].entryPoint);
for (const n of after) console.log(`${n} reached from: ${entryChunks.filter((e) => closure([e]).has(n)).join(' ')}`);
