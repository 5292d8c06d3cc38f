#version 300 es
// y = alpha·A·x + beta·y with A in ELLPACK, f32 (seed 001's ELL kernel, column-major slots).
// ELL stores entry k of row i at slot k·stride + i with stride a multiple of 4, so the slots of rows
// 4t..4t+3 at entry k are one aligned RGBA texel: texel k·(stride/4) + t. One fragment per output
// texel computes four rows with one vec4 load of values and one ivec4 load of columns per entry
// (seed 002's four rows per work-item). Padding (column -1) is masked, never multiplied, so an
// Inf/NaN in x cannot leak through it.
#include "common.glsl"

uniform highp isampler2DArray u_colIdx;  // RGBA32I, slots 4s..4s+3 in texel s
uniform highp sampler2DArray u_values;   // RGBA32F, same layout
uniform highp sampler2DArray u_x;
uniform highp sampler2DArray u_y;
uniform int u_slotShift;                 // layout of colIdx and values
uniform int u_xShift;
uniform int u_yShift;
uniform int u_width;                     // entries per row
uniform int u_stride4;                   // stride / 4: texels per ELL column
uniform float u_alpha;
uniform float u_beta;

out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  vec4 acc = vec4(0.0);
  for (int k = 0; k < u_width; k++) {
    ivec3 e = texelAt(k * u_stride4 + t, u_slotShift);
    vec4 v = texelFetch(u_values, e, 0);
    ivec4 c = texelFetch(u_colIdx, e, 0);
    if (c.x >= 0) acc.x += v.x * elementAt(u_x, u_xShift, c.x);
    if (c.y >= 0) acc.y += v.y * elementAt(u_x, u_xShift, c.y);
    if (c.z >= 0) acc.z += v.z * elementAt(u_x, u_xShift, c.z);
    if (c.w >= 0) acc.w += v.w * elementAt(u_x, u_xShift, c.w);
  }
  vec4 y = u_alpha * acc;
  if (u_beta != 0.0) y += u_beta * texelFetch(u_y, texelAt(t, u_yShift), 0);
  o_y = maskTail(y, t);
}
