/**
 * Typed errors. Every error simdgl throws for bad input is one of these, with a `code` that programs
 * can switch on and a message that says what and where (line, index, expected vs actual).
 */
import { shownTyped, shownValue } from './shown-value.js';

/**
 * The base class of simdgl's typed errors (all but {@link MemoryLimitError}, which is a `RangeError`).
 * `name` is the subclass's name and `code` a stable string to switch on (`E_PARSE`, `E_SHAPE`, …);
 * code `E_FOREIGN` (no subclass) is a handle passed to a runtime that did not make it.
 *
 * @example
 * ```js
 * // Catch any simdgl error and switch on its code
 * import { parseMatrixMarket, SimdglError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * try {
 *   parseMatrixMarket('%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n');
 *   assert.fail('expected a ParseError');
 * } catch (e) {
 *   assert.ok(e instanceof SimdglError);
 *   assert.equal(e.code, 'E_PARSE');
 *   assert.equal(e.name, 'ParseError');
 * }
 * ```
 */
export class SimdglError extends Error {
  /** A stable identifier of the kind of error, e.g. `E_SHAPE`. */
  readonly code: string;
  /**
   * Makes an error with its `code` and message. Each subclass sets `name` to a literal of its own
   * (test/error-names.test.ts checks), which minified bundles keep; the class's own name stands in
   * until then.
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target === SimdglError ? 'SimdglError' : new.target.name;
    this.code = code;
  }
}

/**
 * Malformed Matrix Market text (code `E_PARSE`), thrown by {@link parseMatrixMarket},
 * {@link readMatrixMarket} and {@link MatrixMarketParser}. The message starts with the line (and
 * column) and says what was expected and what was found.
 *
 * @example
 * ```js
 * // A column index past the size line's 2 columns, on line 3
 * import { parseMatrixMarket, ParseError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.throws(() => parseMatrixMarket('%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n'),
 *   (e) => e instanceof ParseError && e.line === 3 && e.column === 3 && /column/.test(e.message));
 * ```
 */
export class ParseError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'ParseError';
  /** The 1-based line of the input where the error lies. */
  readonly line: number;
  /** The 1-based column on that line, when known. */
  readonly column: number | undefined;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what was expected and found; the line and column are prepended
   */
  constructor(message: string, line: number, column?: number) {
    super('E_PARSE', `line ${line}${column === undefined ? '' : `, column ${column}`}: ${message}`);
    this.line = line;
    this.column = column;
  }
}

/**
 * A matrix whose arrays break an invariant of its format (code `E_FORMAT`): thrown by the format
 * classes' constructors (wrong array type or length) and `validate()` (an index out of range, pointers
 * that decrease, padding that is not zero, …), and so by `toCSR()`, {@link convert} and
 * {@link Runtime.upload}, which validate first. The message names the format, the array and the index,
 * and the expected against the actual value.
 *
 * @example
 * ```js
 * // A CSR whose column index 5 lies outside its 3 columns
 * import { CSRMatrix, FormatError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = new CSRMatrix(2, 3, 'f64', new Int32Array([0, 1, 2]), new Int32Array([0, 5]), new Float64Array([1, 2]));
 * assert.throws(() => A.validate(), (e) => e instanceof FormatError && e.message === 'CSR colIdx[1] = 5 is out of range [0, 3)');
 * ```
 */
export class FormatError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'FormatError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what is wrong, naming the format, the array and the index
   */
  constructor(message: string) {
    super('E_FORMAT', message);
  }
}

/**
 * Mismatched dimensions or vector lengths (code `E_SHAPE`): an operand whose length or shape does not
 * fit the operation, a vector of another dtype than the matrix, a negative or fractional size.
 *
 * @example
 * ```js
 * // x must have as many elements as A has columns
 * import { createRuntime, poisson2D, ShapeError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson2D(4));                          // 16×16
 * await assert.rejects(rt.spmv(A, new Float64Array(15)), (e) => e instanceof ShapeError && /expected 16/.test(e.message));
 * rt.dispose();
 * ```
 */
export class ShapeError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'ShapeError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message the shapes or lengths involved
   */
  constructor(message: string) {
    super('E_SHAPE', message);
  }
}

/**
 * A value or combination that is not supported (code `E_UNSUPPORTED`): an unknown dtype, format, op,
 * backend or preconditioner, a complex scalar on real data, a complex matrix converted to a real dtype.
 *
 * @example
 * ```js
 * // Converting complex values to a real dtype would drop the imaginary parts: refused
 * import { poisson2D, UnsupportedError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = poisson2D(3, { dtype: 'c128' });
 * assert.throws(() => A.astype('f64'), UnsupportedError);
 * assert.equal(A.astype('c64').dtype, 'c64');
 * ```
 */
