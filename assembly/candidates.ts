// The AMG setup's improvement of the near-null space (PyAMG's improve_candidates): symmetric
// Gauss–Seidel on A·x = 0 (src/cpu/spgemm.ts gaussSeidelOnZero), in the blocks of rows of the
// aggregation (bb: block b is rows [bb[b], bb[b + 1]); a chunk runs blocks [rowStart, rowEnd)). Each
// half-sweep (rows ascending, or descending) runs every block's rows in order with its own rows'
// latest values and the other blocks' values from xo, a copy of x taken before the half-sweep
// (amg_copy_blocks): Gauss–Seidel within a block, Jacobi between blocks, so the blocks run at once and
// the result does not depend on the threads; with one block it is plain symmetric Gauss–Seidel.
// x[i] = −(Σⱼ≠ᵢ aᵢⱼ·x[j])·(1/aᵢᵢ), the sum in column order; a row whose diagonal is not positive is
// left alone. A is canonical (each row's columns ascending, no duplicates: the setup's operands are).

export function amg_copy_blocks(x: usize, xo: usize, bb: usize, rowStart: i32, rowEnd: i32): void {
  const lo = load<i32>(bb + (<usize>rowStart << 2));
  const hi = load<i32>(bb + (<usize>rowEnd << 2));
  memory.copy(xo + (<usize>lo << 3), x + (<usize>lo << 3), <usize>(hi - lo) << 3);
}

export function gauss_seidel_zero_blocks(ptr: usize, idx: usize, val: usize, x: usize, xo: usize, bb: usize, forward: i32, rowStart: i32, rowEnd: i32): void {
  for (let b = rowStart; b < rowEnd; b++) {
    const lo = load<i32>(bb + (<usize>b << 2));
    const hi = load<i32>(bb + (<usize>b << 2), 4);
    for (let r = lo; r < hi; r++) {
      const i = forward ? r : lo + hi - 1 - r;
      const k1 = load<i32>(ptr + (<usize>i << 2), 4);
      let k = load<i32>(ptr + (<usize>i << 2));
      let sum: f64 = 0;
      let d: f64 = 0;
      // a canonical row's columns ascend: those before the block (read from xo), the block's own
      // before the diagonal (x), the diagonal, the block's own after it (x), those after the block
      // (xo) — the same subtractions in the same order as one loop testing each column, without its
      // two tests an entry (the setup's Gauss–Seidel on poisson3D(128) was the pool's slowest pass
      // per entry)
      for (; k < k1; k++) {
        const j = load<i32>(idx + (<usize>k << 2));
        if (j >= lo) break;
        sum -= load<f64>(val + (<usize>k << 3)) * load<f64>(xo + (<usize>j << 3));
      }
      for (; k < k1; k++) {
        const j = load<i32>(idx + (<usize>k << 2));
        if (j >= i) break;
        sum -= load<f64>(val + (<usize>k << 3)) * load<f64>(x + (<usize>j << 3));
      }
      if (k < k1 && load<i32>(idx + (<usize>k << 2)) == i) {
        d = load<f64>(val + (<usize>k << 3));
        k++;
      }
      for (; k < k1; k++) {
        const j = load<i32>(idx + (<usize>k << 2));
        if (j >= hi) break;
        sum -= load<f64>(val + (<usize>k << 3)) * load<f64>(x + (<usize>j << 3));
      }
      for (; k < k1; k++) sum -= load<f64>(val + (<usize>k << 3)) * load<f64>(xo + (<usize>load<i32>(idx + (<usize>k << 2)) << 3));
      if (d > 0) store<f64>(x + (<usize>i << 3), sum * (1 / d));
    }
  }
}
