const n = 51e6/8|0;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
const f = () => process.resourceUsage().minorPageFault;
for (let r = 0; r < 6; r++) {
  let [c0, f0, t0] = [cpu(), f(), performance.now()];
  const a = new Float64Array(n);
  for (let i = 0; i < n; i += 512) a[i] = 1;
  let [c1, f1, t1] = [cpu(), f(), performance.now()];
  const b = new Float64Array(n); b.set(a);
  let [c2, f2, t2] = [cpu(), f(), performance.now()];
  b.set(a);
  let [c3, f3, t3] = [cpu(), f(), performance.now()];
  console.log(`touch: ${(t1-t0).toFixed(1)}ms cpu ${(c1-c0).toFixed(1)} faults ${f1-f0} us/fault ${((c1-c0)*1000/(f1-f0)).toFixed(2)} | fresh copy ${(t2-t1).toFixed(1)} cpu ${(c2-c1).toFixed(1)} faults ${f2-f1} | warm copy ${(t3-t2).toFixed(1)}`);
}
