// Consumer fixture: a CommonJS script that require()s the installed package (Node ≥ 20.19 loads its
// ES modules through require(esm)), runs SpMV on the CPU path and prints the result for
// test/package.test.ts to compare with the known answer (the 9×9 Laplacian times ones).
const { createRuntime, poisson2D, ShapeError } = require('simdgl');

(async () => {
  const rt = await createRuntime({ backend: 'cpu', workers: 1 });
  const y = await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1));
  rt.dispose();
  console.log(JSON.stringify({ y: Array.from(y), errorName: new ShapeError('m').name }));
})();