export class UnsupportedError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'UnsupportedError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what is not supported and what is
   */
  constructor(message: string) {
    super('E_UNSUPPORTED', message);
  }
}

/**
 * A conversion to a padded format (DIA, ELL, SELL, HYB's ELL part, dense) would store more slots than
 * the limit allows (code `E_PADDING`): by default 10 stored slots per entry (`maxFill`), or
 * `maxSlots` when given ({@link PaddingOptions}), 2²⁸ elements for dense, and 2³¹ − 1 slots in any case.
 * The check runs before anything is allocated.
 *
 * @example
 * ```js
 * // An arrow matrix: one full row would pad every row of ELL to 500 slots
 * import { COOMatrix, convert, PaddingLimitError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const n = 500, rows = [], cols = [];
 * for (let j = 0; j < n; j++) { rows.push(0); cols.push(j); }
 * for (let i = 1; i < n; i++) { rows.push(i); cols.push(i); }
 * const A = new COOMatrix(n, n, 'f64', new Int32Array(rows), new Int32Array(cols), new Float64Array(rows.length).fill(1));
 * assert.throws(() => convert(A, 'ell'), (e) => e instanceof PaddingLimitError && e.required === 500 * 500 && e.limit === 10 * 999);
 * assert.equal(convert(A, 'ell', { maxFill: 500 }).width, 500);   // the caller may raise the limit
 * ```
 */
export class PaddingLimitError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'PaddingLimitError';
  /** The slots the conversion would store. */
  readonly required: number;
  /** The limit it exceeds. */
  readonly limit: number;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param format the format being built
   * @param hint how the limit came about
   * @param raisable whether the caller may raise the limit (false for the int32 index limit)
   */
  constructor(format: string, required: number, limit: number, hint: string, raisable = true) {
    super(
      'E_PADDING',
      `${format} would store ${required} slots, over the limit of ${limit} (${hint})` + (raisable ? '; raise it with { maxFill } or { maxSlots }' : ''),
    );
    this.required = required;
    this.limit = limit;
  }
}

/**
 * A runtime or handle used after its `dispose()` (code `E_DISPOSED`); calls pending on a runtime when
 * it is disposed reject with it too.
 *
 * @example
 * ```js
 * import { createRuntime, poisson2D, DisposedError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson2D(3));
 * A.dispose();
 * await assert.rejects(rt.spmv(A, new Float64Array(9)), DisposedError);
 * rt.dispose();
 * assert.throws(() => rt.vector(3), DisposedError);
 * ```
 */
export class DisposedError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'DisposedError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param what the thing that was disposed
   */
  constructor(what: string) {
    super('E_DISPOSED', `${what} was used after dispose()`);
  }
}

/**
 * A request does not fit the memory budget (code `E_MEMORY`): an allocation that follows from a
 * declared size (a Matrix Market read, a conversion, an upload's copy and WebAssembly regions; see
 * setMemoryBudget and `createRuntime({ maxMemoryMB })`), checked before it is made, or memory the
 * engine refused to grow. A `RangeError`, like the engine's own
 * out-of-memory errors for typed arrays, with a `code` like the other simdgl errors. What the refused
 * call had taken is freed; the runtime and its data stay usable.
 *
 * @example
 * ```js
 * // 4 MiB of f64 does not fit a runtime limited to 2 MiB
 * import { createRuntime, MemoryLimitError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime({ maxMemoryMB: 2 });
 * assert.throws(() => rt.vector(512 * 1024), (e) => e instanceof MemoryLimitError && e instanceof RangeError && e.code === 'E_MEMORY');
 * const v = rt.vector(1000);                                   // still usable
 * assert.equal(await rt.nrm2(v), 0);
 * rt.dispose();
 * ```
 */
export class MemoryLimitError extends RangeError {
  /** Always `E_MEMORY`. */
  readonly code = 'E_MEMORY';
  /** The size of the refused request in bytes. */
  readonly requestedBytes: number;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param requestedBytes the size of the refused request
   */
  constructor(requestedBytes: number, message: string) {
    super(message);
    this.name = 'MemoryLimitError';
    this.requestedBytes = requestedBytes;
  }
}

