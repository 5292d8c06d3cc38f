// Element types of the GPU path, chosen by a #define that the backend puts after #version when it
// compiles a kernel for a dtype (one program per kernel and dtype):
//
//   DT_F32   E = float  real f32                          4 elements per RGBA32F texel
//   DT_C64   E = vec2   (re, im) complex f32              2 elements per texel: (re0, im0, re1, im1)
//   DT_F64   E = vec2   (hi, lo) double-single            2 elements per texel: (hi0, lo0, hi1, lo1)
//   DT_C128  E = vec4   (re hi, re lo, im hi, im lo)      1 element per texel
//
// EPT = elements per texel (LOG_EPT its log2). Vectors and the value arrays of ELL and DIA use this
// packing; CSR values are one element per texel (R32F, RG32F or RGBA32F). Scalars (alpha, beta)
// come in as a vec4 in the same order as one element. Every kernel is written once over E.
#include "ds.glsl"

#if defined(DT_F32)
#define E float
#define EPT 4
#define LOG_EPT 2
E e_zero() { return 0.0; }
E e_add(E a, E b) { return a + b; }
E e_mul(E a, E b) { return a * b; }
E e_conj(E a, float s) { return a; }
E e_scalar(vec4 u) { return u.x; }
E e_load(vec4 t) { return t.x; }
E e_unpack(vec4 t, int r) { return t[r]; }
vec4 e_pack(E v[EPT]) { return vec4(v[0], v[1], v[2], v[3]); }
#elif defined(DT_C64)
#define E vec2
#define EPT 2
#define LOG_EPT 1
E e_zero() { return vec2(0.0); }
E e_add(E a, E b) { return a + b; }
E e_mul(E a, E b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
E e_conj(E a, float s) { return vec2(a.x, s * a.y); }
E e_scalar(vec4 u) { return u.xy; }
E e_load(vec4 t) { return t.xy; }
E e_unpack(vec4 t, int r) { return r == 0 ? t.xy : t.zw; }
vec4 e_pack(E v[EPT]) { return vec4(v[0], v[1]); }
#elif defined(DT_F64)
#define E vec2
#define EPT 2
#define LOG_EPT 1
E e_zero() { return vec2(0.0); }
E e_add(E a, E b) { return ds_add(a, b); }
E e_mul(E a, E b) { return ds_mul(a, b); }
E e_conj(E a, float s) { return a; }
E e_scalar(vec4 u) { return u.xy; }
E e_load(vec4 t) { return t.xy; }
E e_unpack(vec4 t, int r) { return r == 0 ? t.xy : t.zw; }
vec4 e_pack(E v[EPT]) { return vec4(v[0], v[1]); }
#elif defined(DT_C128)
#define E vec4
#define EPT 1
#define LOG_EPT 0
E e_zero() { return vec4(0.0); }
E e_add(E a, E b) { return vec4(ds_add(a.xy, b.xy), ds_add(a.zw, b.zw)); }
E e_mul(E a, E b) {
  vec2 re = ds_add(ds_mul(a.xy, b.xy), ds_neg(ds_mul(a.zw, b.zw)));
  vec2 im = ds_add(ds_mul(a.xy, b.zw), ds_mul(a.zw, b.xy));
  return vec4(re, im);
}
E e_conj(E a, float s) { return vec4(a.xy, s * a.zw); }
E e_scalar(vec4 u) { return u; }
E e_load(vec4 t) { return t; }
E e_unpack(vec4 t, int r) { return t; }
vec4 e_pack(E v[EPT]) { return v[0]; }
#else
#error "no dtype: define DT_F32, DT_C64, DT_F64 or DT_C128"
#endif

// Element j of a vector in this packing.
E elemAt(highp sampler2DArray v, int shift, int j) {
  return e_unpack(texelFetch(v, texelAt(j >> LOG_EPT, shift), 0), j & (EPT - 1));
}
