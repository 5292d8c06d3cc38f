// Conversions between IEEE f64 bits, double-single and f32, over P.n components (elements, twice
// that for complex data); compiled with the f64 prelude (ds.wgsl). One thread per component.
//
// split_main: an f64 / c128 upload, in place. Each component arrives as its IEEE f64 bits (low word,
// high word) and leaves as the (hi, lo) pair src/double-single.ts's split makes on the host, bit for
// bit: hi = fround(v) (round to nearest, ties to even), lo = fround(v - hi) (v - hi is exact). Only
// for components that are 0, +-Inf, NaN or of magnitude in [2^-60, 2^127), where hi and lo are
// normal f32 (the backend checks on the host, and splits other data there); integer arithmetic only.
// single_main: an f32 / c64 vector from a double-single one, each component rounded (hi + lo in f32).
// add_single_main: x = x + d, x double-single, d f32 / c64 (iterative refinement's update).

@group(0) @binding(1) var<storage, read_write> words: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> wide: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> narrow: array<f32>;
@group(0) @binding(4) var<storage, read_write> acc: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> corr: array<f32>;

// m rounded to at most 24 significant bits (ties to even) as (m', k'): m * 2^k = m' * 2^k' rounded.
fn round24(m: u32, k: i32) -> vec2<i32> {
  let len = firstLeadingBit(m) + 1u;
  if (len <= 24u) { return vec2<i32>(i32(m), k); }
  let sh = len - 24u;
  let rem = m & ((1u << sh) - 1u);
  let half = 1u << (sh - 1u);
  var q = m >> sh;
  if (rem > half || (rem == half && (q & 1u) == 1u)) { q = q + 1u; }
  return vec2<i32>(i32(q), k + i32(sh));
}

// The f32 bits of sign * m * 2^k for 0 < m <= 2^24, a normal result.
fn pack(sign: u32, m: u32, k: i32) -> u32 {
  let len = firstLeadingBit(m) + 1u;
  let frac = (m << (24u - min(len, 24u))) & 0x7fffffu;
  let ex = u32(k + i32(len) - 1 + 127);
  return sign | (ex << 23u) | frac;
}

@compute @workgroup_size(256)
fn split_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  let w = words[i];
  let sign = w.y & 0x80000000u;
  let e = (w.y >> 20u) & 0x7ffu;
  let fh = w.y & 0xfffffu;
  if (e == 0x7ffu) {
    // +-Inf as it is, NaN as the canonical quiet NaN; lo = 0
    let nan = fh != 0u || w.x != 0u;
    words[i] = vec2<u32>(select(sign | 0x7f800000u, 0x7fc00000u, nan), 0u);
    return;
  }
  if (e == 0u) { words[i] = vec2<u32>(sign, 0u); return; }  // +-0 (hi keeps the sign, lo = v - hi = +0)
  let ex = i32(e) - 1023;
  // the top 24 of the 53 significant bits, and the 29 below them
  var q = 0x800000u | (fh << 3u) | (w.x >> 29u);
  let rem = w.x & 0x1fffffffu;
  let up = rem > 0x10000000u || (rem == 0x10000000u && (q & 1u) == 1u);
  var hk = ex - 23;
  if (up) { q = q + 1u; }
  if (q == 0x1000000u) { q = 0x800000u; hk = hk + 1; }
  let hi = pack(sign, q, hk);
  // v - hi = +-(rem or 2^29 - rem) * 2^(ex - 52), exactly
  let d = select(rem, 0x20000000u - rem, up);
  var lo = 0u;
  if (d != 0u) {
    let r = round24(d, ex - 52);
    lo = pack(select(sign, sign ^ 0x80000000u, up), u32(r.x), r.y);
  }
  words[i] = vec2<u32>(hi, lo);
}

@compute @workgroup_size(256)
fn single_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  let v = wide[i];
  narrow[i] = v.x + v.y;
}

@compute @workgroup_size(256)
fn add_single_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  acc[i] = ds_add(acc[i], vec2<f32>(corr[i], 0.0));
}
