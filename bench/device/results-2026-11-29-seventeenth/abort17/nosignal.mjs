// rt.factor without a signal (and with one that never fires): the numeric phase's time (info.times.numeric),
// the median of 5 after one warm-up, for the probe's LU and LDLᵀ matrices. DIST: a build's dist/.
//   DIST=dist node bench/device/results-2026-11-29-seventeenth/abort17/nosignal.mjs
import { pathToFileURL } from 'node:url';
const { createRuntime, poisson3D } = await import(pathToFileURL(`${process.env.DIST ?? 'dist'}/index.js`).href);
const conv = poisson3D(25);
for (let i = 0; i < conv.rows; i++) for (let p = conv.rowPtr[i]; p < conv.rowPtr[i + 1]; p++) conv.values[p] += conv.colIdx[p] > i ? 0.4 : conv.colIdx[p] < i ? -0.4 : 0;
const sh = poisson3D(25);
for (let i = 0; i < sh.rows; i++) for (let p = sh.rowPtr[i]; p < sh.rowPtr[i + 1]; p++) if (sh.colIdx[p] === i) sh.values[p] -= 1.5;
const rt = await createRuntime({ backend: 'cpu' });
const out = [];
for (const [kind, A] of [['lu', conv], ['ldlt', sh]]) for (const sig of [false, true]) {
  const t = [];
  for (let r = 0; r < 6; r++) {
    const F = await rt.factor(A, { kind, ...(sig ? { signal: new AbortController().signal } : {}) });
    if (r) t.push(F.info.times.numeric);
    F.dispose();
  }
  t.sort((a, b) => a - b);
  out.push(`${kind}${sig ? ' (signal)' : ''} numeric median ${t[2].toFixed(1)} ms [${t.map((x) => x.toFixed(0)).join(' ')}]`);
}
console.log(out.join('; '));
rt.dispose();
