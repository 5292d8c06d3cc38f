// dtype f64 as double-single: E = vec2<f32> (hi, lo), hi = fround(v), lo = fround(v - hi).
#include "common.wgsl"
alias E = vec2<f32>;
fn e_zero() -> E { return E(0.0); }
fn e_add(a: E, b: E) -> E { return ds_add(a, b); }
fn e_mul(a: E, b: E) -> E { return ds_mul(a, b); }
fn e_conj(a: E, s: f32) -> E { return a; }
fn e_scalar(u: vec4<f32>) -> E { return u.xy; }
fn e_dot(x: E, y: E, s: f32) -> vec4<f32> { return vec4<f32>(ds_mul(x, y), 0.0, 0.0); }
