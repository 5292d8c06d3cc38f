#!/bin/bash
# amgh200 device call (issue 21, fourteenth session): CuPy's cg first (the same-call baseline), main's
# amg-webgpu.mjs (setup + first solve, as the thirteenth session's figures), amg-floor.mjs (the setup's
# floor pieces on the pool, rt.amg with and without the Gauss–Seidel sweeps), then PyAMG's setup of the
# same matrix on one core of this host where pyamg imports. Logs to $OUT as they come. Carry C built by
# `C=/work/main/.carry-amgh200 bash bench/device/amg-build.sh` plus this script and pyamg_setup.py.
C=${C:-.carry-amgh200}
set -u
. "$C"/carry-unpack.sh
(nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; uptime; lscpu | grep -E 'Model name|Socket|NUMA node|Thread|MHz|L3') > $OUT/host.log 2>&1
PYTHONUNBUFFERED=1 timeout 60 python3 "$C"/solve_cg_cupy.py --n 128 --runs 5 > "$OUT/cupy.tsv" 2>&1
cp "$C"/amg-webgpu.mjs "$C"/amg-floor.mjs .
timeout 60 node --max-old-space-size=16000 ./amg-webgpu.mjs --n 128 --cupy "$OUT/cupy.tsv" > "$OUT/amg-webgpu.tsv" 2>&1
timeout 100 node --max-old-space-size=16000 ./amg-floor.mjs --n 128 --rounds 2 > "$OUT/floor.tsv" 2>&1
uptime >> $OUT/host.log
python3 -c 'import pyamg' 2>/dev/null && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 timeout 45 python3 "$C"/pyamg_setup.py 128 2 > "$OUT/pyamg.log" 2>&1
python3 -c 'import pyamg, scipy; print(pyamg.__version__, scipy.__version__)' >> "$OUT/pyamg.log" 2>&1
