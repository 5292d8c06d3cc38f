/**
 * Typed errors. Every error simdgl throws for bad input is one of these, with a `code` that programs
 * can switch on and a message that says what and where (line, index, expected vs actual).
 */
export class SimdglError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Malformed Matrix Market text: `line` is 1-based, `column` 1-based when known. */
export class ParseError extends SimdglError {
  readonly line: number;
  readonly column: number | undefined;
  constructor(message: string, line: number, column?: number) {
    super('E_PARSE', `line ${line}${column === undefined ? '' : `, column ${column}`}: ${message}`);
    this.line = line;
    this.column = column;
  }
}

/** A matrix whose arrays break an invariant of its format (found by `validate()`). */
export class FormatError extends SimdglError {
  constructor(message: string) {
    super('E_FORMAT', message);
  }
}

/** Mismatched dimensions or vector lengths. */
export class ShapeError extends SimdglError {
  constructor(message: string) {
    super('E_SHAPE', message);
  }
}

/** A combination (dtype, format, op, path) that is not supported. */
export class UnsupportedError extends SimdglError {
  constructor(message: string) {
    super('E_UNSUPPORTED', message);
  }
}

/** Conversion to a padded format (DIA, ELL) would store more than the caller's limit allows. */
export class PaddingLimitError extends SimdglError {
  readonly required: number;
  readonly limit: number;
  /** `raisable`: whether the caller may raise the limit (false for the int32 index limit) */
  constructor(format: string, required: number, limit: number, hint: string, raisable = true) {
    super(
      'E_PADDING',
      `${format} would store ${required} slots, over the limit of ${limit} (${hint})` + (raisable ? '; raise it with { maxFill } or { maxSlots }' : ''),
    );
    this.required = required;
    this.limit = limit;
  }
}

/** Using something after `dispose()`. */
export class DisposedError extends SimdglError {
  constructor(what: string) {
    super('E_DISPOSED', `${what} was used after dispose()`);
  }
}

/**
 * The WebAssembly memory cannot grow to hold a request. A RangeError, like the engine's own
 * out-of-memory errors for typed arrays, with a `code` like the other simdgl errors.
 */
export class MemoryLimitError extends RangeError {
  readonly code = 'E_MEMORY';
  readonly requestedBytes: number;
  constructor(requestedBytes: number, message: string) {
    super(message);
    this.name = 'MemoryLimitError';
    this.requestedBytes = requestedBytes;
  }
}

/** A GPU path cannot run here (no WebGPU adapter, no WebGL2 or float render targets, …); the message says why. */
export class GpuUnavailableError extends SimdglError {
  constructor(message: string) {
    super('E_GPU_UNAVAILABLE', message);
  }
}

/**
 * An options object with a key the function does not know (a typo such as `worker` for `workers`, or
 * an option of another function). `key` is the unknown key, `suggestion` the nearest valid one.
 */
export class OptionError extends SimdglError {
  readonly key: string;
  readonly suggestion: string | undefined;
  constructor(where: string, key: string, suggestion: string | undefined, valid: readonly string[]) {
    super(
      'E_OPTION',
      `${where}: unknown option ${JSON.stringify(key)}` +
        (suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : '') +
        ` (valid: ${valid.length ? valid.join(', ') : 'none'})`,
    );
    this.key = key;
    this.suggestion = suggestion;
  }
}
