#!/usr/bin/env bash
# run-nvdec-bench.sh: the video elements behind NVIDIA's hardware H.264
# decoder (nvh264dec), the frames kept in CUDA memory from the decoder to the
# sink, on concurrent streams, against the decoder alone.
#
#   bash bench/run-nvdec-bench.sh make-clip DIR [--force]
#   bash bench/run-nvdec-bench.sh run DIR [--streams "1 8"] [--reps N]
#       [--repeat K] [--quick]
#
# make-clip (where x264enc is: gstreamer1.0-plugins-ugly; the GPU host has
# none) writes DIR/clip-4k.mp4 and DIR/clip-4k.txt (its recipe), or keeps
# them when the recipe is the same (--force: make it again). The clip:
# 3840x2160 I420, 30 frames/s, 240 frames (8 s) of videotestsrc's zone plate
# moving (kx2=20 ky2=20 kt=1: rings whose phase moves every frame, fine
# detail up to the edges), x264enc speed-preset=veryfast at 19 Mbit/s
# (vbv-buf-capacity=3000: with the default 600 ms buffer x264 stays near
# 13 Mbit/s on this picture), 2 B-frames, a key frame every 60 frames,
# High profile, in MP4 (mp4mux): about 18 MB. 20 Mbit/s is the most an 8 s
# clip under 20 MB can have; the script refuses a clip of 20 MB or more.
# It is not kept in the repository.
#
# run (on the GPU host; DIR holds the clip, made elsewhere) uses the
# GStreamer of the environment when it has nvh264dec and cudastats (the
# bundle sourced from .gpu/env.sh, the plugin on GST_PLUGIN_PATH), else
# sources .gpu/gst/env.sh and puts build-gpu/plugin on the plugin path
# (from the repository root). Each configuration X runs N copies at once,
# each its own process:
#
#   gst-launch-1.0 filesrc location=DIR/clip-4k.mp4 ! qtdemux ! h264parse !
#       nvh264dec ! video/x-raw(memory:CUDAMemory) ! X !
#       video/x-raw(memory:CUDAMemory) ! fakesink sync=false
#
#   decode         X = nothing: the decoder's frames to fakesink (the
#                  ceiling)
#   stats-overlay  X = cudastats backend=cuda post-messages=false !
#                  cudastatsoverlay backend=cuda
#   chain          X = cudastats backend=cuda post-messages=false !
#                  cudaresize backend=cuda !
#                  video/x-raw(memory:CUDAMemory),width=1920,height=1080 !
#                  cudastencil backend=cuda ! cudastatsoverlay backend=cuda
#
# With --repeat K (default 1: the line above), each process plays the clip
# K times in a row: `concat name=c ! nvh264dec ! ...` fed by K
# `filesrc ! qtdemux ! h264parse ! c.` branches, so that the start-up
# skew between the N processes (they reach PLAYING up to a second apart
# when 8 start at once) weighs less against an 8 s clip decoded in about
# 1.5 s.
#
# The capsfilters keep every link in CUDA memory (a pipeline that cannot is
# an error, not a slower number); post-messages=false because gst-launch
# drops the per-frame messages (histograms included) unread, and the
# C benchmarks (bench-pipelines) do the same. Elements at their defaults
# otherwise (frames-in-flight 2). Before the timed runs, each
# configuration runs once alone with -v: every video/x-raw caps it prints
# must be memory:CUDAMemory, one element only (the decoder) may announce a
# CUDA context ("Got context from element"): the others found it and share
# it through GstContext (an element with a context of its own would copy
# every frame through the host), and fakesink must count every frame of
# the clip (the decode-only count is the frame count of all the numbers).
# The logs of these runs also hold GST_DEBUG=cfgpu:4, the context each
# element of the plugin took.
#
# Then, for N in --streams (default "1 8") and each configuration, --reps
# (default 3) batches of N processes started together. A batch's aggregate
# frames/s is N x frames / the longest "Execution ended after" of its N
# processes (gst-launch-1.0's time from PLAYING to EOS: the frames decoded
# while prerolling, one or two, a few more behind elements that hold
# frames in flight, are in no one's time, about 1% of a 240-frame clip in
# the elements' favour; --repeat K divides that by K); the table gives the
# MEDIAN of the batches, the % of the decode-only median at the same N,
# and the targets at N=8: stats-overlay >= 97%, chain >= 95%. As a check that the N processes did overlap, the
# "window" column is N x frames / (last EOS - first PLAYING) over the
# whole batch (wall clock of the output lines, median of the batches):
# below the aggregate when the processes started apart (then use
# --repeat).
#
# --quick: --reps 1, N = 1 and 2 (a smoke test, not a result). Output: the
# table (Markdown) on stdout and in DIR/nvdec-results.md, every process's
# log under DIR/logs/. Exit status 1 when a run or a check FAILED (a missed
# target is reported, not an error), else 0.
set -euo pipefail

