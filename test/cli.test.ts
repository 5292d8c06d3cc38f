// The command line as users run it: the built dist/cli.js (npm test builds it first), on small inputs
// written to a temporary folder. compare --json, solve (residual checked here, in f64), info, and bad
// input: a non-zero exit and one line on stderr, never a stack trace.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';
import { poisson2D, randomMatrix } from '../src/generators/index.js';
import { DenseMatrix, FORMATS, type CSRMatrix } from '../src/formats/index.js';
import { loadShared } from './matrices.js';
import { blockDiagonal, trueResidual } from './solve-reference.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'simdgl-cli-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: dir, timeout: 110_000, env: { ...process.env, SIMDGL_DEBUG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const P = poisson2D(10); // 100×100 SPD
let spd: string;
let nonsym: string;

beforeAll(() => {
  if (!existsSync(cli)) execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'pipe' });
  spd = file('poisson2d_10.mtx', writeMatrixMarket(P, { symmetry: 'symmetric' }));
  // diagonally dominant, unsymmetric: BiCGSTAB's job
  const R = randomMatrix({ rows: 80, meanRowLength: 5, seed: 3 });
  const d = R.toCSR();
  const coo: string[] = [];
  for (let i = 0; i < d.rows; i++) {
    let diag = false;
    for (let k = d.rowPtr[i]; k < d.rowPtr[i + 1]; k++) {
      const v = d.colIdx[k] === i ? 10 : d.values[k];
      diag ||= d.colIdx[k] === i;
      coo.push(`${i + 1} ${d.colIdx[k] + 1} ${v}`);
    }
    if (!diag) coo.push(`${i + 1} ${i + 1} 10`);
  }
  nonsym = file('nonsym.mtx', `%%MatrixMarket matrix coordinate real general\n80 80 ${coo.length}\n${coo.join('\n')}\n`);
}, 120_000);

