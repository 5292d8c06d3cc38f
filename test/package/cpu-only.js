// Consumer fixture: a CPU-only page (backend 'cpu': no GPU path is tried, so none is loaded) with a
// product, a solve and the Matrix Market reader; test/package.test.ts measures what its bundle weighs.
import { createRuntime, poisson2D, parseMatrixMarket } from 'simdgl';

const rt = await createRuntime({ backend: 'cpu' });
const A = rt.upload(poisson2D(8));
globalThis.result = [await rt.spmv(A, new Float64Array(64).fill(1)), await rt.cg(A, new Float64Array(64).fill(1)), parseMatrixMarket];
