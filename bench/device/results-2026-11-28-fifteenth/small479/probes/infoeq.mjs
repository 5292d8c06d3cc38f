// info.flops and info.offDiagonalPivots of rt.factor (kind 'lu', each ordering, two pivot tolerances) and of
// rt.solve's answer, equal between two builds on every square shared matrix (argv[2], argv[3])
import { readFileSync, readdirSync } from 'node:fs';
const mods = await Promise.all([process.argv[2], process.argv[3]].map((d) => import(d + '/dist/index.js')));
const rts = await Promise.all(mods.map((m) => m.createRuntime()));
const dir = '/work/wt/small479/data/matrices/';
let same = 0, differ = 0;
for (const f of readdirSync(dir).filter((x) => x.endsWith('.mtx')).sort()) {
  const out = [];
  for (const [j, m] of mods.entries()) {
    const A = m.parseMatrixMarket(readFileSync(dir + f)).matrix.toCSR();
    if (A.rows !== A.cols || A.rows > 5000) break;
    const rows = [];
    for (const ordering of ['auto', 'amd', 'btf', 'amd-ata', 'natural']) for (const pivotTolerance of [undefined, 1]) {
      try { const F = await rts[j].factor(A, { kind: 'lu', ordering, pivotTolerance }); rows.push(`${ordering}/${pivotTolerance}: ${F.info.flops} ${F.info.offDiagonalPivots} ${F.info.fillNnz}`); F.dispose(); } catch (e) { rows.push(`${ordering}: ${e.name}`); }
    }
    const c = A.dtype === 'c128' ? 2 : 1; const b = new Float64Array(A.rows * c); for (let i = 0; i < A.rows; i++) b[c * i] = 1;
    const h = rts[j].upload(A); const r = await rts[j].solve(h, b, { tol: 1e-8 }); h.dispose();
    rows.push(`solve: ${r.method} ${r.factor?.flops} ${r.factor?.offDiagonalPivots}`);
    out.push(rows.join('; '));
  }
  if (out.length < 2) continue;
  if (out[0] === out[1]) same++; else { differ++; console.log('DIFFER', f, '\n ', out[0], '\n ', out[1]); }
  console.log(f, out[1].slice(0, 200));
}
console.log(`same ${same}, differ ${differ}`);
rts.forEach((rt) => rt.dispose());
