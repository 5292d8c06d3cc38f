// Issue 23's resource fuzz: sizes declared from 0 to 2³¹ − 1 in every Matrix Market variant
// (coordinate/array × real/integer/complex/pattern × general/symmetric/skew-symmetric/hermitian, the
// combinations the format rules out included) and in every format constructor, each followed by
// toCSR, a transpose, every conversion and an upload; plus resident vectors and dense matrices of
// declared sizes. Each batch runs in a child process (the built package) under a memory budget:
// every operation ends ok or with a typed error within 1 s of CPU time (the work it does; its wall
// time, which on a shared 2-core runner includes waiting for a core, is only held to 15 s, to catch
// a wait that burns no CPU), and the child's peak RSS stays within twice the budget (an operation's
// allocations and the matrix it works on, each within it) above what the child held before its first
// case (Node, the package, the runtime: about 50–60 MiB). Seeded:
// RESOURCE_FUZZ_SEED picks another draw.
import { describe, expect, it } from 'vitest';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from './random.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEED = Number(process.env.RESOURCE_FUZZ_SEED ?? 23);
const BUDGET_MB = 96;
const MAX = 2 ** 31 - 1;
const CPU_MS_PER_OP = 1000;
const WALL_MS_PER_OP = 15_000;
const BATCHES = 4;

const FORMATS = ['coordinate', 'array'];
const FIELDS = ['real', 'integer', 'complex', 'pattern'];
const SYMMETRIES = ['general', 'symmetric', 'skew-symmetric', 'hermitian'];
const CTOR_FORMATS = ['coo', 'csr', 'csc', 'mrs', 'dia', 'ell', 'jds', 'sell', 'hyb', 'dense'];
const DTYPES = ['f32', 'f64', 'c64', 'c128'];

type Case = { id: number; kind: 'mm' | 'ctor' | 'resident'; [k: string]: unknown };

function cases(seed: number): Case[] {
  const rnd = mulberry32(seed);
  // a quarter from the edges, the rest log-uniform over [0, 2³¹ − 1]
  const size = (): number => (rnd() < 0.25 ? [0, 1, 2, MAX - 1, MAX][Math.floor(rnd() * 5)] : Math.floor(2 ** (31 * rnd())) - 1);
  const out: Case[] = [];
  const add = (c: Omit<Case, 'id'>) => out.push({ id: out.length, ...c } as Case);
  for (const format of FORMATS) {
    for (const field of FIELDS) {
      for (const symmetry of SYMMETRIES) {
        for (let k = 0; k < 4; k++) {
          const rows = size();
          const cols = symmetry === 'general' && rnd() < 0.7 ? size() : rows;
          add({ kind: 'mm', format, field, symmetry, rows, cols, nnz: rnd() < 0.5 ? Math.min(3, rows * cols) : size() });
        }
      }
    }
  }
  // the issue's own inputs: 2³¹ × 2³¹ with one entry, 10⁸ rows, a 0 × 2³¹ array, a 20 MB number
  add({ kind: 'mm', format: 'coordinate', field: 'real', symmetry: 'general', rows: MAX, cols: MAX, nnz: 1 });
  add({ kind: 'mm', format: 'coordinate', field: 'real', symmetry: 'general', rows: 1e8, cols: 1e8, nnz: 1 });
  add({ kind: 'mm', format: 'array', field: 'real', symmetry: 'general', rows: 0, cols: MAX });
  add({ kind: 'mm', format: 'coordinate', field: 'real', symmetry: 'general', rows: 3, cols: 3, nnz: 1, longDigits: 20_000_000 });
  for (const format of CTOR_FORMATS) {
    for (let k = 0; k < 5; k++) {
      const rows = size();
      add({ kind: 'ctor', format, dtype: DTYPES[Math.floor(rnd() * 4)], rows, cols: rnd() < 0.5 ? rows : size() });
    }
  }
  for (let k = 0; k < 12; k++) add({ kind: 'resident', dtype: DTYPES[Math.floor(rnd() * 4)], rows: size(), cols: rnd() < 0.5 ? 1 : size() });
  return out;
}

