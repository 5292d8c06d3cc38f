// Sums of ELL rows: entry k of row i in slot k*stride + i (stride a multiple of 4). colIdx RGBA32I
// (4 slots per texel, -1 = padding), values RGBA32F in the dtype's packing (EPT slots per texel), so
// the EPT rows of one output texel read one value texel and one index texel per k. SELL (sell.glsl)
// runs its slices through ellRun with the slice's base, width and height.
uniform highp isampler2DArray u_ellIdx;
uniform highp sampler2DArray u_ellVal;
uniform int u_ellIdxShift;
uniform int u_ellValShift;
uniform int u_width;
uniform int u_stride;

// acc[r] += the slots s0 + k*stride + r, k < width: EPT rows (or SELL positions) side by side. s0 is a
// multiple of EPT and stride of 4, so the EPT slots of each k are one value texel and one index texel.
void ellRun(int s0, int width, int stride, inout E acc[EPT]) {
  for (int k = 0; k < width; k++) {
    int s = s0 + k * stride;
    vec4 vt = texelFetch(u_ellVal, texelAt(s >> LOG_EPT, u_ellValShift), 0);
    ivec4 ct = texelFetch(u_ellIdx, texelAt(s >> 2, u_ellIdxShift), 0);
    int c0 = s & 3;
    for (int r = 0; r < EPT; r++) {
      int c = ct[c0 + r];
      if (c >= 0) acc[r] = e_add(acc[r], e_mul(e_conj(e_unpack(vt, r), u_conj), elemAt(u_x, u_xShift, c)));
    }
  }
}

void ellAccumulate(int t, inout E acc[EPT]) {
  ellRun(EPT * t, u_width, u_stride, acc);
}
