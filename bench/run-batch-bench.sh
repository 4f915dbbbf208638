#!/usr/bin/env bash
# run-batch-bench.sh: cudafilters-batch against ImageMagick's mogrify,
# vips thumbnail and a per-file gst-launch-1.0 pipeline, in one run on one
# machine: a folder of 4K-class PNG pictures resized to 1920x1200 and written
# as 8-bit RGB PNG at zlib level 6 by every contender.
#
#   bash bench/run-batch-bench.sh [options]
#
# Options:
#   --tool PATH       cudafilters-batch to time (default: the first of
#                     build-gpu/, build/, build-bbench/ tools/batch/...)
#   --work DIR        work folder: the pictures (made once, then reused) and
#                     the outputs (default ${TMPDIR:-/tmp}/cf-batch-bench)
#   --cores N         run everything on cores 0..N-1 (taskset -c 0-(N-1)),
#                     so that a 2-core case is reproducible on a bigger host;
#                     default: every core this process may use, no taskset.
#                     (Under gVisor taskset sets what programs see, nproc
#                     and their thread counts, but may not pin them.)
#   --jobs N          parallel files for the tool and the per-file peers
#                     (default: the number of cores used)
#   --backend LIST    tool backends to time, comma separated: cpu (default),
#                     cuda; a backend the tool refuses is reported and skipped
#   --reps N          timed repetitions of every case (default 3), after one
#                     untimed warm-up run; the table gives the MEDIAN of the
#                     N and the best
#   --peers LIST      peers to time, comma separated (default
#                     mogrify,mogrify-P,vips,vips-P,vips-none-P,gst,gst-P)
#   --env FILE        source FILE first (repeatable), e.g. the GStreamer
#                     bundle .gpu/gst/env.sh and the peers bundle
#                     peers/env.sh (bench/bundle-peers.sh)
#   --count N         number of pictures (default 12)
#   --photos DIR      make the pictures from the photographs (JPEG or PNG)
#                     in DIR instead of the default sources (see below)
#   --inputs DIR      use the PNG files of DIR (names ending in .png) as
#                     they are, make nothing
#   --prepare         make the pictures (or find them in WORK), print their
#                     folder and stop
#   --synthetic       make fully synthetic pictures even where photographs
#                     are found
#   --csv FILE        also write the table as CSV (default WORK/results.csv)
#   --quick           --reps 1 and no warm-up (a smoke test, not a result)
#
# The cases (IN: the pictures, OUT: an empty folder, J: --jobs; all resize to
# exactly 1920x1200 and write zlib level 6):
#   tool-cpu   cudafilters-batch -q --backend cpu --resize 1920x1200
#              --method bilinear --compression 6 --jobs J IN OUT
#              (bilinear widens its support when downscaling: the closest of
#              the tool's methods to ImageMagick's Triangle filter)
#   tool-cuda  the same with --backend cuda
#   mogrify    mogrify -path OUT -filter Triangle -resize 1920x1200!
#              -quality 65 IN/*.png: one process over all files, as in the
#              issue; ImageMagick's OpenMP threads use the cores
#              (-quality 65: zlib level 6, PNG filter 5 = adaptive)
#   mogrify-P  the same per file, J files at once (xargs -P J),
#              MAGICK_THREAD_LIMIT=1
#   vips       vips thumbnail F 'OUT/F[compression=6,filter=all]' 1920
#              --height 1200 --size force, one file after the other; vips
#              threads each file itself
#   vips-P     the same, J files at once (xargs -P J), VIPS_CONCURRENCY=1
#   vips-none-P  vips-P with vips' own default PNG filter (none), as
#              'vips thumbnail F OUT/F[compression=6]' writes it
#   gst        gst-launch-1.0 -q filesrc location=F ! pngdec ! videoscale !
#              video/x-raw,width=1920,height=1200 ! pngenc
#              compression-level=6 ! filesink location=OUT/F, one file after
#              the other (pngenc's filter is always none; videoscale's
#              default method, bilinear)
#   gst-P      the same, J files at once (xargs -P J)
# filter=all for vips is libpng's own default for 8-bit RGB (adaptive
# filtering), which cudafilters-batch and mogrify -quality 65 also use, so
# that the outputs are comparable; vips-none-P, gst and gst-P write unfiltered
# rows (faster to write, files about 1.8 times as big: the table gives every
# case's total output bytes and the PNG row filters its outputs use).  After
# every run the outputs are checked: one per input, each an 8-bit RGB
# 1920x1200 PNG, nothing else in OUT; a case that fails this is reported as
# FAILED.  A peer whose program is missing is skipped with a message.
#
# On a host without the peers or GStreamer (the GPU host), where the
# checkout carries .gpu/gst (gpu-prep), the tool and build-peers/peers.tar.xz
# (bench/bundle-peers.sh --dedupe .gpu/gst build-peers/peers):
#   tar -xJf build-peers/peers.tar.xz -C /tmp
#   bash bench/run-batch-bench.sh --env .gpu/gst/env.sh --env /tmp/peers/env.sh \
#       --tool build-gpu/tools/batch/cudafilters-batch --backend cpu,cuda \
#       --work build-peers/work [--cores 2]
# The pictures are then made by the bundled vips (python3, bash, xargs and,
# for --cores, taskset must be there).
#
# The pictures: --count (12) 8-bit RGB PNG files at zlib level 6, adaptive
# filters, 16:10 so that every contender's 1920x1200 keeps the aspect ratio:
# pictures 1-6 are 3840x2400, 7-9 4096x2560, 10-12 3600x2250.  No real 4K
# photograph was found on the development machine (no network), so each
# picture is PHOTO-DERIVED: a 2x2 collage of crops (16:10, flipped for some)
# of two real photographs, each crop scaled up with lanczos3 to a quarter of
# the picture, a per-picture colour balance, and generated noise at three
# scales (lighting, texture, per-channel grain) so that the files compress
# like camera photographs (13-17 MB each, against 27.6 MB raw at
# 3840x2400).  The photographs (a few hundred KB each, not in the
# repository): f3.jpg (720x477, a circuit board, Rust's Embedded Book) and
# jetty-pic.png (900x277, sea and clouds, Jetty's demo); they are looked for
# in --photos DIR, then in $PEERS_PHOTOS (bench/bundle-peers.sh copies them
# into its bundle), then at their places on the development machine.  With
# none, or --synthetic, the pictures are FULLY SYNTHETIC: smooth colour
# fields, hard-edged blobs and the same noise.  Everything is made with the
# vips command line and fixed seeds, so the same vips makes the same bytes
# (the md5 of the set is printed); the pictures are kept in WORK and made
# again only when the recipe or the sources change.
#
# Output: the machine, the versions, the exact commands, then a Markdown
# table (case, seconds median of --reps, best, images/s from the median,
# output bytes, speedup against the fastest peer: fastest peer's median /
# this case's median).  Exit status: 0, or 1 when a case failed its check.
set -euo pipefail

