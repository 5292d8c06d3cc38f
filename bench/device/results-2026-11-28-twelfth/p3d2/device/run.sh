#!/bin/bash
# device run (nvidia-h100-x1's host): bench-path-probe.mjs over main (base) and p3d2 (new), pinned to 2 cores
# (taskset -c 2,3: the 2-core machine's shape, quiet), alternated, 6 calls a process; logs to $OUT as it goes.
C=.carry-p3d2
mkdir -p /tmp/n && xz -dc $C/node.xz > /tmp/n/node && chmod +x /tmp/n/node
N=/tmp/n/node
nproc > $OUT/host.txt; lscpu | grep -i "model name" >> $OUT/host.txt; uptime >> $OUT/host.txt
b=(base new)
for i in $(seq 0 ${ROUNDS:-7}); do for j in 0 1; do d=${b[$(((i + j) % 2))]}
  echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $(timeout 40 taskset -c 2,3 $N --expose-gc $C/bench-path-probe.mjs $PWD/$C/$d 6)" >> $OUT/pinned2.log
done; done
uptime >> $OUT/host.txt