describe('simdgl compare', () => {
  it('--json has a row per format (SIMD, plain, and N threads with --workers) with small errors; --dtype is an alias', () => {
    const r = run('compare', spd, '--dtype', 'f64,f32', '--workers', '2', '--min-ms', '1', '--json');
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // without --paths: the CPU path alone, and no word about paths
    expect(rows.filter((x) => x.path !== undefined || !['js', 'wasm-simd', 'wasm-plain', 'wasm-simd-mt'].includes(x.impl))).toEqual([]);
    for (const dtype of ['f64', 'f32']) {
      expect(rows.find((x) => x.dtype === dtype && x.impl === 'js')).toBeTruthy();
      for (const format of FORMATS) {
        for (const impl of ['wasm-simd', 'wasm-plain', 'wasm-simd-mt']) {
          const row = rows.find((x) => x.dtype === dtype && x.format === format && x.impl === impl);
          expect(row, `${dtype} ${format} ${impl}`).toBeTruthy();
          expect(row.skipped, `${dtype} ${format} ${impl}`).toBeUndefined();
          expect(row.kernelMs).toBeGreaterThan(0);
          expect(row.maxRelError).toBeLessThan(dtype === 'f64' ? 1e-14 : 1e-6);
          expect(row.threads).toBe(impl === 'wasm-simd-mt' ? 2 : 1);
        }
      }
    }
  });

  it('prints a table with the thread columns', () => {
    const r = run('compare', spd, '--dtypes', 'f32', '--formats', 'csr,ell', '--workers', '2', '--min-ms', '1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/2 thr ms/);
    expect(r.stdout).toMatch(/^csr\s+f32/m);
    expect(r.stdout).toMatch(/^ell\s+f32/m);
  });
});

describe('simdgl compare --paths', () => {
  // the CLI offers SwiftShader's Vulkan driver to Dawn (src/cli/software-vulkan.ts): where Debian's
  // chromium is installed, as in CI, the WebGPU path must run
  const swiftshader = existsSync('/usr/lib/chromium/vk_swiftshader_icd.json');
  if (!swiftshader) console.warn('\n!!  compare --paths: no SwiftShader Vulkan driver here; the WebGPU rows are NOT checked unless a GPU driver exists\n');

  it('--json: a record per path first, then CPU rows and WebGPU rows checked against f64; WebGL2 (none in Node) is one record with its reason', () => {
    const r = run('compare', spd, '--paths', 'cpu,webgpu,webgl2', '--dtypes', 'f32,f64', '--formats', 'csr,coo,ell', '--min-ms', '1', '--json');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const paths = lines.slice(0, 3);
    expect(paths.map((p) => p.path)).toEqual(['cpu', 'webgpu', 'webgl2']);
    expect(paths[0]).toMatchObject({ available: true });
    expect(paths[2]).toMatchObject({ available: false });
    expect(paths[2].reason).toMatch(/canvas/);
    const rows = lines.slice(3);
    expect(rows.some((x) => x.path !== undefined)).toBe(false);
    expect(rows.filter((x) => x.impl === 'webgl2')).toEqual([]);
    const webgpu = paths[1];
    if (swiftshader) expect(webgpu.available, webgpu.reason).toBe(true);
    if (!webgpu.available) {
      expect(webgpu.reason).toMatch(/\S/);
      expect(rows.filter((x) => x.impl === 'webgpu')).toEqual([]);
      return;
    }
    // a software adapter says so
    if (/swiftshader|llvmpipe|lavapipe/i.test(webgpu.device)) expect(webgpu.software).toBe(true);
    for (const dtype of ['f32', 'f64']) {
      for (const format of ['csr', 'coo', 'ell']) {
        for (const impl of ['wasm-simd', 'wasm-plain', 'webgpu']) expect(rows.find((x) => x.dtype === dtype && x.format === format && x.impl === impl), `${dtype} ${format} ${impl}`).toBeTruthy();
        const g = rows.find((x) => x.dtype === dtype && x.format === format && x.impl === 'webgpu');
        expect(g.skipped, `${dtype} ${format}`).toBeUndefined();
        expect(g.kernelMs).toBeGreaterThan(0);
        expect(g.gbs).toBeGreaterThan(0);
        // f32 natively; f64 as double-single on the GPU
        expect(g.maxRelError, `${dtype} ${format}`).toBeLessThan(dtype === 'f64' ? 1e-12 : 1e-6);
      }
      // the WebGPU path has CSR and ELL kernels, not COO: that one runs as another format, and says which
      expect(rows.find((x) => x.dtype === dtype && x.format === 'csr' && x.impl === 'webgpu').ranAs).toBeUndefined();
      expect(rows.find((x) => x.dtype === dtype && x.format === 'ell' && x.impl === 'webgpu').ranAs).toBeUndefined();
      const coo = rows.find((x) => x.dtype === dtype && x.format === 'coo' && x.impl === 'webgpu');
      expect(coo.ranAs).toMatch(/^(csr|ell|dia|hyb|sell)$/);
    }
  });

  it('tables: a line per path, an unavailable one with its reason once, the software adapter labelled, formats it lacks shown as what ran', () => {
    const r = run('compare', spd, '--paths', 'webgpu,webgl2', '--dtypes', 'f32', '--formats', 'csr,csc', '--min-ms', '1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/WebGL2 path: unavailable — .*canvas/g)).toHaveLength(1);
    expect(r.stdout).not.toMatch(/^CPU path/m);
    if (swiftshader) expect(r.stdout).toMatch(/^WebGPU path: \S/m);
    if (/^WebGPU path: unavailable/m.test(r.stdout)) return;
    expect(r.stdout).toMatch(/^format\s+dtype\s+webgpu ms\s+GFLOP\/s\s+GB\/s\s+max rel err$/m);
    expect(r.stdout).toMatch(/^csr\s+f32\s+\d/m);
    expect(r.stdout).toMatch(/^csc \(as \w+\)\s+f32\s+\d/m);
    // the path's line and its table's heading both say a software adapter is one
    const named = r.stdout.split('\n').filter((l) => /^WebGPU path: .*(swiftshader|llvmpipe|lavapipe)/i.test(l));
    for (const l of named) expect(l).toMatch(/\(software adapter: the shaders run on the CPU, so its times are not a GPU’s\)$/);
    if (swiftshader) expect(named).toHaveLength(2);
  });
});

describe('simdgl solve', () => {
  it('CG writes a solution whose residual is below the tolerance', () => {
    const out = join(dir, 'x.mtx');
    const r = run('solve', spd, '--method', 'cg', '--tol', '1e-10', '-o', out, '--workers', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cg \+ jacobi on .*\n  preconditioner: jacobi .*\n  converged after \d+ iterations in [\d.]+ ms, setup included\n  true residual ‖b − A·x‖\/‖b‖ \d\.\d+e-\d+ \(f64\)/);
    const sol = parseMatrixMarket(readFileSync(out));
    expect(sol.header.format).toBe('array');
    expect(sol.matrix).toBeInstanceOf(DenseMatrix);
    expect([sol.matrix.rows, sol.matrix.cols]).toEqual([100, 1]);
    const b = new Float64Array(100).fill(1);
    expect(trueResidual(P, (sol.matrix as DenseMatrix).values, b)).toBeLessThan(1e-9);
  });

  it('BiCGSTAB with Jacobi on an unsymmetric matrix, right-hand side from a file, --json', () => {
    const b = Float64Array.from({ length: 80 }, (_, i) => Math.sin(i + 1));
    const rhs = file('b.mtx', writeMatrixMarket(new DenseMatrix(80, 1, 'f64', b)));
    const out = join(dir, 'x2.mtx');
    const r = run('solve', nonsym, '--method', 'bicgstab', '--preconditioner', 'jacobi', '--rhs', rhs, '--tol', '1e-11', '-o', out, '--json');
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ method: 'bicgstab', preconditioner: 'jacobi', converged: true, n: 80 });
    expect(summary.trueResidual).toBeLessThan(1e-10);
    const A = parseMatrixMarket(readFileSync(nonsym)).matrix.toCSR();
    const x = (parseMatrixMarket(readFileSync(out)).matrix as DenseMatrix).values;
    expect(trueResidual(A, x, b)).toBeLessThan(1e-10);
  });

  it('--rhs random, f32: converges to an f32-sized residual', () => {
    const r = run('solve', spd, '--rhs', 'random', '--dtype', 'f32', '--tol', '1e-5', '--json');
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.dtype).toBe('f32');
    expect(s.trueResidual).toBeLessThan(1e-4);
  });

  it("'auto' factorizes a small matrix (on the host): method direct, 0 iterations, the residual checked here", () => {
    const out = join(dir, 'x3.mtx');
    const r = run('solve', spd, '--tol', '1e-10', '-o', out, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ method: 'direct', preconditioner: 'none', iterations: 0, converged: true });
    const x = (parseMatrixMarket(readFileSync(out)).matrix as DenseMatrix).values;
    expect(trueResidual(P, x, new Float64Array(100).fill(1))).toBeLessThan(1e-9);
  });

  it('a direct solve says so in words: no preconditioner line, no iteration count', () => {
    const r = run('solve', spd, '--method', 'direct', '--tol', '1e-10');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^direct factorization on .*\n  converged by a factorization.* in [\d.]+ ms, setup included\n  true residual/);
    expect(r.stdout).not.toMatch(/preconditioner|iterations/);
  });

  it("where 'auto''s Krylov candidates do not answer, the factorization does, and a note says what came first", () => {
    // 50 copies of west0479 down the diagonal (23 950 unknowns): GMRES + ILU(0) stagnates there
    const A = blockDiagonal(loadShared('west0479'), 50);
    const n = A.rows;
    const hard = file('west0479x50.mtx', writeMatrixMarket(A));
    const out = join(dir, 'x4.mtx');
    const r = run('solve', hard, '-o', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^direct factorization on .*\n  converged by a factorization/);
    expect(r.stdout).toMatch(/\n  note: gmres \+ ilu0 ended 'stagnated' at a true relative residual of .* A's factorization answered instead/);
    const x = (parseMatrixMarket(readFileSync(out)).matrix as DenseMatrix).values;
    expect(trueResidual(A, x, new Float64Array(n).fill(1))).toBeLessThan(1e-8);
    const json = JSON.parse(run('solve', hard, '--json').stdout);
    expect(json.notes).toHaveLength(1);
    expect(json.notes[0]).toMatch(/^gmres \+ ilu0 ended 'stagnated'/);
  });

  it('stopping at --max-iter writes nothing wrong but exits 3 with one line', () => {
    const r = run('solve', spd, '--method', 'cg', '--max-iter', '2');
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/did not converge \(maxIter\) after 2 iterations/);
  });
});

