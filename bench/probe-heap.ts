/**
 * The kernel probes' heap: arrays copied into a wasm memory one after another from `start`, each at a
 * 64-byte aligned address (whole cache lines, as the library's heap aligns them).
 */
export function heapCopier(memory: WebAssembly.Memory, start = 1 << 20): (a: ArrayBufferView) => number {
  let top = start;
  return (a) => {
    const p = top;
    new Uint8Array(memory.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    top = (top + a.byteLength + 63) & ~63;
    return p;
  };
}