/**
 * An argument or option value of the wrong type (code `E_TYPE`): vector data that is not an array of
 * numbers or a typed array (null, a string, an object without a numeric `length`, an element that is
 * not a number), an `onIteration` that is not a function, an `alpha` that is neither a number nor
 * `[re, im]`, a handle where another kind belongs. A `TypeError`, like the engine's own, with a `code`
 * like the other simdgl errors; the message shows the value's type (`got the string "10"`) and, for
 * vector data, the offending index (`index`).
 *
 * @example
 * ```js
 * // One rule for every place that takes vector data: numbers only, any typed array
 * import { createRuntime, InputTypeError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * assert.throws(() => rt.vector([1, 'x', 3]), (e) => e instanceof InputTypeError && e instanceof TypeError && e.index === 1 && /the string "x"/.test(e.message));
 * assert.throws(() => rt.vector(null), (e) => e instanceof InputTypeError && /got null/.test(e.message));
 * assert.deepEqual(Array.from(await rt.vector(new Int32Array([1, 2, 3])).read()), [1, 2, 3]);   // converted to f64
 * rt.dispose();
 * ```
 */
export class InputTypeError extends TypeError {
  /** Always `E_TYPE`. */
  readonly code = 'E_TYPE';
  /** For vector data: the index of the first element that is not a number. */
  readonly index: number | undefined;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what was expected and what was found (its type)
   * @param index the offending element of vector data, when one is
   */
  constructor(message: string, index?: number) {
    super(message);
    this.name = 'InputTypeError';
    this.index = index;
  }
}

/**
 * An argument or option value of the right type but outside its range (code `E_RANGE`): a negative
 * `tol`, a fractional `maxIter`, `maxMemoryMB` outside [1, 4096], a `BigInt64Array` element beyond
 * ±(2⁵³ − 1) (not exact as a double; `index` names it). A `RangeError` with a `code`.
 *
 * @example
 * ```js
 * import { createRuntime, poisson2D, InputRangeError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson2D(3));
 * await assert.rejects(rt.cg(A, new Float64Array(9), { tol: -1 }), (e) => e instanceof InputRangeError && e instanceof RangeError && e.code === 'E_RANGE');
 * assert.throws(() => rt.vector(new BigInt64Array([1n, 2n ** 60n])), (e) => e instanceof InputRangeError && e.index === 1);
 * rt.dispose();
 * ```
 */
export class InputRangeError extends RangeError {
  /** Always `E_RANGE`. */
  readonly code = 'E_RANGE';
  /** For vector data: the index of the offending element. */
  readonly index: number | undefined;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message the range and the value found
   * @param index the offending element of vector data, when one is
   */
  constructor(message: string, index?: number) {
    super(message);
    this.name = 'InputRangeError';
    this.index = index;
  }
}

/**
 * An options object with a key the function does not know (code `E_OPTION`): a typo such as `worker`
 * for `workers`, or an option of another function. `key` is the unknown key, `suggestion` the nearest
 * valid one, and the message lists the valid keys. A `path` option naming no path (`{ path: 'tpu' }`)
 * is one too: then `key` is `'path'`, and the message lists the valid paths and shows the value.
 *
 * @example
 * ```js
 * // A mistyped option is refused, never ignored
 * import { createRuntime, poisson2D, OptionError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * await assert.rejects(createRuntime({ worker: 4 }), (e) => e instanceof OptionError && e.key === 'worker' && e.suggestion === 'workers');
 * const rt = await createRuntime();
 * assert.throws(() => rt.upload(poisson2D(3), { dtpye: 'f32' }), (e) => e instanceof OptionError && e.suggestion === 'dtype');
 * rt.dispose();
 * ```
 */
export class OptionError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'OptionError';
  /** The unknown key. */
  readonly key: string;
  /** The valid key nearest to it, when one is close enough to be a typo. */
  readonly suggestion: string | undefined;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param where the function whose options were checked
   * @param valid every key it knows (or, with `value`, every value the option takes)
   * @param value the option's value, when the key is known but the value names nothing it knows
   */
  constructor(where: string, key: string, suggestion: string | undefined, valid: readonly string[], value?: { got: unknown }) {
    super(
      'E_OPTION',
      (value
        ? `${where}: ${key} must be one of ${valid.map((v) => JSON.stringify(v)).join(', ')}, got ${shownTyped(value.got)}`
        : `${where}: unknown option ${shownValue(key)}`) +
        (suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : '') +
        (value ? '' : ` (valid: ${valid.length ? valid.join(', ') : 'none'})`),
    );
    this.key = key;
    this.suggestion = suggestion;
  }
}

