// Bundles the library (platform-neutral ESM, wasm embedded) and the Node entry points with esbuild.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

// start from an empty dist/ so nothing stale is ever packed
rmSync('dist', { recursive: true, force: true });

const common = { bundle: true, format: 'esm', target: 'es2022', sourcemap: true, logLevel: 'warning' };
// platform 'neutral' resolves only the 'module' field by default; twgl.js publishes 'main' too
await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', platform: 'neutral', mainFields: ['module', 'main'] });
// The CLI and benchmark run in Node; their npm dependencies stay external (installed with the package).
const node = { ...common, platform: 'node', packages: 'external', banner: { js: '#!/usr/bin/env node' } };
await build({ ...node, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js' });
// the benchmark is not part of the published package (dist/): it needs the devDependencies' peers
await build({ ...node, entryPoints: ['bench/run.ts'], outfile: 'build/bench.js' });
