import { ShapeError } from '../errors.js';
import { checkMemoryFloor } from '../memory-budget.js';

const MAX_INDEX = 2 ** 31 - 1;

/**
 * What a generator checks before it allocates: a ShapeError where its rows or entries pass what 32-bit
 * indices address, a MemoryLimitError where the bytes it will allocate pass the memory budget. Without
 * it poisson2D(1e6) was a bare RangeError ('Invalid typed array length'), randomMatrix({ rows: 1e9 })
 * filled 9 GB for a minute and elasticity2D(1e5) crashed the process.
 */
export function checkGeneratedSize(where: string, rows: number, entries: number, bytes: number): void {
  if (rows > MAX_INDEX || entries > MAX_INDEX) throw new ShapeError(`${where}: ${rows} rows and ${entries} entries, past the 2³¹ − 1 that 32-bit indices address`);
  checkMemoryFloor(bytes, `${where} (${rows} rows, ${entries} entries)`);
}
