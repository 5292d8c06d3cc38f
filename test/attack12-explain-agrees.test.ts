/**
 * explain agrees with the call it explains, and refusals name the caller's values (the twelfth attack
 * pass). explain('solve') said "KSP gmres … PC ic0" for a nonsymmetric A that rt.solve refuses
 * (UnsupportedError "ic0: the matrix is not symmetric"), and explained chebyshev of a nonsymmetric A,
 * ssor of an A holding NaN and jacobi of a zero diagonal, all refused by rt.solve. explain('spmv') took
 * format 'xyz', 42 or 'CSR' ("no xyz kernel on the CPU path") where upload refuses them, and an x of the
 * wrong length. On the WebGPU path Jacobi of a wide-range matrix refused with a value of the internal
 * scaled copy ("A[1,1] is 7.466108948026e-311" for A's 1e-10) or a WebGpuLimitError naming its inverse
 * ("the value 1.2676506002282292e+60 is outside the f32 range" for A's 1e-30), which 'auto' did not
 * answer with 'none' as it does Jacobi's other refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { ShapeError } from '../src/errors.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import type { AutoSolveOptions } from '../src/runtime/options.js';
import { thrown, expectExplainRefusesAsSolve } from './explain-refusal.js';

pointDawnAtSwiftShader();
let rt: Runtime;
let gpu: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
  gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => {
  rt?.dispose();
  gpu?.dispose();
});


/** poisson2D(4) with one entry changed: nonsymmetric (row 0's right neighbour), NaN, or a zero diagonal */
function changed(k: number, v: number): CSRMatrix {
  const P = poisson2D(4);
  const values = Float64Array.from(P.values);
  values[k] = v;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe("attack12: explain('solve') refuses what rt.solve refuses", () => {
  const cases: [string, CSRMatrix, AutoSolveOptions][] = [
    ['gmres + ic0 of a nonsymmetric A', changed(1, -2), { method: 'gmres', preconditioner: 'ic0' }],
    ['ic0 of a nonsymmetric A', changed(1, -2), { preconditioner: 'ic0' }],
    ['chebyshev of a nonsymmetric A', changed(1, -2), { method: 'gmres', preconditioner: 'chebyshev' }],
    ['ssor of an A holding NaN', changed(1, NaN), { method: 'gmres', preconditioner: 'ssor' }],
    ['jacobi of a zero diagonal', changed(0, 0), { method: 'gmres', preconditioner: 'jacobi' }],
  ];
  for (const [label, A, options] of cases) {
    it(`${label}: the error rt.solve gives`, async () => {
      const h = rt.upload(A);
      try {
        await expectExplainRefusesAsSolve(rt, h, options, label);
      } finally {
        h.dispose();
      }
    });
  }

  it("what both take still explains as rt.solve runs it (ic0 of a symmetric A, 'auto' of a nonsymmetric one, jacobi of a nonzero diagonal)", async () => {
    for (const [A, options] of [[poisson2D(4), { method: 'cg', preconditioner: 'ic0' }], [changed(1, -2), {}], [changed(1, -2), { method: 'gmres' }], [changed(1, -2), { preconditioner: 'jacobi' }]] as const) {
      const h = rt.upload(A);
      const e = rt.explain('solve', h, options);
      const r = await rt.solve(h, new Float64Array(A.rows).fill(1), options);
      expect([e.method, e.preconditioner], JSON.stringify(options)).toEqual([r.method, r.preconditioner]);
      h.dispose();
    }
  });
});

describe("attack12: explain('spmv') checks its options as upload and rt.spmv do", () => {
  it("format: an unknown name is upload's UnsupportedError; a known one still explains", () => {
    const P = poisson2D(4);
    for (const format of ['xyz', 42, 'CSR', 'keep']) {
      const u = thrown(() => rt.upload(P, { format: format as never }));
      const e = thrown(() => rt.explain('spmv', P, { format: format as never }));
      expect(e, String(format)).not.toBeNull();
      if (u) {
        expect(e!.constructor).toBe(u.constructor);
        expect(e!.message.replace(/^explain: /, '')).toBe(u.message.replace(/^convert: /, ''));
      }
    }
    expect(rt.explain('spmv', P, { format: 'ell' }).format).toBe('ell');
  });

  it("x: rt.spmv's ShapeError for a length other than A's columns, a resident vector of another dtype or length", async () => {
    const P = poisson2D(4);
    const h = rt.upload(P);
    try {
      for (const x of [new Float64Array(3), rt.vector(new Float64Array(15)), rt.vector(new Float32Array(16))]) {
        const s = await rt.spmv(h, x).then(
          () => null,
          (e: Error) => e,
        );
        const e = thrown(() => rt.explain('spmv', h, { x }));
        expect(s).toBeInstanceOf(ShapeError);
        expect(e).toBeInstanceOf(ShapeError);
        expect(e!.message.replace(/^explain: /, '')).toBe(s!.message.replace(/^spmv: /, ''));
      }
      expect(rt.explain('spmv', h, { x: new Float64Array(16) }).format).toBeTypeOf('string');
    } finally {
      h.dispose();
    }
  });
});

describe('attack12: on the WebGPU path a Jacobi refusal names a value of A', () => {
  it("diag(1e300, 1e-10), diag(1e30, 1e-30), diag(1, 1e-45): a ShapeError naming A's entry; 'auto' answers it with 'none'", { timeout: 120000 }, async () => {
    for (const [hi, lo] of [[1e300, 1e-10], [1e30, 1e-30], [1, 1e-45]]) {
      const A = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(0, 1), Float64Array.of(hi, lo));
      const h = gpu.upload(A);
      try {
        const e = await gpu.solve(h, Float64Array.of(1, 1), { method: 'cg', preconditioner: 'jacobi', path: 'webgpu' }).then(
          () => null,
          (e: Error) => e,
        );
        expect(e, `diag(${hi}, ${lo})`).toBeInstanceOf(ShapeError);
        expect(e!.message, `diag(${hi}, ${lo})`).toContain(`A[1,1] is ${lo}`);
        // no other value than A's and the exponent of its copy
        const numbers = e!.message.match(/\d[\d.]*e[+-]?\d+/g) ?? [];
        expect(numbers.filter((v) => Number(v) !== lo), e!.message).toEqual([]);
        const r = await gpu.solve(h, Float64Array.of(1, 1), { method: 'cg', path: 'webgpu' });
        expect(r.preconditioner).toBe('none');
        expect(r.preconditionerDetail).toMatch(/^none \(jacobi could not be set up: jacobi: the diagonal entry A\[1,1\]/);
      } finally {
        h.dispose();
      }
    }
  });
});
