// rt.upload + dispose alone, and three plain typed-array copies of A's arrays, warm and GAP ms after a sleep: median CPU µs
import { readFileSync } from 'node:fs';
const { createRuntime, parseMatrixMarket } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/west0479.mtx`)).matrix.toCSR();
const now = () => { const c = process.cpuUsage(); return c.user + c.system; };
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const gap of [0, 20]) {
  const up = [], cp = [], cpu2 = [];
  for (let k = -300; k < (gap ? 150 : 1500); k++) {
    if (gap && k >= 0) await new Promise((r) => setTimeout(r, gap));
    let t = now();
    const x = [A.rowPtr.slice(), A.colIdx.slice(), A.values.slice()];
    const t1 = now();
    const h = rt.upload(A); h.dispose();
    const t2 = now();
    if (k >= 0) { cp.push(t1 - t); up.push(t2 - t1); }
    globalThis.__x = x;
  }
  console.log(`gap ${gap}: slices ${med(cp)} µs, then upload+dispose ${med(up)} µs`);
}
rt.dispose();
