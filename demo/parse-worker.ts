// Parses a dropped Matrix Market file off the main thread: streams it through readMatrixMarket,
// reports progress in bytes, converts to canonical CSR and transfers the arrays back.
import { readMatrixMarket } from '../src/io/index.js';

interface Req { file: File }

self.onmessage = async (e: MessageEvent<Req>) => {
  const { file } = e.data;
  const total = file.size;
  let last = -1;
  const t0 = performance.now();
  try {
    const r = await readMatrixMarket(file.stream(), {
      onProgress: (bytes) => {
        const pct = Math.floor((100 * bytes) / (total || 1));
        if (pct !== last) {
          last = pct;
          postMessage({ type: 'progress', bytes, total });
        }
      },
    });
    const parseMs = performance.now() - t0;
    const A = r.matrix.toCSR();
    const msg = {
      type: 'done', name: file.name, header: r.header, parseMs,
      rows: A.rows, cols: A.cols, dtype: A.dtype, rowPtr: A.rowPtr, colIdx: A.colIdx, values: A.values,
    };
    (self as unknown as Worker).postMessage(msg, [A.rowPtr.buffer, A.colIdx.buffer, A.values.buffer] as Transferable[]);
  } catch (err) {
    postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