describe('exit codes', () => {
  it('--help prints the table of docs/cli.md and exits 0', () => {
    const r = run('--help');
    expect(r.code, r.stderr).toBe(0);
    const doc = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((m) => `${m[1]}  ${m[2]}`);
    expect(rows.map((row) => row.slice(0, 1))).toEqual(['0', '1', '2', '3', '4', '5', '6']);
    const printed = r.stdout.slice(r.stdout.indexOf('Exit codes:')).trim().split('\n').slice(1).map((l) => l.trim());
    expect(printed).toEqual(rows);
  });
});

describe('simdgl info', () => {
  it('prints the CPU (SIMD, threads, shared memory), Node and GPU lines', () => {
    const r = run('info');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+Cores:\s+\d+/m);
    expect(r.stdout).toMatch(/^\s+SIMD:\s+(yes|no)/m);
    expect(r.stdout).toMatch(/^\s+Threads:\s+\d+/m);
    expect(r.stdout).toMatch(/^\s+Shared memory:\s+yes/m);
    expect(r.stdout).toMatch(/^\s+Version:\s+v\d+/m);
    expect(r.stdout).toMatch(/GPU path \(WebGL2\)\n\s+Available:\s+no\n\s+Reason:\s+\S+/);
    const j = JSON.parse(run('info', '--json').stdout);
    expect(j.cpu.cores).toBeGreaterThan(0);
    // one block per GPU path; WebGPU depends on a Vulkan driver for Dawn here, WebGL2 never runs in Node
    expect(r.stdout).toMatch(/GPU path \(WebGPU\)\n\s+Available:\s+(yes\n\s+Device:|no\n\s+Reason:)\s+\S+/);
    expect(j.gpuPaths.map((g: { path: string }) => g.path)).toEqual(['webgpu', 'webgl2']);
    expect(j.gpu.available).toBe(j.gpuPaths[0].available);
  });
});

