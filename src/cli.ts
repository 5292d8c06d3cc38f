import { Command, CommanderError, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, defaultSources, fileSource, type ComparePath, type CompareRow } from './cli/compare.js';
import { formatCompareTable, formatPaths } from './cli/table.js';
import { CLI_METHODS, CLI_PRECONDITIONERS, solveFile, solutionText } from './cli/solve.js';
import type { SolveMethod } from './solvers/solve.js';
import type { PreconditionerKind } from './solvers/precond/index.js';
import { deviceInfo, formatInfo } from './cli/info.js';
import { overview, formatOverview } from './cli/overview.js';
import { offerSoftwareVulkan } from './cli/software-vulkan.js';
import { FORMATS, type FormatName } from './formats/index.js';
import { DTYPES, type DType } from './dtype.js';
import { PATH_IDS, type PathId } from './path.js';
import { SimdglError } from './errors.js';
import { setMemoryBudget } from './memory-budget.js';
import { EXIT, EXIT_HELP, exitCodeOf } from './cli/exit-codes.js';

/** A comma-separated list whose items must come from `allowed`. */
function listOf<T extends string>(allowed: readonly T[], what: string) {
  return (value: string): T[] => {
    const items = value.split(',').map((s) => s.trim().toLowerCase());
    for (const it of items) {
      if (!allowed.includes(it as T)) throw new InvalidArgumentError(`unknown ${what} "${it}" (expected ${allowed.join(', ')})`);
    }
    return items as T[];
  };
}

/** One value out of `allowed`. */
function oneOf<T extends string>(allowed: readonly T[], what: string) {
  return (value: string): T => {
    const v = value.trim().toLowerCase() as T;
    if (!allowed.includes(v)) throw new InvalidArgumentError(`unknown ${what} "${value}" (expected ${allowed.join(', ')})`);
    return v;
  };
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected an integer in [${min}, ${max}], got "${value}"`);
    return n;
  };
}

function positive(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got "${value}"`);
  return n;
}

function workersOption(value: string): number {
  if (value === 'auto') return 0; // resolved below to the core count
  return integer(1, 256)(value);
}

/** A readable file, or a one-line error naming it. */
function inputFile(path: string): string {
  if (!existsSync(path)) throw new SimdglError('E_NOFILE', `no such file: ${path}`);
  if (!statSync(path).isFile()) throw new SimdglError('E_NOFILE', `not a file: ${path}`);
  return path;
}

async function resolveWorkers(n: number): Promise<number> {
  if (n !== 0) return n;
  const { availableParallelism } = await import('node:os');
  return availableParallelism();
}

const here = dirname(fileURLToPath(import.meta.url));
// the package's version, from the package.json beside dist/ (one version: package.json's)
const { version } = JSON.parse(readFileSync(resolve(here, '..', 'package.json'), 'utf8')) as { version: string };
const program = new Command('simdgl').description('sparse kernels on WebAssembly SIMD and WebGL2').version(version);
// bad usage is one line on stderr, like every other error of this command (no help dump)
program.configureOutput({ outputError: (str, write) => write(`simdgl: ${str.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ')}\n`) });
// commander's errors reach the one handler below, which maps every error to the exit-code table
program.exitOverride();
program.addHelpText('after', `\n${EXIT_HELP}`);
program.option('--max-memory <MiB>', 'memory budget: inputs that declare more are refused at once (default: a quarter of this machine\'s memory)', integer(1, 2 ** 31 - 1));
program.hook('preAction', () => {
  const mb = program.opts<{ maxMemory?: number }>().maxMemory;
  if (mb !== undefined) setMemoryBudget(mb);
});

