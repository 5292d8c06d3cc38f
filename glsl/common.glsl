// Shared by every kernel (inlined by scripts/build-shaders.mjs where a kernel says #include).
//
// Layout of every GPU array (src/gpu/encoding.ts): a linear array of texels lives in a
// TEXTURE_2D_ARRAY whose layers are square tiles of 2^s × 2^s texels; texel i sits at
// x = i mod 2^s, y = (i >> s) mod 2^s, layer = i >> 2s. One layer when the array fits one tile.
// Vectors are RGBA32F streams of floats, four per texel: 4 f32, 2 c64 / f64 (double-single) or
// 1 c128 element per texel (dtype.glsl). Indices are integer textures (R32I / RGBA32I), exact over
// the whole int32 range.
precision highp float;
precision highp int;
precision highp sampler2DArray;
precision highp isampler2DArray;

ivec3 texelAt(int i, int s) {
  int m = (1 << s) - 1;
  return ivec3(i & m, (i >> s) & m, i >> (s + s));
}

// Element i of an int array packed 4 per RGBA32I texel (row pointers, slice pointers, positions).
int packedIntAt(highp isampler2DArray a, int shift, int i) {
  return texelFetch(a, texelAt(i >> 2, shift), 0)[i & 3];
}

// The output: one fragment per output texel. A draw renders one layer of the target.
uniform int u_outShift;   // layout shift s of the output array
uniform int u_outLayer;   // the layer this draw renders into
uniform int u_outTexels;  // texels of the output array (fragments past it write 0)
uniform int u_n;          // floats in use in the output (components past it write 0)

int outTexel() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  return (u_outLayer << (u_outShift + u_outShift)) + (p.y << u_outShift) + p.x;
}

// Float components 4t + c >= u_n are set to 0 by selection (never by multiplication, so NaN cannot leak
// into the padding of a vector).
vec4 maskTail(vec4 v, int t) {
  return mix(vec4(0.0), v, lessThan(4 * t + ivec4(0, 1, 2, 3), ivec4(u_n)));
}
