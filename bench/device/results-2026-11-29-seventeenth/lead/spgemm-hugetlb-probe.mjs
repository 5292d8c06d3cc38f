import { createRuntime, poisson3D } from '../../../../dist/index.js';
// SpGEMM A·A on poisson3D(64), 15 products after one untimed: median wall, process CPU and minor page faults
// a product (after `npm run build`; run with and without GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
const rt = await createRuntime({ backend: 'cpu' });
const A = poisson3D(64);
rt.spgemm(A, A);
const ts = [], fs = [], cs = [];
for (let k = 0; k < 15; k++) {
  const f = process.resourceUsage().minorPageFault, c = process.cpuUsage(), t = performance.now();
  rt.spgemm(A, A);
  ts.push(performance.now() - t); fs.push(process.resourceUsage().minorPageFault - f);
  const u = process.cpuUsage(c); cs.push((u.user + u.system) / 1000);
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(`${process.env.GLIBC_TUNABLES || 'default'}: wall ${med(ts).toFixed(1)} ms cpu ${med(cs).toFixed(1)} faults ${med(fs)}  walls ${ts.map(x=>x.toFixed(0)).join(' ')}`);
rt.dispose();
