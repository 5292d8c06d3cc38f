// gridDiameter, inverseDiagonal and a DIA conversion (of a caller's CSR: its own offsets pass) on poisson3D(64)'s DIA copies, f64 and f32 alternated (MODE=alt) or
// f64 twice (MODE=same), R rounds in one process: each call's ms, the median first (the first calls are V8's
// tiers at work). Scratch, kept for the record (README.md).
import { poisson3D, DIAMatrix } from '../../../../src/index.js';
const { gridDiameter } = await import('../../../../src/solvers/structure.js');
const { inverseDiagonal } = await import('../../../../src/solvers/precond/jacobi.js');
const P = poisson3D(64);
const D64: any = DIAMatrix.fromCSR(P.toCSR()), D32: any = DIAMatrix.fromCSR(P.toCSR().astype('f32'));
const T: Record<string, number[]> = {};
const t = (k: string, f: () => any) => { const a = performance.now(); const r = f(); (T[k] ??= []).push(performance.now() - a); return r; };
const mode = process.env.MODE ?? 'alt';
for (let r = 0; r < +(process.env.R ?? 8); r++) {
  for (const [k, D] of mode === 'alt' ? [['64', D64], ['32', D32]] : [['64', D64], ['64b', D64]]) {
    t('grid' + k, () => gridDiameter(D, P.nnz));
    t('invd' + k, () => inverseDiagonal(D));
    t('toDIA' + k, () => DIAMatrix.fromCSR(k === '32' ? P.toCSR().astype('f32') : P.toCSR()));
  }
}
console.log(Object.entries(T).map(([k, v]) => `${k} ${v.slice().sort((a, b) => a - b)[v.length >> 1].toFixed(2)} [${v.map((x) => x.toFixed(1)).join(' ')}]`).join('\n'));
