// One step of the Chebyshev polynomial preconditioner fused with its SpMV, for the GPU-resident
// Chebyshev-CG (src/webgpu/cg.ts) over a kernel with one thread per row that defines
// fn row_acc(i: u32) -> E, the row's sum of A*x (dia_row.wgsl). The three-term form of the Chebyshev
// iteration (Saad, Alg. 12.1, with d_k = z_{k+1} - z_k): with x = z_k,
//   z_{k+1} = z_k + c1*(z_k - z_{k-1}) + c2*dinv*(r - A*z_k),
// written over z_{k-1} (binding 10: a thread reads and writes its own rows only; A*z_k reads x, another
// buffer), so a step reads A, z_k, z_{k-1} and r once and writes one vector, where the SpMV and the
// element-wise step apart read and wrote six. P.alpha = c1, P.beta = c2; flags in P.use_beta (no beta
// step here): 1 the first step (z_{k-1} = 0, not read), 2 the last (also the partials of r^H z_{k+1},
// written after as many others as there are workgroups, G: cg_update's partials of |r|^2 come first,
// at most G of them, and cg_scalars sums both), 4 dinv per row (binding 12; else none is read: a
// constant diagonal's, folded into c2 by the host).
// Nothing runs once the resident solve stopped (the flag S[7].x, binding 13).
@group(0) @binding(10) var<storage, read_write> cheb_z: array<E>;
@group(0) @binding(11) var<storage, read> cheb_r: array<E>;
@group(0) @binding(12) var<storage, read> cheb_dinv: array<E>;
@group(0) @binding(13) var<storage, read> cheb_state: array<vec4<f32>>;

@compute @workgroup_size(128)
fn cheb_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c1 = e_scalar(P.alpha);
  let c2 = e_scalar(P.beta);
  let f = P.use_beta;
  let n = select(P.n, 0u, cheb_state[7u].x != 0.0);
  var rz = vec4<f32>(0.0);
  for (var i = group_index(wid, nwg) * 128u + lid; i < n; i += dot_stride(nwg)) {
    let zk = x[i];
    var res = e_add(cheb_r[i], -row_acc(i));
    if ((f & 4u) != 0u) { res = e_mul(cheb_dinv[i], res); }
    var dz = e_mul(c2, res);
    if ((f & 1u) != 0u) { dz = e_add(dz, e_mul(c1, zk)); }
    else { dz = e_add(dz, e_mul(c1, e_add(zk, -cheb_z[i]))); }
    let znew = e_add(zk, dz);
    cheb_z[i] = znew;
    if ((f & 2u) != 0u) { rz = q_add(rz, e_dot(cheb_r[i], znew, -1.0)); }
  }
  if ((f & 2u) != 0u) {
    let s = tree_sum(lid, rz);
    if (lid == 0u) { dot_part[nwg.x * nwg.y + group_index(wid, nwg)] = s; }
  }
}
