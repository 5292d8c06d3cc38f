"""SciPy's best time to a solution, the peer of rt.solve with the defaults (bench/solve.ts).

    python3 scipy_solve.py [--kept] SOURCE TOL REPS [MIN_REPS BUDGET_MS [METHOD,...]]  ->  one JSON line
      {"n", "nnz", "scipy", "methods": {name: {"ms": median, "relres": r, "ok": bool, "runs": [ms, ...]} | {"skipped": why}}}

--kept (bench/repeat.ts, the peer of rt.solve's set-up kept with A): each method's set-up -- the LU
factor (splu: spsolve's SuperLU, kept), D^-1, spilu's factors, PyAMG's hierarchy
(smoothed_aggregation_solver with its defaults, solved with accel='cg'; real symmetric sources only) -- made
once and timed apart ("setupMs"), then REPS solves with it ("ms": their median), as a time-stepping
loop that keeps its factor or preconditioner runs.

SOURCE is a Matrix Market file or poisson2D:N / poisson3D:N (the 5- and 7-point Laplacians of
src/generators/poisson.ts, built here with Kronecker sums). b = 1, x0 = 0, f64 (c128 for complex).
Each method is timed with its setup (the factorization or incomplete factorization), as rt.solve is:
spsolve (SuperLU), cg + Jacobi, cg + spilu, gmres + spilu (SciPy's defaults: restart 20, spilu's
drop_tol 1e-4, fill_factor 10). A method counts only when ||b - A x|| / ||b|| <= TOL; an iteration
past BUDGET_S is stopped; runs over 5 s are not repeated, and a method stops repeating once it has
MIN_REPS (7) runs that sum past BUDGET_MS (2000). The methods are taken in turn within each repeat (medians per method), as
bench/solve.ts takes its variants.
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

kept = '--kept' in sys.argv
if kept:
    sys.argv.remove('--kept')
source, tol, reps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
# a method whose runs sum past budget_ms stops repeating once it has min_reps of them: the small cells'
# cheap methods (spsolve's sub-millisecond calls) take all of bench/solve.ts's up to 31 repeats, the
# slow ones (cg + spilu on west0479, 0.3 s a run) the 7 they always had (shared out when bench/solve.ts
# runs its small cells in blocks, alternating with its own)
min_reps = int(sys.argv[4]) if len(sys.argv) > 4 else 7
budget_ms = float(sys.argv[5]) if len(sys.argv) > 5 else 2000.0
# only these methods (comma-separated; all without)
only = sys.argv[6].split(',') if len(sys.argv) > 6 else None


def laplacian(dims):
    def t(m):
        return sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    A = None
    for k, m in enumerate(dims):
        term = sp.identity(1)
        for j, mj in enumerate(dims):
            term = sp.kron(t(mj) if j == k else sp.identity(mj), term)
        A = term if A is None else A + term
    return A.tocsr()


if source.startswith('poisson2D:'):
    A = laplacian([int(source.split(':')[1])] * 2)
elif source.startswith('poisson3D:'):
    A = laplacian([int(source.split(':')[1])] * 3)
else:
    A = scipy.io.mmread(source).tocsr()
A = A.astype(np.complex128 if np.iscomplexobj(A.data) else np.float64)
n = A.shape[0]
b = np.ones(n, dtype=A.dtype)
major, minor = (int(p) for p in scipy.__version__.split('.')[:2])
rtol = {'rtol': tol} if (major, minor) >= (1, 12) else {'tol': tol}
maxiter = 10 * n
# a run past this many seconds is stopped (CG with the nonsymmetric spilu may never converge)
BUDGET_S = 60.0


class OverBudget(Exception):
    pass


def budget():
    start = time.perf_counter()

    def cb(_x):
        if time.perf_counter() - start > BUDGET_S:
            raise OverBudget(f'stopped after {BUDGET_S:.0f} s')
    return cb


# each method as (set-up, solve with it): timed together, or (--kept) the set-up once and the solves apart
def jacobi_setup():
    d = A.diagonal()
    if np.any(d == 0):
        raise ValueError('zero diagonal')
    return sla.LinearOperator(A.shape, lambda r: r / d, dtype=A.dtype)


def ilu_setup():
    P = sla.spilu(A.tocsc())
    return sla.LinearOperator(A.shape, P.solve, dtype=A.dtype)


def krylov(method):
    return lambda M: method(A, b, M=M, maxiter=maxiter, callback=budget(), **rtol)[0]


def pyamg_setup():
    import pyamg
    if np.iscomplexobj(A.data) or (abs(A - A.T) > 0).nnz:
        raise ValueError('PyAMG: not real symmetric')
    return pyamg.smoothed_aggregation_solver(A)


stages = {
    'spsolve': (lambda: sla.splu(A.tocsc()), lambda lu: lu.solve(b)) if kept else (lambda: A.tocsc(), lambda C: sla.spsolve(C, b)),
    'cg+jacobi': (jacobi_setup, krylov(sla.cg)),
    'cg+spilu': (ilu_setup, krylov(sla.cg)),
    'gmres+spilu': (ilu_setup, krylov(sla.gmres)),
}
if kept:
    stages['pyamg'] = (pyamg_setup, lambda ml: ml.solve(b, tol=tol, accel='cg', maxiter=maxiter))
setups, setup_ms = {}, {}


def method(setup, solve, name):
    def run():
        if not kept:
            return solve(setup())
        if name not in setups:
            t0 = time.perf_counter()
            setups[name] = setup()
            setup_ms[name] = (time.perf_counter() - t0) * 1e3
        return solve(setups[name])
    return run


methods = {name: method(setup, solve, name) for name, (setup, solve) in stages.items()}
if only is not None:
    methods = {name: run for name, run in methods.items() if name in only}
out = {}
# SuperLU's fill on a large 3-D grid (or 1 M unknowns) takes minutes and gigabytes: not a contender
if n > 300_000 or (source.startswith('poisson3D') and n > 40_000):
    out['spsolve'] = {'skipped': 'SuperLU fill too large at this size'}
times = {name: [] for name in methods}
last = {}
# the methods taken in turn within every repeat, each repeat starting one method later, as bench/solve.ts
# times ours: run back to back, spsolve on west0479 read 0.57-0.59 ms where one call after the other
# methods reads 0.88-0.92 (caches and allocator warm for the same call), and ours, taken in turn, 0.89-0.92
names = list(methods)
for k in range(reps):
    for name in names[k % len(names):] + names[:k % len(names)]:
        if name in out:  # skipped, failed, or one run past 5 s
            continue
        if len(times[name]) >= min_reps and sum(times[name]) > budget_ms:
            continue
        try:
            t0 = time.perf_counter()
            last[name] = methods[name]()
            ms = (time.perf_counter() - t0) * 1e3
            # (--kept: the first run made the set-up, timed apart)
            if kept and not times[name]:
                ms -= setup_ms.get(name, 0)
            times[name].append(ms)
        except OverBudget as e:
            # not a solution within the budget: its time is at least that
            out[name] = {'skipped': str(e), 'atLeastMs': BUDGET_S * 1e3}
        except Exception as e:  # a singular factor, a zero diagonal
            out[name] = {'skipped': str(e).split('\n')[0][:80]}
        else:
            if times[name][-1] > 5_000:
                out[name] = None
for name in names:
    if out.get(name) is not None:
        continue
    x = last[name]
    relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
    ts = sorted(times[name])
    # JSON has no NaN: a singular system's NaN residual goes as null
    out[name] = {'ms': ts[len(ts) // 2], 'relres': relres if np.isfinite(relres) else None, 'ok': bool(relres <= tol), 'runs': times[name]}
    if kept:
        out[name]['setupMs'] = setup_ms[name]
print(json.dumps({'n': n, 'nnz': int(A.nnz), 'scipy': scipy.__version__, 'methods': out}))
