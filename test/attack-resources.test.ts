/**
 * Attack on resources: an option at the edge of its range must cost what the solve needs, not what
 * the option allows — a process that runs out of memory cannot even report an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

describe('GMRES with a restart length far beyond the iterations it runs', () => {
  it('allocates as it iterates (restart 1e6 on 8000 unknowns crashed the process: out of memory)', async () => {
    const A = poisson3D(20);
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).fill(1);
    const before = process.memoryUsage().heapUsed;
    let grown = 0;
    // the upfront (m+1)×m Hessenberg of m = 2000: 4 M entries, ≈ 200 MB of heap before the first iteration
    const r = await rt.gmres(h, b, { restart: 2000, tol: 1e-3, onIteration: (it) => void (it === 1 && (grown = process.memoryUsage().heapUsed - before)) });
    expect(r.reason).toBe('converged');
    expect(r.iterations).toBeLessThan(100);
    expect(grown).toBeLessThan(20e6);
    h.dispose();
  });
});
