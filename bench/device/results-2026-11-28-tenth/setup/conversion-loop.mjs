// fromCSR's stencil loop (a: as src/formats/dia.ts; d2: without the exact-f32 test; e3: diagonal-major; c: the allocation alone) on a poisson3D(64)-shaped CSR, 9 calls each, ms
const m = 64, n = m * m * m, offs = [-m * m, -m, -1, 0, 1, m, m * m];
const rowPtr = new Int32Array(n + 1), col = [], val = [];
for (let i = 0; i < n; i++) { for (const o of offs) { const j = i + o; const x = i % m, y = ((i / m) | 0) % m; if (j < 0 || j >= n) continue; if (o === 1 && x === m - 1) continue; if (o === -1 && x === 0) continue; if (o === m && y === m - 1) continue; if (o === -m && y === 0) continue; col.push(j); val.push(o ? -1 : 6); } rowPtr[i + 1] = col.length; }
const colIdx = Int32Array.from(col), values = Float64Array.from(val), nd = 7, pitch = n + 16;
const slotOf = new Int32Array(2 * n - 1); offs.forEach((o, d) => (slotOf[o + n - 1] = d));
function a(rows) { // as main
  const data = new Float64Array(nd * pitch); let exact = true;
  for (let i = 0, base = rows - 1; i < rows; i++) { const k0 = rowPtr[i], e = rowPtr[i + 1];
    if (e - k0 === nd) { for (let d = 0, at = i; d < nd; d++, at += pitch) { const v = values[k0 + d]; data[at] = v; if (Math.fround(v) !== v) exact = false; } continue; }
    for (let k = k0; k < e; k++) { const v = values[k]; data[slotOf[colIdx[k] - i + base] * pitch + i] = v; if (Math.fround(v) !== v) exact = false; } }
  return [data, exact];
}
function b(rows) { // exactness checked apart on values (sequential), copy without fround
  const data = new Float64Array(nd * pitch);
  for (let i = 0, base = rows - 1; i < rows; i++) { const k0 = rowPtr[i], e = rowPtr[i + 1];
    if (e - k0 === nd) { for (let d = 0, at = i; d < nd; d++, at += pitch) data[at] = values[k0 + d]; continue; }
    for (let k = k0; k < e; k++) data[slotOf[colIdx[k] - i + base] * pitch + i] = values[k]; }
  let exact = true; for (let k = 0; k < values.length; k++) if (Math.fround(values[k]) !== values[k]) { exact = false; break; }
  return [data, exact];
}
function d2(rows) { // no fround
  const data = new Float64Array(nd * pitch);
  for (let i = 0, base = rows - 1; i < rows; i++) { const k0 = rowPtr[i], e = rowPtr[i + 1];
    if (e - k0 === nd) { for (let d = 0, at = i; d < nd; d++, at += pitch) data[at] = values[k0 + d]; continue; }
    for (let k = k0; k < e; k++) data[slotOf[colIdx[k] - i + base] * pitch + i] = values[k]; }
  return [data, true];
}
function e3(rows) { // diagonal-major over full rows, then the rest
  const data = new Float64Array(nd * pitch); let exact = true;
  for (let d = 0; d < nd; d++) { const at = d * pitch;
    for (let i = 0; i < rows; i++) { const k0 = rowPtr[i]; if (rowPtr[i + 1] - k0 === nd) { const v = values[k0 + d]; data[at + i] = v; if (Math.fround(v) !== v) exact = false; } } }
  for (let i = 0, base = rows - 1; i < rows; i++) { const k0 = rowPtr[i], e = rowPtr[i + 1]; if (e - k0 === nd) continue;
    for (let k = k0; k < e; k++) { const v = values[k]; data[slotOf[colIdx[k] - i + base] * pitch + i] = v; if (Math.fround(v) !== v) exact = false; } }
  return [data, exact];
}
function c(rows) { // only the allocation
  return [new Float64Array(nd * pitch), true];
}
const T = { a: [], d2: [], e3: [], c: [] };
for (let r = 0; r < 9; r++) for (const [k, f] of Object.entries({ a, d2, e3, c })) { const t = performance.now(); f(n); T[k].push(performance.now() - t); }
for (const [k, v] of Object.entries(T)) console.log(k, v.sort((x, y) => x - y)[4].toFixed(2), v.map((x) => x.toFixed(1)).join(' '));
