// The row sum of dia_row.wgsl for a real f64 (double-single) matrix whose values are all exactly f32
// (dia_compact.wgsl, dia_i8.wgsl), which define fn dia_f32(k: u32) -> f32, the value in slot k, and
// fn dia_prod(v: f32, b: f32) -> vec2<f32>, v*b exactly (two_prod, or two_prod_short for byte values).
// Ogita, Rump and Oishi's Dot2 (SIAM J. Sci. Comput. 26, 2005) over x's high parts: each product
// v*x.hi split exactly, their high parts summed by two_sum, every error term and the products v*x.lo
// summed in f32; the result as if summed at twice f32's precision (error <= u|s| + n^2 u^2 sum|v x|,
// u = 2^-24). Per diagonal that is one exact product and one two_sum where ds_mul and ds_add of
// dia.wgsl's row take two splits more and three two_sums: the kernels that read these rows (the
// resident CG's products and its fused Chebyshev steps) ran bound by that arithmetic on an H100
// (docs/solvers.md). A column outside the matrix reads x as 0 (a clamped x may be Inf or NaN). Specials
// as ds_add and ds_mul keep them: a sum that is not finite is its f32 sum of the high parts, and an
// error term that is not finite (Dekker's split overflowing past 2^115) counts as 0.
fn row_acc(i: u32) -> E {
  let w = i32(P.w);
  var s = 0.0;
  var c = 0.0;
  for (var d = 0u; d < P.m; d++) {
    let col = i32(i) + offsets[d];
    let xv = select(E(0.0), x[u32(clamp(col, 0, w - 1))], (col >= 0) & (col < w));
    let v = dia_f32(d * P.k + i);
    let p = dia_prod(v, xv.x);
    let t = two_sum(s, p.x);
    s = t.x;
    c += (t.y + select(p.y, 0.0, not_finite(p.y))) + v * xv.y;
  }
  return ds_special(quick_two_sum(s, c), s);
}
