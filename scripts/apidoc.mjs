// Builds the API reference (docs/api/index.html) with TypeDoc from src/index.ts and its doc comments:
// `npm run docs`; extra arguments go to TypeDoc (e.g. `--json api.json`, `--out dir`).
//
// TypeDoc lives in tools/apidoc with its own TypeScript 5.9 because it drives the TypeScript compiler
// API, which the project's TypeScript 7 (the native compiler) does not offer. This script installs it
// there when missing or outdated, builds the generated sources that src/ imports when they are missing
// (TypeDoc type-checks src/), and runs it. typedoc.json turns every warning into an error, an
// undocumented export included, so the exit code says whether the reference is complete.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tool = join(root, 'tools', 'apidoc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Whether every pinned devDependency of tools/apidoc is installed at its version. */
function installed() {
  const { devDependencies } = JSON.parse(readFileSync(join(tool, 'package.json'), 'utf8'));
  return Object.entries(devDependencies).every(([name, version]) => {
    const file = join(tool, 'node_modules', name, 'package.json');
    return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).version === version;
  });
}

if (!installed()) execFileSync(npm, ['ci', '--prefix', tool, '--silent', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });

const generated = ['src/cpu/wasm/simd-shared.generated.ts', 'src/cpu/worker-source.generated.ts', 'src/gpu/shaders.generated.ts', 'src/webgpu/wgsl.generated.ts'];
if (generated.some((f) => !existsSync(join(root, f)))) execFileSync(npm, ['run', 'build:embedded', '--silent'], { cwd: root, stdio: 'inherit' });

const typedoc = join(tool, 'node_modules', 'typedoc', 'bin', 'typedoc');
const r = spawnSync(process.execPath, [typedoc, '--options', join(root, 'typedoc.json'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
