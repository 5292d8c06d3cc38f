"""CuPy's CG (cupyx.scipy.sparse.linalg.cg, cuSPARSE SpMV + cuBLAS) on poisson3D(n), b = 1, tol 1e-8,
f64 and f32: the peer of bench/device/solve-cg.ts on the same GPU in the same device call.

    python3 solve_cg_cupy.py [--n 128] [--runs 5] > cupy.tsv

Wall ms of one cg call from b on the device to x on the device (synchronised), after a warm-up call;
median of --runs (CUPY_CG), and of b from the host to x back on the host, as rt.cg runs (CUPY_CG_HOST). Iterations counted in one extra call with a callback; the true relative residual
||b - A x|| / ||b|| in f64 on the GPU. The matrix is the 7-point Laplacian (6 on the diagonal, -1 to
each neighbour), the one src/generators/poisson.ts builds.
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
import cupy as cp
import cupyx.scipy.sparse as cps
import cupyx.scipy.sparse.linalg as cpl


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def poisson3d(n):
    one = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    eye = sp.identity(n)
    return (sp.kron(sp.kron(one, eye), eye) + sp.kron(sp.kron(eye, one), eye) + sp.kron(sp.kron(eye, eye), one)).tocsr()


def cg(A, b, **kw):
    try:
        return cpl.cg(A, b, tol=1e-8, **kw)
    except TypeError:  # newer CuPy: rtol
        return cpl.cg(A, b, rtol=1e-8, **kw)


def main():
    n = int(arg('--n', '128'))
    runs = int(arg('--runs', '5'))
    print(f'# cupy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, {cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}')
    host = poisson3d(n)
    print('CUPY_CG\tmatrix\tdtype\tms\tmedian\titerations\tN\trelres_true\tR')
    for dt in (np.float64, np.float32):
        A = cps.csr_matrix(host.astype(dt))
        A64 = cps.csr_matrix(host.astype(np.float64))
        b = cp.ones(A.shape[0], dtype=dt)
        cg(A, b)  # warm-up
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            x, info = cg(A, b)
            cp.cuda.Device().synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        count = [0]

        def tick(_x):
            count[0] += 1

        cg(A, b, callback=tick)
        b64 = cp.ones(A.shape[0], dtype=np.float64)
        rel = float(cp.linalg.norm(b64 - A64 @ x.astype(np.float64)) / cp.linalg.norm(b64))
        name = 'f64' if dt == np.float64 else 'f32'
        ms = sorted(times)[len(times) // 2]
        print(f'CUPY_CG\tpoisson3D_{n}\t{name}\tms\t{ms:.2f}\titerations\t{count[0]}\trelres_true\t{rel:.3e}\tinfo {info}', flush=True)
        # host to host, as rt.cg runs (b from the host, x back to the host)
        bh = np.ones(A.shape[0], dtype=dt)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            x, info = cg(A, cp.asarray(bh))
            xh = x.get()
            times.append((time.perf_counter() - t0) * 1e3)
        ms = sorted(times)[len(times) // 2]
        print(f'CUPY_CG_HOST\tpoisson3D_{n}\t{name}\tms\t{ms:.2f}\titerations\t{count[0]}\trelres_true\t{rel:.3e}\tinfo {info}', flush=True)


main()
