// Transpose schemes measured against each other for assembly/dense.ts (README, "Transpose"): B = Aᵀ,
// rows [r0, r1) of B, A rows × cols. Not part of the library; run by bench/transpose/run.mjs.
// T = columns of A (rows of B) per tile, U = rows of A per tile.
// @ts-ignore: decorator
@inline function blk4(s: usize, ldaB: usize, d: usize, ldbB: usize): void {
  const r0 = v128.load(s), r1 = v128.load(s + ldaB), r2 = v128.load(s + 2 * ldaB), r3 = v128.load(s + 3 * ldaB);
  const t0 = f32x4.shuffle(r0, r1, 0, 4, 1, 5), t1 = f32x4.shuffle(r0, r1, 2, 6, 3, 7);
  const t2 = f32x4.shuffle(r2, r3, 0, 4, 1, 5), t3 = f32x4.shuffle(r2, r3, 2, 6, 3, 7);
  v128.store(d, f32x4.shuffle(t0, t2, 0, 1, 4, 5));
  v128.store(d + ldbB, f32x4.shuffle(t0, t2, 2, 3, 6, 7));
  v128.store(d + 2 * ldbB, f32x4.shuffle(t1, t3, 0, 1, 4, 5));
  v128.store(d + 3 * ldbB, f32x4.shuffle(t1, t3, 2, 3, 6, 7));
}

