// rt.solve's structure check of a real canonical CSR (src/solvers/structure.ts, realStructure: the plain
// JavaScript it is tested against), over rows [rowStart, rowEnd) on the pool.
//
// The JavaScript pass meets each entry (i, j) above the diagonal with its mirror (j, i) through a
// cursor per row j that only moves forward, which one thread must own; here each such entry finds its
// mirror by a binary search in row j, so rows run in any order. An entry left of the diagonal that no
// entry above meets must be zero: each nonzero one is counted, and so is each nonzero mirror found,
// and A is symmetric when every pair passes and the two counts agree (a mirror is met once at most:
// columns ascend strictly). Each row's sums run in column order, as the JavaScript's: the same
// results, whatever the chunks.
//
// structure_real: `slot` (the pool offsets it by 16 bytes a chunk) holds the address of the chunk's
// record: i32 flags (1 a pair not mirrored, 2 a value not finite, 4 a positive off-diagonal or a row
// not Laplacian-like, 8 a row not diagonally dominant, 16 a diagonal entry not > 0), i32 rows whose
// diagonal is 0, i32 the longest row, i32 nonzeros left of the diagonal minus nonzero mirrors found,
// f64 Σ row length². square 0: no mirror test (A is not symmetric). seen ≠ 0: a byte per diagonal
// j − i + rows − 1 set to 1 where an entry lies (the format choice's scan).

// @ts-ignore: decorator
@inline function mirrored(a: f64, m: f64): bool {
  return Math.abs(a - m) <= 1e-12 * Math.max(Math.abs(a), Math.abs(m));
}

export function structure_real(ap: usize, ai: usize, av: usize, rows: i32, square: i32, seen: usize, slot: usize, rowStart: i32, rowEnd: i32): void {
  let flags = 0;
  let zeroDiagonals = 0;
  let maxRow = 0;
  let unmatched = 0;
  let sumSq: f64 = 0;
  const base = rows - 1;
  for (let i = rowStart; i < rowEnd; i++) {
    const k0 = load<i32>(ap + (<usize>i << 2));
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    const len = k1 - k0;
    if (len > maxRow) maxRow = len;
    sumSq += <f64>len * <f64>len;
    let d: f64 = 0;
    let off: f64 = 0;
    let offAbs: f64 = 0;
    for (let k = k0; k < k1; k++) {
      const j = load<i32>(ai + (<usize>k << 2));
      const a = load<f64>(av + (<usize>k << 3));
      // read first: the threads mark the same few bytes of a stencil, and a store each entry kept their
      // cache line moving between the cores (poisson3D(128) on the H100 host's 17 threads: 963 ms of the calling thread's chunk)
      if (seen && load<u8>(seen + <usize>(j - i + base)) == 0) store<u8>(seen + <usize>(j - i + base), 1);
      // NaN and ±Infinity: a − a is NaN
      if (a - a != 0) flags |= 2;
      if (j == i) {
        d += a;
        continue;
      }
      if (a > 0) flags |= 4;
      off -= a;
      offAbs += Math.abs(a);
      if (!square) continue;
      if (j < i) {
        if (a != 0) unmatched++;
        continue;
      }
      // the mirror (j, i): a binary search in row j
      let lo = load<i32>(ap + (<usize>j << 2));
      let hi = load<i32>(ap + (<usize>j << 2), 4);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (load<i32>(ai + (<usize>mid << 2)) < i) lo = mid + 1;
        else hi = mid;
      }
      let m: f64 = 0;
      if (lo < load<i32>(ap + (<usize>j << 2), 4) && load<i32>(ai + (<usize>lo << 2)) == i) {
        m = load<f64>(av + (<usize>lo << 3));
        if (m != 0) unmatched--;
      }
      if (!mirrored(a, m)) flags |= 1;
    }
    if (d == 0) zeroDiagonals++;
    if (off > d * (1 + 1e-12)) flags |= 4;
    if (Math.abs(d) < offAbs * (1 - 1e-12)) flags |= 8;
    if (!(d > 0)) flags |= 16;
  }
  const r = <usize>load<i32>(slot);
  store<i32>(r, flags);
  store<i32>(r, zeroDiagonals, 4);
  store<i32>(r, maxRow, 8);
  store<i32>(r, unmatched, 12);
  store<f64>(r, sumSq, 16);
}

// structure_marks: the diagonals marked in seen[0, len): how many, and the first `most` of them (by
// position, ascending) at `found`.
export function structure_marks(seen: usize, len: i32, found: usize, most: i32): i32 {
  let count = 0;
  let p = 0;
  // eight marks a load where all are 0 (most of a large matrix's)
  for (; p + 8 <= len; p += 8) {
    if (load<u64>(seen + <usize>p) == 0) continue;
    for (let q = p; q < p + 8; q++) {
      if (load<u8>(seen + <usize>q) == 0) continue;
      if (count < most) store<i32>(found + (<usize>count << 2), q);
      count++;
    }
  }
  for (; p < len; p++) {
    if (load<u8>(seen + <usize>p) == 0) continue;
    if (count < most) store<i32>(found + (<usize>count << 2), p);
    count++;
  }
  return count;
}
