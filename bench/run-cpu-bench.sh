#!/usr/bin/env bash
# run-cpu-bench.sh: the CPU backend against its CPU peers (issue 15), in one
# run on one machine, each at the same thread counts:
#   resize   cudaresize backend=cpu   vs videoscale (bilinear, lanczos),
#            4K RGBA -> 1080p; cudaresize with antialias (its default: 4
#            and 13 taps per axis here) and without (2 and 6 taps, as
#            videoscale's 2 and 4 do not widen either)
#   stencil  cudastencil backend=cpu  vs OpenCV sepFilter2D (17 taps),
#            gaussian radius 8 on both axes, 4K RGBA, all 4 channels
#   stats    cudastats backend=cpu    vs videoanalyse (luma only, one
#            thread), 4K RGBA and I420 (cudastats: all channels, histograms)
#
#   bash bench/run-cpu-bench.sh [--threads "1 16"] [--frames N] [--reps N]
#       [--env FILE] [--plugin DIR] [--only resize,stencil,stats]
#
# The elements run in gst-launch-1.0: one random 4K frame (videotestsrc
# pattern=snow) repeated by imagefreeze, so the source costs nothing per
# frame, then the element, then fakesink. frames/s = (N - 1) / (t(N) - t(1)),
# the wall-clock times of the whole command with N and with 1 frame, so
# start-up and negotiation cancel; the median of --reps (3). OpenCV runs in
# bench/opencv-peer.py (python3-opencv), on the same random picture size.
# --threads: the counts to time (default: 1 and every core). --env FILE is
# sourced first (e.g. .gpu/gst/env.sh on the GPU host); --plugin DIR (default
# the first of build-gpu/plugin, build/plugin, build-nocuda/plugin) is put
# first on GST_PLUGIN_PATH. COMMIT names the commit (default: git's). Prints a table and writes it as CSV to $OUT (or
# ./bench-out)/cpu.csv.
set -eu
set -o pipefail

threads="1 $(nproc)"
frames=0
reps=3
only=resize,stencil,stats
plugin=
while [ $# -gt 0 ]; do
  case $1 in
    --threads) threads=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --env) # shellcheck source=/dev/null
      . "$2"; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "run-cpu-bench: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$plugin" ]; then
  for d in build-gpu/plugin build/plugin build-nocuda/plugin; do
    if [ -d "$d" ]; then plugin=$d; break; fi
  done
fi
plugin=$(cd "$plugin" && pwd)
export GST_PLUGIN_PATH_1_0="$plugin${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_PLUGIN_PATH="$plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
out=${OUT:-$(pwd)/bench-out}
mkdir -p "$out"
csv=$out/cpu.csv
here=$(cd "$(dirname "$0")" && pwd)
# the first python3 that has OpenCV (a pyenv shim may hide Debian's)
python=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import cv2' 2>/dev/null; then python=$p; break; fi
done

# seconds of one gst-launch-1.0 run of @1 (the element) on @2 frames of
# caps @3, output caps @4
run_once () {
  local t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # $1: the element and its properties
  if ! gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! "$3" ! \
      imagefreeze num-buffers="$2" ! $1 ! "$4" ! fakesink sync=false \
      > "$out/gst-launch.log" 2>&1; then
    echo "run-cpu-bench: FAILED: $1 ($(tail -1 "$out/gst-launch.log"))" >&2
    echo fail
    return
  fi
  t1=$(date +%s%N)
  echo $(( t1 - t0 ))
}

# frames/s of @1 on caps @2 (output caps @3), the median of $reps, with
# @4 frames
fps_of () {
  local n=$4 all=() i a b
  for ((i = 0; i < reps; i++)); do
    a=$(run_once "$1" 1 "$2" "$3")
    b=$(run_once "$1" "$n" "$2" "$3")
    if [ "$a" = fail ] || [ "$b" = fail ]; then
      echo nan
      return
    fi
    all+=("$(awk -v n="$n" -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (n - 1) * 1e9 / (b - a) }')")
  done
  printf '%s\n' "${all[@]}" | sort -g | sed -n "$(( (reps + 1) / 2 ))p"
}