describe('bad input: one line on stderr, non-zero exit, no stack trace', () => {
  let malformed: string;
  let rect: string;
  let huge: string;
  let zeroByHuge: string;
  let denseBig: string;
  let emptyHuge: string;
  beforeAll(() => {
    malformed = file('bad.mtx', '%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n');
    rect = file('rect.mtx', '%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1.0\n');
    // issue 23: three-line files declaring sizes that no memory holds
    huge = file('huge.mtx', '%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n');
    zeroByHuge = file('zero-by-huge.mtx', '%%MatrixMarket matrix array real general\n0 2147483647\n');
    // 60 bytes: no entries, but 10⁸ unknowns (6 s and 3 GB before the WebAssembly memory's own error)
    emptyHuge = file('empty-1e8.mtx', '%%MatrixMarket matrix coordinate real general\n100000000 100000000 0\n');
    denseBig = file('dense-400.mtx', `%%MatrixMarket matrix array real general\n400 400\n${'1\n'.repeat(400 * 400)}`);
  });
  const cases: Array<[string, () => string[], RegExp, number]> = [
    ['missing file', () => ['solve', join(dir, 'nope.mtx')], /no such file: .*nope\.mtx/, 4],
    ['missing file (compare)', () => ['compare', join(dir, 'nope.mtx'), '--json'], /no such file/, 4],
    ['malformed Matrix Market', () => ['solve', malformed], /bad\.mtx: line 4, column 3: expected a column index/, 4],
    ['malformed Matrix Market (compare)', () => ['compare', malformed, '--min-ms', '1'], /line 4/, 4],
    ['a directory', () => ['solve', dir], /not a file/, 4],
    ['non-square system', () => ['solve', rect], /square/, 5],
    ['unknown method', () => ['solve', spd, '--method', 'lsqr'], /unknown method "lsqr"/, 2],
    ['negative tolerance', () => ['solve', spd, '--tol', '-1'], /--tol/, 2],
    ['bad worker count', () => ['solve', spd, '--workers', '0'], /integer in \[1, 256\]/, 2],
    ['bad max-iter', () => ['solve', spd, '--max-iter', 'many'], /--max-iter/, 2],
    ['unknown preconditioner', () => ['solve', spd, '--preconditioner', 'ilu'], /unknown preconditioner/, 2],
    ['missing rhs file', () => ['solve', spd, '--rhs', join(dir, 'b-missing.mtx')], /no such file/, 4],
    ['wrong rhs length', () => ['solve', spd, '--rhs', rect], /expected a vector of 100 entries \(100×1\)/, 5],
    ['unknown dtype', () => ['compare', spd, '--dtype', 'f16'], /unknown dtype "f16"/, 2],
    ['unknown format', () => ['compare', spd, '--formats', 'bsr'], /unknown format "bsr"/, 2],
    ['unknown path', () => ['compare', spd, '--paths', 'cpu,gpu'], /unknown path "gpu" \(expected cpu, webgpu, webgl2\)/, 2],
    ['unknown command', () => ['frobnicate'], /unknown command/, 2],
    ['unknown global option', () => ['solve', spd, '--max-memroy', '10'], /unknown option '--max-memroy' \(Did you mean --max-memory\?\)/, 2],
    ['a size over the memory budget (solve)', () => ['solve', huge, '--max-memory', '1024'], /huge\.mtx: a solve of 2147483647 unknowns \(1 entries, f64\) needs at least \d+ MiB of the CPU path's memory .*over its limit of 1024 MiB/, 6],
    ['a size over the memory budget (compare)', () => ['compare', huge, '--min-ms', '1'], /huge\.mtx: .* over the memory budget/, 6],
    ['a 0 × 2³¹ array (solve)', () => ['solve', zeroByHuge], /a linear system needs a square matrix, this one is 0×2147483647/, 5],
    ['a 0 × 2³¹ array (compare)', () => ['compare', zeroByHuge, '--min-ms', '1'], /over the memory budget/, 6],
    ['an empty 10⁸×10⁸ matrix: refused before its row pointers and b are made (solve)', () => ['solve', emptyHuge], /empty-1e8\.mtx: a solve of 100000000 unknowns \(0 entries, f64\) needs at least 3815 MiB of the CPU path's memory .*over its limit/, 6],
    ['an array file over a 1 MiB budget', () => ['--max-memory', '1', 'solve', denseBig], /dense-400\.mtx: Matrix Market line \d+: .* over the memory budget of 1 MiB/, 6],
  ];
  for (const [name, args, pattern, code] of cases) {
    it(`${name}: exit code ${code}`, () => {
      const r = run(...args());
      expect(r.code, r.stderr).toBe(code);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^simdgl: /);
      expect(lines[0]).toMatch(pattern);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});

describe('overview (npm start)', () => {
  it('is what npm start runs', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toMatch(/dist\/cli\.js overview$/);
  });

  it('measures every place SpMV runs here against a JS loop, checked against f64, and solves with CG', () => {
    const r = run('overview', '--n', '12', '--json');
    expect(r.code, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.matrix).toMatchObject({ name: 'poisson3D_12', rows: 12 ** 3 });
    const where = o.rows.map((x: { path: string }) => x.path);
    expect(where.slice(0, 2)).toEqual(['js', 'cpu']);
    // every path that is available appears, every other is named once in the notes with its reason
    for (const id of ['webgpu', 'webgl2']) {
      if (!where.includes(id)) expect(o.notes.some((n: string) => n.includes(id === 'webgpu' ? 'WebGPU' : 'WebGL2') && n.includes('not shown'))).toBe(true);
    }
    for (const row of o.rows) {
      expect(row.ms).toBeGreaterThan(0);
      // f64 on the CPU is exact to rounding; double-single on a GPU path to ~1e-14
      expect(row.maxRelError).toBeLessThan(1e-12);
    }
    expect(o.choice.reasons.length).toBeGreaterThan(0);
    expect(o.cg).toMatchObject({ converged: true });
    expect(o.cg.relativeResidual).toBeLessThanOrEqual(1e-8);
    expect(r.stdout).not.toMatch(/skipped/);
  });

  it('prints a screenful of text', () => {
    const r = run('overview', '--n', '8');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(r.stdout).toMatch(/plain JavaScript CSR loop/);
    expect(r.stdout).toMatch(/The runtime's choice/);
    expect(r.stdout).toMatch(/CG with the defaults/);
  });
});
