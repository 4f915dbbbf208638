#!/usr/bin/env bash
# Runs build-gpu/bench/bench-stencil on the GPU host, from the repository
# root, with the plugin of build-gpu/ and the bundled GStreamer of .gpu/:
#
#   bash bench/run-stencil-bench.sh [bench-stencil options, e.g. --quick]
#
# Output goes to $OUT when it is set, otherwise ./bench-out: stencil.csv and
# stencil.txt. COMMIT names the commit where there is no .git.
set -eu
set -o pipefail

root=$(pwd)
out=${OUT:-$root/bench-out}
mkdir -p "$out"
# .gpu/env.sh names absolute paths of the machine that prepared it; the
# bundle's own env.sh finds its folder
# shellcheck source=/dev/null
. .gpu/gst/env.sh
export GST_PLUGIN_PATH_1_0="$root/build-gpu/plugin" GST_PLUGIN_PATH="$root/build-gpu/plugin"
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || true)}
"$root/build-gpu/bench/bench-stencil" ${commit:+--commit "$commit"} \
  --csv "$out/stencil.csv" "$@" 2>&1 | tee "$out/stencil.txt"
