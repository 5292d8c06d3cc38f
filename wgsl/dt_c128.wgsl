// dtype c128 as double-single: E = vec4<f32> (re hi, re lo, im hi, im lo).
#include "common.wgsl"
alias E = vec4<f32>;
fn e_zero() -> E { return E(0.0); }
fn e_add(a: E, b: E) -> E { return q_add(a, b); }
fn e_mul(a: E, b: E) -> E {
  let re = ds_add(ds_mul(a.xy, b.xy), -ds_mul(a.zw, b.zw));
  let im = ds_add(ds_mul(a.xy, b.zw), ds_mul(a.zw, b.xy));
  return E(re, im);
}
fn e_conj(a: E, s: f32) -> E { return E(a.xy, s * a.zw); }
fn e_scalar(u: vec4<f32>) -> E { return u; }
fn e_dot(x: E, y: E, s: f32) -> vec4<f32> { return e_mul(e_conj(x, s), y); }
