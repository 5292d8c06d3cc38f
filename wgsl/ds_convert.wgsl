// Conversions between IEEE f64 bits, double-single and f32, over P.n components (elements, twice
// that for complex data); compiled with the f64 prelude (ds.wgsl). One thread per component.
//
// split_main: an f64 / c128 upload, in place. Each component arrives as its IEEE f64 bits (low word,
// high word) and leaves as the (hi, lo) pair src/double-single.ts's split makes on the host, bit for
// bit, over the whole f64 range: hi = fround(v) (round to nearest, ties to even, f32 subnormals and
// signed zeros included), lo = fround(v - hi) (v - hi is exact); +-Inf as it is, NaN as the canonical
// quiet NaN, lo = 0. A finite v that f32 cannot hold becomes hi = +-Inf, lo = 0: the host refuses such
// data (before the upload, or after it where a norm of it came out Inf or NaN). Integer arithmetic
// only, so a GPU that flushes f32 subnormals still writes them.
// split_checked_main: split_main, and a finite v that f32 cannot hold also sets flags[0] (the batch
// upload's range test, read back once for all its arrays, instead of a host pass over every value).
// join_main: the inverse for read-back: each (hi, lo) pair of `pairs` as the IEEE f64 bits of
// hi + lo rounded to nearest (the host's joinDS, bit for bit: hi where hi is +-Inf or NaN, or where
// both are zeros (hi's sign), subnormal f32 words read exactly), into `words`.
// join_max_main: join_main, and flags[0] (zero before) raised to the largest high word of |xᵢ| over
// the components: max |xᵢ| ≤ the f64 of that word over 0xffffffff, and some xᵢ is ±Inf or NaN iff
// it is ≥ 0x7ff00000 (a solve's certificate and finiteness test without a host pass over x).
// single_main: an f32 / c64 vector from a double-single one, each component rounded (hi + lo in f32).
// add_single_main: x = x + d, x double-single, d f32 / c64 (iterative refinement's update).

@group(0) @binding(1) var<storage, read_write> words: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> wide: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> narrow: array<f32>;
@group(0) @binding(4) var<storage, read_write> acc: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> corr: array<f32>;
@group(0) @binding(6) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> flags: array<atomic<u32>>;

// 64-bit unsigned integers as vec2<u32>(low word, high word); shifts by 0..63.
fn bitlen64(a: vec2<u32>) -> u32 {
  if (a.y != 0u) { return 33u + firstLeadingBit(a.y); }
  if (a.x != 0u) { return 1u + firstLeadingBit(a.x); }
  return 0u;
}
fn shl64(a: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(0u, a.x << (s - 32u)); }
  return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}
fn shr64(a: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(a.y >> (s - 32u), 0u); }
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn lt64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}
fn eq64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.x == b.x && a.y == b.y;
}
// m >> s (1 <= s <= 63) rounded to nearest, ties to even (a carry may add one bit)
fn round_shr64(m: vec2<u32>, s: u32) -> vec2<u32> {
  let q = shr64(m, s);
  let rem = sub64(m, shl64(q, s));
  let half = shl64(vec2<u32>(1u, 0u), s - 1u);
  if (lt64(half, rem) || (eq64(rem, half) && (q.x & 1u) == 1u)) { return add64(q, vec2<u32>(1u, 0u)); }
  return q;
}

// The f32 bits of sign * q * 2^k, q <= 2^24 and k >= -149 (an f32 value, or +-Inf beyond f32's range).
fn pack(sign: u32, q: u32, k: i32) -> u32 {
  if (q == 0u) { return sign; }
  let len = firstLeadingBit(q) + 1u;
  let top = k + i32(len) - 1;
  if (top > 127) { return sign | 0x7f800000u; }
  if (top < -126) { return sign | (q << u32(k + 149)); }  // subnormal: the word is q * 2^(k + 149)
  let frac = select(q << (24u - len), q >> 1u, len > 24u) & 0x7fffffu;
  return sign | (u32(top + 127) << 23u) | frac;
}

// sign * m * 2^k (m > 0, at most 53 bits) rounded to f32 as f32 sees it: the bits, and the rounded
// magnitude as q * 2^(k + s) (q <= 2^24, q * 2^s <= 2^53 fits 64 bits) for the remainder.
struct Rounded { bits: u32, q: u32, s: u32 }
fn round_f32(sign: u32, m: vec2<u32>, k: i32) -> Rounded {
  let len = i32(bitlen64(m));
  let top = k + len - 1;
  // bits kept: 24, fewer below 2^-126 (subnormal: none below 2^-149)
  let keep = select(24, top + 150, top < -126);
  if (keep < 0) { return Rounded(sign, 0u, 0u); }
  let s = u32(max(len - keep, 0));
  var q = shr64(m, s).x;
  if (s > 0u) { q = round_shr64(m, s).x; }
  return Rounded(pack(sign, q, k + i32(s)), q, s);
}