interface Result {
  caseId: number;
  op: string;
  ms: number;
  cpuMs: number;
  /** the child's peak RSS after this operation */
  rssMB: number;
  outcome: string;
}

describe('resource fuzz: declared sizes from 0 to 2³¹ − 1 under a memory budget', () => {
  it(`seed ${SEED}: every operation ok or typed within ${CPU_MS_PER_OP} ms of CPU, peak RSS ≤ 2 × ${BUDGET_MB} MiB above the child's start`, () => {
    if (!existsSync(join(root, 'dist', 'index.js'))) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
    const all = cases(SEED);
    const dir = mkdtempSync(join(tmpdir(), 'simdgl-resource-fuzz-'));
    const t0 = performance.now();
    let ops = 0;
    let slowest = 0;
    let peak = 0;
    const outcomes: Record<string, number> = {};
    for (let b = 0; b < BATCHES; b++) {
      const batch = all.filter((c) => c.id % BATCHES === b);
      const file = join(dir, `batch-${b}.json`);
      writeFileSync(file, JSON.stringify(batch));
      // the JS heap capped too: a size that slipped past the budget into ordinary arrays fails here
      const r = spawnSync(process.execPath, ['--expose-gc', `--max-old-space-size=${2 * BUDGET_MB}`, join(root, 'test', 'resource-fuzz-child.mjs'), file, String(BUDGET_MB)], {
        encoding: 'utf8',
        timeout: 120_000,
        maxBuffer: 64 << 20,
      });
      expect(r.status, `batch ${b}: ${r.stderr}`).toBe(0);
      const { results, baseRssMB, maxRssMB } = JSON.parse(r.stdout) as { results: Result[]; baseRssMB: number; maxRssMB: number };
      const cap = baseRssMB + 2 * BUDGET_MB;
      const show = (x: Result) => `${JSON.stringify(all[x.caseId])} ${x.op}: ${x.outcome} (${x.cpuMs.toFixed(0)} ms CPU, ${x.ms.toFixed(0)} ms wall)`;
      const untyped = results.filter((x) => x.outcome.startsWith('UNTYPED'));
      expect(untyped.map(show), 'untyped errors').toEqual([]);
      const slow = results.filter((x) => x.cpuMs > CPU_MS_PER_OP || x.ms > WALL_MS_PER_OP);
      expect(slow.map(show), `operations over ${CPU_MS_PER_OP} ms of CPU or ${WALL_MS_PER_OP} ms wall`).toEqual([]);
      const over = results.filter((x) => x.rssMB > cap).slice(0, 1);
      expect(over.map((x) => `${show(x)}: peak RSS ${x.rssMB.toFixed(0)} MiB`), `batch ${b}: over ${baseRssMB.toFixed(0)} + 2 × ${BUDGET_MB} MiB`).toEqual([]);
      expect(maxRssMB, `batch ${b}: peak RSS`).toBeLessThanOrEqual(cap);
      ops += results.length;
      peak = Math.max(peak, maxRssMB);
      for (const x of results) slowest = Math.max(slowest, x.cpuMs);
      for (const x of results) {
        const k = x.outcome === 'ok' ? 'ok' : x.outcome.slice(0, x.outcome.indexOf(':'));
        outcomes[k] = (outcomes[k] ?? 0) + 1;
      }
    }
    // every kind of outcome the fuzz is for actually occurs (a fuzz that only ever succeeds proves nothing)
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.MemoryLimitError).toBeGreaterThan(100);
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(`resource fuzz seed ${SEED}: ${all.length} cases, ${ops} operations in ${s} s, slowest ${slowest.toFixed(0)} ms of CPU, peak RSS ${peak.toFixed(0)} MiB: ${JSON.stringify(outcomes)}`);
  }, 600_000);
});
