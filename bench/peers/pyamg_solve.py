"""PyAMG's smoothed aggregation, the peer of simdgl's 'amg' preconditioner (bench/amg.ts).

    python3 pyamg_solve.py DIR MODE TOL REPS [MAXCOARSE [THETA]]  ->  one JSON line

DIR holds the matrix as raw little-endian arrays written by bench/amg.ts: shape.json ({"rows", "nnz"}),
rowptr.i32, colidx.i32, values.f64. b = ones, x0 = 0, accel='cg', stop at ||r|| <= TOL ||b||.

MODE 'defaults': smoothed_aggregation_solver(A) with every PyAMG default (symmetric Gauss-Seidel
smoothing, max_coarse 10, pinv) -- the time-to-solution peer.
MODE 'same': the settings of simdgl's 'amg' with smoother 'jacobi': symmetric strength THETA (0.02),
standard aggregation, the constant improved by 4 symmetric Gauss-Seidel sweeps, Jacobi-smoothed
prolongation (omega 4/3 over rho), one sweep of damped Jacobi (omega 4/3 over rho(D^-1 A)) before
and after, max_coarse MAXCOARSE with a dense pseudo-inverse -- the iteration-count peer.
MODE 'spgemm': A @ A (or A @ A.T when the shape says "transpose": true), median ms of REPS, and
(Unix) the median minor page faults per product: NumPy maps large arrays on huge pages.
Every figure also as process CPU time (cpuMs, median): on a shared machine the wall time mostly
measures the scheduler.
Prints 'pip install pyamg' and exits 3 when PyAMG is missing.
"""
import json
import os
import sys
import time

try:
    import resource  # Unix: the minor page faults of the spgemm mode
except ImportError:
    resource = None

import numpy as np
import scipy
import scipy.sparse as sp

d, mode, tol, reps = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
max_coarse = int(sys.argv[5]) if len(sys.argv) > 5 else 500
theta = float(sys.argv[6]) if len(sys.argv) > 6 else 0.02
shape = json.load(open(os.path.join(d, 'shape.json')))
n, nnz = shape['rows'], shape['nnz']
ptr = np.fromfile(os.path.join(d, 'rowptr.i32'), dtype='<i4', count=n + 1)
idx = np.fromfile(os.path.join(d, 'colidx.i32'), dtype='<i4', count=nnz)
val = np.fromfile(os.path.join(d, 'values.f64'), dtype='<f8', count=nnz)
A = sp.csr_matrix((val, idx, ptr), shape=(n, shape.get('cols', n)))

if mode == 'spgemm':
    B = A.T.tocsr() if shape.get('transpose') else A
    times, cpus, faults = [], [], []
    for _ in range(reps):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0
        c0 = time.process_time()
        t0 = time.perf_counter()
        C = A @ B
        times.append((time.perf_counter() - t0) * 1e3)
        cpus.append((time.process_time() - c0) * 1e3)
        if resource:
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(json.dumps({'ms': med(times), 'cpuMs': med(cpus), 'faults': med(faults) if faults else None, 'nnz': int(C.nnz), 'scipy': scipy.__version__}))
    sys.exit(0)

try:
    import pyamg
except ImportError:
    print('PyAMG is missing: pip install pyamg', file=sys.stderr)
    sys.exit(3)

if mode == 'defaults':
    kw = {}
else:
    jac = ('jacobi', {'omega': 4.0 / 3.0, 'withrho': True, 'iterations': 1})
    kw = {
        'strength': ('symmetric', {'theta': theta}),
        'aggregate': 'standard',
        'smooth': ('jacobi', {'omega': 4.0 / 3.0}),
        'improve_candidates': [('block_gauss_seidel', {'sweep': 'symmetric', 'iterations': 4}), None],
        'presmoother': jac,
        'postsmoother': jac,
        'max_coarse': max_coarse,
        'coarse_solver': 'pinv',
    }
b = np.ones(n)
setups, solves, cpus, its, relres, ml = [], [], [], 0, 0.0, None
for _ in range(reps):
    c0 = time.process_time()
    t0 = time.perf_counter()
    ml = pyamg.smoothed_aggregation_solver(A, **kw)
    t1 = time.perf_counter()
    res = []
    x = ml.solve(b, tol=tol, accel='cg', maxiter=1000, residuals=res)
    t2 = time.perf_counter()
    cpus.append((time.process_time() - c0) * 1e3)
    setups.append((t1 - t0) * 1e3)
    solves.append((t2 - t1) * 1e3)
    its = len(res) - 1
    relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
med = lambda v: sorted(v)[len(v) // 2]
print(json.dumps({
    'setupMs': med(setups), 'solveMs': med(solves), 'cpuMs': med(cpus), 'iterations': its, 'relres': relres,
    'levels': [int(l.A.shape[0]) for l in ml.levels], 'operatorComplexity': float(ml.operator_complexity()),
    'pyamg': pyamg.__version__,
}))
