/**
 * The command's exit codes: one table, printed by `simdgl --help`, documented in docs/cli.md and
 * followed by every command. A script can tell a bad file from a refused size from a bug.
 */
import { CommanderError } from 'commander';
import { MemoryLimitError, SimdglError } from '../errors.js';

export const EXIT = {
  /** the command did what it was asked */
  ok: 0,
  /** an error simdgl did not expect: a bug (SIMDGL_DEBUG=1 prints its stack) */
  internal: 1,
  /** unknown command or option, a bad option value, a missing argument */
  usage: 2,
  /** solve stopped without converging (the solution is still written) */
  notConverged: 3,
  /** an input or output file: missing, unreadable, not a file, or not valid Matrix Market */
  inputFile: 4,
  /** the library refused the input with a typed error (a non-square system, an unsupported dtype …) */
  refused: 5,
  /** the input needs more memory than the budget (--max-memory, default a quarter of the machine's) */
  memory: 6,
} as const;

/** The table as `simdgl --help` prints it. */
export const EXIT_HELP = [
  'Exit codes:',
  `  ${EXIT.ok}  success`,
  `  ${EXIT.internal}  internal error (a bug; SIMDGL_DEBUG=1 prints the stack)`,
  `  ${EXIT.usage}  usage: unknown command or option, bad option value`,
  `  ${EXIT.notConverged}  solve did not converge`,
  `  ${EXIT.inputFile}  input or output file: missing, unreadable, or not valid Matrix Market`,
  `  ${EXIT.refused}  the library refused the input (ShapeError, UnsupportedError, PaddingLimitError, …)`,
  `  ${EXIT.memory}  memory limit: the input needs more than the budget (MemoryLimitError)`,
].join('\n');

/** A typed error (MemoryLimitError included) with `where` in front of its message; others as they are. */
export function namingInput(e: unknown, where: string): unknown {
  if (e instanceof SimdglError || e instanceof MemoryLimitError) e.message = `${where}: ${e.message}`;
  return e;
}

/** The exit code for an error that ended a command. */
export function exitCodeOf(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
  const { code, syscall } = (e ?? {}) as { code?: unknown; syscall?: unknown };
  // Node's file errors (ENOENT, EACCES, EISDIR …) carry the system call that failed
  if (typeof syscall === 'string') return EXIT.inputFile;
  // simdgl's typed errors, MemoryLimitError included, by their stable codes
  if (typeof code !== 'string' || !code.startsWith('E_')) return EXIT.internal;
  if (code === 'E_MEMORY') return EXIT.memory;
  return code === 'E_PARSE' || code === 'E_NOFILE' || code === 'E_OUTPUT' ? EXIT.inputFile : EXIT.refused;
}
