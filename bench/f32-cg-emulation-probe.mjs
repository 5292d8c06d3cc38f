/**
 * Why f32 Jacobi-CG needs more iterations than f64 to a true tolerance below f32's reach, and where an
 * f64 head removes them (src/solvers/solve.ts WIDE_HEAD_GAIN): a plain-JS emulation of CG with Jacobi
 * on poisson3D(m) (b = 1), f32 steps rounded as the CPU kernels round them (assembly/cg_fused.ts
 * cg_dia_f32 and cg_update_jacobi_scalar_f32: f32 products and sums, dot products in f64, α and β
 * rounded to f32), with reliable updates (x folded into an f64 answer, r = b − A·x recomputed in f64
 * when ‖r‖ drops below δ of its peak since the last one). Runs, `;`-separated in RUNS:
 *   f64               plain f64 CG
 *   f32:δ[:s]         f32 steps; with s, f64 vectors from the first replacement at a true ‖r‖ ≤ s·‖b‖ on
 *   mix:δ:s           f64 steps until ‖r‖ ≤ s·‖b‖, f32 after (the direction rounded and kept)
 *   mixplain:δ:s      mix with the f32 steps unpreconditioned (z = r: the uniform D⁻¹ only scales, solve.ts unscaled)
 *   onesync:δ:s       mixplain with the f32 steps' β = ρ′/ρ from an estimate ρ′ = ρ − 2α·rᵀq + α²·qᵀq
 *                     (the product pass's dots, ρ the stored r's summed rᵀr, which α = ρ/pᵀq keeps):
 *                     what a CG step would need to run its update and the next product in one pool
 *                     call (one synchronization an iteration instead of two); the replacement test on
 *                     the estimate
 * poisson3D(64), tol 1e-10 (2026-11-27): f64 182 iterations; f32:0.01 255 (+6 replacements), as the
 * library's own solves before the head; f32:0.01:0.5 (f64 from the 66th on) 255; mix:0.01:0.01 182;
 * mix:1e-4:0.01 182 (105 f32, 3 replacements); mixplain:1e-4:0.01 183 (106 f32, 3), :0.02 184, :0.03
 * 183 (115 f32, 4), :0.05 185. 2026-11-28: onesync:1e-4:0.01 183 (106 f32, 3 replacements, true
 * 8.58e-11, mixplain's 8.58e-11); poisson3D(32) 92 either way. With ρ′ summed from the previous estimate
 * instead of the stored r's rᵀr the estimate drifted by an absolute ≈ 2e-9 a step and poisson3D(32)
 * never reached 1e-10 (3000 iterations).
 *   M=64 TOL=1e-10 RUNS='f64;f32:0.01;mix:1e-4:0.01' node bench/f32-cg-emulation-probe.mjs
 */
const fr = Math.fround;
const m = +(process.env.M ?? 64);
const n = m * m * m;
const tol = +(process.env.TOL ?? 1e-10);
const b = new Float64Array(n).fill(1);
const bnorm = Math.sqrt(n);
const goal = tol * bnorm;

/** q = A·p for the 7-point stencil (6 on the diagonal, −1 off), diagonals in ascending offset order, each product and sum rounded by `rd`; returns pᵀq in f64 (and, with `r`, rᵀq and qᵀq in dots). */
const dots = { rq: 0, qq: 0 };
function product(p, q, rd, r) {
  let s = 0;
  dots.rq = dots.qq = 0;
  for (let i = 0; i < n; i++) {
    const ix = i % m, iy = ((i / m) | 0) % m, iz = (i / (m * m)) | 0;
    let acc = 0;
    const add = (v) => (acc = rd(acc + rd(v)));
    if (iz > 0) add(-p[i - m * m]);
    if (iy > 0) add(-p[i - m]);
    if (ix > 0) add(-p[i - 1]);
    add(6 * p[i]);
    if (ix < m - 1) add(-p[i + 1]);
    if (iy < m - 1) add(-p[i + m]);
    if (iz < m - 1) add(-p[i + m * m]);
    q[i] = acc;
    s += p[i] * acc;
    if (r) {
      dots.rq += r[i] * acc;
      dots.qq += acc * acc;
    }
  }
  return s;
}

