# PyAMG's smoothed_aggregation_solver (its defaults, max_coarse 500 as ours) on poisson3D(n) (7-point),
# one thread: setup times; with "solve", a CG solve to 1e-8 after each; with "profile", the phases of a
# further setup (cProfile, cumulative).   python3 pyamg_setup.py [n] [setups] [solve] [profile]
import sys, time, numpy as np, pyamg
from pyamg.gallery import poisson
n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
A = poisson((n, n, n), format='csr').astype(np.float64)
print(f"poisson3D({n}) rows {A.shape[0]} nnz {A.nnz}", flush=True)
for rep in range(reps):
    t = time.perf_counter(); ml = pyamg.smoothed_aggregation_solver(A, max_coarse=500); ts = time.perf_counter() - t
    line = f"setup {ts*1e3:.0f} ms  levels {[l.A.shape[0] for l in ml.levels]}  OC {ml.operator_complexity():.2f}"
    if 'solve' in sys.argv[3:]:
        res = []; t = time.perf_counter(); ml.solve(np.ones(A.shape[0]), tol=1e-8, accel='cg', residuals=res)
        line += f"  solve {(time.perf_counter() - t)*1e3:.0f} ms  its {len(res)-1}"
    print(line, flush=True)
if 'profile' in sys.argv[3:]:
    import cProfile, pstats, io
    pr = cProfile.Profile(); pr.enable(); pyamg.smoothed_aggregation_solver(A, max_coarse=500); pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats('cumulative').print_stats(30); print(s.getvalue())
