/**
 * 'auto''s method for a diagonally dominant nonsymmetric A on the WebGPU path (Dawn) and the CPU pool
 * (twentieth session): rt.solve to 1e-8 with 'auto' (BiCGSTAB first) against GMRES(30) and BiCGSTAB forced,
 * each with 'auto''s preconditioner of that path (Jacobi on the GPU, ILU(0) on the CPU), on upwind
 * convection–diffusion (poisson{2,3}D plus c times an upwind x derivative), f64, b = 1, median of RUNS
 * calls on an uploaded handle after one call. The true residual is recomputed here.
 *
 *   node nonsymmetric.mjs [--workers 16] [--runs 3] > nonsymmetric.tsv
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { CSRMatrix } from '../../src/formats/csr.js';
import { poisson2D, poisson3D } from '../../src/generators/poisson.js';
import { trueResidual } from './true-residual.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => Number(args.includes(k) ? args[args.indexOf(k) + 1] : d);
const workers = opt('--workers', '16');
const runs = opt('--runs', '3');
function upwind(P: CSRMatrix, c: number): CSRMatrix {
  const values = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) values[k] += P.colIdx[k] === i ? c : P.colIdx[k] === i - 1 ? -c : 0;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const backend of ['webgpu', 'cpu'] as const) {
  const rt = await createRuntime({ backend, workers, webgpu: { gpu } });
  for (const [name, A] of [
    ['3-D N=64 c=0.5', upwind(poisson3D(64), 0.5)],
    ['3-D N=128 c=0.5', upwind(poisson3D(128), 0.5)],
    ['2-D N=512 c=2', upwind(poisson2D(512), 2)],
  ] as const) {
    const b = new Float64Array(A.rows).fill(1);
    const h = rt.upload(A);
    for (const method of ['auto', 'gmres', 'bicgstab'] as const) {
      const t: number[] = [];
      let r;
      for (let k = 0; k <= runs; k++) {
        const s = performance.now();
        // (set up afresh at every call, as before the twenty-second session, where rt.solve keeps it with A)
        r = await rt.solve(h, b, { tol: 1e-8, method, reuse: false });
        if (k > 0) t.push(performance.now() - s);
      }
      console.log(`${backend}\t${name}\t${method}\t${r!.path}\t${r!.method}+${r!.preconditioner}\t${r!.iterations} its\t${r!.reason}\t${med(t).toFixed(1)} ms\ttrue relres ${trueResidual(A, r!.x, b).toExponential(2)}`);
    }
    h.dispose();
  }
  rt.dispose();
}
