/**
 * The kernels a pool worker tiers up while it is idle at start-up. V8 runs a WebAssembly function's
 * first calls in its baseline code (Liftoff) and compiles the optimized one (TurboFan) in the
 * background only once the function has used up a budget of executed code; a call in flight never
 * switches (wasm has no on-stack replacement). So a solve's first SpMV or fused CG step over a large
 * matrix ran wholly in baseline code: poisson3D(64)'s first DIA product and first CG direction step
 * 4–7× their later time, and the pool's first trials of each kernel (src/cpu/dispatch.ts) measured
 * the worker's baseline code. The optimized code belongs to the module, shared by every thread's
 * instance, so worker 0 calls these kernels on a tiny problem until V8 tiers them up (before its first
 * job with rows for it: then it stops), and the caller's first large calls find them optimized.
 *
 * The set: the kernels of CG on a stencil's compact DIA copy (rt.solve's default for one, Jacobi, in
 * f64 and in f32 refined in f64; rt.cg's, without a preconditioner) and the f64 vector operations
 * every Krylov method calls — a few ms of an idle worker and V8's background compilation. Others tier
 * up on first use, as before.
 */
import type { WasmHeap } from './memory.js';

/** rows of the tiny problem (a multiple of 4: the DIA kernels' row blocks) */
const N = 256;
/** its diagonals: a 3-D 7-point stencil's offsets, sorted as the DIA kernels want them */
const OFFSETS = [-64, -8, -1, 0, 1, 8, 64];
/** calls of each kernel: past V8's tiering budget (≈ 1.8 MB of executed code) for each on N rows */
export const TIER_UP_REPS = 400;
const VECTORS = 6;
/** bytes of the region the tiny problem lives in */
export const TIER_UP_BYTES = 64 + OFFSETS.length * N * 8 + N / 4 + 64 + VECTORS * N * 8 + 64;

/**
 * Writes the tiny problem into the region at `ptr` (TIER_UP_BYTES, from `heap`) and returns the
 * calls: [kernel, arguments with the row range last]. Every pointer is inside the region.
 */
export function tierUpCalls(heap: WasmHeap, ptr: number): [string, number[]][] {
  const nd = OFFSETS.length;
  const offsets = ptr;
  const data = offsets + 64;
  const uni = data + nd * N * 8;
  const consts = uni + N / 4;
  const v = (i: number) => consts + 64 + i * N * 8;
  const out = v(VECTORS);
  const mem = heap.memory.buffer;
  new Uint8Array(mem, ptr, TIER_UP_BYTES).fill(0);
  new Int32Array(mem, offsets, nd).set(OFFSETS);
  new Float64Array(mem, consts, nd).fill(1);
  // half the row groups uniform, so both of the uniform kernels' branches run
  new Uint8Array(mem, uni, N / 4).fill(1, 0, N / 8);
  new Float64Array(mem, v(0), N).fill(1);
  const dia = [offsets, nd, data, N, N];
  return [
    ['dia_f64f32', [...dia, v(0), v(1), 1, 0, 0, N]],
    ['cg_dia_direction_scaled_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, 0.5, 1, out, 0, N]],
    ['cg_dia_direction_x_scaled_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, v(3), 0.5, 0.5, 1, out, 0, N]],
    ['cg_dia_direction_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, 0.5, out, 0, N]],
    ['cg_dia_direction_x_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, v(3), 0.5, 0.5, out, 0, N]],
    ['cg_update_f64', [v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['cg_residual_jacobi_scalar_f64', [v(0), v(1), 1, 0.5, out, 0, N]],
    ['dot_f64', [v(0), v(1), out, 0, N]],
    ['nrm2_f64', [v(0), out, 0, N]],
    ['axpy_f64', [v(0), v(1), 0.5, 0, N]],
    ['xmy_f64', [v(0), v(1), v(2), 0, N]],
    ['copy_f64', [v(0), v(1), 0, N]],
    ['cg_dia_f32', [...dia, v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['cg_update_f32', [v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['nrm2_f32', [v(0), out, 0, N]],
    ['refine_residual_dia_f32', [...dia, v(0), v(1), v(2), out, 0, N]],
    ['refine_add_f32', [v(0), v(1), v(2), out, 0, N]],
  ];
}
