#!/bin/bash
# On the device machine: bench/device/trisolve-pool.ts over this tree (new.mjs) and a baseline (base.mjs), alternately,
# on the 16-core pool. Built here by
#   C=.carry-tri; . bench/device/carry-base.sh; npm run build:embedded --silent; carry_bundle . trisolve-pool $C/new.mjs
#   carry_base_bundle REV /tmp/tri-base trisolve-pool $C/base.mjs; cp bench/device/trisolve-pool-run.sh $C/
# then run(command="bash .carry-tri/trisolve-pool-run.sh", carry=[".carry-tri"]). Writes $OUT/trisolve.tsv.
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$C"/carry-unpack.sh
nproc
for round in $(seq "${ROUNDS:-2}"); do
  for v in ${VARIANTS:-base new}; do
    timeout 250 node --max-old-space-size=16000 "$C/$v.mjs" --workers "${WORKERS:-16}" --runs "${RUNS:-3}" --label "$v" | tee -a "$OUT/trisolve.tsv"
  done
done