program
  .command('compare')
  .description('time SpMV in every format and dtype on the SIMD build, the plain build and a plain JS loop (and on the GPU paths with --paths)')
  .argument('[files...]', 'Matrix Market files (default: poisson3D_64 and the repository data/matrices when present)')
  .option('--formats <list>', `formats to run (${FORMATS.join(',')})`, listOf(FORMATS, 'format'))
  .option('--dtypes <list>', `dtypes to run (${DTYPES.join(',')})`, listOf(DTYPES, 'dtype'))
  .option('--dtype <list>', 'alias of --dtypes', listOf(DTYPES, 'dtype'))
  .option('--workers <n>', "also run the SIMD build on a pool of n threads ('auto' = all cores)", workersOption, 1)
  .option('--paths <list>', `paths to run (${PATH_IDS.join(',')}; default cpu): cpu = SIMD, plain and JS rows; webgpu, webgl2 = SpMV on that path`, listOf(PATH_IDS, 'path'))
  .option('--min-ms <ms>', 'minimum timing per combination', positive, 100)
  .option('--json', 'print one JSON object per line instead of tables (a path asked for: {"path", "available", …} first)')
  .action(async (files: string[], opts: { formats?: FormatName[]; dtypes?: DType[]; dtype?: DType[]; workers: number; paths?: PathId[]; minMs: number; json?: boolean }) => {
    for (const f of files) inputFile(f);
    // Dawn needs a Vulkan driver: SwiftShader's when the machine has none (as overview does)
    if (opts.paths?.includes('webgpu')) offerSoftwareVulkan();
    let paths: ComparePath[] = [];
    const workers = await resolveWorkers(opts.workers);
    const sources = files.length
      ? files.map(fileSource)
      : defaultSources([resolve(here, '..', 'data', 'matrices'), resolve('data', 'matrices')]);
    const bar = new cliProgress.SingleBar(
      { format: '{bar} {percentage}% | {value}/{total} | {what}', stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    let printed = false;
    let group: CompareRow[] = [];
    const flush = (): void => {
      if (group.length && !opts.json) {
        bar.stop();
        started = false;
        console.log(formatCompareTable(group, paths));
        printed = true;
      }
      group = [];
    };
    try {
      for await (const row of compare(sources, {
        formats: opts.formats,
        dtypes: opts.dtypes ?? opts.dtype,
        minMs: opts.minMs,
        workers,
        paths: opts.paths,
        onPaths: (p) => {
          paths = p;
          if (!opts.paths) return; // the default (the CPU path alone) needs no word
          if (opts.json) for (const x of p) console.log(JSON.stringify(x));
          else console.log(formatPaths(p));
        },
        onProgress: (done, total, what) => {
          if (!started) bar.start(total, done, { what });
          started = true;
          bar.update(done, { what });
        },
      })) {
        if (opts.json) console.log(JSON.stringify(row));
        if (group.length && group[0].matrix !== row.matrix) flush();
        group.push(row);
      }
      flush();
    } finally {
      bar.stop();
    }
    if (printed) console.log(`\nGFLOP/s = 2·nnz/t (8·nnz complex); GB/s = (matrix arrays + x + y bytes)/t; max rel err = max|y−y_f64|/max|y_f64|`);
  });

program
  .command('solve')
  .description('solve A·x = b with rt.solve on the CPU path (method and preconditioner chosen from the matrix unless given) and write x as a Matrix Market array file')
  .argument('<file>', 'the matrix A, a Matrix Market file')
  .option('--method <name>', 'auto, direct (a sparse factorization), cg (Hermitian positive definite A), minres (Hermitian A), gmres or bicgstab (any nonsingular A)', oneOf(CLI_METHODS, 'method'), 'auto')
  .option('--tol <tol>', 'stop when the true ‖b − A·x‖ ≤ tol·‖b‖ (recomputed in f64)', positive, 1e-8)
  .option('--max-iter <n>', 'most iterations (default max(100, 10·n))', integer(0, 2 ** 31 - 1))
  .option('--preconditioner <name>', `auto, ${CLI_PRECONDITIONERS.slice(1).join(', ')}`, oneOf(CLI_PRECONDITIONERS, 'preconditioner'), 'auto')
  .option('--workers <n>', "threads on the CPU path ('auto' = all cores)", workersOption, 1)
  .option('--rhs <b>', 'right-hand side: ones, random (seeded), or a Matrix Market file with an n×1 vector', 'ones')
  .option('--dtype <dtype>', `solve in this dtype (${DTYPES.join(', ')}; default: the file's, f64 or c128)`, oneOf(DTYPES, 'dtype'))
  .option('--format <format>', `storage format on the CPU path (auto, ${FORMATS.join(', ')})`, oneOf(['auto', ...FORMATS] as const, 'format'), 'auto')
  .option('-o, --output <file>', 'write the solution here (Matrix Market array, n×1)')
  .option('--json', 'print the summary as JSON')
  .action(async (file: string, o: {
    method: SolveMethod | 'auto'; tol: number; maxIter?: number; preconditioner: PreconditionerKind | 'auto'; workers: number;
    rhs: string; dtype?: DType; format: FormatName | 'auto'; output?: string; json?: boolean;
  }) => {
    inputFile(file);
    if (o.rhs !== 'ones' && o.rhs !== 'random') inputFile(o.rhs);
    if (o.output && existsSync(o.output) && statSync(o.output).isDirectory()) throw new SimdglError('E_OUTPUT', `-o ${o.output} is a directory`);
    const bar = new cliProgress.SingleBar(
      { format: '{bar} | {phase} {value}/{total} | {detail}', stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let phase: 'read' | 'solve' | null = null;
    const res = await (async () => {
      try {
        return await solveFile(file, {
          ...o,
          workers: await resolveWorkers(o.workers),
          onReadProgress: (bytes, total) => {
            if (phase !== 'read') bar.start(Math.max(1, total), 0, { phase: 'reading bytes', detail: file });
            phase = 'read';
            bar.update(bytes);
          },
          onIteration: (it, rel) => {
            if (phase !== 'solve') {
              bar.stop();
              bar.start(o.maxIter ?? 1, 0, { phase: 'iteration', detail: '' });
            }
            phase = 'solve';
            if (it > bar.getTotal()) bar.setTotal(Math.max(it, 2 * bar.getTotal()));
            bar.update(it, { detail: `relative residual ${rel.toExponential(2)} → ${o.tol.toExponential(1)}` });
          },
        });
      } finally {
        bar.stop();
      }
    })();
    // a direct solve has no preconditioner and no iterations: say what it did instead
    const direct = res.method === 'direct';
    const how = direct ? 'direct factorization' : `${res.method} + ${res.preconditioner}`;
    const work = direct ? 'factorized' : `${res.iterations} iterations`;
    if (o.output) writeFileSync(o.output, solutionText(res, `solution of ${file} by simdgl ${how}: ${work}, true relative residual ${res.trueResidual.toExponential(3)}`));
    const { x: _x, ...summary } = res;
    if (o.json) console.log(JSON.stringify({ file, tol: o.tol, output: o.output ?? null, ...summary }));
    else {
      console.log(
        `${how} on ${file}: n ${res.n}, nnz ${res.nnz}, ${res.dtype}, ${res.format}, ${res.threads} thread${res.threads > 1 ? 's' : ''}\n` +
          (direct ? '' : `  preconditioner: ${res.preconditionerDetail}\n`) +
          `  ${res.converged ? 'converged' : `stopped (${res.reason})`} ${direct ? 'by a factorization' : `after ${work}`}${res.refinements ? ` (${res.refinements} refinement${res.refinements > 1 ? 's' : ''})` : ''} in ${res.solveMs.toFixed(1)} ms, setup included\n` +
          `  true residual ‖b − A·x‖/‖b‖ ${res.trueResidual.toExponential(3)} (f64), recurrence ${res.recurrenceResidual.toExponential(3)}` +
          res.notes.map((n) => `\n  note: ${n}`).join('') +
          (o.output ? `\n  solution written to ${o.output}` : ''),
      );
    }
    if (!res.converged) {
      console.error(`simdgl: ${res.method} did not converge (${res.reason}) after ${res.iterations} iterations: true relative residual ${res.trueResidual.toExponential(3)} > tol ${o.tol}`);
      process.exitCode = EXIT.notConverged;
    }
  });

program
  .command('overview')
  .description('what simdgl is for, in a screenful: SpMV on the CPU path (one thread, every core) against a JS loop and every GPU path here, the runtime\'s choice and a CG solve')
  .option('--n <n>', 'grid size of the 3-D Poisson matrix (n³ rows)', integer(4, 256), 64)
  .option('--json', 'print the result as JSON')
  .action(async (o: { n: number; json?: boolean }) => {
    offerSoftwareVulkan();
    const bar = new cliProgress.SingleBar(
      { format: '{bar} {what}', stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    const steps = 7;
    let done = 0;
    bar.start(steps, 0, { what: '' });
    try {
      const r = await overview({ n: o.n, onStep: (what) => bar.update(Math.min(++done, steps), { what }) });
      bar.stop();
      console.log(o.json ? JSON.stringify(r) : formatOverview(r));
    } finally {
      bar.stop();
    }
  });

program
  .command('info')
  .description('print the device report: CPU cores, WebAssembly SIMD, threads, shared memory, Node, GPU')
  .option('--json', 'print the report as JSON')
  .action(async (o: { json?: boolean }) => {
    const r = await deviceInfo();
    console.log(o.json ? JSON.stringify(r) : formatInfo(r));
  });

program.parseAsync(process.argv).catch((e: unknown) => {
  // bad input is one clear line and an exit code from the table (src/cli/exit-codes.ts), never a
  // stack trace (SIMDGL_DEBUG=1 shows it); commander has printed its own line already
  const code = exitCodeOf(e);
  if (!(e instanceof CommanderError)) {
    const err = e as { message?: string; stack?: string };
    const msg = (err?.message ?? String(e)).split('\n')[0];
    console.error(`simdgl: ${code === EXIT.internal ? `internal error: ${msg}` : msg}`);
    if (process.env.SIMDGL_DEBUG && err?.stack) console.error(err.stack);
  }
  process.exit(code);
});
