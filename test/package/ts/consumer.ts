// Consumer fixture: TypeScript that uses the documented API against the published declarations.
// test/package.test.ts type-checks it with `tsc --noEmit` (strict, moduleResolution node16 and
// bundler) from the consumer project. It is never run; it must only type-check.
import {
  createRuntime,
  poisson2D,
  poisson3D,
  randomMatrix,
  COOMatrix,
  CSRMatrix,
  convert,
  parseMatrixMarket,
  writeMatrixMarket,
  Runtime,
  MatrixHandle,
  ResidentVector,
  SimdglError,
  ShapeError,
  ParseError,
  FormatError,
  UnsupportedError,
  PaddingLimitError,
  DisposedError,
  MemoryLimitError,
  WorkerError,
  GpuUnavailableError,
  Factorization,
  type Capabilities,
  type DType,
  type Explanation,
  type PathId,
  type RuntimeOptions,
  type SolveOutcome,
  type ValueArray,
} from 'simdgl';

export async function main(): Promise<number> {
  const options: RuntimeOptions = { workers: 2, backend: 'cpu', inlineThreshold: 0, spinUs: 100, timeoutMs: 10_000 };
  const rt: Runtime = await createRuntime(options);
  const caps: Capabilities = rt.capabilities();
  const threads: number = caps.threads;
  const wasm: 'simd' | 'plain' = caps.wasm;
  const gpuReason: string | undefined = caps.gpu.reason;

  // typed arrays in, typed array out
  const A: MatrixHandle = rt.upload(poisson2D(3));
  const y: ValueArray = await rt.spmv(A, new Float64Array(9).fill(1));
  const first: number = y[0];
  const given = new Float64Array(9);
  const same: ValueArray = await rt.spmv(A, new Float64Array(9), { y: given, alpha: 2, beta: 0, op: 'T' });

  // resident vectors: y given resident, the result is that vector
  const B = rt.upload(randomMatrix({ rows: 100, meanRowLength: 5, seed: 1, dtype: 'f32' }), { format: 'ell' });
  const x: ResidentVector = rt.vector(new Float32Array(100).fill(1));
  const yv: ResidentVector = rt.vector(100, 'f32');
  const back: ResidentVector = await rt.spmv(B, x, { y: yv, alpha: 0.5, beta: 1 });
  const contents: ValueArray = await back.read();
  const dtype: DType = back.dtype;
  await rt.axpy(-1, x, yv);
  const norm: number = await rt.nrm2(yv);
  const dot: number | [number, number] = await rt.dot(x, x);

  // complex scalars are [re, im]
  const C = new COOMatrix(2, 2, 'c128', new Int32Array([0, 1]), new Int32Array([0, 1]), new Float64Array([1, 2, 3, 4]));
  const hc = rt.upload(C, { format: 'csr' });
  await rt.spmv(hc, new Float64Array(4), { op: 'H', alpha: [0, 1] });

  // solvers
  const P = rt.upload(poisson3D(8));
  const result: SolveOutcome = await rt.cg(P, new Float64Array(P.rows).fill(1), {
    tol: 1e-8,
    preconditioner: 'jacobi',
    onIteration: (iteration: number, relativeResidual: number) => void (iteration + relativeResidual),
    signal: new AbortController().signal,
  });
  const converged: boolean = result.converged;
  const reason: string = result.reason;
  const history: number[] = result.history;
  const bi: SolveOutcome = await rt.bicgstab(P, new Float64Array(P.rows).fill(1));
  // a kept factorization (its numeric phases load on first use; the class is there at once)
  const F: Factorization = await rt.factor(poisson2D(3), { kind: 'cholesky' });
  const kept: Float64Array = (await F.solve(new Float64Array(9).fill(1))).x;
  const isKept: boolean = (F as unknown) instanceof Factorization;
  const refactored: Factorization = await F.refactor(poisson2D(3));
  refactored.dispose();

  // explain
  const why: Explanation = rt.explain('spmv', P);
  const path: PathId = why.path;
  const reasons: string[] = why.reasons;

  // formats and Matrix Market
  const csr: CSRMatrix = convert(C, 'csr');
  const rowPtr: Int32Array = csr.rowPtr;
  const { matrix } = parseMatrixMarket(writeMatrixMarket(csr));
  const nnz: number = matrix.nnz;

  // errors: instanceof narrows to the class with its fields
  let code = '';
  try {
    await rt.spmv(A, new Float64Array(3));
  } catch (e) {
    if (e instanceof ShapeError) code = e.code;
    else if (e instanceof ParseError) code = `${e.line}:${e.column ?? 0}`;
    else if (e instanceof PaddingLimitError) code = `${e.required}/${e.limit}`;
    else if (e instanceof MemoryLimitError) code = `${e.code} ${e.requestedBytes}`;
    else if (e instanceof WorkerError || e instanceof DisposedError || e instanceof FormatError) code = e.message;
    else if (e instanceof UnsupportedError || e instanceof GpuUnavailableError) code = e.name;
    else if (e instanceof SimdglError) code = e.code;
  }
  const isRange: RangeError = new MemoryLimitError(1, 'x');

  rt.dispose();
  return threads + first + same.length + contents.length + norm + (typeof dot === 'number' ? dot : dot[0]) +
    Number(converged) + reason.length + history.length + bi.iterations + kept.length + Number(isKept) + F.info.fillNnz + path.length + reasons.length +
    rowPtr.length + nnz + code.length + wasm.length + (gpuReason?.length ?? 0) + dtype.length + isRange.message.length;
}
