import time, numpy as np, scipy, scipy.io, scipy.sparse.linalg as sla
for name in ['west0479', 'olm1000']:
    A = scipy.io.mmread(f'/work/wt/small/data/matrices/{name}.mtx').tocsr()
    b = np.ones(A.shape[0])
    def med(f, k=300):
        ts = []
        for _ in range(k):
            t0 = time.perf_counter(); f(); ts.append((time.perf_counter() - t0) * 1e3)
        return sorted(ts)[k // 2]
    out = [name, 'spsolve %.3f' % med(lambda: sla.spsolve(A.tocsc(), b)), 'tocsc %.3f' % med(lambda: A.tocsc())]
    for p in ['COLAMD', 'MMD_AT_PLUS_A', 'NATURAL']:
        lu = sla.splu(A.tocsc(), permc_spec=p)
        out.append('splu %s %.3f fill %d' % (p, med(lambda: sla.splu(A.tocsc(), permc_spec=p)), lu.L.nnz + lu.U.nnz))
    print(' | '.join(out))