root=$(pwd)
tool=
work=${TMPDIR:-/tmp}/cf-batch-bench
cores=
jobs=
backends=cpu
reps=3
warmup=1
peers=mogrify,mogrify-P,vips,vips-P,vips-none-P,gst,gst-P
count=12
photos_dir=
inputs_dir=
synthetic=0
csv=
prepare=0
envs=()
ow=1920
oh=1200
level=6

die () { echo "run-batch-bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --tool) tool=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --cores) cores=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --backend) backends=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --count) count=$2; shift 2 ;;
    --photos) photos_dir=$2; shift 2 ;;
    --inputs) inputs_dir=$2; shift 2 ;;
    --synthetic) synthetic=1; shift ;;
    --csv) csv=$2; shift 2 ;;
    --prepare) prepare=1; shift ;;
    --quick) reps=1; warmup=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps: a positive number"
[[ $count =~ ^[1-9][0-9]*$ ]] || die "--count: a positive number"

for e in "${envs[@]+"${envs[@]}"}"; do
  [ -f "$e" ] || die "--env $e: no such file"
  # shellcheck source=/dev/null
  . "$e"
done

if [ -z "$tool" ]; then
  for t in build-gpu build build-bbench; do
    if [ -x "$root/$t/tools/batch/cudafilters-batch" ]; then tool=$root/$t/tools/batch/cudafilters-batch; break; fi
  done
