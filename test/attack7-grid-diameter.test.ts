/**
 * Seventh adversarial pass, rt.solve's grid pseudo-diameter read by formula from a DIA copy
 * (gridDiameter): on random tensor grids of 1–3 dimensions with up to two edits (an edge dropped,
 * added where the grid has none, moved — the counts kept —, stored as 0, a diagonal entry 0), the
 * formula answers only where it equals the two breadth-first searches, and solveStructure's diameter
 * is always theirs. (No defect found; pinned.) The tenth session's csrGridDiameter (the same test from the
 * CSR, where no DIA copy is at hand) must recognise exactly the grids gridDiameter does.
 */
import { it } from 'vitest';
import fc from 'fast-check';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { csrGridDiameter, gridDiameter, pseudoDiameter, solveStructure } from '../src/solvers/structure.js';
it('property: the formula, where it answers, is the searches\' answer', () => {
  fc.assert(fc.property(
    fc.record({ m: fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 3 }), edits: fc.array(fc.record({ kind: fc.constantFrom('drop', 'add', 'zero', 'diag0', 'move'), a: fc.nat(), b: fc.nat(), k: fc.nat(2) }), { maxLength: 2 }) }),
    ({ m, edits }) => {
      const strides = m.map((_, k) => m.slice(0, k).reduce((a, b) => a * b, 1));
      const n = m.reduce((a, b) => a * b, 1);
      const E = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        E.set(`${i},${i}`, 2 * m.length);
        strides.forEach((s, k) => { if (Math.floor(i / s) % m[k] < m[k] - 1) { E.set(`${i},${i + s}`, -1); E.set(`${i + s},${i}`, -1); } });
      }
      for (const e of edits) {
        const s = strides[e.k % strides.length]; const i = e.a % n; const j = i + s;
        if (e.kind === 'drop' || e.kind === 'move') { if (E.has(`${i},${j}`)) { E.delete(`${i},${j}`); E.delete(`${j},${i}`); } }
        if (e.kind === 'add' || e.kind === 'move') { const i2 = e.b % n; const j2 = i2 + s; if (j2 < n) { E.set(`${i2},${j2}`, -1); E.set(`${j2},${i2}`, -1); } }
        if (e.kind === 'zero' && j < n) { E.set(`${i},${j}`, 0); E.set(`${j},${i}`, 0); }
        if (e.kind === 'diag0') E.set(`${i},${i}`, 0);
      }
      const trip = [...E].map(([k, v]) => [...k.split(',').map(Number), v] as [number, number, number]);
      const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(trip, (t) => t[0]), Int32Array.from(trip, (t) => t[1]), Float64Array.from(trip, (t) => t[2]));
      let D: DIAMatrix;
      try { D = DIAMatrix.fromCSR(A, { maxFill: Infinity }); } catch { return; }
      const g = gridDiameter(D, A.nnz);
      const s = solveStructure(A, D);
      // the same grids recognised from the CSR alone (the structure without a DIA copy reads it so)
      if (csrGridDiameter(A) !== g) throw new Error(`from the CSR ${csrGridDiameter(A)}, from the DIA ${g}, m ${m}`);
      if (solveStructure(A).diameter !== s.diameter) throw new Error(`without the DIA copy ${solveStructure(A).diameter} vs ${s.diameter}`);
      if (g !== undefined) {
        const p = pseudoDiameter(A);
        if (g !== p) throw new Error(`formula ${g}, searches ${p}, m ${m}`);
      }
      if (s.diameter !== undefined && s.diameter !== pseudoDiameter(A)) throw new Error(`structure ${s.diameter} vs ${pseudoDiameter(A)}`);
    }), { numRuns: 3000, seed: 7 });
});
