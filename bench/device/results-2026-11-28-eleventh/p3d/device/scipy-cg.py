# SciPy's cg + Jacobi on poisson3D(64), b = 1, to a relative residual 1e-8 (the bench's best SciPy method for this cell), 5 runs
import time, numpy as np, scipy, scipy.sparse as sp, scipy.sparse.linalg as sla
n = 64
T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
I = sp.identity(n)
A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()
b = np.ones(A.shape[0])
for k in range(5):
    t0 = time.perf_counter()
    d = A.diagonal(); M = sla.LinearOperator(A.shape, matvec=lambda x: x / d)
    it = [0]
    x, info = sla.cg(A, b, rtol=1e-8, M=M, callback=lambda xk: it.__setitem__(0, it[0] + 1))
    ms = (time.perf_counter() - t0) * 1e3
    print(f"scipy {scipy.__version__} cg+jacobi {ms:.1f} ms, {it[0]} it, relres {np.linalg.norm(b - A @ x) / np.linalg.norm(b):.1e}")
