#!/bin/bash
# Builds, here, the carry folder C (default .carry-first) of bench/device/first-solve-run.sh: Node, Dawn, the
# Vulkan loader (carry-base.sh), bundles of bench/device/first-solve-probe.ts over this tree and over BASE
# (default main; built in BASE_DIR, default /tmp/first-base), and the run script.
set -eu
C=${C:-.carry-first}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/first-solve-run.sh "$C/"
npm run build:embedded --silent
carry_bundle . first-solve-probe "$C/probe.mjs"
base=${BASE:-main}
carry_base_bundle "$base" "${BASE_DIR:-/tmp/first-base}" first-solve-probe "$C/probe-base.mjs"
git rev-parse "$base" > "$C/base-commit"
{ git rev-parse HEAD; git diff --quiet HEAD -- src || echo "(+ uncommitted src changes)"; } | tr '\n' ' ' > "$C/new-commit"
du -sh "$C"
