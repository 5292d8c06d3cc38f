"""SciPy's CG on a Matrix Market file, the peer of rt.cg with the defaults (bench/cg-defaults.ts).

    python3 scipy_cg.py FILE.mtx TOL REPS  ->  one JSON line {"ms": median, "iterations": n, "relres": r, "scipy": version}

b = ones, x0 = 0, stop at ||b - A x|| <= TOL ||b|| (SciPy's rtol; `tol` before SciPy 1.12), CSR f64.
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse.linalg as sla

path, tol, reps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
A = scipy.io.mmread(path).tocsr().astype(np.float64)
b = np.ones(A.shape[0])
major, minor = (int(p) for p in scipy.__version__.split('.')[:2])
kw = {'rtol': tol} if (major, minor) >= (1, 12) else {'tol': tol}
times, its = [], 0
for _ in range(reps):
    count = [0]

    def cb(_xk):
        count[0] += 1

    t0 = time.perf_counter()
    x, info = sla.cg(A, b, maxiter=10 * A.shape[0], callback=cb, **kw)
    times.append((time.perf_counter() - t0) * 1e3)
    its = count[0]
relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
print(json.dumps({'ms': sorted(times)[len(times) // 2], 'iterations': its, 'relres': relres, 'info': int(info), 'scipy': scipy.__version__}))