fi
[ -n "$tool" ] && [ -x "$tool" ] || die "no cudafilters-batch (build it, or give --tool PATH)"
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")

pin=()
if [ -n "$cores" ]; then
  [[ $cores =~ ^[1-9][0-9]*$ ]] || die "--cores: a positive number"
  command -v taskset >/dev/null || die "--cores needs taskset (util-linux)"
  pin=(taskset -c "0-$((cores - 1))")
  ncores=$cores
else
  ncores=$(nproc)
fi
jobs=${jobs:-$ncores}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs: a positive number"
command -v python3 >/dev/null || die "python3 is needed (checks of the outputs)"

mkdir -p "$work"
work=$(cd "$work" && pwd)
csv=${csv:-$work/results.csv}

# ---------------------------------------------------------------- pictures
recipe=photo-collage-v1
size_of () {                       # picture number (1-based) -> "W H"
  if [ "$1" -le 6 ]; then echo "3840 2400"
  elif [ "$1" -le 9 ]; then echo "4096 2560"
  else echo "3600 2250"; fi
}

find_photos () {
  local d c
  srcs=()
  [ "$synthetic" = 1 ] && return 0
  for d in "$photos_dir" "${PEERS_PHOTOS:-}"; do
    [ -n "$d" ] && [ -d "$d" ] || continue
    for c in "$d"/*.jpg "$d"/*.jpeg "$d"/*.JPG "$d"/*.png "$d"/*.PNG; do
      [ -f "$c" ] && srcs+=("$c")
    done
    [ ${#srcs[@]} -gt 0 ] && return 0
  done
  for c in /root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/embedded-book/assets/f3.jpg \
           /usr/lib/google-cloud-sdk/platform/google_appengine/google/appengine/tools/java/jetty12/jetty-home/modules/demo.d/root/images/jetty-pic.png; do
    [ -f "$c" ] && srcs+=("$c")
  done
  return 0
}

# one tile (TW x TH, float or uchar .v) of picture $1, tile $2 (0..3) -> $5
make_tile () {
  local i=$1 j=$2 tw=$3 th=$4 out=$5 t=$work/tmp
  if [ ${#srcs[@]} -gt 0 ]; then
    local src=${srcs[$(((i + j) % ${#srcs[@]}))]}
    local pw ph
    pw=$(vipsheader -f width "$src"); ph=$(vipsheader -f height "$src")
    # the largest 16:10 box, scaled by 1, 0.85 or 0.7, placed at one of 5x5
    # positions; every number comes from i and j alone
    read -r cw ch ox oy < <(awk -v pw="$pw" -v ph="$ph" -v i="$i" -v j="$j" 'BEGIN {
      mw = pw; if (ph * 16 / 10 < mw) mw = int(ph * 16 / 10)
      s = (i + j) % 3; f = (s == 0) ? 1.0 : (s == 1) ? 0.85 : 0.7
      cw = int(mw * f); ch = int(cw * 10 / 16)
      fx = ((i * 7 + j * 3) % 5) / 4; fy = ((i * 3 + j * 5) % 5) / 4
      printf "%d %d %d %d\n", cw, ch, int((pw - cw) * fx), int((ph - ch) * fy) }')
    vips extract_area "$src" "$t/crop.v" "$ox" "$oy" "$cw" "$ch"
    # 8-bit RGB whatever the photograph is: alpha laid over white, grey made RGB
    case $(vipsheader -f bands "$src") in
      2|4) vips flatten "$t/crop.v" "$t/crop2.v" --background "255 255 255"; mv "$t/crop2.v" "$t/crop.v" ;;
    esac
    if [ "$(vipsheader -f bands "$t/crop.v")" = 1 ]; then
      vips bandjoin "$t/crop.v $t/crop.v $t/crop.v" "$t/crop2.v"; mv "$t/crop2.v" "$t/crop.v"
    fi
    vips cast "$t/crop.v" "$t/crop2.v" uchar; mv "$t/crop2.v" "$t/crop.v"
    if [ $(((i * 4 + j) % 3)) = 1 ]; then
      vips flip "$t/crop.v" "$t/crop2.v" horizontal; mv "$t/crop2.v" "$t/crop.v"
    fi
    vips resize "$t/crop.v" "$t/up.v" "$(awk -v a="$tw" -v b="$cw" 'BEGIN{printf "%.10f", a/b}')" \
      --vscale "$(awk -v a="$th" -v b="$ch" 'BEGIN{printf "%.10f", a/b}')" --kernel lanczos3
    vips embed "$t/up.v" "$out" 0 0 "$tw" "$th" --extend copy
  else
    # fully synthetic: smooth colour fields (3 bands of low-resolution noise,
    # bicubic upscaled) plus hard-edged blobs (nearest upscaled, softened)
    local s=$((100 * i + 10 * j))
    local bw=$(((tw + 159) / 160)) bh=$(((th + 159) / 160))
    vips gaussnoise "$t/r.v" "$bw" "$bh" --sigma 45 --mean 128 --seed $((s + 1))
    vips gaussnoise "$t/g.v" "$bw" "$bh" --sigma 45 --mean 120 --seed $((s + 2))
    vips gaussnoise "$t/b.v" "$bw" "$bh" --sigma 45 --mean 110 --seed $((s + 3))
    vips bandjoin "$t/r.v $t/g.v $t/b.v" "$t/rgb.v"
    vips resize "$t/rgb.v" "$t/smooth.v" 160 --kernel cubic
    vips gaussnoise "$t/e.v" $(((tw + 95) / 96)) $(((th + 95) / 96)) --sigma 18 --mean 0 --seed $((s + 4))
    vips resize "$t/e.v" "$t/e2.v" 96 --kernel nearest
    vips gaussblur "$t/e2.v" "$t/e3.v" 1.2
    vips add "$t/smooth.v" "$t/e3.v" "$t/sum.v"
    vips embed "$t/sum.v" "$out" 0 0 "$tw" "$th" --extend copy
  fi
}

# picture $1 (1-based) -> $2
make_picture () {
  local n=$1 out=$2 t=$work/tmp i=$(($1 - 1)) w h j
  read -r w h < <(size_of "$n")
  local tw=$((w / 2)) th=$((h / 2))
  for j in 0 1 2 3; do make_tile "$i" "$j" "$tw" "$th" "$t/tile$j.v"; done
  vips arrayjoin "$t/tile0.v $t/tile1.v $t/tile2.v $t/tile3.v" "$t/base.v" --across 2
  # colour balance of this picture
  vips linear "$t/base.v" "$t/col.v" \
    "$(awk -v i="$i" 'BEGIN{printf "%.4f %.4f %.4f", 1+0.06*sin(i), 1+0.05*cos(i*1.3), 1-0.06*sin(i*0.7)}')" \
    "$(awk -v i="$i" 'BEGIN{printf " %.2f %.2f %.2f", 6*cos(i), -4*sin(i), 5*sin(i*2.1)}')"
  # noise: lighting (1/64 scale), texture (1/4 scale), grain (per channel)
  local s=$((1000 * n))
  vips gaussnoise "$t/n1.v" $(((w + 63) / 64)) $(((h + 63) / 64)) --sigma 10 --mean 0 --seed $((s + 1))
  vips resize "$t/n1.v" "$t/n1u.v" 64 --kernel cubic
  vips extract_area "$t/n1u.v" "$t/n1c.v" 0 0 "$w" "$h"
  vips gaussnoise "$t/n2.v" $(((w + 3) / 4)) $(((h + 3) / 4)) --sigma 5 --mean 0 --seed $((s + 2))
  vips resize "$t/n2.v" "$t/n2u.v" 4 --kernel cubic
  vips extract_area "$t/n2u.v" "$t/n2c.v" 0 0 "$w" "$h"
  vips gaussnoise "$t/gr.v" "$w" "$h" --sigma 2.6 --mean 0 --seed $((s + 3))
  vips gaussnoise "$t/gg.v" "$w" "$h" --sigma 2.2 --mean 0 --seed $((s + 4))
  vips gaussnoise "$t/gb.v" "$w" "$h" --sigma 3.0 --mean 0 --seed $((s + 5))
  vips bandjoin "$t/gr.v $t/gg.v $t/gb.v" "$t/grain.v"
  vips sum "$t/col.v $t/n1c.v $t/n2c.v $t/grain.v" "$t/all.v"
  vips cast "$t/all.v" "$t/u8.v" uchar
  vips copy "$t/u8.v" "$out.tmp.png[compression=$level,filter=all,strip]"
  mv "$out.tmp.png" "$out"
}

images_md5=
if [ -n "$inputs_dir" ]; then
  [ -d "$inputs_dir" ] || die "--inputs $inputs_dir: not a folder"
  images=$(cd "$inputs_dir" && pwd)
  images_desc="the PNG files of $images, as given"
else
  command -v vips >/dev/null && command -v vipsheader >/dev/null ||
    die "making the pictures needs vips and vipsheader (apt-get install libvips-tools, or --env PEERS_BUNDLE/env.sh)"
  find_photos
  if [ ${#srcs[@]} -gt 0 ]; then
    kind=photo-derived
    key=$( { echo "$recipe $count $(vips --version)"; md5sum "${srcs[@]}" | cut -d' ' -f1; } | md5sum | cut -c1-10)
  else
    kind=synthetic
    key=$(echo "$recipe synthetic $count $(vips --version)" | md5sum | cut -c1-10)
  fi
  images=$work/images-$kind-$key
  if [ ! -f "$images/.done" ]; then
    echo "run-batch-bench: making $count $kind pictures in $images (once)" >&2
    rm -rf "$images" "$work/tmp"; mkdir -p "$images" "$work/tmp"
    for ((n = 1; n <= count; n++)); do
      make_picture "$n" "$images/$(printf 'img%02d.png' "$n")"
    done
    rm -rf "$work/tmp"
    touch "$images/.done"
  fi
  if [ "$kind" = photo-derived ]; then
    images_desc="$count photo-derived pictures (collages of crops of $(for s in "${srcs[@]}"; do printf '%s ' "$(basename "$s")"; done| sed 's/ $//'), upscaled, with generated noise)"
  else
    images_desc="$count fully synthetic pictures"
  fi
fi
inputs=()
for f in "$images"/*; do
  case ${f##*/} in *.png) [ -f "$f" ] && inputs+=("${f##*/}") ;; esac
