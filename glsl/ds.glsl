// Double-single ("quasi-double", seed 001) arithmetic: a value is an unevaluated sum hi + lo of two
// f32 with |lo| <= ulp(hi)/2, about 48 significant bits. Knuth's two-sum and Dekker's two-product.
//
// GLSL ES 3.00 has no `precise`, so nothing stops a compiler from rewriting (a + b) - a into b or
// c - (c - a) into a (legal under the relaxed float rules of shading languages). opaque() guards the
// intermediate results the error terms are recovered from, and u_split (= 8193.0 = 2^12 + 1, Dekker's
// constant for a 24-bit mantissa) cannot be folded. Multiplying by a uniform u_one = 1.0 was not
// enough: Firefox on Mesa's llvmpipe lost the low halves of products of two texture values (SpMV and
// dot at f32 accuracy) until opaque() replaced it. The browser suite checks the result bit for bit
// ("double-single arithmetic": two_prod must be exact) and every f64/c128 kernel in each engine.
uniform float u_one;
uniform float u_split;

// x itself, but through an integer XOR with a zero the compiler cannot know (the bits of u_one = 1.0
// XOR those of 1.0): float algebra (reassociation, factoring a·b − a into a·(b − 1), fusing into an
// FMA) cannot see through it, where a multiplication by u_one alone is reassociated away (Mesa).
float opaque(float x) {
  return uintBitsToFloat(floatBitsToUint(x) ^ (floatBitsToUint(u_one) ^ 0x3F800000u));
}

// s + e = a + b exactly (Knuth, no precondition on the magnitudes).
vec2 two_sum(float a, float b) {
  float s = opaque(a + b);
  float v = opaque(s - a);
  float e = (a - opaque(s - v)) + (b - v);
  return vec2(s, e);
}

// s + e = a + b exactly when |a| >= |b| (or a == 0).
vec2 quick_two_sum(float a, float b) {
  float s = opaque(a + b);
  float e = b - opaque(s - a);
  return vec2(s, e);
}

// Dekker's split: a = hi + lo with hi, lo of at most 12 significant bits each.
vec2 ds_split(float a) {
  float c = opaque(u_split * a);
  float big = opaque(c - a);
  float hi = opaque(c - big);
  return vec2(hi, a - hi);
}

// p + e = a * b exactly (Dekker).
vec2 two_prod(float a, float b) {
  float p = opaque(a * b);
  vec2 as = ds_split(a);
  vec2 bs = ds_split(b);
  float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
  return vec2(p, e);
}

// IEEE specials. Where a sum or product is ±Inf or NaN its error term is NaN (Inf − Inf, Inf · 0),
// and so would be every hi that term is added into: Inf would come out as NaN. So lo is kept finite
// everywhere. ds_add returns, where its result's hi is not finite, the f32 result h of the hi parts
// with lo = 0: ±Inf and NaN exactly as f32 (and the CPU path's f64) arithmetic gives them. ds_mul's
// hi is that f32 result anyway, and its lo is set to 0 where it is not finite, which also keeps a
// finite product of an operand beyond 2^115 (where Dekker's split overflows) at its f32 value.
// Tested on the bits, as isinf/isnan may be folded away by a compiler that assumes finite floats.
// Cost: an and, a compare and a select per ds_add; ds_mul is cheaper than a renormalised product.
bool not_finite(float a) { return (floatBitsToUint(a) & 0x7f800000u) == 0x7f800000u; }
vec2 ds_special(vec2 r, float h) { return not_finite(r.x) ? vec2(h, 0.0) : r; }

// The accurate double-single sum (both error terms kept, renormalised twice).
vec2 ds_add(vec2 a, vec2 b) {
  vec2 h = two_sum(a.x, b.x);
  vec2 t = two_sum(a.y, b.y);
  vec2 s = quick_two_sum(h.x, h.y + t.x);
  return ds_special(quick_two_sum(s.x, s.y + t.y), h.x);
}

vec2 ds_neg(vec2 a) {
  return -a;
}

// The product, not renormalised: hi = the f32 product of the hi parts, lo = its exact error plus the
// cross terms (|lo| a few ulp(hi) at most; ds_add renormalises). hi + lo carries about 48 bits.
vec2 ds_mul(vec2 a, vec2 b) {
  vec2 p = two_prod(a.x, b.x);
  float lo = p.y + (a.x * b.y + a.y * b.x);
  return vec2(p.x, not_finite(lo) ? 0.0 : lo);
}