usage () {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
  exit "${1:-0}"
}

[ $# -ge 2 ] || usage 2
cmd=$1
dir=$2
shift 2
force=0
streams="1 8"
reps=3
repeat=1
while [ $# -gt 0 ]; do
  case $1 in
    --force) force=1 ;;
    --streams) streams=$2; shift ;;
    --reps) reps=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    --quick) reps=1; streams="1 2" ;;
    -h|--help) usage 0 ;;
    *) echo "run-nvdec-bench: unknown option $1" >&2; usage 2 ;;
  esac
  shift
done

clip=$dir/clip-4k.mp4
recipe_file=$dir/clip-4k.txt
frames_made=240
max_bytes=20000000
# the whole recipe: a different one makes the clip again
recipe="videotestsrc num-buffers=$frames_made pattern=zone-plate kx2=20 ky2=20 kt=1 ! video/x-raw,format=I420,width=3840,height=2160,framerate=30/1 ! x264enc bitrate=19000 vbv-buf-capacity=3000 bframes=2 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high ! h264parse ! mp4mux"

make_clip () {
  mkdir -p "$dir"
  if [ "$force" = 0 ] && [ -s "$clip" ] && [ -f "$recipe_file" ] &&
      [ "$(sed -n 's/^recipe: //p' "$recipe_file")" = "$recipe" ]; then
    echo "run-nvdec-bench: keeping $clip ($(stat -c %s "$clip") bytes, same recipe)"
    return
  fi
  if ! gst-inspect-1.0 x264enc >/dev/null 2>&1; then
    echo "run-nvdec-bench: no x264enc here (gstreamer1.0-plugins-ugly): make the clip on another machine and copy $dir there" >&2
    exit 1
  fi
  echo "run-nvdec-bench: encoding $clip (a minute or so on 2 cores)"
  # shellcheck disable=SC2086  # the recipe is a launch line, split into words
  gst-launch-1.0 -q $recipe ! filesink location="$clip.part"
  local bytes
  bytes=$(stat -c %s "$clip.part")
  if [ "$bytes" -ge "$max_bytes" ]; then
    rm -f "$clip.part"
    echo "run-nvdec-bench: the clip came out at $bytes bytes, not under $max_bytes: lower the bitrate in the recipe" >&2
    exit 1
  fi
  mv "$clip.part" "$clip"
  {
    echo "recipe: $recipe"
    echo "frames: $frames_made"
    echo "bytes: $bytes"
    echo "bitrate: $(awk -v b="$bytes" -v f="$frames_made" 'BEGIN { printf "%.1f Mbit/s", b * 8 / (f / 30) / 1e6 }')"
    echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) by $(gst-launch-1.0 --version | sed -n 1p)"
  } > "$recipe_file"
  echo "run-nvdec-bench: $clip: $bytes bytes, $(sed -n 's/^bitrate: //p' "$recipe_file")"
}

# ---------------------------------------------------------------- run

cuda="video/x-raw(memory:CUDAMemory)"
configs="decode stats-overlay chain"

# Sets the array line to the launch line of configuration $1, one word an
# argument of gst-launch-1.0 (which escapes the spaces inside one), then
# fakesink's extra properties $2...
set_line () {
  local config=$1 i
  shift
  if [ "$repeat" = 1 ]; then
    line=(filesrc "location=$clip" ! qtdemux ! h264parse ! nvh264dec ! "$cuda" !)
  else
    line=(concat name=c ! nvh264dec ! "$cuda" !)
  fi
  case $config in
    stats-overlay)
      line+=(cudastats backend=cuda post-messages=false !
        cudastatsoverlay backend=cuda ! "$cuda" !) ;;
    chain)
      line+=(cudastats backend=cuda post-messages=false !
        cudaresize backend=cuda ! "$cuda,width=1920,height=1080" !
        cudastencil backend=cuda ! cudastatsoverlay backend=cuda ! "$cuda" !) ;;
  esac
  line+=(fakesink sync=false "$@")
  for ((i = 0; repeat > 1 && i < repeat; i++)); do
    line+=(filesrc "location=$clip" ! qtdemux ! h264parse ! c.)
  done
}

# "$@" as a shell would take them back: words with parentheses, quotes or
# spaces in single quotes (none of the launch lines has a single quote).
shell_words () {
  local w out=''
  for w in "$@"; do
    case $w in
      *[\ \(\)\"]*) out+=" '$w'" ;;
      *) out+=" $w" ;;
    esac
  done
  echo "${out# }"
}