done
nin=${#inputs[@]}
[ "$nin" -gt 0 ] || die "no PNG file in $images"
images_md5=$(cd "$images" && cat "${inputs[@]}" | md5sum | cut -c1-12)
in_bytes=$(cd "$images" && cat "${inputs[@]}" | wc -c)
if [ "$prepare" = 1 ]; then
  echo "$images: $images_desc; $nin files, $in_bytes bytes, md5 of the set $images_md5"
  exit 0
fi

# ------------------------------------------------------------------ checks
# prints "OK BYTES FILTERS" or "BAD reason" for the folder $1 against the input list
check_out () {
  python3 - "$1" "$ow" "$oh" "${inputs[@]}" <<'EOF'
import collections, os, struct, sys, zlib
d, ow, oh, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
total = 0; filt = collections.Counter()
for n in names:
    p = os.path.join(d, n)
    if not os.path.isfile(p):
        print('BAD missing', n); sys.exit(0)
    b = open(p, 'rb').read(); total += len(b)
    if b[:8] != b'\x89PNG\r\n\x1a\n' or b[12:16] != b'IHDR':
        print('BAD not-a-png', n); sys.exit(0)
    w, h, bd, ct = struct.unpack('>IIBB', b[16:26])
    if (w, h, bd, ct) != (ow, oh, 8, 2):
        print('BAD %s %dx%d depth %d colour type %d' % (n, w, h, bd, ct)); sys.exit(0)
    i, idat = 8, []
    while i < len(b):
        ln, t = struct.unpack('>I4s', b[i:i + 8])
        if t == b'IDAT': idat.append(b[i + 8:i + 8 + ln])
        i += 12 + ln
    raw = zlib.decompress(b''.join(idat)); stride = 3 * w + 1
    filt.update(raw[r * stride] for r in range(h))
extra = len([f for f in os.listdir(d) if f not in names])
names_ = ['none', 'sub', 'up', 'avg', 'paeth']
tot = sum(filt.values())
fs = '/'.join('%s %s%%' % (names_[k], ('%.1f' % (100.0 * v / tot)).replace('.0', '')) for k, v in sorted(filt.items(), key=lambda kv: -kv[1]))
print('OK', total, fs.replace(' ', '_'), extra)
EOF
}

# ------------------------------------------------------------------- cases
have () { command -v "$1" >/dev/null 2>&1; }
tool_cmd () {   # $1 backend
  echo "\"$tool\" -q --backend $1 --resize ${ow}x${oh} --method bilinear --compression $level --jobs $jobs \"\$IN\" \"\$OUT\""
}
peer_cmd () {
  local sz="-filter Triangle -resize '${ow}x${oh}!' -quality ${level}5"
  local gst="gst-launch-1.0 -q filesrc location={} ! pngdec ! videoscale ! video/x-raw,width=$ow,height=$oh ! pngenc compression-level=$level ! filesink location=\"\$OUT/{}\""
  case $1 in
    mogrify) echo "mogrify -path \"\$OUT\" $sz *.png" ;;
    mogrify-P) echo "ls *.png | MAGICK_THREAD_LIMIT=1 xargs -P $jobs -n 1 mogrify -path \"\$OUT\" $sz" ;;
    vips) echo "for f in *.png; do vips thumbnail \"\$f\" \"\$OUT/\$f[compression=$level,filter=all]\" $ow --height $oh --size force; done" ;;
    vips-P) echo "ls *.png | VIPS_CONCURRENCY=1 xargs -P $jobs -I{} vips thumbnail {} \"\$OUT/{}[compression=$level,filter=all]\" $ow --height $oh --size force" ;;
    vips-none-P) echo "ls *.png | VIPS_CONCURRENCY=1 xargs -P $jobs -I{} vips thumbnail {} \"\$OUT/{}[compression=$level]\" $ow --height $oh --size force" ;;
    gst) echo "for f in *.png; do ${gst//\{\}/\$f}; done" ;;
    gst-P) echo "ls *.png | xargs -P $jobs -I{} $gst" ;;
    *) return 1 ;;
  esac
}
peer_needs () {
  case $1 in mogrify*) echo mogrify ;; vips*) echo vips ;; gst*) echo gst-launch-1.0 ;; esac
}

