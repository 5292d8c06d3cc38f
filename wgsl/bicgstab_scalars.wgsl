// The scalar steps of the GPU-resident BiCGSTAB (src/webgpu/bicgstab.ts), one thread, on the state
// buffer (scalars.wgsl): 0 rho, 1 alpha, 2 omega (complex double-single), 3 rhat.r, 4 rhat.v, 5 t.t,
// 6 t.s, 7 flag and threshold, 8 iterations, 9 |s|^2, 10 |r|^2; coefficients 11 -omega, 12 beta,
// 13 -alpha, 14 alpha, 15 omega; 16.. the squared residual of each iteration (a ring of P.n).
// Flags: 1 converged, 2 nan, 3 breakdown, 4 converged on s (x = x + alpha*p still due; phase 3
// turns it into 1). The phases, as src/solvers/bicgstab.ts orders its tests:
//   P.m = 0: rho' = rhat.r (NaN: 2, zero: 3); beta = (rho'/rho)(alpha/omega); rho = rho'
//   P.m = 1: alpha = rho / rhat.v (zero or NaN: 3 / 2)
//   P.m = 2: count the iteration, record |s|^2; at most the threshold: 4
//   P.m = 3 (after t): omega = t.s / t.t (t.t not positive: 3, NaN: 2; either stops before x is
//     updated, so the iteration counted in phase 2 is taken back, as src/solvers/krylov/bicgstab.ts counts)
//   P.m = 4: record |r|^2 (NaN: 2, at most the threshold: 1, omega zero: 3); flag 4 becomes 1
#include "scalars.wgsl"

@compute @workgroup_size(1)
fn main() {
  let f = flag();
  if (P.m == 4u && f == 4.0) { set_flag(1.0); return; }
  if (f != 0.0) { return; }
  switch (P.m) {
    case 0u: {
      let next = ld(3u);
      if (is_nan(next)) { set_flag(2.0); return; }
      if (q_is_zero(next)) { set_flag(3.0); return; }
      let beta = q_mul(q_div(next, ld(0u)), q_div(ld(1u), ld(2u)));
      st(0u, next);
      st(11u, coef(-ld(2u)));
      st(12u, coef(beta));
    }
    case 1u: {
      let rv = ld(4u);
      if (is_nan(rv)) { set_flag(2.0); return; }
      if (q_is_zero(rv)) { set_flag(3.0); return; }
      let alpha = q_div(ld(0u), rv);
      st(1u, alpha);
      st(13u, coef(-alpha));
      st(14u, coef(alpha));
    }
    case 2u: {
      let ss = ld(9u);
      count_iteration(16u, ss.xy);
      if (ds_le(ss.xy, ld(7u).yz)) { set_flag(4.0); }
    }
    case 3u: {
      let tt = ld(5u);
      if (is_nan(tt) || !(tt.x > 0.0)) {
        S[8u].x -= 1u;
        set_flag(select(3.0, 2.0, is_nan(tt)));
        return;
      }
      let omega = q_div(ld(6u), vec4<f32>(tt.xy, 0.0, 0.0));
      st(2u, omega);
      st(11u, coef(-omega));
      st(15u, coef(omega));
    }
    default: {
      let rr = ld(10u);
      let it = S[8u].x - 1u;
      st(16u + it % P.n, vec4<f32>(rr.xy, 0.0, 0.0));
      if (is_nan(rr)) { set_flag(2.0); return; }
      if (ds_le(rr.xy, ld(7u).yz)) { set_flag(1.0); return; }
      if (q_is_zero(ld(2u))) { set_flag(3.0); }
    }
  }
}
