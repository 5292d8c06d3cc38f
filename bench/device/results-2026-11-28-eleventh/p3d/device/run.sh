#!/bin/bash
# device run (nvidia-h100-x1's 16-core host): phase-probe.mjs over three builds (7e8662d, main before p3d, p3d),
# pinned to 2 cores (taskset -c 2,3: the 2-core machine's shape, quiet) and with the default workers on 16 cores,
# alternated, rotated each round; then SciPy's cg + Jacobi on poisson3D(64) pinned to one core.
C=.carry-p3d
mkdir -p /tmp/n && xz -dc $C/node.xz > /tmp/n/node && chmod +x /tmp/n/node
N=/tmp/n/node
nproc > $OUT/host.txt; lscpu | grep -i "model name" >> $OUT/host.txt; uptime >> $OUT/host.txt
b=(base main new)
for i in 0 1 2 3 4 5 6 7; do for j in 0 1 2; do d=${b[$(((i + j) % 3))]}
  echo "$(cut -d' ' -f1-3 /proc/loadavg) $(timeout 60 taskset -c 2,3 $N --expose-gc $C/phase-probe.mjs $PWD/$C/$d 4)" >> $OUT/pinned2.log
done; done
for i in 0 1 2 3; do for j in 0 1 2; do d=${b[$(((i + j) % 3))]}
  echo "$(cut -d' ' -f1-3 /proc/loadavg) $(timeout 60 $N --expose-gc $C/phase-probe.mjs $PWD/$C/$d 4)" >> $OUT/cores16.log
done; done
OPENBLAS_NUM_THREADS=1 timeout 60 taskset -c 4 python3 $C/scipy-cg.py > $OUT/scipy.log 2>&1
uptime >> $OUT/host.txt
