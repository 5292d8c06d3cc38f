/**
 * One memory budget for everything whose size follows from a size the input declares (a Matrix Market
 * size line, a matrix's rows and columns): the reader, the format conversions and the CPU path's
 * WebAssembly allocator all ask here before they allocate, so a tiny file declaring 2³¹ rows is refused
 * with MemoryLimitError in milliseconds instead of filling gigabytes first.
 *
 * An operation (a conversion, an upload, a read) runs in a scope: every allocation inside it, JS typed
 * arrays and WebAssembly regions alike, is added up and checked against one budget before it is made.
 * Freed temporaries are not subtracted, so the figure is an upper bound of what the operation holds at
 * once. Outside a scope each allocation is checked alone.
 *
 * The default budget is a quarter of the machine's memory in Node (os.totalmem) and 1 GiB in browsers,
 * which cannot tell; setMemoryBudget() changes it for the module, `createRuntime({ maxMemoryMB })`
 * for one runtime's uploads and `readMatrixMarket(…, { maxMemoryMB })` for one read.
 */
import { MemoryLimitError } from './errors.js';
import { nodeBuiltin } from './node-builtins.js';
import { checkNumber, type NumberRule } from './options-check.js';

const MiB = 1048576;
/** Browsers do not say how much memory a tab may take; 1 GiB is safe on every current one. */
const BROWSER_BUDGET_MB = 1024;

let moduleBudgetMB: number | undefined;
let machineBudgetMB: number | undefined;

function defaultBudgetMB(): number {
  if (machineBudgetMB === undefined) {
    const os = nodeBuiltin('node:os');
    machineBudgetMB = os ? Math.max(64, Math.floor(os.totalmem() / 4 / MiB)) : BROWSER_BUDGET_MB;
  }
  return machineBudgetMB;
}

const BUDGET_MB: NumberRule = { what: 'a finite number of MiB ≥ 1', ok: (n) => Number.isFinite(n) && n >= 1 };

/** InputTypeError unless `mb` is a number, InputRangeError unless it is finite and ≥ 1 (MiB). */
export function checkBudgetMB(mb: unknown, where: string): void {
  checkNumber(where, 'maxMemoryMB', mb, BUDGET_MB);
}

/**
 * Sets the memory budget, in MiB, that the Matrix Market reader and the format conversions check
 * before allocating (and that runtimes created afterwards take as their default `maxMemoryMB`, up to
 * 2048); `undefined` restores the default: a quarter of the machine's memory in Node, 1 GiB in browsers.
 *
 * @throws {@link InputTypeError} when `maxMemoryMB` is not a number, {@link InputRangeError} when it is not finite and ≥ 1.
 *
 * @example
 * ```js
 * // A 3-line file declaring 10⁸ rows: its CSR row pointers alone would take 400 MB
 * import { parseMatrixMarket, setMemoryBudget, memoryBudgetMB, MemoryLimitError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const { matrix } = parseMatrixMarket('%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 2\n');
 * setMemoryBudget(256);
 * assert.throws(() => matrix.toCSR(), MemoryLimitError);   // refused before anything is allocated
 * setMemoryBudget(undefined);
 * assert.ok(memoryBudgetMB() >= 64);
 * ```
 */
export function setMemoryBudget(maxMemoryMB: number | undefined): void {
  checkBudgetMB(maxMemoryMB, 'setMemoryBudget');
  moduleBudgetMB = maxMemoryMB;
}

/**
 * The memory budget in MiB that reads and conversions check now (see {@link setMemoryBudget}).
 *
 * @example
 * ```js
 * import { memoryBudgetMB } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.ok(Number.isFinite(memoryBudgetMB()) && memoryBudgetMB() >= 64);
 * ```
 */
export function memoryBudgetMB(): number {
  return moduleBudgetMB ?? defaultBudgetMB();
}

/** A runtime's `maxMemoryMB` where createRuntime is not given one: the budget, up to 2048 MiB. */
export function runtimeMemoryDefaultMB(): number {
  return Math.min(2048, memoryBudgetMB());
}

