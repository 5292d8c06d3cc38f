// Double-single ("quasi-double", seed 001) arithmetic: a value is an unevaluated sum hi + lo of two
// f32 with |lo| <= ulp(hi)/2, about 48 significant bits. Knuth's two-sum and Dekker's two-product,
// as glsl/ds.glsl.
//
// A shader compiler may rewrite (a + b) - a into b, or contract s - a with the product that made s
// into one fused multiply-add (the SPIR-V Dawn emits allows both). P.one (= 1.0) multiplies every
// intermediate result an error term is recovered from, and P.split (= 8193.0 = 2^12 + 1, Dekker's
// constant for a 24-bit mantissa) comes from the uniform block, so neither can be folded: the
// rounding of each product and sum happens where the algorithm needs it. test/webgpu-*.test.ts checks
// two_prod bit for bit.

// s + e = a + b exactly (no precondition on the magnitudes).
fn two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = (a + b) * P.one;
  let v = (s - a) * P.one;
  let e = (a - (s - v)) + (b - v);
  return vec2<f32>(s, e);
}

// s + e = a + b exactly when |a| >= |b| (or a == 0).
fn quick_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = (a + b) * P.one;
  let e = b - (s - a) * P.one;
  return vec2<f32>(s, e);
}

// Dekker's split: a = hi + lo, each of at most 12 significant bits.
fn ds_split(a: f32) -> vec2<f32> {
  let c = (P.split * a) * P.one;
  let big = (c - a) * P.one;
  let hi = c - big;
  return vec2<f32>(hi, a - hi);
}

// p + e = a * b exactly (Dekker).
fn two_prod(a: f32, b: f32) -> vec2<f32> {
  let p = (a * b) * P.one;
  let sa = ds_split(a);
  let sb = ds_split(b);
  let e = ((sa.x * sb.x - p) + sa.x * sb.y + sa.y * sb.x) + sa.y * sb.y;
  return vec2<f32>(p, e);
}

// p + e = a * b exactly where a has at most 12 significant bits (an integer of a byte): Dekker's split
// of such an a is (a, 0), so two_prod's terms with a's low half vanish and only b is split.
fn two_prod_short(a: f32, b: f32) -> vec2<f32> {
  let p = (a * b) * P.one;
  let sb = ds_split(b);
  return vec2<f32>(p, (a * sb.x - p) + a * sb.y);
}

// IEEE specials. Where a sum or product is ±Inf or NaN its error term is NaN (Inf − Inf, Inf · 0),
// and so would be every hi that term is added into: Inf would come out as NaN. So lo is kept finite
// everywhere. ds_add and ds_div return, where their result's hi is not finite, the f32 result h of
// the hi parts with lo = 0: ±Inf and NaN exactly as f32 (and the CPU path's f64) arithmetic gives
// them. ds_mul's hi is that f32 result anyway, and its lo is set to 0 where it is not finite, which
// also keeps a finite product of an operand beyond 2^115 (where Dekker's split overflows) at its f32
// value. The test is on the bits: WGSL lets a compiler assume floats are finite and fold a
// comparison with Inf. Cost: an and, a compare and two selects per ds_add; ds_mul is cheaper than a
// renormalised product (one select instead of quick_two_sum).
fn not_finite(a: f32) -> bool { return (bitcast<u32>(a) & 0x7f800000u) == 0x7f800000u; }
fn ds_special(r: vec2<f32>, h: f32) -> vec2<f32> { return select(r, vec2<f32>(h, 0.0), not_finite(r.x)); }

// The accurate double-single sum (both error terms kept, renormalised twice).
fn ds_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let h = two_sum(a.x, b.x);
  let t = two_sum(a.y, b.y);
  let s = quick_two_sum(h.x, h.y + t.x);
  return ds_special(quick_two_sum(s.x, s.y + t.y), h.x);
}

// The product, not renormalised: hi = the f32 product of the hi parts, lo = its exact error plus the
// cross terms (|lo| a few ulp(hi) at most; ds_add renormalises). hi + lo carries about 48 bits.
fn ds_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let p = two_prod(a.x, b.x);
  let lo = p.y + (a.x * b.y + a.y * b.x);
  return vec2<f32>(p.x, select(lo, 0.0, not_finite(lo)));
}

// A complex double-single (re hi, re lo, im hi, im lo): the shape of every reduction partial.
fn q_add(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(ds_add(a.xy, b.xy), ds_add(a.zw, b.zw));
}
