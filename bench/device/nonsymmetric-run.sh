#!/bin/bash
# On the device machine: bench/device/nonsymmetric.ts's bundle over Dawn and the 16-core pool. Built here by
#   C=.carry-ns; . bench/device/carry-base.sh; npm run build:embedded --silent; carry_bundle . nonsymmetric $C/nonsymmetric.mjs; cp bench/device/nonsymmetric-run.sh $C/
# then run(command="bash .carry-ns/nonsymmetric-run.sh", carry=[".carry-ns"]). Writes $OUT/nonsymmetric.tsv.
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$C"/carry-unpack.sh
cp "$C"/nonsymmetric.mjs .
nvidia-smi --query-gpu=name,driver_version --format=csv
timeout 540 node --max-old-space-size=16000 ./nonsymmetric.mjs --workers 16 --runs "${RUNS:-3}" | tee "$OUT/nonsymmetric.tsv"
