#!/usr/bin/env bash
# Runs the cudaresize benchmark on the GPU host, from the repository root:
#
#   bash bench/run-resize-bench.sh [bench-resize options, e.g. --quick]
#
# 1. builds bench/npp-resize-peer.cu (NVIDIA NPP's resize, the peer) with the
#    host's nvcc into /tmp/npp-resize-peer and runs it;
# 2. runs build-gpu/bench/bench-resize (the kernel, its copy ceiling, the
#    element, videoscale) with the plugin of build-gpu/ and the bundled
#    GStreamer of .gpu/.
# Both tables have the same columns. Output goes to $OUT when it is set,
# otherwise ./bench-out: npp.csv, npp.txt, resize.csv, resize.txt.
#
# Needs: .gpu/ (gpu-prep's GStreamer bundle), build-gpu/ configured with
# -Dcuda=enabled and built with bench-resize (ninja -C build-gpu
# bench/bench-resize, done where meson is, before the run), nvcc and NPP on
# this host. Environment: NVCC (default: nvcc on PATH, else
# /usr/local/cuda/bin/nvcc), NVCC_ARCH (default sm_90: H100, H200),
# NPP_CFLAGS (e.g. -I/path/include where NPP is not in CUDA's tree),
# NPP_LIBS (default "-lnppig -lnppc"; add -L/path/lib there), COMMIT
# (default: git rev-parse --short HEAD, where there is a .git).
# A failed NPP build or run is reported and the rest still runs; the exit
# status is then non-zero.
set -eu
set -o pipefail

root=$(pwd)
out=${OUT:-$root/bench-out}
mkdir -p "$out"
status=0

# the bundle's env.sh finds its own folder (.gpu/env.sh names absolute paths
# of the machine that prepared it)
if [ -f .gpu/gst/env.sh ]; then
  # shellcheck source=/dev/null
  . .gpu/gst/env.sh
else
  # shellcheck source=/dev/null
  . .gpu/env.sh
fi
export GST_PLUGIN_PATH_1_0="$root/build-gpu/plugin" GST_PLUGIN_PATH="$root/build-gpu/plugin"

bench=$root/build-gpu/bench/bench-resize
if [ ! -x "$bench" ]; then
  if command -v ninja >/dev/null 2>&1; then
    ninja -C build-gpu bench/bench-resize
  else
    echo "run-resize-bench: $bench is missing: run 'ninja -C build-gpu bench/bench-resize' where meson is" >&2
    exit 1
  fi
fi

commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || true)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# shellcheck disable=SC2086  # NPP_CFLAGS and NPP_LIBS are lists of flags
if "$nvcc" -O2 -std=c++17 -arch="${NVCC_ARCH:-sm_90}" ${NPP_CFLAGS:-} \
    -o /tmp/npp-resize-peer bench/npp-resize-peer.cu ${NPP_LIBS:--lnppig -lnppc} \
    2>&1 | tee "$out/npp-build.txt"; then
  /tmp/npp-resize-peer --csv "$out/npp.csv" 2>&1 | tee "$out/npp.txt" || {
    echo "run-resize-bench: npp-resize-peer FAILED (status $?)" >&2
    status=1
  }
else
  echo "run-resize-bench: could not build npp-resize-peer (see $out/npp-build.txt); going on without it" >&2
  status=1
fi

"$bench" ${commit:+--commit "$commit"} --csv "$out/resize.csv" "$@" 2>&1 | tee "$out/resize.txt" || {
  rc=$?
  echo "run-resize-bench: bench-resize FAILED (status $rc)" >&2
  status=$rc
}
echo "run-resize-bench: results in $out"
exit "$status"
