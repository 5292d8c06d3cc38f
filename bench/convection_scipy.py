# SciPy on bench/convection-probe.mjs system: gmres(restart 30) and bicgstab with a Jacobi M to rtol 1e-8, median of 3
# OPENBLAS_NUM_THREADS=1 python3 bench/convection_scipy.py
import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spl, time
m=64
I=sp.identity(m); e=np.ones(m)
T=sp.diags([-e[:-1],2*e,-e[:-1]],[-1,0,1])
A=(sp.kron(sp.kron(T,I),I)+sp.kron(sp.kron(I,T),I)+sp.kron(sp.kron(I,I),T)).tocsr()
# convection: diag +0.5, (i,i-1) -0.5 where present (poisson3D ordering: x fastest → i-1 neighbor)
n=A.shape[0]
C=sp.diags([0.5*np.ones(n)],[0]) - sp.diags([0.5*np.array([0 if (i%m)==0 else 1 for i in range(1,n)])],[-1])
A=(A+C).tocsr()
b=np.ones(n)
d=A.diagonal(); M=sp.diags(1/d)
for name,f in [('gmres',lambda: spl.gmres(A,b,rtol=1e-8,restart=30,maxiter=1000,M=M)),('bicgstab',lambda: spl.bicgstab(A,b,rtol=1e-8,M=M))]:
  ts=[]
  for k in range(3):
    t=time.perf_counter(); x,info=f(); ts.append(time.perf_counter()-t)
  print(name,'%.1f ms'%(1e3*sorted(ts)[1]),info,np.linalg.norm(b-A@x)/np.linalg.norm(b))
