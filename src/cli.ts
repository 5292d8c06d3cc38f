import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, defaultSources, fileSource, type CompareRow } from './cli/compare.js';
import { formatCompareTable } from './cli/table.js';
import { FORMATS, type FormatName } from './formats/index.js';
import { DTYPES, type DType } from './dtype.js';
import { SimdglError } from './errors.js';

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

const here = dirname(fileURLToPath(import.meta.url));
const program = new Command('simdgl').description('sparse kernels on WebAssembly SIMD and WebGL2').showHelpAfterError();

program
  .command('compare')
  .description('time SpMV in every format and dtype on the SIMD build, the plain build and a plain JS loop')
  .argument('[files...]', 'Matrix Market files (default: poisson3D_64 and ../shared/matrices when present)')
  .option('--formats <list>', `formats to run (${FORMATS.join(',')})`, listOf(FORMATS, 'format'))
  .option('--dtypes <list>', `dtypes to run (${DTYPES.join(',')})`, listOf(DTYPES, 'dtype'))
  .option('--min-ms <ms>', 'minimum timing per combination', (v) => Number(v), 100)
  .option('--json', 'print one JSON object per line instead of tables')
  .action(async (files: string[], opts: { formats?: FormatName[]; dtypes?: DType[]; minMs: number; json?: boolean }) => {
    for (const f of files) if (!existsSync(f)) throw new SimdglError('E_NOFILE', `no such file: ${f}`);
    const sources = files.length
      ? files.map(fileSource)
      : defaultSources([resolve(here, '..', '..', 'shared', 'matrices'), resolve('..', 'shared', 'matrices')]);
    const bar = new cliProgress.SingleBar(
      { format: '{bar} {percentage}% | {value}/{total} | {what}', stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    let group: CompareRow[] = [];
    const flush = (): void => {
      if (group.length && !opts.json) {
        bar.stop();
        started = false;
        console.log(formatCompareTable(group));
      }
      group = [];
    };
    for await (const row of compare(sources, {
      formats: opts.formats,
      dtypes: opts.dtypes,
      minMs: opts.minMs,
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
    bar.stop();
    if (!opts.json) console.log(`\nGFLOP/s = 2·nnz/t (8·nnz complex); GB/s = (matrix arrays + x + y bytes)/t; max rel err = max|y−y_f64|/max|y_f64|`);
  });

program.parseAsync(process.argv).catch((e: unknown) => {
  // bad input is one clear line and a non-zero exit, never a stack trace
  const msg = e instanceof SimdglError || e instanceof RangeError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e);
  console.error(`simdgl: ${msg}`);
  process.exit(e instanceof SimdglError ? 2 : 1);
});
