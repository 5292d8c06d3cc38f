#!/bin/bash
# setup-only timings on the 2-core machine: amg-setup-kernels (three setups a process: wall, process CPU,
# the session's copy of A) bundled from main 5658f1d (base) and from this branch (new), alternated
L=/tmp/amgcopy/probe2core.log
for r in 1 2 3; do
  o="base new"; [ $((r % 2)) = 0 ] && o="new base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> $L
    timeout 300 node --max-old-space-size=8000 /tmp/amgcopy/$b-ask.mjs --n 96 --workers 2 2>&1 | grep -E "^#|in kernels|session upload|memory_touch" >> $L
  done
done
