#!/bin/bash
# On the device machine: bench/device/large-factor.ts's bundle over Dawn and the 16-core pool. Built here by
#   C=.carry-lf; . bench/device/carry-base.sh; npm run build:embedded --silent; carry_bundle . large-factor $C/large-factor.mjs; cp bench/device/large-factor-run.sh $C/
# then run(command="bash .carry-lf/large-factor-run.sh", carry=[".carry-lf"]). Writes $OUT/large-factor.tsv.
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$C"/carry-unpack.sh
cp "$C"/large-factor.mjs .
nvidia-smi --query-gpu=name,driver_version --format=csv
timeout 540 node --max-old-space-size=16000 ./large-factor.mjs --workers 16 --runs "${RUNS:-3}" | tee "$OUT/large-factor.tsv"