cases=() ; cmds=() ; kinds=()
IFS=, read -r -a blist <<< "$backends"
for b in "${blist[@]}"; do
  case $b in cpu|cuda) ;; *) die "--backend: cpu or cuda, not '$b'" ;; esac
  # does the tool take this backend? (an empty folder: no work, but the
  # option is checked)
  rm -rf "$work/probe-in" "$work/probe-out"; mkdir -p "$work/probe-in"
  if "$tool" -q --backend "$b" --resize 2x2 "$work/probe-in" "$work/probe-out" >"$work/probe.log" 2>&1; then
    cases+=("tool-$b"); cmds+=("$(tool_cmd "$b")"); kinds+=(tool)
  else
    echo "run-batch-bench: the tool refuses --backend $b, skipped: $(head -n 1 "$work/probe.log")" >&2
  fi
  rm -rf "$work/probe-in" "$work/probe-out" "$work/probe.log"
done
IFS=, read -r -a plist <<< "$peers"
for p in "${plist[@]}"; do
  c=$(peer_cmd "$p") || die "--peers: unknown peer '$p'"
  if have "$(peer_needs "$p")"; then
    if [[ $p == gst* ]] && ! gst-inspect-1.0 pngdec >/dev/null 2>&1; then
      echo "run-batch-bench: peer $p skipped: no pngdec plugin" >&2; continue
    fi
    cases+=("$p"); cmds+=("$c"); kinds+=(peer)
  else
    echo "run-batch-bench: peer $p skipped: $(peer_needs "$p") is not installed (or source the peers bundle with --env)" >&2
  fi
