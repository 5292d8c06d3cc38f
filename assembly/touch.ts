// memory_touch: over pages [start, end) of 4 KiB (page p is bytes [p·4096, p·4096 + 4096)), an atomic add
// of 0 to the byte at max(from, p·4096) where that lies inside [from, to): a write that changes no
// byte, so the pages of a region nothing has written yet are faulted in on the pool, each by one write
// fault (a read would map the zero page, then fault again), rather than one by one by the thread that
// first copies into them (src/cpu/backend.ts prefault). Threads builds only (the pool's).

export function memory_touch(from: usize, to: usize, start: i32, end: i32): void {
  if (ASC_FEATURE_THREADS) {
    for (let p = start; p < end; p++) {
      const a = max(from, <usize>p << 12);
      if (a < to) atomic.add<u8>(a, 0);
    }
  }
}
