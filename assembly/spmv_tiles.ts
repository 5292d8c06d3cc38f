// CSR in cache tiles (the CPU path's layout for matrices whose x is far larger than a core's cache and
// whose columns scatter, see src/cpu/tiles.ts): rows in bands of R, each band's entries cut by columns
// into tiles of W, so a tile reads only W consecutive elements of x (held in L2) and adds into the band's
// R accumulators work[r], which it sweeps in row order — where a CSR sweep fetches almost every x element
// from memory or L3 at random. A tile's entries are packed (row − band start) << CB | (column − tile
// start), CB the bits of W − 1 (src/cpu/tiles.ts colBits), sorted by row, then column; the tiles of a
// band by column. So every row adds its entries in ascending column order, one at a time from +0: the
// bits depend neither on R, W nor on the bands a call covers. Bands [bandStart, bandEnd) per call;
// y = α·work + β·y at the end of each band (β == 0: y not read).
//
// Before a tile's entries, its slice of x is read once in address order, one load per cache line: the
// entries then gather from L1/L2, where they would otherwise miss on each line in random order — when x
// is not in L3 (a busy shared L3, or an x far larger than it) every such miss waits on memory, while the
// ordered reads stream at the hardware prefetcher's pace. Measured on the power-law matrix (1 M rows) on
// a 2-vCPU EPYC, one thread, in 65536 × 16384 tiles, `node build/tiles-probe.js f64`
// (bench/kernels-tiles-probe.ts): 25–38 ms against 54–106 ms without. Skipped for tiles with fewer
// entries than half their lines of x, and where touchX is 0: a matrix whose first products measured that
// the reads do not pay (x in L3 and many threads streaming it; src/cpu/tiles.ts nextTouchX), and the
// probe's comparison.
import { axpby_f32, axpby_f64 } from './complex';

// The sum of the touched values, kept so that the compilers cannot drop the loads.
let xTouch: f64 = 0;

// @ts-ignore: decorator
@inline function tilesReal<T>(
  bandPtr: usize, tilePtr: usize, tileCol: usize, rc: usize, val: usize, x: usize, y: usize, work: usize,
  R: i32, W: i32, rows: i32, cols: i32, touchX: i32, alpha: f64, beta: f64, bandStart: i32, bandEnd: i32,
): void {
  const SH = alignof<T>();
  const xEnd = x + (<usize>cols << SH);
  // a packed pair: the row within the band above CB bits, the column within the tile in them
  const CB = <u32>(32 - clz<i32>(W - 1));
  const CM = (<u32>1 << CB) - 1;
  for (let b = bandStart; b < bandEnd; b++) {
    const r0 = b * R;
    const r1 = min(r0 + R, rows);
    const wb = work + (<usize>r0 << SH);
    memory.fill(wb, 0, <usize>(r1 - r0) << SH);
    const t1 = load<i32>(bandPtr + (<usize>b << 2), 4);
    for (let t = load<i32>(bandPtr + (<usize>b << 2)); t < t1; t++) {
      const xb = x + (<usize>load<i32>(tileCol + (<usize>t << 2)) << SH);
      const e1 = load<i32>(tilePtr + (<usize>t << 2), 4);
      let e = load<i32>(tilePtr + (<usize>t << 2));
      const xe = min(xb + (<usize>W << SH), xEnd);
      if (touchX && <usize>(e1 - e) << 7 >= xe - xb) {
        let touch: T = <T>0;
        for (let q = xb; q < xe; q += 64) touch += load<T>(q);
        xTouch += <f64>touch;
      }
      // two entries per step: independent unless they share a row (then the second reads the first's
      // store, in order)
      for (; e + 2 <= e1; e += 2) {
        const q0 = load<u32>(rc + (<usize>e << 2)), q1 = load<u32>(rc + (<usize>e << 2), 4);
        const w0 = wb + (<usize>(q0 >>> CB) << SH);
        store<T>(w0, load<T>(w0) + load<T>(val + (<usize>e << SH)) * load<T>(xb + (<usize>(q0 & CM) << SH)));
        const w1 = wb + (<usize>(q1 >>> CB) << SH);
        store<T>(w1, load<T>(w1) + load<T>(val + (<usize>e << SH), sizeof<T>()) * load<T>(xb + (<usize>(q1 & CM) << SH)));
      }
      if (e < e1) {
        const q = load<u32>(rc + (<usize>e << 2));
        const w = wb + (<usize>(q >>> CB) << SH);
        store<T>(w, load<T>(w) + load<T>(val + (<usize>e << SH)) * load<T>(xb + (<usize>(q & CM) << SH)));
      }
    }
    for (let r = r0; r < r1; r++) {
      const o = <usize>(r - r0) << SH;
      if (sizeof<T>() == 4) axpby_f32(y + (<usize>r << 2), load<f32>(wb + o), <f32>alpha, <f32>beta);
      else axpby_f64(y + (<usize>r << 3), load<f64>(wb + o), alpha, beta);
    }
  }
}

export function tiles_f32(
  bandPtr: usize, tilePtr: usize, tileCol: usize, rc: usize, val: usize, x: usize, y: usize, work: usize,
  R: i32, W: i32, rows: i32, cols: i32, touchX: i32, alpha: f64, beta: f64, bandStart: i32, bandEnd: i32,
): void {
  tilesReal<f32>(bandPtr, tilePtr, tileCol, rc, val, x, y, work, R, W, rows, cols, touchX, alpha, beta, bandStart, bandEnd);
}

export function tiles_f64(
  bandPtr: usize, tilePtr: usize, tileCol: usize, rc: usize, val: usize, x: usize, y: usize, work: usize,
  R: i32, W: i32, rows: i32, cols: i32, touchX: i32, alpha: f64, beta: f64, bandStart: i32, bandEnd: i32,
): void {
  tilesReal<f64>(bandPtr, tilePtr, tileCol, rc, val, x, y, work, R, W, rows, cols, touchX, alpha, beta, bandStart, bandEnd);
}
