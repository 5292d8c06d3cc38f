import time, numpy as np, scipy.io, scipy.sparse.linalg as sla
T = np.zeros(8388608)
for name in ['west0479', 'olm1000']:
    A = scipy.io.mmread(f'/work/wt/small/data/matrices/{name}.mtx').tocsr()
    b = np.ones(A.shape[0])
    for sweep in [False, True, False, True]:
        ts = []
        for _ in range(300):
            if sweep: T[::8] += 1.0
            t0 = time.perf_counter(); sla.spsolve(A.tocsc(), b); ts.append((time.perf_counter() - t0) * 1e3)
        print(name, 'sweep' if sweep else 'warm ', '%.3f' % sorted(ts)[150])
