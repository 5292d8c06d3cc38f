// Consumer fixture: a project with neither the DOM library nor @types/node (lib ES2022 only).
// test/package.test.ts type-checks it with skipLibCheck: false, so every published declaration is
// compiled without the platform types the sources were written against.
import * as simdgl from 'simdgl';
import { createRuntime, poisson2D, type Capabilities, type RuntimeOptions } from 'simdgl';

const options: RuntimeOptions = { backend: 'cpu', workers: 1 };
export async function firstProduct(): Promise<number[]> {
  const rt = await createRuntime(options);
  const caps: Capabilities = rt.capabilities();
  const y = await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1));
  rt.dispose();
  return [caps.threads, ...Array.from(y)];
}
export type Everything = typeof simdgl;
