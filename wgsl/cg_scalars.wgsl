// The scalar steps of the GPU-resident CG (src/webgpu/cg.ts), one thread, on the state buffer S
// (slots of vec4, double-single real parts in .xy; layout in cg.ts):
//   0 rho, 1 p.Ap, 2 |r|^2, 3 r.z (Jacobi), 4 alpha, 5 -alpha, 6 beta (4..6 in the dtype's scalar
//   layout, as P.alpha), 7 (stop flag, threshold hi, threshold lo), 8 iterations run (u32 in .x),
//   9.. |r|^2 of each iteration, a ring of P.n entries.
// P.m = 0: alpha = rho / p.Ap, or stop ('nan' = 2, 'breakdown' = 3: p.Ap not positive).
// P.m = 1: count the iteration, record |r|^2, stop when it is NaN (2) or at most the threshold
//   ('converged' = 1), else beta = rho' / rho and rho = rho' (rho' = r.z when P.w = 1, else |r|^2).
// Once the flag is set every later step (here, cg_update, aypx with P.m = 1) does nothing, so x stays
// the iterate at which the solve stopped. P.k = 1: the dtype is c64 (scalar layout re, im in f32).
// NaN is tested on the bits: a compiler may assume comparisons never see NaN.
@group(0) @binding(1) var<storage, read_write> S: array<vec4<u32>>;

fn ld(i: u32) -> vec4<f32> { return bitcast<vec4<f32>>(S[i]); }
fn st(i: u32, v: vec4<f32>) { S[i] = bitcast<vec4<u32>>(v); }
fn is_nan(v: vec2<f32>) -> bool { return any((bitcast<vec2<u32>>(v) & vec2<u32>(0x7fffffffu)) > vec2<u32>(0x7f800000u)); }
fn ds_div(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let q1 = a.x / b.x;
  let rem = ds_add(a, -ds_mul(b, vec2<f32>(q1, 0.0)));
  return quick_two_sum(q1, rem.x / b.x);
}
fn ds_le(a: vec2<f32>, b: vec2<f32>) -> bool { return a.x < b.x || (a.x == b.x && a.y <= b.y); }
fn scalar(a: vec2<f32>) -> vec4<f32> {
  if (P.k == 1u) { return vec4<f32>(a.x + a.y, 0.0, 0.0, 0.0); }
  return vec4<f32>(a, 0.0, 0.0);
}
fn stop(c: vec4<f32>, why: f32) { st(7u, vec4<f32>(why, c.yzw)); }

@compute @workgroup_size(1)
fn main() {
  let c = ld(7u);
  if (c.x != 0.0) { return; }
  let rho = ld(0u).xy;
  if (P.m == 0u) {
    let pq = ld(1u).xy;
    if (is_nan(rho) || is_nan(pq)) { stop(c, 2.0); return; }
    if (!(pq.x > 0.0)) { stop(c, 3.0); return; }
    let a = ds_div(rho, pq);
    st(4u, scalar(a));
    st(5u, scalar(-a));
    return;
  }
  let rr = ld(2u).xy;
  let it = S[8u].x;
  st(9u + it % P.n, vec4<f32>(rr, 0.0, 0.0));
  S[8u].x = it + 1u;
  if (is_nan(rr)) { stop(c, 2.0); return; }
  if (ds_le(rr, c.yz)) { stop(c, 1.0); return; }
  var next = rr;
  if (P.w == 1u) { next = ld(3u).xy; }
  st(6u, scalar(ds_div(next, rho)));
  st(0u, vec4<f32>(next, 0.0, 0.0));
}
