# temporary phase marks for one device call (never committed)
import sys
M = "(globalThis as { __gpufixMark?: (s: string) => void }).__gpufixMark?.("
def ins(path, anchor, before=None, after=None, nth=1):
    s = open(path).read()
    idx = -1
    for _ in range(nth):
        idx = s.index(anchor, idx + 1)
    line_start = s.rfind('\n', 0, idx) + 1
    line_end = s.index('\n', idx)
    indent = s[line_start:len(s[:line_start]) + (len(s[line_start:]) - len(s[line_start:].lstrip(' ')))]
    if before: s = s[:line_start] + indent + before + '\n' + s[line_start:]
    else: s = s[:line_end + 1] + indent + after + '\n' + s[line_end + 1:]
    open(path, 'w').write(s)
r = 'src/runtime/runtime.ts'; t = 'src/solvers/true-residual.ts'; c = 'src/webgpu/cg.ts'
ins(r, "checkNumber(where, 'tol', o.tol, FINITE_NON_NEGATIVE);", before=M + "'start');")
ins(r, "const [b64, x0Data] = await Promise.all", after=M + "'b64');")
ins(r, "const info = this.pathSolveInfo(p, h);", after=M + "'pathinfo');")
ins(r, "await krylovSolvers.load();", before=M + "'precondops');")
ins(r, "return { ...r, method: cand.method", before=M + "'end');")
ins(t, "const R = refinesOnPath(o) ? await", after=M + "'refinement(b up, nrm2)');")
ins(t, "next = await R.correct(res.x);", before=M + "'inner solve');", nth=1)
ins(t, "next = await R.correct(res.x);", after=M + "'correct');", nth=1)
ins(t, "[x, xnorm] = await Promise.all([R.read(), R.xnorm?.()]);", after=M + "'read x, xnorm');", nth=1)
ins(t, "return trueResult(x, iterations, rnorm, scale, target, recurrence, reason, history, Math.max(0, refinements));", before=M + "'certify');", nth=2)
ins(c, "const f = await pending;", after=M + "'block');")
ins(c, "const rho = pair(await B.dot(r, out, { conj: true }))[0];", after=M + "'poly0 + rho');")
ins(c, "const bnorm = await B.nrm2(b);", after=M + "'resident nrm2(b)');")
b = 'bench/device/solve-cg.ts'
s = open(b).read()
anchor = "      if (goal) goals.push(`RATIO\\t${label} rt.solve (defaults, later, ${rl.method}"
i = s.index(anchor)
i = s.index('\n', i) + 1
s = s[:i] + """      // gpufix probe: where a repeated solve's time goes (phase marks, ms since the call)
      for (const pre of ['auto', 'chebyshev-handle'] as const) {
        const M = pre === 'auto' ? undefined : rt.preconditioner(h, { kind: 'chebyshev' });
        for (let i = 0; i < 3; i++) {
          const marks: [string, number][] = [];
          (globalThis as { __gpufixMark?: (s: string) => void }).__gpufixMark = (s) => marks.push([s, performance.now()]);
          const bg0 = (be.stats as { bindGroups?: number }).bindGroups ?? NaN;
          const t8 = performance.now();
          const rr = await solve(h, bd, M ? { path: 'webgpu', method: 'cg', preconditioner: M } : { path: 'webgpu' });
          const total = performance.now() - t8;
          delete (globalThis as { __gpufixMark?: unknown }).__gpufixMark;
          let prev = t8;
          const cells = marks.map(([s, t]) => { const d = `${s} ${(t - prev).toFixed(2)}`; prev = t; return d; });
          console.log(`TRACE\\t${label}\\t${pre} ${i}\\ttotal ${total.toFixed(1)} ms\\t${rr.iterations} it\\t${cells.join('\\t')}\\tafter end ${(performance.now() - prev).toFixed(2)}\\t${rr.preconditionerDetail ?? ''}`);
        }
        M?.dispose();
      }
""" + s[i:]
open(b, 'w').write(s)
