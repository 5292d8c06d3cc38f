// dtype c64: E = vec2<f32> (re, im), the interleaved layout.
#include "common.wgsl"
alias E = vec2<f32>;
fn e_zero() -> E { return E(0.0); }
fn e_add(a: E, b: E) -> E { return a + b; }
fn e_mul(a: E, b: E) -> E { return E(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn e_conj(a: E, s: f32) -> E { return E(a.x, s * a.y); }
fn e_scalar(u: vec4<f32>) -> E { return u.xy; }
fn e_dot(x: E, y: E, s: f32) -> vec4<f32> {
  let xi = s * x.y;
  let re = ds_add(two_prod(x.x, y.x), -two_prod(xi, y.y));
  let im = ds_add(two_prod(x.x, y.y), two_prod(xi, y.x));
  return vec4<f32>(re, im);
}
