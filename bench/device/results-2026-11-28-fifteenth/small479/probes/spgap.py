# SciPy's spsolve (A.tocsc() included, as bench/peers/scipy_solve.py) on west0479: back to back, and GAP ms
# asleep before each call; medians of process CPU (time.process_time) and wall, µs
import sys, time
import numpy as np, scipy.io, scipy.sparse.linalg as sla
A = scipy.io.mmread('/work/wt/small479/data/matrices/west0479.mtx').tocsr().astype(np.float64)
b = np.ones(A.shape[0])
for gap in [0.0, 0.02]:
    cpu, wall = [], []
    for k in range(-200, 150 if gap else 1500):
        if gap and k >= 0: time.sleep(gap)
        c0 = time.process_time(); t0 = time.perf_counter()
        x = sla.spsolve(A.tocsc(), b)
        c1 = time.process_time(); t1 = time.perf_counter()
        if k >= 0: cpu.append(c1 - c0); wall.append(t1 - t0)
    print(f'spsolve GAP {gap*1e3:.0f}: CPU {1e6*np.median(cpu):.0f} µs, wall {1e6*np.median(wall):.0f} µs, residual {np.linalg.norm(b - A @ x) / np.linalg.norm(b):.1e}')
