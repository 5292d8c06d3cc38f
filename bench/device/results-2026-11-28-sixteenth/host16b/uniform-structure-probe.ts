/**
 * Probe (helper host16b): uniformDiaStructure on poisson3D(64)'s flagged DIA copy, 30 calls in a fresh
 * process: the first three, and the median and minimum of the last 20.
 *   npx esbuild bench/device/results-2026-11-28-sixteenth/host16b/uniform-structure-probe.ts --bundle --platform=node --format=esm --outfile=/tmp/us.mjs && node /tmp/us.mjs
 */
import { poisson3D } from '../../../../src/generators/poisson.js';
import { DIAMatrix } from '../../../../src/formats/dia.js';
import { compactUniform } from '../../../../src/cpu/spmv-plan.js';
import { uniformDiaStructure } from '../../../../src/solvers/uniform-structure.js';
const A = poisson3D(64);
const D = DIAMatrix.fromCSR(A);
const u = compactUniform(D, new Float32Array(D.data.length))!;
const ts: number[] = [];
for (let r = 0; r < 30; r++) { const s = performance.now(); uniformDiaStructure(D, A.nnz, u); ts.push(performance.now() - s); }
const m = ts.slice(10).sort((a, b) => a - b);
console.log(`first ${ts.slice(0, 3).map((x) => x.toFixed(1)).join(' ')} steady median ${m[m.length >> 1].toFixed(2)} min ${m[0].toFixed(2)}`);
