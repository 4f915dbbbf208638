#!/bin/bash
# The batch tool on one GPU against all of them (docs/PERFORMANCE.md,
# "Several GPUs"): a folder of 32 photograph-like 1920x1080 PNGs, an
# ordinary workload (a resize to 4K and a filter) and a GPU-heavy one (a
# resize and 100 large filters), --devices 0 then all, two rounds; then
# which device ran each file (-v).
# Usage: bench/run-multigpu-bench.sh BUILD_DIR [WORK_DIR]
set -eu
build=${1:?build directory}
work=${2:-/tmp/cf-multigpu-bench}
here=$(dirname "$0")
tool=$build/tools/batch/cudafilters-batch
rm -rf "$work"
mkdir -p "$work"
for k in 0 1 2 3 4 5 6 7; do
  python3 "$here/genpng.py" "$work/in" $((k * 4)) 4 1920 1080 &
done
wait
light="--resize 3840x2160 --stencil gaussian:radius=8"
heavy="--resize 3840x2160"
for i in $(seq 1 100); do heavy="$heavy --stencil gaussian:radius=64"; done
now () { date +%s.%N; }
for round in 1 2; do
  for devices in 0 all; do
    for load in light heavy; do
      rm -rf "$work/out"
      start=$(now)
      # shellcheck disable=SC2086
      "$tool" -q --backend cuda --devices $devices ${!load} --compression 1 \
        "$work/in" "$work/out"
      echo "round $round $load --devices $devices:" \
        "$(python3 -c "print(round($(now) - $start, 2))") s"
    done
  done
done
for load in light heavy; do
  rm -rf "$work/out"
  # shellcheck disable=SC2086
  "$tool" -v --backend cuda --devices all ${!load} --compression 1 \
    "$work/in" "$work/out" > "$work/verbose-$load.txt"
  echo "$load, files per device:" \
    "$(grep -o 'CUDA device [0-9]*' "$work/verbose-$load.txt" | sort | uniq -c | tr '\n' ';')"
done
