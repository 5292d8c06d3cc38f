#!/bin/bash
# On the device machine: a probe's bundle (bench/device/NAME.ts) run with its arguments, stdout into $OUT/NAME.tsv.
# Built here, for NAME large-factor (say) and the carry folder C=.carry-lf:
#   C=.carry-lf; . bench/device/carry-base.sh; npm run build:embedded --silent; carry_bundle . large-factor $C/large-factor.mjs; cp bench/device/probe-run.sh $C/
# then run(command="bash .carry-lf/probe-run.sh large-factor --workers 16 --runs 3", carry=[".carry-lf"]).
set -u
C=$(dirname "$0")
NAME=$1
shift
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$C"/carry-unpack.sh
cp "$C/$NAME.mjs" .
nvidia-smi --query-gpu=name,driver_version --format=csv
timeout 540 node --max-old-space-size=16000 "./$NAME.mjs" "$@" | tee "$OUT/$NAME.tsv"
