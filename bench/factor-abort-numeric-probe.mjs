/**
 * How late rt.factor honours an abort fired during its NUMERIC phase (goal: ≲ 50 ms median, ≲ 100 ms
 * max; docs/direct.md), per kind: 'lu' on a 3-D convection–diffusion matrix (poisson3D(k)'s pattern,
 * central differences of a unit flow along each axis: nonsymmetric), 'ldlt' on poisson3D(k) shifted
 * by −1.5 (indefinite), 'cholesky' on poisson3D(kc) (supernodal on the pool). The phase's start and
 * length come from a factorization with a signal that never fires (info.times, the call's time); the
 * timer fires at `count` moments spread over the numeric phase's first 70 %, and the lateness is the
 * rejection's time less the moment asked for. After `npm run build` (DIST: another build's dist/):
 *   node bench/factor-abort-numeric-probe.mjs [kinds=lu,ldlt,cholesky] [count=8] [k=25] [kc=40]
 */
import { pathToFileURL } from 'node:url';

const index = process.env.DIST ? pathToFileURL(`${process.env.DIST}/index.js`).href : new URL('../dist/index.js', import.meta.url).href;
const { createRuntime, poisson3D } = await import(index);

const kinds = (process.argv[2] ?? 'lu,ldlt,cholesky').split(',');
const count = +(process.argv[3] ?? 8);
const k = +(process.argv[4] ?? 25);
const kc = +(process.argv[5] ?? 40);

/** poisson3D(k) with its off-diagonal entries along +axis raised by β and along −axis lowered (rows: i, columns j > i or j < i) */
function convection(k, beta = 0.4) {
  const A = poisson3D(k);
  const values = A.values;
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) {
    const j = A.colIdx[p];
    if (j > i) values[p] += beta;
    else if (j < i) values[p] -= beta;
  }
  return A;
}
function shifted(k, sigma = 1.5) {
  const A = poisson3D(k);
  const values = A.values;
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) if (A.colIdx[p] === i) values[p] -= sigma;
  return A;
}

const rt = await createRuntime({ backend: 'cpu' });
await rt.factor(poisson3D(4)).then((F) => F.dispose());
const f = (x) => x.toFixed(1);
for (const kind of kinds) {
  const A = kind === 'lu' ? convection(k) : kind === 'ldlt' ? shifted(k) : poisson3D(kc);
  // the numeric phase's start and length: the shortest of three whole calls with a signal that never fires
  let call = Infinity;
  let numeric = Infinity;
  let method = '';
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    const F = await rt.factor(A, { kind, signal: new AbortController().signal });
    const t = performance.now() - t0;
    if (t < call) [call, numeric, method] = [t, F.info.times.numeric, F.info.method];
    F.dispose();
  }
  const start = call - numeric;
  const late = [];
  const resolved = [];
  for (let i = 0; i < count; i++) {
    const at = Math.round(start + ((i + 0.5) / count) * 0.7 * numeric);
    const stop = new AbortController();
    const s = performance.now();
    setTimeout(() => stop.abort(), at);
    const e = await rt.factor(A, { kind, signal: stop.signal }).then((F) => (F.dispose(), null), (err) => err);
    if (e !== null && e?.name !== 'AbortError') throw e;
    if (e === null) {
      resolved.push(performance.now() - s - at);
      continue;
    }
    late.push(performance.now() - s - at);
  }
  late.sort((p, q) => p - q);
  const m = late.length;
  resolved.sort((p, q) => p - q);
  const stats = (v) => (v.length ? `median ${f(v[v.length >> 1])} ms, p90 ${f(v[Math.floor(0.9 * (v.length - 1))])} ms, max ${f(v[v.length - 1])} ms [${v.map(f).join(' ')}]` : '-');
  // resolved: the call ran on to its end past the abort (before this change the numeric phase was one call), or ended before its timer (negative)
  console.log(`${kind} (${method}, n = ${A.rows}): call ${f(call)} ms, numeric phase ${f(numeric)} ms; ${m} of ${count} rejected, lateness ${stats(late)}; ${resolved.length} resolved, their end after the abort ${stats(resolved)}`);
}
rt.dispose();
