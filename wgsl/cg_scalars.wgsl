// The scalar steps of the GPU-resident CG (src/webgpu/cg.ts) on the state buffer (scalars.wgsl):
// 0 rho, 1 p.Ap, 2 |r|^2, 3 r.z (Jacobi), 4 alpha, 5 -alpha, 6 beta, 7 flag and threshold,
// 8 iterations, 9.. |r|^2 of each iteration (a ring of P.n entries). One workgroup: it first sums the
// partials of the pass before (binding 2; u32(P.alpha.x) of them, complex double-single), so no
// separate reduction pass runs, then one thread does the step.
// P.m = 0: p.Ap = the partials of the fused SpMV + dot; alpha = rho / p.Ap, or stop ('nan' = 2,
//   'breakdown' = 3: rho or p.Ap not positive).
// P.m = 1: |r|^2 = the partials of cg_update (and with P.w = 1, Jacobi, r.z = the next as many, or
//   where u32(P.alpha.y) = G > 0, the G partials from G on: a fused Chebyshev step's, spmv_cheb.wgsl);
//   count the iteration, record |r|^2, stop when it is NaN (2) or at most the threshold
//   ('converged' = 1), else beta = rho' / rho and rho = rho' (rho' = r.z when P.w = 1, else |r|^2).
// Once the flag is set every later step (here, cg_update, aypx with P.m = 1) does nothing, so x stays
// the iterate at which the solve stopped.
#include "scalars.wgsl"
#include "reduce.wgsl"
@group(0) @binding(2) var<storage, read> partials: array<vec4<f32>>;

fn sum_partials(lid: u32, first: u32, count: u32) -> vec4<f32> {
  var acc = vec4<f32>(0.0);
  for (var i = lid; i < count; i += 256u) { acc = q_add(acc, partials[first + i]); }
  return tree_sum(lid, acc);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  let count = u32(P.alpha.x);
  let a = sum_partials(lid, 0u, count);
  var b = vec4<f32>(0.0);
  if (P.m == 1u && P.w == 1u) {
    workgroupBarrier();
    let second = select(count, u32(P.alpha.y), P.alpha.y > 0.0);
    b = sum_partials(lid, second, second);
  }
  if (lid != 0u || flag() != 0.0) { return; }
  let rho = ld(0u);
  if (P.m == 0u) {
    st(1u, a);
    let pq = a;
    if (is_nan(rho) || is_nan(pq)) { set_flag(2.0); return; }
    // rho not positive: a preconditioner that is not definite (src/solvers/ops.ts stopOnRho)
    if (!(rho.x > 0.0) || !(pq.x > 0.0)) { set_flag(3.0); return; }
    let al = vec4<f32>(ds_div(rho.xy, pq.xy), 0.0, 0.0);
    st(4u, coef(al));
    st(5u, coef(-al));
    return;
  }
  st(2u, a);
  let rr = a;
  count_iteration(9u, rr.xy);
  if (is_nan(rr)) { set_flag(2.0); return; }
  if (ds_le(rr.xy, ld(7u).yz)) { set_flag(1.0); return; }
  var next = rr;
  if (P.w == 1u) {
    st(3u, b);
    next = b;
  }
  st(6u, coef(vec4<f32>(ds_div(next.xy, rho.xy), 0.0, 0.0)));
  st(0u, vec4<f32>(next.xy, 0.0, 0.0));
}
