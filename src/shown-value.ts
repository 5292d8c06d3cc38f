/**
 * A user-supplied value as error messages show it: short strings quoted, numbers and the like as they
 * are, anything else by its kind and size. JSON.stringify would spell out a whole matrix (a CSR matrix
 * of 15 M entries passed where a name belongs made a message of half a gigabyte, near V8's string limit).
 */
const MAX_CHARS = 40;

const article = (name: string): string => `${/^[AEIOU]/i.test(name) ? 'an' : 'a'} ${name}`;

export function shownValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > MAX_CHARS ? `${v.slice(0, MAX_CHARS)}…` : v);
  if (v === null || typeof v !== 'object') return typeof v === 'function' ? 'a function' : typeof v === 'symbol' ? v.toString() : String(v);
  if (v instanceof DataView) return `a DataView of ${v.byteLength} bytes`;
  if (ArrayBuffer.isView(v)) return `${article(v.constructor.name)} of ${(v as unknown as ArrayLike<unknown>).length} elements`;
  if (Array.isArray(v)) return `an array of ${v.length} elements`;
  const format = (v as { format?: unknown }).format;
  if (typeof format === 'string' && format.length <= MAX_CHARS) return `a matrix object (format ${JSON.stringify(format)})`;
  const name = (v as object).constructor?.name;
  return name && name !== 'Object' ? article(name) : 'an object';
}

/**
 * A value with its type spelled out, for messages about a value of the wrong type: `the string "10"`,
 * `the number 1.5`, `the boolean true`, `null`, `undefined`, `a function`, `an array of 3 elements`.
 */
export function shownTyped(v: unknown): string {
  switch (typeof v) {
    case 'string': return `the string ${shownValue(v)}`;
    case 'number': return `the number ${Object.is(v, -0) ? '-0' : String(v)}`;
    case 'bigint': return `the bigint ${v}n`;
    case 'boolean': return `the boolean ${v}`;
    default: return shownValue(v);
  }
}
