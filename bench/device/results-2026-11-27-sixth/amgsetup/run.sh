#!/bin/bash
# one device call: rt.amg setup A/B on poisson3D(128) and (64), the new build (main 7e29ae6) against the base (519bf61), alternated
cd "$(dirname "$0")"
xz -dkf node.xz && chmod +x node
L=$OUT/amgsetup.log
{ date -u; nproc; uptime; ./node --version
for r in 1 2; do for b in new base; do timeout 60 ./node $b.mjs 128 3 16 $b; done; done
for r in 1 2; do for b in new base; do timeout 30 ./node $b.mjs 64 3 16 $b; done; done
for b in new base; do timeout 50 ./node $b.mjs 128 2 2 $b; done
uptime; date -u; } 2>&1 | tee $L
