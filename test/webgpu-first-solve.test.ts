/**
 * rt.solve's first solve of a matrix on the WebGPU path (Dawn + SwiftShader in Node): A's structure
 * pass, its graph's diameter and its constant inverse diagonal come from the host DIA copy the path's
 * upload was made from (then dropped) instead of the canonical CSR. The choices, the structure and the
 * answer must be those of a handle whose structure came from the CSR (rt.explain first), bit for bit;
 * the diameter that of two breadth-first searches written here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { AMG_AUTO_MIN_N } from '../src/solvers/amg/index.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
}, 60_000);
afterAll(() => rt?.dispose());

/** The eccentricity of the node farthest from node 0 (a distance per node, two searches), the pseudo-diameter by definition. */
function referencePseudoDiameter(A: CSRMatrix): number {
  const bfs = (start: number): [number, number] => {
    const dist = new Array<number>(A.rows).fill(-1);
    dist[start] = 0;
    const queue = [start];
    let last = start;
    for (let q = 0; q < queue.length; q++) {
      const i = queue[q];
      last = i;
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
        const j = A.colIdx[k];
        if (dist[j] < 0) {
          dist[j] = dist[i] + 1;
          queue.push(j);
        }
      }
    }
    return [last, dist[last]];
  };
  return bfs(bfs(0)[0])[1];
}

/** A with the edge (i, i + 1) and its mirror stored as 0: no longer a grid's pattern (the searches decide). */
function edgeZeroed(A: CSRMatrix, i: number): CSRMatrix {
  const v = Float64Array.from(A.values);
  for (const [r, c] of [[i, i + 1], [i + 1, i]]) for (let k = A.rowPtr[r]; k < A.rowPtr[r + 1]; k++) if (A.colIdx[k] === c) v[k] = 0;
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, A.colIdx, v);
}

describe("rt.solve's first solve on the WebGPU path reads A's structure from the path's DIA copy", () => {
  // past AMG_AUTO_MIN_N unknowns, so 'auto' reads the diameter; a few iterations (SwiftShader is slow)
  const P = poisson3D(37);
  const scaled = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((a) => a * 2 ** -80));
  const cases: [string, CSRMatrix][] = [
    ['poisson3D(37), a grid', P],
    ['an edge stored as 0 (no grid)', edgeZeroed(P, 37 * 37 * 18 + 37 * 18 + 17)],
    ['scaled by 2^-80 (the GPU solve runs a scaled copy)', scaled],
  ];
  for (const [name, A] of cases) {
    it(`${name}: the choices, structure and x of a handle whose structure came from the CSR`, async () => {
      expect(A.rows).toBeGreaterThan(AMG_AUTO_MIN_N);
      const b = Float64Array.from({ length: A.rows }, (_, i) => 1 + (i % 7) / 10);
      const o = { path: 'webgpu', maxIter: 4, tol: 1e-12 } as const;
      // from the CSR: explain first computes the structure before any upload to the path
      const hc = rt.upload(A);
      const ec = rt.explain('solve', hc, { path: 'webgpu' });
      const rc = await rt.solve(hc, b, o);
      // the first operation is the solve: its upload's DIA copy serves the structure
      const hd = rt.upload(A);
      const rd = await rt.solve(hd, b, o);
      const ed = rt.explain('solve', hd, { path: 'webgpu' });
      expect(ed.structure).toEqual(ec.structure);
      expect(ed.structure.diameter).toBe(referencePseudoDiameter(A));
      // (ed, after a solve of hd, also says where 'auto''s rent or buy stands: that solve's time, no choice)
      const choices = (t: string) => t.split('\n').filter((l) => !/Krylov solves? of A/.test(l)).join('\n');
      expect(ed.text).toMatch(/after 1 Krylov solve of A/);
      expect([ed.method, ed.preconditioner, choices(ed.text)]).toEqual([ec.method, ec.preconditioner, ec.text]);
      expect([rd.method, rd.preconditioner, rd.preconditionerDetail, rd.iterations, rd.reason]).toEqual([rc.method, rc.preconditioner, rc.preconditionerDetail, rc.iterations, rc.reason]);
      expect(rd.x).toEqual(rc.x);
      expect(rd.relativeResidual).toBe(rc.relativeResidual);
      // the copy was dropped once the preconditioner was made (not kept with the handle)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      expect((rt as any).structureCache.get(hd.source)?.pathCopy).toBeUndefined();
      hc.dispose();
      hd.dispose();
    }, 120_000);
  }
});
