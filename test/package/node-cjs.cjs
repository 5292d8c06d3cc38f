// Consumer fixture: a CommonJS script that require()s the installed package (Node ≥ 20.19 loads its
// ES modules through require(esm)), runs SpMV on the CPU path and prints the result for
// test/package.test.ts to compare with a plain loop.
const { createRuntime, poisson2D, ShapeError } = require('simdgl');

(async () => {
  const rt = await createRuntime({ backend: 'cpu', workers: 1 });
  const A = poisson2D(5);
  const x = Float64Array.from({ length: A.cols }, (_, i) => i + 1);
  const y = await rt.spmv(rt.upload(A), x);
  let maxErr = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += A.values[k] * x[A.colIdx[k]];
    maxErr = Math.max(maxErr, Math.abs(y[i] - s));
  }
  rt.dispose();
  console.log(JSON.stringify({ rows: A.rows, maxErr, errorName: new ShapeError('m').name }));
})();
