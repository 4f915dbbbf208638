#!/bin/sh
# tools/bootstrap.sh run|test
#
# Everything from a fresh Debian/Ubuntu machine: installs the packages the
# project needs (apt), configures and builds into build/, then
#   run   prints the statistics of a test pattern (cudastats-print), on the
#         GPU when one works, otherwise on the CPU backend;
#   test  runs the test suite, then the element tests under valgrind (leak
#         check), and ends with one line 'N passed, N failed, N skipped'.
# CUDA is used when nvcc is found (on PATH or in /usr/local/cuda/bin).
set -eu
cd "$(dirname "$0")/.."
what=${1:-}
case "$what" in run|test) shift ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH=/usr/local/cuda/bin:$PATH; export PATH
fi

packages="meson ninja-build pkg-config gcc g++ libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  libpng-dev libisal-dev valgrind python3"
# With CUDA: GStreamer's CUDA library (gstreamer-cuda-1.0), for frames in
# CUDA memory and the context shared with nvcodec. Its -dev package pulls
# OpenCV's (about 270 packages; 20 s from Debian's mirror on the 2-core CI
# machine); without it the CUDA backend works with system memory only.
if command -v nvcc >/dev/null 2>&1; then
  packages="$packages libgstreamer-plugins-bad1.0-dev"
fi
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bootstrap: installing$missing"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
fi

[ -f build/build.ninja ] || meson setup build -Dcuda=auto
ninja -C build

if [ "$what" = run ]; then
  GST_PLUGIN_PATH_1_0=$PWD/build/plugin exec ./build/samples/cudastats-print "$@"
fi

status=0
meson test -C build --print-errorlogs --num-processes 2 || status=1
cp build/meson-logs/testlog.json build/meson-logs/testlog-main.json
meson test -C build --setup valgrind elements-cudastats-cpu elements-cudaresize-cpu \
  elements-cudastencil-cpu elements-cudaaudiofir-cpu elements-cudastatsoverlay-cpu \
  --print-errorlogs --num-processes 2 || status=1
python3 tools/test-summary.py build/meson-logs/testlog-main.json \
  build/meson-logs/testlog-valgrind.json
exit $status
