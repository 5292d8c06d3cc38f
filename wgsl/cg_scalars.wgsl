// The scalar steps of the GPU-resident CG (src/webgpu/cg.ts), one thread, on the state buffer
// (scalars.wgsl): 0 rho, 1 p.Ap, 2 |r|^2, 3 r.z (Jacobi), 4 alpha, 5 -alpha, 6 beta, 7 flag and
// threshold, 8 iterations, 9.. |r|^2 of each iteration (a ring of P.n entries).
// P.m = 0: alpha = rho / p.Ap, or stop ('nan' = 2, 'breakdown' = 3: p.Ap not positive).
// P.m = 1: count the iteration, record |r|^2, stop when it is NaN (2) or at most the threshold
//   ('converged' = 1), else beta = rho' / rho and rho = rho' (rho' = r.z when P.w = 1, else |r|^2).
// Once the flag is set every later step (here, cg_update, aypx with P.m = 1) does nothing, so x stays
// the iterate at which the solve stopped.
#include "scalars.wgsl"

@compute @workgroup_size(1)
fn main() {
  if (flag() != 0.0) { return; }
  let rho = ld(0u);
  if (P.m == 0u) {
    let pq = ld(1u);
    if (is_nan(rho) || is_nan(pq)) { set_flag(2.0); return; }
    if (!(pq.x > 0.0)) { set_flag(3.0); return; }
    let a = vec4<f32>(ds_div(rho.xy, pq.xy), 0.0, 0.0);
    st(4u, coef(a));
    st(5u, coef(-a));
    return;
  }
  let rr = ld(2u);
  count_iteration(9u, rr.xy);
  if (is_nan(rr)) { set_flag(2.0); return; }
  if (ds_le(rr.xy, ld(7u).yz)) { set_flag(1.0); return; }
  var next = rr;
  if (P.w == 1u) { next = ld(3u); }
  st(6u, coef(vec4<f32>(ds_div(next.xy, rho.xy), 0.0, 0.0)));
  st(0u, vec4<f32>(next.xy, 0.0, 0.0));
}
