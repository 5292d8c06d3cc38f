// One step of the Chebyshev polynomial preconditioner z = p(D^-1 A) D^-1 r inside the GPU-resident
// CG (src/webgpu/cg.ts, residentChebyshevCg): Saad's Algorithm 12.1 for A z = r from z = 0, Jacobi
// scaled, in `degree` steps whose coefficients are fixed at setup (c1 = P.alpha, c2 = P.beta).
// P.m = 0 (the first step): d = c2 * dinv * r, z = d, res = r.
// P.m = 1 (a later step, after res = res - A d by the SpMV kernel): d = c1 * d + c2 * dinv * res, z = z + d.
// P.w = 1 (the last step): also the partials of r^H z, after as many others as there are workgroups
// (partials[groups + g]: cg_update's partials of |r|^2 come first, cg_scalars sums both).
// first_main starts the fused steps of spmv_cheb.wgsl (a DIA matrix): z = c2 * dinv * r alone, dinv
// per row when P.m = 1, else none read (a constant diagonal's, folded into c2 by the host); P.w = 1 as main's.
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> r: array<E>;
@group(0) @binding(2) var<storage, read> dinv: array<E>;
@group(0) @binding(3) var<storage, read_write> res: array<E>;
@group(0) @binding(4) var<storage, read_write> d: array<E>;
@group(0) @binding(5) var<storage, read_write> z: array<E>;
@group(0) @binding(6) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  let c1 = e_scalar(P.alpha);
  let c2 = e_scalar(P.beta);
  var rz = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < P.n; i += P.k) {
    var di: E;
    var zi: E;
    if (P.m == 0u) {
      let ri = r[i];
      res[i] = ri;
      di = e_mul(c2, e_mul(dinv[i], ri));
      zi = di;
    } else {
      di = e_add(e_mul(c1, d[i]), e_mul(c2, e_mul(dinv[i], res[i])));
      zi = e_add(z[i], di);
    }
    d[i] = di;
    z[i] = zi;
    if (P.w == 1u) { rz = q_add(rz, e_dot(r[i], zi, -1.0)); }
  }
  if (P.w == 1u) {
    let t = tree_sum(lid, rz);
    if (lid == 0u) { partials[nwg.x * nwg.y + g] = t; }
  }
}

@compute @workgroup_size(256)
fn first_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  let c2 = e_scalar(P.beta);
  var rz = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < P.n; i += P.k) {
    let ri = r[i];
    var zi = e_mul(c2, ri);
    if (P.m == 1u) { zi = e_mul(c2, e_mul(dinv[i], ri)); }
    z[i] = zi;
    if (P.w == 1u) { rz = q_add(rz, e_dot(ri, zi, -1.0)); }
  }
  if (P.w == 1u) {
    let t = tree_sum(lid, rz);
    if (lid == 0u) { partials[nwg.x * nwg.y + g] = t; }
  }
}