# Runs "$@" (gst-launch-1.0's arguments), each output line prefixed with
# the wall clock, into the log $log; the exit status goes in as a last line.
stamped () {
  local log=$1
  shift
  { gst-launch-1.0 "$@" 2>&1; echo "exit-status $?"; } |
    while IFS= read -r line; do
      printf '%s %s\n' "${EPOCHREALTIME:-$(date +%s.%N)}" "$line"
    done > "$log"
}

# Seconds of "Execution ended after H:MM:SS.NNNNNNNNN" in log $1, or nothing.
ended_after () {
  sed -n 's/.*Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\).*/\1 \2 \3/p' "$1" |
    awk '{ printf "%.9f\n", $1 * 3600 + $2 * 60 + $3 }' | tail -n 1
}

# Why log $1 is not a clean run (nothing when it is).
log_failure () {
  local log=$1
  if ! grep -q ' exit-status 0$' "$log"; then
    echo "exit status $(sed -n 's/.* exit-status //p' "$log")"
  elif grep -q ' ERROR' "$log"; then
    grep -m 1 ' ERROR' "$log" | cut -d' ' -f2-
  elif [ -z "$(ended_after "$log")" ]; then
    echo "no 'Execution ended after' line"
  fi
}

median () {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

status=0

# One configuration alone, with -v: caps, context and frame count. Prints
# the frames fakesink counted; returns 1 (having said why) otherwise.
verify () {
  local config=$1 log=$dir/logs/verify-$1.log bad contexts why
  set_line "$config" silent=false
  GST_DEBUG=cfgpu:4 stamped "$log" -v "${line[@]}"
  why=$(log_failure "$log")
  if [ -n "$why" ]; then
    echo "run-nvdec-bench: $config FAILED: $why (see $log)" >&2
    return 1
  fi
  bad=$(grep 'caps = video/x-raw' "$log" | grep -vc 'memory:CUDAMemory' || true)
  if [ "$bad" != 0 ]; then
    echo "run-nvdec-bench: $config FAILED: $bad video/x-raw caps not in CUDA memory (see $log):" >&2
    grep 'caps = video/x-raw' "$log" | grep -v 'memory:CUDAMemory' |
      cut -d' ' -f2- | cut -c1-200 >&2
    return 1
  fi
  # gst-launch prints every HAVE_CONTEXT message: an element posts one when
  # it makes a context, none when it found its neighbours'
  contexts=$(grep 'Got context from element' "$log" | grep -c 'gst.cuda.context' || true)
  if [ "$contexts" != 1 ]; then
    echo "run-nvdec-bench: $config FAILED: $contexts CUDA contexts made, not one shared (see $log):" >&2
    grep 'Got context from element' "$log" | cut -d' ' -f2- | cut -c1-200 >&2
    return 1
  fi
  grep -c 'last-message = chain' "$log" || true
}

# N copies of $config at once, batch $rep: prints "seconds window_seconds"
# or FAILED.
batch () {
  local config=$1 n=$2 rep=$3 i pids=() longest=0 first='' last='' t why log
  set_line "$config"
  for i in $(seq 1 "$n"); do
    stamped "$dir/logs/$config-n$n-r$rep-$i.log" "${line[@]}" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || true; done
  for i in $(seq 1 "$n"); do
    log=$dir/logs/$config-n$n-r$rep-$i.log
    why=$(log_failure "$log")
    if [ -n "$why" ]; then
      echo "run-nvdec-bench: $config N=$n batch $rep process $i FAILED: $why (see $log)" >&2
      echo FAILED
      return
    fi
    t=$(ended_after "$log")
    longest=$(awk -v a="$longest" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
    t=$(awk '/Setting pipeline to PLAYING/ { print $1; exit }' "$log")
    first=$(awk -v a="$first" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
    t=$(awk '/Got EOS from element/ { print $1; exit }' "$log")
    last=$(awk -v a="$last" -v b="$t" 'BEGIN { print (a == "" || b > a) ? b : a }')
  done
  echo "$longest $(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", b - a }')"
}

run () {
  local config n rep frames=0 count res agg win ceiling pct target verdict
  local -A agg_of
  if [ ! -s "$clip" ]; then
    echo "run-nvdec-bench: no $clip: run 'bash bench/run-nvdec-bench.sh make-clip $dir' where x264enc is, and copy $dir here" >&2
    exit 1
  fi
  if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1 ||
      ! gst-inspect-1.0 cudastats >/dev/null 2>&1; then
    if [ -f .gpu/gst/env.sh ] && [ -d build-gpu/plugin ]; then
      # shellcheck source=/dev/null
      . .gpu/gst/env.sh
      export GST_PLUGIN_PATH_1_0="$PWD/build-gpu/plugin" GST_PLUGIN_PATH="$PWD/build-gpu/plugin"
    fi
    for e in nvh264dec cudastats; do
      if ! gst-inspect-1.0 "$e" >/dev/null 2>&1; then
        echo "run-nvdec-bench: no $e element: source .gpu/env.sh and put build-gpu/plugin on GST_PLUGIN_PATH (or run from the repository root)" >&2
        exit 1
      fi
    done
  fi
  mkdir -p "$dir/logs"
  rm -f "$dir"/logs/*.log

  echo "# run-nvdec-bench"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "- device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || echo unknown)"
  echo "- host: $(nproc) cores; $(gst-launch-1.0 --version | sed -n 2p)"
  echo "- each process plays the clip $repeat time(s)"
  echo "- cudastats: $(gst-inspect-1.0 cudastats | sed -n 's/^ *Filename *//p')"
  echo "- clip: $clip, $(stat -c %s "$clip") bytes; $(sed -n 's/^recipe: /made by: /p' "$recipe_file" 2>/dev/null || echo "recipe unknown")"
  for config in $configs; do
    set_line "$config"
    echo "- $config: \`gst-launch-1.0 $(shell_words "${line[@]}")\`"
  done
  echo

  # the checks first: a configuration that fails them is not timed
  local -A ok
  for config in $configs; do
    if count=$(verify "$config"); then
      [ "$config" = decode ] && frames=$count
      if [ "$count" != "$frames" ] || [ "$frames" = 0 ]; then
        echo "run-nvdec-bench: $config FAILED: fakesink counted $count frames, the decoder alone $frames" >&2
        ok[$config]=0
        status=1
      else
        ok[$config]=1
        echo "- check $config: $count frames, every video/x-raw link in CUDA memory, one CUDA context"
      fi
    else
      ok[$config]=0
      status=1
    fi
  done
  echo

  echo "| streams | configuration | aggregate frames/s (median of $reps) | % of decode | window frames/s | runs (s, longest process) | target |"
  echo "| ---: | --- | ---: | ---: | ---: | --- | --- |"
  for n in $streams; do
    for config in $configs; do
      local times=() wins=() failed=0
      if [ "${ok[$config]}" != 1 ]; then
        echo "| $n | $config | FAILED (check) | | | | |"
        continue
      fi
      for rep in $(seq 1 "$reps"); do
        res=$(batch "$config" "$n" "$rep")
        if [ "$res" = FAILED ]; then
          failed=1
          status=1
          break
        fi
        times+=("${res% *}")
        wins+=("${res#* }")
      done
      if [ "$failed" = 1 ]; then
        echo "| $n | $config | FAILED (see $dir/logs) | | | | |"
        continue
      fi
      agg=$(printf '%s\n' "${times[@]}" | awk -v n="$n" -v f="$frames" '{ print n * f / $1 }' | median)
      win=$(printf '%s\n' "${wins[@]}" | awk -v n="$n" -v f="$frames" '$1 > 0 { print n * f / $1 }' | median)
      agg_of[$config-$n]=$agg
      ceiling=${agg_of[decode-$n]:-}
      pct=-
      [ -n "$ceiling" ] && pct=$(awk -v a="$agg" -v c="$ceiling" 'BEGIN { printf "%.1f", 100 * a / c }')
      target=
      case $config in
        stats-overlay) target=97 ;;
        chain) target=95 ;;
      esac
      verdict=
      if [ -n "$target" ] && [ "$n" = 8 ] && [ "$pct" != - ]; then
        verdict=$(awk -v p="$pct" -v t="$target" 'BEGIN { print (p >= t) ? "met" : "NOT met" }')
        verdict=">= $target%: $verdict"
      fi
      [ "$win" = - ] || win=$(printf '%.0f' "$win")
      printf '| %s | %s | %.0f | %s | %s | %s | %s |\n' "$n" "$config" "$agg" \
        "$pct" "$win" "$(printf '%.3f ' "${times[@]}" | sed 's/ $//')" "$verdict"
    done
  done
  echo
  echo "Frames per stream: $frames (counted at fakesink). Logs: $dir/logs."
  return "$status"
}

case $cmd in
  make-clip) make_clip ;;
  run)
    out=$dir/nvdec-results.md
    mkdir -p "$dir"
    rc=0
    run | tee "$out" || rc=$?
    echo "run-nvdec-bench: table in $out"
    exit "$rc"
    ;;
  *) usage 2 ;;
esac
