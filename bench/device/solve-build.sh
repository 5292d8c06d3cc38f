#!/bin/bash
# Builds, HERE, what bench/device/solve-run.sh needs on the device machine into one folder C (default
# .carry-solve, ignored through .git/info/exclude): Node, Dawn (the `webgpu` package's index.js +
# dawn.node), the Vulkan loader deb, the run script and the CuPy peer, and two bundles of
# bench/device/solve-cg.ts: one of this working tree and one of `main` (BASE=<commit>), so the call
# measures before and after together. C may be a folder of the checkout the device tool sends (a
# helper's worktree is not sent): C=/path/to/that/checkout/.carry-solve. BASE_DIR (default
# /tmp/solve-base): where BASE is built — one of its own per helper where several build at once.
set -eu
C=${C:-.carry-solve}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/solve-run.sh bench/device/solve_cg_cupy.py "$C/"

npm run build:embedded --silent
carry_bundle . solve-cg "$C/solve-cg.mjs"
# the baseline: the same script over BASE's library
base=${BASE:-main}
carry_base_bundle "$base" "${BASE_DIR:-/tmp/solve-base}" solve-cg "$C/solve-cg-base.mjs"
git rev-parse "$base" > "$C/base-commit"
du -sh "$C"
