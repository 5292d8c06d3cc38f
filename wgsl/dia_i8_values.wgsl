// The values of a DIA matrix stored one byte each (integers in [-128, 127], four to a word: slot k is
// byte k % 4 of word k / 4, binding 4), sign-extended to f32 on load: dia_i8.wgsl and dia_i8_cheb32.wgsl.
@group(0) @binding(4) var<storage, read> data: array<u32>;

fn dia_f32(k: u32) -> f32 { return f32(bitcast<i32>(data[k >> 2u] << (24u - 8u * (k & 3u))) >> 24u); }