// direct: tiles T (rows of B) x U (rows of A), 4x4 blocks; j outer within tile
export function t_direct(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += U) {
      const ie = min(it + U, rows);
      for (let j = jt; j < je; j += 4) {
        for (let i = it; i < ie; i += 4) blk4(a + <usize>i * ldaB + (<usize>j << 2), ldaB, b + <usize>j * ldbB + (<usize>i << 2), ldbB);
      }
    }
  }
}
// scratch: copy A tile (U rows of A x T cols) to contiguous scratch (ld T), transpose from scratch
export function t_scratch(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32, sc: usize): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2, ldsB = <usize>T << 2;
  for (let jt = r0; jt < r1; jt += T) {
    for (let it = 0; it < rows; it += U) {
      // copy
      for (let i = 0; i < U; i++) {
        const s = a + <usize>(it + i) * ldaB + (<usize>jt << 2), d = sc + <usize>i * ldsB;
        for (let o: usize = 0; o < ldsB; o += 64) {
          v128.store(d + o, v128.load(s + o));
          v128.store(d + o, v128.load(s + o, 16), 16);
          v128.store(d + o, v128.load(s + o, 32), 32);
          v128.store(d + o, v128.load(s + o, 48), 48);
        }
      }
      for (let j = 0; j < T; j += 4) {
        for (let i = 0; i < U; i += 4) blk4(sc + <usize>i * ldsB + (<usize>j << 2), ldsB, b + <usize>(jt + j) * ldbB + (<usize>(it + i) << 2), ldbB);
      }
    }
  }
}
// scratch on the write side: transpose A tile into scratch (T rows x U), then copy scratch rows out to B
export function t_wscratch(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32, sc: usize): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2, ldsB = <usize>U << 2;
  for (let jt = r0; jt < r1; jt += T) {
    for (let it = 0; it < rows; it += U) {
      for (let i = 0; i < U; i += 4) {
        for (let j = 0; j < T; j += 4) blk4(a + <usize>(it + i) * ldaB + (<usize>(jt + j) << 2), ldaB, sc + <usize>j * ldsB + (<usize>i << 2), ldsB);
      }
      for (let j = 0; j < T; j++) {
        const s = sc + <usize>j * ldsB, d = b + <usize>(jt + j) * ldbB + (<usize>it << 2);
        for (let o: usize = 0; o < ldsB; o += 64) {
          v128.store(d + o, v128.load(s + o));
          v128.store(d + o, v128.load(s + o, 16), 16);
          v128.store(d + o, v128.load(s + o, 32), 32);
          v128.store(d + o, v128.load(s + o, 48), 48);
        }
      }
    }
  }
}
// full lines: 16 A rows x 4 cols -> 4 B rows x 64B, over tile T x U
export function t_lines(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += U) {
      const ie = min(it + U, rows);
      for (let i = it; i < ie; i += 16) {
        for (let j = jt; j < je; j += 4) {
          const s = a + <usize>i * ldaB + (<usize>j << 2);
          const d = b + <usize>j * ldbB + (<usize>i << 2);
          blk4(s, ldaB, d, ldbB);
          blk4(s + 4 * ldaB, ldaB, d + 16, ldbB);
          blk4(s + 8 * ldaB, ldaB, d + 32, ldbB);
          blk4(s + 12 * ldaB, ldaB, d + 48, ldbB);
        }
      }
    }
  }
}
// cache-oblivious recursion to leaf LxL (direct 4x4 in leaf)
function rec(a: usize, b: usize, ldaB: usize, ldbB: usize, i0: i32, i1: i32, j0: i32, j1: i32, L: i32): void {
  const di = i1 - i0, dj = j1 - j0;
  if (di <= L && dj <= L) {
    for (let j = j0; j < j1; j += 4) for (let i = i0; i < i1; i += 4) blk4(a + <usize>i * ldaB + (<usize>j << 2), ldaB, b + <usize>j * ldbB + (<usize>i << 2), ldbB);
    return;
  }
  if (di >= dj) { const im = i0 + ((di >> 1) & ~3); rec(a, b, ldaB, ldbB, i0, im, j0, j1, L); rec(a, b, ldaB, ldbB, im, i1, j0, j1, L); }
  else { const jm = j0 + ((dj >> 1) & ~3); rec(a, b, ldaB, ldbB, i0, i1, j0, jm, L); rec(a, b, ldaB, ldbB, i0, i1, jm, j1, L); }
}
export function t_rec(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, L: i32): void {
  rec(a, b, <usize>cols << 2, <usize>rows << 2, 0, rows, r0, r1, L);
}
export function t_copy(a: usize, b: usize, n: i32): void { memory.copy(b, a, <usize>n << 2); }
export function t_vcopy(a: usize, b: usize, n: i32): void {
  const e = <usize>n << 2;
  for (let o: usize = 0; o < e; o += 64) {
    v128.store(b + o, v128.load(a + o)); v128.store(b + o, v128.load(a + o, 16), 16);
    v128.store(b + o, v128.load(a + o, 32), 32); v128.store(b + o, v128.load(a + o, 48), 48);
  }
}
// lines through a scratch: 16 A rows x T cols copied to scratch (ld T), then 16x4 -> 4 x 64B lines
export function t_lscratch(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32, sc: usize): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2, ldsB = <usize>T << 2;
  for (let jt = r0; jt < r1; jt += T) {
    for (let i = 0; i < rows; i += 16) {
      for (let r = 0; r < 16; r++) {
        const s = a + <usize>(i + r) * ldaB + (<usize>jt << 2), d = sc + <usize>r * ldsB;
        for (let o: usize = 0; o < ldsB; o += 64) {
          v128.store(d + o, v128.load(s + o));
          v128.store(d + o, v128.load(s + o, 16), 16);
          v128.store(d + o, v128.load(s + o, 32), 32);
          v128.store(d + o, v128.load(s + o, 48), 48);
        }
      }
      for (let j = 0; j < T; j += 4) {
        const s = sc + (<usize>j << 2);
        const d = b + <usize>(jt + j) * ldbB + (<usize>i << 2);
        blk4(s, ldsB, d, ldbB);
        blk4(s + 4 * ldsB, ldsB, d + 16, ldbB);
        blk4(s + 8 * ldsB, ldsB, d + 32, ldbB);
        blk4(s + 12 * ldsB, ldsB, d + 48, ldbB);
      }
    }
  }
}
// half lines: 8 A rows x 4 cols -> 4 B rows x 32B
export function t_half(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += U) {
      const ie = min(it + U, rows);
      for (let i = it; i < ie; i += 8) {
        for (let j = jt; j < je; j += 4) {
          const s = a + <usize>i * ldaB + (<usize>j << 2);
          const d = b + <usize>j * ldbB + (<usize>i << 2);
          blk4(s, ldaB, d, ldbB);
          blk4(s + 4 * ldaB, ldaB, d + 16, ldbB);
        }
      }
    }
  }
}
// 32 rows: 2 full lines per B row
export function t_lines2(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 2, ldbB = <usize>rows << 2;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let i = 0; i < rows; i += 32) {
      for (let j = jt; j < je; j += 4) {
        const s = a + <usize>i * ldaB + (<usize>j << 2);
        const d = b + <usize>j * ldbB + (<usize>i << 2);
        for (let q = 0; q < 8; q++) blk4(s + <usize>(4 * q) * ldaB, ldaB, d + <usize>(16 * q), ldbB);
      }
    }
  }
}
// ---- 8-byte
export function t8_direct(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32): void {
  const ldaB = <usize>cols << 3, ldbB = <usize>rows << 3;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += T) {
      const ie = min(it + T, rows);
      for (let j = jt; j < je; j += 2) for (let i = it; i < ie; i += 2) {
        const s = a + <usize>i * ldaB + (<usize>j << 3);
        const r0 = v128.load(s), r1 = v128.load(s + ldaB);
        const d = b + <usize>j * ldbB + (<usize>i << 3);
        v128.store(d, i64x2.shuffle(r0, r1, 0, 2));
        v128.store(d + ldbB, i64x2.shuffle(r0, r1, 1, 3));
      }
    }
  }
}
// @ts-ignore: decorator
@inline function blk2(s: usize, ldaB: usize, d: usize, ldbB: usize): void {
  const r0 = v128.load(s), r1 = v128.load(s + ldaB);
  v128.store(d, i64x2.shuffle(r0, r1, 0, 2));
  v128.store(d + ldbB, i64x2.shuffle(r0, r1, 1, 3));
}
// 8 A rows x 2 cols -> 2 B rows x 64B
export function t8_lines(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 3, ldbB = <usize>rows << 3;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += U) {
      const ie = min(it + U, rows);
      for (let i = it; i < ie; i += 8) {
        for (let j = jt; j < je; j += 2) {
          const s = a + <usize>i * ldaB + (<usize>j << 3);
          const d = b + <usize>j * ldbB + (<usize>i << 3);
          blk2(s, ldaB, d, ldbB);
          blk2(s + 2 * ldaB, ldaB, d + 16, ldbB);
          blk2(s + 4 * ldaB, ldaB, d + 32, ldbB);
          blk2(s + 6 * ldaB, ldaB, d + 48, ldbB);
        }
      }
    }
  }
}
// ---- 16-byte
export function t16_direct(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32): void {
  const ldaB = <usize>cols << 4, ldbB = <usize>rows << 4;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += T) {
      const ie = min(it + T, rows);
      for (let j = jt; j < je; j++) for (let i = it; i < ie; i++) v128.store(b + <usize>j * ldbB + (<usize>i << 4), v128.load(a + <usize>i * ldaB + (<usize>j << 4)));
    }
  }
}
// 4 A rows x 2 cols -> 2 B rows x 64B
export function t16_lines(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, T: i32, U: i32): void {
  const ldaB = <usize>cols << 4, ldbB = <usize>rows << 4;
  for (let jt = r0; jt < r1; jt += T) {
    const je = min(jt + T, r1);
    for (let it = 0; it < rows; it += U) {
      const ie = min(it + U, rows);
      for (let i = it; i < ie; i += 4) {
        for (let j = jt; j < je; j += 2) {
          const s = a + <usize>i * ldaB + (<usize>j << 4);
          const d = b + <usize>j * ldbB + (<usize>i << 4);
          const x0 = v128.load(s), y0 = v128.load(s, 16);
          const x1 = v128.load(s + ldaB), y1 = v128.load(s + ldaB, 16);
          const x2 = v128.load(s + 2 * ldaB), y2 = v128.load(s + 2 * ldaB, 16);
          const x3 = v128.load(s + 3 * ldaB), y3 = v128.load(s + 3 * ldaB, 16);
          v128.store(d, x0); v128.store(d, x1, 16); v128.store(d, x2, 32); v128.store(d, x3, 48);
          v128.store(d + ldbB, y0); v128.store(d + ldbB, y1, 16); v128.store(d + ldbB, y2, 32); v128.store(d + ldbB, y3, 48);
        }
      }
    }
  }
}
