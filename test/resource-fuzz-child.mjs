// One child process of test/resource-fuzz.test.ts: runs a batch of cases (a JSON file named by argv[2])
// against the built package under a memory budget (argv[3], MiB) and prints one JSON line: every
// operation's outcome and time, and the process's peak RSS. Started with --expose-gc, so each
// operation starts from collected garbage and the peak is what one operation holds.
import { readFileSync } from 'node:fs';
import * as simdgl from '../dist/index.js';

const { setMemoryBudget, createRuntime, parseMatrixMarket, convert, FORMATS, MemoryLimitError, SimdglError } = simdgl;
const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
setMemoryBudget(Number(process.argv[3]));
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
// what Node, the package and the runtime (its worker, its WebAssembly memory) hold before any case:
// not the budget's, which governs what the operations allocate
const baseRssMB = process.resourceUsage().maxRSS / 1024;
const results = [];

/**
 * Runs one operation: its wall and CPU time (user + system, this process: the work it did, whatever
 * else the machine runs) and 'ok', or the error's name (typed or not).
 */
function op(caseId, name, fn) {
  globalThis.gc(); // what earlier operations left is collected: the peak is this operation's
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let outcome = 'ok';
  let value;
  try {
    value = fn();
  } catch (e) {
    const typed = e instanceof SimdglError || e instanceof MemoryLimitError;
    outcome = `${typed ? '' : 'UNTYPED '}${e?.name}: ${String(e?.message).slice(0, 160)}`;
  }
  const cpu = process.cpuUsage(c0);
  // the peak so far: the operation that raises it past a cap is the one to blame
  const rssMB = process.resourceUsage().maxRSS / 1024;
  results.push({ caseId, op: name, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, rssMB, outcome });
  return outcome === 'ok' ? value : undefined;
}

/** A Matrix Market file declaring rows × cols (and nnz) over a body of at most three entries. */
function mmText(c) {
  const { format, field, symmetry, rows, cols, nnz, longDigits } = c;
  const value = (k) => {
    const v = longDigits && k === 0 ? '7'.repeat(longDigits) : String(k + 1);
    return field === 'pattern' ? '' : field === 'complex' ? ` ${v} 0` : ` ${v}`;
  };
  const lines = [`%%MatrixMarket matrix ${format} ${field} ${symmetry}`];
  if (format === 'coordinate') {
    lines.push(`${rows} ${cols} ${nnz}`);
    const n = Math.min(nnz, 3);
    for (let k = 0; k < n; k++) {
      // entries on and below the diagonal where the matrix has room (symmetric files store i ≥ j)
      const i = Math.max(1, rows - k);
      const j = symmetry === 'general' ? Math.max(1, Math.min(cols, k + 1)) : Math.max(1, Math.min(i - (symmetry === 'skew-symmetric' ? 1 : 0), k + 1));
      lines.push(`${i} ${j}${value(k)}`);
    }
  } else {
    lines.push(`${rows} ${cols}`);
    const stored = symmetry === 'general' ? rows * cols : symmetry === 'skew-symmetric' ? (rows * (rows - 1)) / 2 : (rows * (rows + 1)) / 2;
    for (let k = 0; k < Math.min(stored, 3); k++) lines.push(value(k).trim() || '1');
  }
  return `${lines.join('\n')}\n`;
}

/** A matrix of `format` declaring rows × cols over the smallest arrays its constructor takes. */
function constructed(c) {
  const { format, dtype, rows, cols } = c;
  const comp = dtype === 'c64' || dtype === 'c128' ? 2 : 1;
  const V = (n) => (dtype === 'f32' || dtype === 'c64' ? new Float32Array(n * comp) : new Float64Array(n * comp));
  const one = () => new simdgl.COOMatrix(rows, cols, dtype, new Int32Array([Math.max(0, rows - 1)]), new Int32Array([Math.max(0, cols - 1)]), V(1).fill(1));
  switch (format) {
    case 'coo': return rows && cols ? one() : new simdgl.COOMatrix(rows, cols, dtype, new Int32Array(0), new Int32Array(0), V(0));
    case 'dia': return new simdgl.DIAMatrix(rows, cols, dtype, new Int32Array(0), Math.ceil(rows / 4) * 4, V(0));
    case 'ell': return new simdgl.ELLMatrix(rows, cols, dtype, 0, Math.ceil(rows / 4) * 4, new Int32Array(0), V(0));
    case 'hyb': return new simdgl.HYBMatrix(rows, cols, dtype, constructed({ ...c, format: 'ell' }), constructed({ ...c, format: 'coo' }));
    case 'dense': return new simdgl.DenseMatrix(rows, cols, dtype, V(rows * cols <= 4 ? rows * cols : 1));
    // the compressed formats need arrays of rows (+ 1) entries: the constructor refuses tiny ones
    case 'csr': return new simdgl.CSRMatrix(rows, cols, dtype, new Int32Array(2), new Int32Array(0), V(0));
    case 'csc': return new simdgl.CSCMatrix(rows, cols, dtype, new Int32Array(2), new Int32Array(0), V(0));
    case 'mrs': return new simdgl.MRSMatrix(rows, cols, dtype, new Int32Array(2), V(2)).validate();
    case 'jds': return new simdgl.JDSMatrix(rows, cols, dtype, new Int32Array(1), new Int32Array(1), new Int32Array(0), V(0));
    case 'sell': return new simdgl.SELLMatrix(rows, cols, dtype, 4, 1, new Int32Array(1), new Int32Array(1), new Int32Array(0), V(0));
    default: throw new Error(`unknown format ${format}`);
  }
}

/** What every matrix goes through: toCSR, a transpose, every conversion, an upload. */
function exercise(id, A) {
  let csr = op(id, 'toCSR', () => A.toCSR());
  if (csr && (csr.rows !== A.rows || csr.cols !== A.cols)) results.push({ caseId: id, op: 'toCSR', ms: 0, cpuMs: 0, rssMB: 0, outcome: 'UNTYPED wrong shape' });
  if (csr) op(id, 'transpose', () => csr.transpose());
  csr = undefined; // not held through the operations below
  for (const f of FORMATS) op(id, `convert ${f}`, () => convert(A, f));
  op(id, 'upload', () => rt.upload(A).dispose());
}

for (const c of cases) {
  if (c.kind === 'mm') {
    const text = mmText(c);
    const parsed = op(c.id, 'parse', () => parseMatrixMarket(text));
    if (parsed) exercise(c.id, parsed.matrix);
  } else if (c.kind === 'ctor') {
    const A = op(c.id, `new ${c.format}`, () => constructed(c));
    if (A) exercise(c.id, A);
  } else {
    op(c.id, 'rt.vector', () => rt.vector(c.rows, c.dtype).dispose());
    op(c.id, 'rt.dense', () => rt.dense({ dtype: c.dtype, rows: c.rows, cols: c.cols }).dispose());
  }
}
rt.dispose();
process.stdout.write(`${JSON.stringify({ results, baseRssMB, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