// words[i] split in place; true where a finite value became +-Inf (f32 cannot hold it)
fn split_at(i: u32) -> bool {
  let w = words[i];
  let sign = w.y & 0x80000000u;
  let e = (w.y >> 20u) & 0x7ffu;
  let fh = w.y & 0xfffffu;
  if (e == 0x7ffu) {
    let nan = fh != 0u || w.x != 0u;
    words[i] = vec2<u32>(select(sign | 0x7f800000u, 0x7fc00000u, nan), 0u);
    return false;
  }
  if (e == 0u) {
    // +-0 and f64 subnormals: hi = fround(v) = +-0; lo = v - hi is +0 for a zero, v (so +-0) else
    words[i] = vec2<u32>(sign, select(0u, sign, fh != 0u || w.x != 0u));
    return false;
  }
  let m = vec2<u32>(w.x, fh | 0x100000u);
  let k = i32(e) - 1075;
  let h = round_f32(sign, m, k);
  if ((h.bits & 0x7fffffffu) == 0x7f800000u) { words[i] = vec2<u32>(h.bits, 0u); return true; }
  // v - hi = +-|m - q * 2^s| * 2^k, exactly
  let qs = shl64(vec2<u32>(h.q, 0u), h.s);
  let up = lt64(m, qs);
  let d = select(sub64(m, qs), sub64(qs, m), up);
  var lo = 0u;
  if (d.x != 0u || d.y != 0u) { lo = round_f32(select(sign, sign ^ 0x80000000u, up), d, k).bits; }
  words[i] = vec2<u32>(h.bits, lo);
  return false;
}

@compute @workgroup_size(256)
fn split_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  _ = split_at(i);
}

@compute @workgroup_size(256)
fn split_checked_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  if (split_at(i)) { atomicOr(&flags[0], 1u); }
}

// An f32 word as sign, magnitude m * 2^k with m normalized to 24 bits (m = 0 for a zero).
struct Parts { sign: u32, m: u32, k: i32 }
fn parts(b: u32) -> Parts {
  let ex = (b >> 23u) & 0xffu;
  var m = b & 0x7fffffu;
  var k = -149;
  if (ex != 0u) { m = m | 0x800000u; k = i32(ex) - 150; }
  if (m == 0u) { return Parts(b & 0x80000000u, 0u, -1000); }
  let sh = 23u - firstLeadingBit(m);
  return Parts(b & 0x80000000u, m << sh, k - i32(sh));
}

// component i joined into words[i]; returns the high word written
fn join_at(i: u32) -> u32 {
  let w = pairs[i];
  // +-Inf or NaN in hi is the value; else in lo it is the sum
  let special = select(select(0u, w.y, (w.y & 0x7f800000u) == 0x7f800000u), w.x, (w.x & 0x7f800000u) == 0x7f800000u);
  if (special != 0u) {
    let nan = (special & 0x7fffffu) != 0u;
    let hw = select((special & 0x80000000u) | 0x7ff00000u, 0x7ff80000u, nan);
    words[i] = vec2<u32>(0u, hw);
    return hw;
  }
  var a = parts(w.x);
  var b = parts(w.y);
  if (a.m == 0u && b.m == 0u) {
    // two zeros: a zero of hi's sign (joinDS)
    words[i] = vec2<u32>(0u, a.sign);
    return a.sign;
  }
  // a: the larger magnitude
  if (a.k < b.k || (a.k == b.k && a.m < b.m)) { let t = a; a = b; b = t; }
  // a.m * 2^38 + or - b aligned below it, in 64 bits; bits of b below bit 0 kept as a sticky bit,
  // which decides no rounding wrongly (the rounding point is at bit 8 or above, see below)
  let A = shl64(vec2<u32>(a.m, 0u), 38u);
  let dk = a.k - b.k;
  var B = vec2<u32>(0u, 0u);
  if (b.m != 0u) {
    if (dk <= 38) { B = shl64(vec2<u32>(b.m, 0u), u32(38 - dk)); }
    else if (dk - 38 < 24) {
      let sh = u32(dk - 38);
      B = vec2<u32>((b.m >> sh) | select(0u, 1u, (b.m & ((1u << sh) - 1u)) != 0u), 0u);
    } else { B = vec2<u32>(1u, 0u); }
  }
  let S = select(add64(A, B), sub64(A, B), a.sign != b.sign);
  if (S.x == 0u && S.y == 0u) { words[i] = vec2<u32>(0u, 0u); return 0u; }  // x - x = +0
  // round S (its top bit p: 60..62 whenever a sticky bit was set) to 53 bits
  let p = bitlen64(S) - 1u;
  var q = shl64(S, 52u - min(p, 52u));
  var top = a.k - 38 + i32(p);
  if (p > 52u) {
    q = round_shr64(S, p - 52u);
    if (q.y == 0x200000u) { q = shr64(q, 1u); top = top + 1; }
  }
  let hw = a.sign | (u32(top + 1023) << 20u) | (q.y & 0xfffffu);
  words[i] = vec2<u32>(q.x, hw);
  return hw;
}

@compute @workgroup_size(256)
fn join_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  _ = join_at(i);
}

// the largest high word of |x| over the workgroup's components (non-negative f64 bits order as their values)
var<workgroup> top_word: atomic<u32>;

@compute @workgroup_size(256)
fn join_max_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i < P.n) { atomicMax(&top_word, join_at(i) & 0x7fffffffu); }
  workgroupBarrier();
  if (lid == 0u) { atomicMax(&flags[0], atomicLoad(&top_word)); }
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
