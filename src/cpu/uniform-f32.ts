/**
 * The uniform parts of a square f32 DIA copy on the CPU pool, flagged once at its upload (CpuBackend.upload),
 * as src/cpu/spmv-plan.ts compactUniform flags a compact f64 copy's while it copies: its 4-row groups in
 * which every diagonal holds one constant (regions `uni`, `consts`: rt.solve's structure check reads those
 * rows from the constants, src/solvers/uniform-structure.ts, and the f32 solve's f64 head's product kernels
 * too, src/cpu/refine.ts wideView) and, for at most 8 diagonals, each 16-row block's mask of the diagonals
 * constant there with a table of the constants (regions `masks`, `table`, params.masked: the f32 CG
 * product cg_dia_f32u). Made where a solve found them (wideView, at its start) they came after the
 * structure check, which then copied A's CSR to the heap for the pool's pass over every entry: 10.7 ms of an
 * f32 poisson3D(64) solve's set-up on 2 threads, where the f64 copy's flags gave 3.8.
 */
import type { CpuBackend } from './backend.js';
import type { CpuMatrix } from './resident.js';
import type { Region } from './memory.js';
import { MemoryLimitError } from '../errors.js';
import type { DIAMatrix } from '../formats/dia.js';
import type { UniformGroups } from '../solvers/uniform-structure.js';
import { uniformConsts } from './spmv-plan.js';
import { evenBounds } from './partition.js';

/** Flags M's uniform groups in its regions (see above) where M is a square f32 DIA copy more than half of whose groups are uniform. */
export function flagUniformF32(B: CpuBackend, M: CpuMatrix): void {
  if (M.format !== 'dia' || M.dtype !== 'f32' || M.rows !== M.cols || M.rows < 4 || M.regions.uni) return;
  const D = M.host as DIAMatrix;
  const consts = uniformConsts(D);
  // a NaN's slots are never its constant (compactUniform's v !== c): no group then
  if (consts.length === 0 || consts.some(Number.isNaN)) return;
  const ndiag = consts.length;
  const groups = M.rows >> 2;
  const blocks = (groups + 3) >> 2;
  let flags: Region | undefined;
  let masks: Region | null = null;
  let bits: Region | undefined;
  let cf: Region | undefined;
  let table: Region | undefined;
  let kept = false;
  try {
    // a byte per group and two zero bytes more (the kernels read a block's two groups at once)
    flags = B.heap.alloc(groups + 2);
    masks = ndiag <= 8 ? B.heap.alloc(blocks + 1) : null;
    bits = B.heap.allocCopy(new Float32Array(consts));
    flags.view('u8', groups + 2).fill(0);
    masks?.view('u8', blocks + 1).fill(0);
    // bitwise (±0 told apart, as compactUniform does), by the pool where it is idle
    B.runChunksSync('dia_uniform_f32', [ndiag, M.ptr('data'), M.params.pitch, M.rows, bits.ptr, flags.ptr, masks?.ptr ?? 0], evenBounds(blocks, B.workerPool?.chunks ?? 1));
    let uniform = 0;
    for (const f of flags.view('u8', groups)) uniform += f;
    // at most half: nothing to gain over the slots (compactUniform's rule)
    if (!(uniform > groups / 2)) return;
    cf = B.heap.allocCopy(consts);
    // each constant 16 times (a 16-row block's four v128), f32
    if (masks) table = B.heap.allocCopy(Float32Array.from({ length: 16 * ndiag }, (_, k) => consts[k >> 4]));
    Object.assign(M.regions, { uni: flags, consts: cf }, masks && table ? { masks, table } : {});
    if (masks) M.params.masked = 1;
    kept = true;
  } catch (e) {
    // the flags only save time: an upload near the memory budget goes on without them
    if (!(e instanceof MemoryLimitError)) throw e;
  } finally {
    bits?.dispose();
    if (!kept) for (const r of [flags, masks, cf, table]) r?.dispose();
  }
}

/** The uniform groups a CPU DIA copy's upload flagged (a compact f64 copy's or an f32 one's), else null. */
export function uniformGroupsOf(M: CpuMatrix): UniformGroups | null {
  const { uni, consts } = M.regions;
  if (M.format !== 'dia' || !uni || !consts) return null;
  const ndiag = (M.host as DIAMatrix).offsets.length;
  return { flags: uni.view('u8', (M.rows >> 2) + 2), consts: consts.view('f64', ndiag) };
}
