// Consumer fixture: a CommonJS script that require()s the installed package (Node ≥ 20.19 loads its
// ES modules through require(esm)), runs SpMV on the CPU path and a kept factorization (whose numeric
// phases the runtime imports on first use) and prints the results for test/package.test.ts to compare
// with the known answers (the 9×9 Laplacian times ones; A·x = that product for x = ones).
const { createRuntime, poisson2D, ShapeError, Factorization } = require('simdgl');

(async () => {
  const rt = await createRuntime({ backend: 'cpu', workers: 1 });
  const y = await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1));
  const F = await rt.factor(poisson2D(3));
  const { x } = await F.solve(y);
  const factorKind = F.info.kind;
  rt.dispose();
  const factorErr = Math.max(...Array.from(x, (v) => Math.abs(v - 1)));
  console.log(JSON.stringify({ y: Array.from(y), errorName: new ShapeError('m').name, factorization: F instanceof Factorization, factorKind, factorErr }));
})();
