#!/bin/bash
# On the device machine: bench/device/factor-threads.ts's bundle on the 16-core host, pools of 1 to 16 threads. Built here by
#   C=.carry-ft; . bench/device/carry-base.sh; npm run build:embedded --silent; carry_bundle . factor-threads $C/factor-threads.mjs; cp bench/device/factor-threads-run.sh $C/
# then run(command="bash .carry-ft/factor-threads-run.sh", carry=[".carry-ft"]). Writes $OUT/factor-threads.tsv.
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$C"/carry-unpack.sh
cp "$C"/factor-threads.mjs .
nvidia-smi --query-gpu=name,driver_version --format=csv
timeout 540 node --max-old-space-size=16000 ./factor-threads.mjs --runs "${RUNS:-3}" | tee "$OUT/factor-threads.tsv"