/**
 * A GPU path that was asked for cannot run here (code `E_GPU_UNAVAILABLE`): no WebGPU adapter, no
 * WebGL2 or no float render targets, …; the message says why. `createRuntime({ backend })` throws it for
 * a forced path, an operation's `{ path }` option for a path this runtime lacks; with `backend: 'auto'`
 * such paths are simply left out.
 *
 * @example
 * ```js
 * // Node has no WebGL2
 * import { createRuntime, GpuUnavailableError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * await assert.rejects(createRuntime({ backend: 'webgl2' }), (e) => e instanceof GpuUnavailableError && /WebGL2/.test(e.message));
 * ```
 */
export class GpuUnavailableError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'GpuUnavailableError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message why the path cannot run
   */
  constructor(message: string) {
    super('E_GPU_UNAVAILABLE', message);
  }
}

/**
 * The CPU path's WebAssembly kernels could not be loaded (code `E_KERNELS`): neither the `.wasm` file
 * beside the library nor the gzip-compressed copy embedded in it gave a module — the embedded copy
 * corrupted or truncated (a damaged bundle or a proxy that rewrote it), or an engine without
 * `DecompressionStream` where the file cannot be fetched. The message says why each failed. A later
 * `createRuntime` tries again.
 *
 * @example
 * ```js
 * import { KernelLoadError, SimdglError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const e = new KernelLoadError('the simd kernels: the file … ; the embedded copy: unexpected end of file');
 * assert.ok(e instanceof SimdglError && e.code === 'E_KERNELS' && e.name === 'KernelLoadError');
 * ```
 */
export class KernelLoadError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'KernelLoadError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what failed to load, and why
   */
  constructor(message: string) {
    super('E_KERNELS', message);
  }
}

/**
 * A direct factorization met a zero pivot (code `E_SINGULAR`): the matrix is singular, structurally
 * (no entry can be the pivot) or numerically, or an LDLᵀ without pivoting broke down. `column` is the
 * column of the matrix (0-based, in the caller's numbering) where it happened, `step` the elimination
 * step.
 *
 * @example
 * ```js
 * // The second column is the first one's double: singular
 * import { createRuntime, CSRMatrix, SingularMatrixError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 2, 4]), new Int32Array([0, 1, 0, 1]), new Float64Array([1, 2, 2, 4]));
 * await assert.rejects(rt.factor(A, { kind: 'lu' }), (e) => e instanceof SingularMatrixError && e.code === 'E_SINGULAR' && e.column >= 0);
 * rt.dispose();
 * ```
 */
export class SingularMatrixError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'SingularMatrixError';
  /** The column (0-based, of the matrix as given) whose pivot was zero. */
  readonly column: number;
  /** The elimination step (0-based) at which it happened. */
  readonly step: number;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what failed, naming the column
   */
  constructor(message: string, column: number, step: number) {
    super('E_SINGULAR', message);
    this.column = column;
    this.step = step;
  }
}

/**
 * A Cholesky factorization met a pivot that is not positive (code `E_NOT_POSITIVE_DEFINITE`): the
 * matrix is not symmetric positive definite. `column` is the column (0-based, in the caller's
 * numbering) where it showed; `kind: 'ldlt'` or `'lu'` factorizes such a matrix.
 *
 * @example
 * ```js
 * // A symmetric indefinite matrix: Cholesky refuses it, LDLᵀ factorizes it
 * import { createRuntime, CSRMatrix, NotPositiveDefiniteError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 2, 4]), new Int32Array([0, 1, 0, 1]), new Float64Array([1, 2, 2, 1]));
 * await assert.rejects(rt.factor(A, { kind: 'cholesky' }), (e) => e instanceof NotPositiveDefiniteError && e.code === 'E_NOT_POSITIVE_DEFINITE');
 * const F = await rt.factor(A, { kind: 'ldlt' });
 * const { x } = await F.solve(new Float64Array([3, 3]));
 * assert.ok(Math.abs(x[0] - 1) < 1e-14 && Math.abs(x[1] - 1) < 1e-14);
 * rt.dispose();
 * ```
 */
export class NotPositiveDefiniteError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'NotPositiveDefiniteError';
  /** The column (0-based, of the matrix as given) whose pivot was not positive. */
  readonly column: number;
  /** The elimination step (0-based) at which it happened. */
  readonly step: number;
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what failed, naming the column
   */
  constructor(message: string, column: number, step: number) {
    super('E_NOT_POSITIVE_DEFINITE', message);
    this.column = column;
    this.step = step;
  }
}
