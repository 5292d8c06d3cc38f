/**
 * Fresh WebAssembly memory faulted in on the pool before a copy into it (CpuBackend.prefault,
 * assembly/touch.ts): the kernel's writes change no byte (inside or outside its range), the heap marks
 * what nothing has written yet, and prefault leaves every byte as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';

let cpu: CpuBackend;
beforeAll(async () => {
  cpu = await CpuBackend.create({ threads: 2 });
});
afterAll(() => cpu.dispose());

const pattern = (u: Uint8Array) => u.forEach((_, i) => (u[i] = (i * 37 + 11) & 255));

describe('prefault of fresh memory on the pool', () => {
  it('memory_touch changes no byte, over ranges inside, across and at the ends of pages', () => {
    const r = cpu.heap.alloc(6 * 4096 + 64);
    try {
      for (const [lo, hi] of [[100, 5 * 4096 + 7], [0, 4096], [4095, 4097], [9000, 9001], [3, 3]]) {
        const bytes = new Uint8Array(cpu.heap.memory.buffer, r.ptr, 6 * 4096 + 64);
        pattern(bytes);
        const want = bytes.slice();
        const [from, to] = [r.ptr + lo, r.ptr + hi];
        cpu.kernel('memory_touch')(from, to, Math.floor(from / 4096), Math.ceil(to / 4096));
        expect(bytes.every((x, i) => x === want[i]), `[${lo}, ${hi})`).toBe(true);
      }
    } finally {
      r.dispose();
    }
  });

  it('the heap marks the unwritten part of a region on fresh memory; prefault clears the mark and keeps every byte, its neighbour\'s too', async () => {
    // a backend of its own: nothing has written its memory above its control block
    const fresh = await CpuBackend.create({ threads: 2 });
    try {
      const below = fresh.heap.alloc(4096 + 24);
      expect(below.unwritten).toBe(below.bytes);
      new Uint8Array(fresh.heap.memory.buffer, below.ptr, below.bytes).fill(0xab);
      const big = fresh.heap.alloc(8 << 20);
      expect(big.unwritten).toBe(big.bytes);
      // a caller that wrote first: prefault must not undo it
      new Uint8Array(fresh.heap.memory.buffer, big.ptr + 4096 * 3 - 5, 9).fill(7);
      fresh.prefault(big);
      expect(big.unwritten).toBe(0);
      const u = new Uint8Array(fresh.heap.memory.buffer);
      expect(u.subarray(below.ptr, below.ptr + below.bytes).every((x) => x === 0xab)).toBe(true);
      const tail = u.subarray(big.ptr, big.ptr + big.bytes);
      expect(tail.every((x, i) => x === (i >= 4096 * 3 - 5 && i < 4096 * 3 + 4 ? 7 : 0))).toBe(true);
      // memory handed out before: nothing unwritten
      big.dispose();
      const again = fresh.heap.alloc(4 << 20);
      expect(again.unwritten).toBe(0);
    } finally {
      fresh.dispose();
    }
  });
});
