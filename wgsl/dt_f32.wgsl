// dtype f32: E = f32. Each dt_*.wgsl is the prelude the backend puts before a kernel compiled for
// that dtype (one pipeline per kernel and dtype); kernels are written once over E and these e_*.
#include "common.wgsl"
alias E = f32;
fn e_zero() -> E { return 0.0; }
fn e_add(a: E, b: E) -> E { return a + b; }
fn e_mul(a: E, b: E) -> E { return a * b; }
fn e_conj(a: E, s: f32) -> E { return a; }
fn e_scalar(u: vec4<f32>) -> E { return u.x; }
// conj(x)*y (s = -1) or x*y as a complex double-single partial: f32 products are exact there
fn e_dot(x: E, y: E, s: f32) -> vec4<f32> { return vec4<f32>(two_prod(x, y), 0.0, 0.0); }