/** Buffers an operation may fill instead of new ones (see withMemoryBudget's `spare`): one of exactly `bytes` (a SharedArrayBuffer where `shared`), or null. */
export type SpareBuffers = (bytes: number, shared: boolean) => ArrayBufferLike | null;

interface Scope {
  budget: number;
  used: number;
  spare?: SpareBuffers;
}
let scope: Scope | null = null;

/**
 * Runs `fn` as one operation against a budget of `maxMemoryMB` (default: the module's): every
 * reserveMemory inside counts toward it. A scope opened inside another one joins it, so a conversion
 * run by an upload counts against the upload's budget. `spare` (the outermost scope's): where the
 * operation's new value arrays and private copies (allocValues, ownedCopy) may take their memory from —
 * a runtime's buffers of disposed uploads that nothing reads (src/runtime/solve-run.ts keepSpares).
 */
export function withMemoryBudget<T>(maxMemoryMB: number | undefined, fn: () => T, spare?: SpareBuffers): T {
  if (scope) return fn();
  scope = { budget: (maxMemoryMB ?? memoryBudgetMB()) * MiB, used: 0, spare };
  try {
    return fn();
  } finally {
    scope = null;
  }
}

/**
 * @internal A buffer of exactly `bytes` the current operation was given to fill (withMemoryBudget's
 * `spare`), else null: its contents are stale, so a caller overwrites or zeroes all of it.
 */
export function spareBuffer(bytes: number): ArrayBuffer | null;
export function spareBuffer(bytes: number, shared: boolean): ArrayBufferLike | null;
export function spareBuffer(bytes: number, shared = false): ArrayBufferLike | null {
  return scope?.spare?.(bytes, shared) ?? null;
}

/**
 * Counts `bytes` that `what` is about to allocate against the budget, or throws MemoryLimitError (and
 * counts nothing) when they do not fit.
 */
export function reserveMemory(bytes: number, what: string): void {
  const budget = scope ? scope.budget : memoryBudgetMB() * MiB;
  const used = scope ? scope.used : 0;
  if (!(used + bytes <= budget)) {
    throw new MemoryLimitError(
      bytes,
      `${what} would take ${fmt(bytes)}${used > 0 ? ` besides the ${fmt(used)} this operation holds` : ''}, over the memory budget of ${fmt(budget)}` +
        ' (raise it with setMemoryBudget() or the maxMemoryMB option)',
    );
  }
  if (scope) scope.used += bytes;
}

/**
 * Gives back `bytes` reserved for a temporary the operation no longer references (row cursors, marks),
 * so the count follows what the operation holds at once rather than all it ever allocated.
 */
export function releaseMemory(bytes: number): void {
  if (scope) scope.used = Math.max(0, scope.used - bytes);
}

/**
 * Throws MemoryLimitError, counting nothing, when an operation's lower bound `bytes` (what it cannot
 * do without) already passes the budget (`budgetMB` where given, else the scope's or the module's):
 * refused before any work, not after the first gigabytes.
 */
export function checkMemoryFloor(bytes: number, what: string, budgetMB?: number): void {
  const budget = budgetMB ? budgetMB * MiB : scope ? scope.budget : memoryBudgetMB() * MiB;
  if (!(bytes <= budget)) throw new MemoryLimitError(bytes, `${what} needs at least ${fmt(bytes)}, over the memory budget of ${fmt(budget)} (raise it with setMemoryBudget() or the maxMemoryMB option)`);
}

/** A zeroed Int32Array of `n` entries, counted against the budget first. */
export function allocIndex(n: number, what: string): Int32Array {
  reserveMemory(n * 4, what);
  return new Int32Array(n);
}

/** A copy of `a[start, end)`, counted against the budget first. */
export function copyIndex(a: Int32Array, start: number, end: number, what: string): Int32Array {
  reserveMemory((end - start) * 4, what);
  return a.slice(start, end);
}

function fmt(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB` : `${Math.ceil(bytes / MiB)} MiB`;
}
