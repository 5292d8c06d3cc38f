"""SciPy's sparse direct solve on a Matrix Market file, the peer of rt.factor (bench/direct.ts).

    python3 scipy_spsolve.py FILE.mtx MIN_REPS  ->  one JSON line
    {"ms": median spsolve, "cpuMs": its median process CPU time, "factorMs": median splu, "solveMs": median splu(...).solve,
     "relres": r, "scipy": version}

spsolve(A, b) with A in CSC f64 (complex128 for complex files), b = A @ ones (SuperLU, COLAMD, the
defaults); splu and its solve timed apart as the kept-factor peer. Each is repeated at least MIN_REPS times and
until half a second has passed (at most 50 times). Run with OPENBLAS_NUM_THREADS=1.
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse.linalg as sla

path, reps = sys.argv[1], int(sys.argv[2])
A = scipy.io.mmread(path).tocsc()
A = A.astype(np.complex128 if np.iscomplexobj(A.data) else np.float64)
b = A @ np.ones(A.shape[0], dtype=A.dtype)


def median(ts):
    return sorted(ts)[len(ts) // 2]


def timed(fn, cpu=None):
    ts, out = [], None
    start = time.perf_counter()
    while len(ts) < reps or (time.perf_counter() - start < 0.5 and len(ts) < 50):
        c0 = time.process_time()
        t0 = time.perf_counter()
        out = fn()
        ts.append((time.perf_counter() - t0) * 1e3)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1e3)
    return median(ts), out


try:
    cpu = []
    ms, x = timed(lambda: sla.spsolve(A, b), cpu)
    relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
    factor_ms, lu = timed(lambda: sla.splu(A))
    solve_ms, _ = timed(lambda: lu.solve(b))
    print(json.dumps({'ms': ms, 'cpuMs': median(cpu), 'factorMs': factor_ms, 'solveMs': solve_ms, 'relres': relres, 'fill': int(lu.L.nnz + lu.U.nnz), 'scipy': scipy.__version__}))
except Exception as e:  # a singular matrix: SuperLU says so
    print(json.dumps({'error': str(e), 'scipy': scipy.__version__}))
