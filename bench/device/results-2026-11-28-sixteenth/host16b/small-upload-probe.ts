// Probe (helper host16b): validateCanonical against validateCanonicalScanning (its SCAN_MIN_ENTRIES lifted: 0) on the small shared matrices, 2000 fresh copies each; run from the repository root after bundling with esbuild.
import { CSRMatrix, validateCanonical } from '../../../../src/formats/csr.js';
import { validateCanonicalScanning } from '../../../../src/formats/diagonal-scan.js';
import { loadShared } from '../../../../test/matrices.js';
for (const name of ['west0479', 'olm1000', 'bcsstk01', '494_bus', 't1', 'young1c', 'qc324']) {
  const A = loadShared(name);
  const copy = () => new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr.slice(), A.colIdx.slice(), A.values.slice());
  const N = 2000;
  const cs = Array.from({ length: N }, copy);
  const cs2 = Array.from({ length: N }, copy);
  for (let r = 0; r < 3; r++) {
    let s = performance.now();
    for (const c of cs) validateCanonical(c);
    const a = (performance.now() - s) / N;
    s = performance.now();
    for (const c of cs2) validateCanonicalScanning(c, 0);
    const b = (performance.now() - s) / N;
    if (r === 2) console.log(`${name} (${A.rows} rows, ${A.nnz} nnz, ${A.dtype}): validate ${(a * 1e3).toFixed(1)} µs, fused ${(b * 1e3).toFixed(1)} µs`);
  }
}
