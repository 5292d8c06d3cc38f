"""spsolve on the small cells, N calls one by one after a second's warm-up: percentiles and the spread of
medians of 7 (bench/solve.ts's count) over consecutive groups. OPENBLAS_NUM_THREADS=1."""
import os, sys, time
import numpy as np, scipy.io, scipy.sparse.linalg as sla
N = int(os.environ.get('N', '211'))
d = os.environ.get('MATRICES', 'data/matrices/')
for name in os.environ.get('CASES', 'west0479,t1,494_bus').split(','):
    A = scipy.io.mmread(d + name + '.mtx').tocsr().astype(np.float64)
    b = np.ones(A.shape[0])
    end = time.perf_counter() + 1
    while time.perf_counter() < end:
        sla.spsolve(A.tocsc(), b)
    t = []
    for _ in range(N):
        t0 = time.perf_counter(); sla.spsolve(A.tocsc(), b); t.append((time.perf_counter() - t0) * 1e3)
    s = sorted(t)
    p = lambda q: s[min(len(s) - 1, int(q * len(s)))]
    meds = [sorted(t[i:i + 7])[3] for i in range(0, len(t) - 6, 7)]
    print(f'{name} spsolve: p10 {p(.1):.3f} p25 {p(.25):.3f} p50 {p(.5):.3f} p75 {p(.75):.3f} p90 {p(.9):.3f} max {s[-1]:.3f} ms; medians of 7 over {len(meds)} groups {min(meds):.3f}-{max(meds):.3f}', flush=True)