done
[ ${#cases[@]} -gt 0 ] || die "nothing to time"

# ------------------------------------------------------------------ header
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || true)
commit=${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "# cudafilters-batch benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(uname -m), ${cpu:-unknown CPU}, $(nproc --all) cores present, $ncores used${pin[*]:+ (${pin[*]})}, jobs $jobs; $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo) memory"
echo "- commit: $commit; tool: $tool"
echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the times)"
echo "- pictures: $images_desc; $nin files, $in_bytes bytes, md5 of the set $images_md5; folder $images"
have mogrify && echo "- mogrify: $(mogrify -version | head -n 1 | sed 's/^Version: //')"
have vips && echo "- vips: $(vips --version)"
have gst-launch-1.0 && echo "- gst-launch-1.0: $(gst-launch-1.0 --version | sed -n 2p)"
echo "- timing: wall clock of the whole command, outputs to an empty folder under $work; $([ "$warmup" = 1 ] && echo "one untimed warm-up run, then ")$reps timed runs; the median and the best"
echo
echo "Commands, each run by ${pin[*]:+${pin[*]} }bash -c 'COMMAND' in the pictures' folder IN, OUT an empty folder:"
echo
for k in "${!cases[@]}"; do
  echo "- ${cases[$k]}: \`${cmds[$k]}\`"
done
echo

# ------------------------------------------------------------------- timing
now () { date +%s.%N; }
status=0
declare -A med best bytes filters
for k in "${!cases[@]}"; do
  name=${cases[$k]}; cmd=${cmds[$k]}
  out=$work/out/$name
  ts=()
  bad=
  for ((r = 1 - warmup; r <= reps; r++)); do
    rm -rf "$out"; mkdir -p "$out"
    sync
    t0=$(now)
    if ! (cd "$images" && IN=$images OUT=$out ${pin[@]+"${pin[@]}"} bash -c "$cmd") >"$work/$name.log" 2>&1; then
      bad="command failed (see $work/$name.log: $(tail -n 1 "$work/$name.log"))"; break
    fi
    t1=$(now)
    [ "$r" -ge 1 ] && ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')")
    echo "run-batch-bench: $name run $r: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f s", b - a}')$([ "$r" -lt 1 ] && echo ' (warm-up)')" >&2
  done
  if [ -z "$bad" ]; then
    read -r ok b f extra < <(check_out "$out")
    if [ "$ok" != OK ]; then bad="outputs wrong: $b $f"
    elif [ "$extra" != 0 ]; then bad="$extra files in OUT beside the expected outputs"; fi
  fi
  if [ -n "$bad" ]; then
    echo "run-batch-bench: $name FAILED: $bad" >&2
    med[$name]=FAILED; status=1; continue
  fi
  sorted=$(printf '%s\n' "${ts[@]}" | sort -g)
  med[$name]=$(echo "$sorted" | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}')
  best[$name]=$(echo "$sorted" | head -n 1)
  bytes[$name]=$b; filters[$name]=$f
