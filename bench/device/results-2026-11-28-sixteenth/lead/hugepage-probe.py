# SciPy's product arrays and page faults: NumPy madvises large arrays MADV_HUGEPAGE (THP mode here:
# "always [madvise] never"), so a fresh 51 MB array faults ~750 times instead of ~12,500.
# Run: python3 bench/device/results-2026-11-28-sixteenth/lead/hugepage-probe.py
import numpy as np, resource, time
from numpy._core import multiarray
def faults(): return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for hp in (True, False):
    multiarray._set_madvise_hugepage(hp)
    f = faults(); t = time.perf_counter()
    for _ in range(5):
        a = np.empty(6_400_000, dtype=np.float64); a[:] = 1.0; del a
    print('madvise hugepage', hp, 'faults per array', (faults() - f) / 5, 'ms', round((time.perf_counter() - t) / 5 * 1000, 1))