function run(mode, delta, s) {
  const id = (v) => v;
  const onesync = mode === 'onesync';
  const plain = mode === 'mixplain' || onesync;
  let single = mode === 'f32';
  const vectors = () => Array.from({ length: 4 }, () => (single ? new Float32Array(n) : new Float64Array(n)));
  let [x, r, z, q] = vectors();
  let p = single ? new Float32Array(n) : new Float64Array(n);
  let c = single ? fr(1 / 6) : 1 / 6;
  const X = new Float64Array(n);
  r.set(b);
  let rho = 0;
  for (let i = 0; i < n; i++) rho += r[i] * (z[i] = c * r[i]);
  let rnorm = bnorm, peak = rnorm, beta = 0, it = 0, it32 = 0, rep = 0;
  const trueResidual = () => {
    const t = new Float64Array(n);
    product(X, t, id);
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (t[i] = b[i] - t[i]) ** 2;
    return [t, Math.sqrt(ss)];
  };
  while (it < 3000) {
    const rd = single ? fr : id;
    const bt = rd(beta);
    for (let i = 0; i < n; i++) p[i] = rd(z[i] + rd(bt * p[i]));
    const alg = onesync && single;
    const alpha = rho / product(p, q, rd, alg ? r : undefined);
    const a = rd(alpha);
    let rr = 0, rz = 0;
    // (onesync: ρ = rᵀr of the exact r − a·q from the product pass's dots, the stored r never summed)
    const rrAlg = rho - 2 * a * dots.rq + a * a * dots.qq;
    for (let i = 0; i < n; i++) {
      x[i] = rd(x[i] + rd(a * p[i]));
      const ri = (r[i] = rd(r[i] - rd(a * q[i])));
      rr += ri * ri;
      rz += ri * (z[i] = rd(c * ri));
    }
    it++;
    if (single) it32++;
    rnorm = Math.sqrt(alg ? Math.max(rrAlg, 0) : rr);
    let rhoNext = rz;
    let replaced = false;
    if (mode === 'f64') {
      if (rnorm <= goal) break;
    } else {
      peak = Math.max(peak, rnorm);
      const head = (mode === 'mix' || plain) && !single && rnorm <= s * bnorm;
      if (rnorm <= goal || rnorm < delta * peak || head) {
        for (let i = 0; i < n; i++) X[i] += x[i];
        rep++;
        replaced = true;
        const [t, tn] = trueResidual();
        rnorm = peak = tn;
        if (tn <= goal) break;
        // the precision switch: p kept (rounded to the new precision), the others anew
        const toF64 = mode === 'f32' && single && s > 0 && tn <= s * bnorm;
        if (head || toF64) {
          single = head;
          // plain: the uniform D⁻¹ = c·I only scales the directions, so the f32 steps run without it (z = r)
          c = single ? (plain ? 1 : fr(1 / 6)) : 1 / 6;
          p = single ? Float32Array.from(p) : Float64Array.from(p);
          [x, r, z, q] = vectors();
        } else x.fill(0);
        rhoNext = 0;
        for (let i = 0; i < n; i++) rhoNext += (r[i] = t[i]) * (z[i] = c * r[i]);
      }
    }
    // onesync: β from the estimate (the next step's p is formed before its ‖r‖² is summed), α from the
    // stored r's own ‖r‖², summed in the pass that forms it (after a replacement both are the true r's)
    beta = (alg && !replaced ? Math.max(rrAlg, 0) : rhoNext) / rho;
    rho = rhoNext;
  }
  if (mode === 'f64') for (let i = 0; i < n; i++) X[i] = x[i];
  return { mode, delta, s, iterations: it, f32: it32, replacements: rep, trueRelative: trueResidual()[1] / bnorm };
}

for (const spec of (process.env.RUNS ?? 'f64;f32:0.01;mix:1e-4:0.01').split(';')) {
  const [mode, d, s] = spec.split(':');
  console.log(JSON.stringify(run(mode, +(d ?? 0), +(s ?? 0))));
}