done

fastest=
for k in "${!cases[@]}"; do
  n=${cases[$k]}
  [ "${kinds[$k]}" = peer ] && [ "${med[$n]}" != FAILED ] || continue
  if [ -z "$fastest" ] || awk -v a="${med[$n]}" -v b="${med[$fastest]}" 'BEGIN{exit !(a < b)}'; then fastest=$n; fi
done

echo "| case | seconds (median of $reps) | best | images/s | output bytes | PNG filters of the outputs | vs fastest peer${fastest:+ ($fastest)} |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: |"
echo "case,kind,median_s,best_s,images_per_s,output_bytes,filters,speedup_vs_fastest_peer,command" > "$csv"
for k in "${!cases[@]}"; do
  n=${cases[$k]}
  if [ "${med[$n]}" = FAILED ]; then
    echo "| $n | FAILED | | | | | |"; echo "$n,${kinds[$k]},FAILED,,,,,," >> "$csv"; continue
  fi
  ips=$(awk -v c="$nin" -v t="${med[$n]}" 'BEGIN{printf "%.2f", c / t}')
  sp=
  [ -n "$fastest" ] && sp=$(awk -v a="${med[$fastest]}" -v b="${med[$n]}" 'BEGIN{printf "%.2fx", a / b}')
  fl=${filters[$n]//_/ }
  echo "| $n | ${med[$n]} | ${best[$n]} | $ips | ${bytes[$n]} | ${fl//\//, } | $sp |"
  echo "$n,${kinds[$k]},${med[$n]},${best[$n]},$ips,${bytes[$n]},${fl//\//; },$sp,\"${cmds[$k]//\"/\"\"}\"" >> "$csv"
done
echo
echo "run-batch-bench: CSV in $csv" >&2
exit "$status"
