// What the BLAS-1 kernels share: one fragment per texel of y (EPT elements).
#include "common.glsl"
#include "dtype.glsl"

uniform highp sampler2DArray u_x;
uniform highp sampler2DArray u_y;
uniform int u_xShift;
uniform int u_yShift;
uniform vec4 u_alpha;
out vec4 o_y;