rgba4k="video/x-raw,format=RGBA,width=3840,height=2160,framerate=30/1,pixel-aspect-ratio=1/1"
i4204k="video/x-raw,format=I420,width=3840,height=2160,framerate=30/1,pixel-aspect-ratio=1/1"
p1080="video/x-raw,width=1920,height=1080"
any="video/x-raw"

echo "case,element,threads,fps,peer,peer_fps,ratio" > "$csv"
printf '%-8s %-44s %7s %9s  %-34s %9s %7s\n' case element threads fps \
  peer "peer fps" ratio
row () {
  printf '%-8s %-44s %7s %9s  %-34s %9s %7s\n' "$1" "$2" "$3" "$4" "$5" \
    "$6" "$7"
  echo "$1,\"$2\",$3,$4,\"$5\",$6,$7" >> "$csv"
}
fmt () {
  case $1 in ''|*[!0-9.]*) echo "$1" ;; *) printf '%.1f' "$1" ;; esac
}
ratio () {
  case $1 in ''|*[!0-9.]*) echo "-"; return ;; esac
  case $2 in ''|*[!0-9.]*) echo "-" ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' ;; esac
}

echo "# $(date -u +%Y-%m-%d) commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')} \
$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "# gst-launch-1.0: $(gst-launch-1.0 --version | head -1); plugin: $plugin"

for t in $threads; do
  if [[ ,$only, == *,resize,* ]]; then
    for m in bilinear lanczos; do
      n=$(( frames > 0 ? frames : (t > 2 ? 200 : 40) ))
      ours=$(fps_of "cudaresize backend=cpu n-threads=$t method=$m" "$rgba4k" "$p1080" "$n")
      peer=$(fps_of "videoscale n-threads=$t method=$m" "$rgba4k" "$p1080" "$n")
      row resize "cudaresize backend=cpu method=$m" "$t" "$(fmt "$ours")" \
        "videoscale method=$m" "$(fmt "$peer")" "$(ratio "$ours" "$peer")"
      # like with like: the filter's own support (2 taps for bilinear, 6
      # for Lanczos-3; videoscale's lanczos is Lanczos-2, 4 taps)
      ours=$(fps_of "cudaresize backend=cpu n-threads=$t method=$m antialias=false" "$rgba4k" "$p1080" "$n")
      row resize "cudaresize backend=cpu method=$m antialias=false" "$t" \
        "$(fmt "$ours")" "videoscale method=$m" "$(fmt "$peer")" \
        "$(ratio "$ours" "$peer")"
    done
  fi
  if [[ ,$only, == *,stencil,* ]]; then
    n=$(( frames > 0 ? frames : (t > 2 ? 100 : 10) ))
    ours=$(fps_of "cudastencil backend=cpu n-threads=$t preset=gaussian radius=8 sigma=2.6666666667 direction=both border=mirror filter-alpha=true" \
      "$rgba4k" "$any" "$n")
    peer=$("$python" "$here/opencv-peer.py" --threads "$t" --radius 8 \
      --frames "$(( n / 2 > 5 ? n / 2 : 5 ))" --reps "$reps")
    pf=${peer%% *}
    row stencil "cudastencil backend=cpu gaussian r8 both" "$t" "$(fmt "$ours")" \
      "OpenCV sepFilter2D 17 taps" "$pf" "$(ratio "$ours" "$pf")"
  fi
  if [[ ,$only, == *,stats,* ]]; then
    n=$(( frames > 0 ? frames : (t > 2 ? 400 : 100) ))
    va=$(fps_of "videoanalyse message=false" "$i4204k" "$any" "$n")
    for c in "$rgba4k:RGBA" "$i4204k:I420"; do
      ours=$(fps_of "cudastats backend=cpu n-threads=$t post-messages=false" \
        "${c%:*}" "$any" "$n")
      row stats "cudastats backend=cpu ${c##*:}" "$t" "$(fmt "$ours")" \
        "videoanalyse I420 (1 thread)" "$(fmt "$va")" "$(ratio "$ours" "$va")"
    done
  fi
done
echo "# OpenCV: $("$python" "$here/opencv-peer.py" --frames 1 --reps 1 2>&1 | sed 's/^[0-9.]* fps //')"
