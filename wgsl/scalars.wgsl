// The state buffer S of the GPU-resident solvers (src/webgpu/cg.ts, bicgstab.ts) as their one-thread
// scalar kernels see it: slots of vec4 read and written through u32 bits. Reductions land there as
// complex double-single (re hi, re lo, im hi, im lo); S[7] = (stop flag, threshold hi, threshold lo),
// S[8].x = iterations run (u32). Coefficients the vector kernels read (as P.alpha) are stored in the
// dtype's scalar layout: P.k = 0 real (f32 reads .x, f64 .xy), 1 c64 (re, im in f32), 2 c128.
// NaN is tested on the bits: a compiler may assume comparisons never see NaN.
@group(0) @binding(1) var<storage, read_write> S: array<vec4<u32>>;

fn ld(i: u32) -> vec4<f32> { return bitcast<vec4<f32>>(S[i]); }
fn st(i: u32, v: vec4<f32>) { S[i] = bitcast<vec4<u32>>(v); }
fn is_nan(v: vec4<f32>) -> bool { return any((bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u)); }
fn ds_div(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let q1 = a.x / b.x;
  let rem = ds_add(a, -ds_mul(b, vec2<f32>(q1, 0.0)));
  return ds_special(quick_two_sum(q1, rem.x / b.x), q1);
}
fn ds_le(a: vec2<f32>, b: vec2<f32>) -> bool { return a.x < b.x || (a.x == b.x && a.y <= b.y); }
fn q_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(ds_add(ds_mul(a.xy, b.xy), -ds_mul(a.zw, b.zw)), ds_add(ds_mul(a.xy, b.zw), ds_mul(a.zw, b.xy)));
}
// Smith's division: through |b|² the quotient left f32's range from |b| ≈ 1e±19 (BiCGSTAB's
// ω = tᴴs / tᴴt divided by (tᴴt)²: NaN at a relative residual of about 1e-9)
fn q_div(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  if (abs(b.z) <= abs(b.x)) {
    let t = ds_div(b.zw, b.xy);
    let d = ds_add(b.xy, ds_mul(b.zw, t));
    return vec4<f32>(ds_div(ds_add(a.xy, ds_mul(a.zw, t)), d), ds_div(ds_add(a.zw, -ds_mul(a.xy, t)), d));
  }
  let t = ds_div(b.xy, b.zw);
  let d = ds_add(ds_mul(b.xy, t), b.zw);
  return vec4<f32>(ds_div(ds_add(ds_mul(a.xy, t), a.zw), d), ds_div(ds_add(ds_mul(a.zw, t), -a.xy), d));
}
fn q_is_zero(a: vec4<f32>) -> bool { return a.x == 0.0 && a.z == 0.0; }
fn coef(a: vec4<f32>) -> vec4<f32> {
  if (P.k == 1u) { return vec4<f32>(a.x + a.y, a.z + a.w, 0.0, 0.0); }
  if (P.k == 2u) { return a; }
  return vec4<f32>(a.xy, 0.0, 0.0);
}
fn set_flag(why: f32) { let c = ld(7u); st(7u, vec4<f32>(why, c.yzw)); }
fn flag() -> f32 { return ld(7u).x; }
fn count_iteration(ring: u32, value: vec2<f32>) {
  let it = S[8u].x;
  st(ring + it % P.n, vec4<f32>(value, 0.0, 0.0));
  S[8u].x = it + 1u;
}
