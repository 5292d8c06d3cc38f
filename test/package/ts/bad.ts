// Consumer fixture: every line marked `// error` must fail to type-check against the published
// declarations (test/package.test.ts checks that tsc reports an error on each of those lines and on
// no other). If the declarations were `any`, none of them would.
import { createRuntime, poisson2D, ShapeError, Factorization, type ResidentVector } from 'simdgl';

export async function bad(): Promise<void> {
  const rt = await createRuntime({ backend: 'tpu' }); // error
  await createRuntime({ workers: 'many' }); // error
  const A = rt.upload(poisson2D(3));
  await rt.spmv(A, 'not a vector'); // error
  await rt.spmv(A, new Float64Array(9), { op: 'X' }); // error
  const r: ResidentVector = await rt.spmv(A, new Float64Array(9)); // error
  const n: string = await rt.nrm2(rt.vector(9, 'f64')); // error
  rt.vector(9, 'f16'); // error
  const caps = rt.capabilities();
  caps.threads.toUpperCase(); // error
  rt.upload(A); // error
  await rt.cg(A, new Float64Array(9), { tol: 'small' }); // error
  const e = new ShapeError('m');
  const line: number = e.code; // error
  rt.explain('gemv', A); // error
  new Factorization(); // error
  (await rt.factor(poisson2D(3))).info.kind = 'qr'; // error
  void r;
  void n;
  void line;
}
