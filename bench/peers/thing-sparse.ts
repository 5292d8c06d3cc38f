/**
 * @thi.ng/sparse peer: its `CSR` class (fields data/rows/cols as plain `number[]`) and `CSR#mulV`,
 * a plain JS double loop that accumulates straight into a fresh `new Array(m).fill(0)` result
 * (`res[i] += data[j] * vec[cols[j]]`), so each product allocates an m-element JS array and
 * reads/writes it per nonzero. Numbers only, hence f64 only. mulV asserts `vec.length === m`
 * (it returns an m-vector sized from vec), so it works for square matrices only.
 */
import { CSR } from '@thi.ng/sparse';
import type { CSRMatrix } from '../../src/formats/csr.js';
import { timeMedianMs } from '../../src/metrics.js';
import type { PeerResult, PeerTiming, RealArray } from './common.js';

export async function thingSparseSpmv(A: CSRMatrix, x: RealArray, timing: PeerTiming = {}): Promise<PeerResult> {
  if (A.dtype !== 'f64') return { skipped: `@thi.ng/sparse computes on plain numbers: f64 only, not ${A.dtype}` };
  if (A.rows !== A.cols) return { skipped: '@thi.ng/sparse mulV needs a square matrix (it checks vec.length against rows)' };
  // Its documented constructor takes plain arrays; copy ours into them (outside the timing) so the
  // product runs on the representation the library is written for.
  const M = new CSR(A.rows, A.cols, Array.from(A.values), Array.from(A.rowPtr), Array.from(A.colIdx));
  const xs = Array.from(x);
  let res: number[] = [];
  const ms = await timeMedianMs(() => { res = M.mulV(xs); }, timing.minMs ?? 300, timing.minReps ?? 5);
  return { ms, y: Float64Array.from(res) };
}
