#!/bin/sh
# bundle-peers.sh [--dedupe GST_BUNDLE] DEST
#
# Copies the peers of bench/run-batch-bench.sh (ImageMagick's mogrify and the
# vips command line, installed here with
#   apt-get install -y imagemagick libvips-tools)
# into DEST, with every shared library they need except the C library's own
# (the host's are used), so that a Linux x86-64 host with a newer C library
# and none of these packages (the GPU host) can run them.  Modelled on
# /work/shared/tools/gst-bundle; gst-launch-1.0 and its png / videoscale
# plugins come from the project's GStreamer bundle (.gpu/gst, gpu-prep), not
# from here.
#
#   DEST/bin/        mogrify, vips, vipsheader
#   DEST/lib/        their shared libraries and those of ImageMagick's png coder
#   DEST/magick/     ImageMagick's png coder module (png.la, png.so), its
#                    configuration (configure.xml) and /etc/ImageMagick-6
#                    (policy.xml included, so resource limits are this
#                    machine's)
#   DEST/photos/     the real photographs that run-batch-bench.sh derives its
#                    4K images from, when they are on this machine (see there)
#   DEST/env.sh      source it (sh or bash, from any folder): PATH,
#                    LD_LIBRARY_PATH, MAGICK_* and VIPSHOME point into DEST
#   DEST.tar.xz      the same, packed (what fits the device's 64 MiB carry);
#                    unpack with  tar -xJf DEST.tar.xz -C PARENT
#
# --dedupe GST_BUNDLE (e.g. .gpu/gst, made by gst-bundle on this machine)
# leaves out every library that GST_BUNDLE/lib holds byte for byte (glib,
# libpng, zlib, cairo, pango, ... : 43 files, 17 MB here), so that the two
# bundles fit the device's carry together; DEST/NEEDS lists them and env.sh
# warns when one of them is not on LD_LIBRARY_PATH: source GST_BUNDLE/env.sh
# first, then this one.
#
# Only the png coder of ImageMagick is bundled, and no vips module (heif,
# jxl, magick, openslide, poppler): the benchmark reads and writes PNG only.
# Sizes on Debian 12 (ImageMagick 6.9.11, vips 8.14): 100 MB, 29 MB packed;
# with --dedupe .gpu/gst 84 MB, 24 MB packed.  Checked: under
# env -i PATH=/usr/bin:/bin with .gpu/gst/env.sh and DEST/env.sh sourced, ldd
# resolves every library of DEST into DEST or .gpu/gst (the C library's
# aside), mogrify loads DEST's png coder, and both resize a 4K PNG; the
# pictures the bundled vips makes are the system vips' bytes.
set -eu
usage="usage: bundle-peers.sh [--dedupe GST_BUNDLE] DEST"
dedupe=
if [ "${1:-}" = --dedupe ]; then
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  dedupe=$2; shift 2
  [ -d "$dedupe/lib" ] || { echo "bundle-peers: $dedupe/lib is not a folder" >&2; exit 2; }
fi
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
dest=$1
sys=/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

mogrify=$(readlink -f /usr/bin/mogrify 2>/dev/null || true)
[ -x "$mogrify" ] || { echo "bundle-peers: no /usr/bin/mogrify (apt-get install imagemagick)" >&2; exit 1; }
[ -x /usr/bin/vips ] || { echo "bundle-peers: no /usr/bin/vips (apt-get install libvips-tools)" >&2; exit 1; }
imdir=$(ls -d "$sys"/ImageMagick-6.*/ 2>/dev/null | head -n 1)
imdir=${imdir%/}
[ -n "$imdir" ] && [ -f "$imdir/modules-Q16/coders/png.la" ] || {
  echo "bundle-peers: no ImageMagick 6 Q16 png coder under $sys/ImageMagick-6.*" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/magick/coders" "$dest/magick/filters" \
  "$dest/magick/config" "$dest/photos"
cp -L "$mogrify" "$dest/bin/mogrify"
cp -L /usr/bin/vips "$dest/bin/vips"
[ ! -x /usr/bin/vipsheader ] || cp -L /usr/bin/vipsheader "$dest/bin/vipsheader"
cp "$imdir/modules-Q16/coders/png.la" "$imdir/modules-Q16/coders/png.so" "$dest/magick/coders/"
# libltdl opens libdir/dlname of a .la first, then dlname beside the .la:
# empty libdir so that only the bundle's png.so is ever used
sed -i "s|^libdir=.*|libdir=''|" "$dest/magick/coders/png.la"
cp "$imdir"/config-Q16/*.xml "$dest/magick/config/"
cp /etc/ImageMagick-6/*.xml "$dest/magick/config/"

skip='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libresolv|libutil|libanl|libnsl|libcuda|libnvidia-.*)\.so'
for f in "$dest"/bin/* "$dest"/magick/coders/*.so; do ldd "$f" 2>/dev/null || true; done |
  awk '/=> \// {print $3}' | sort -u | while read -r lib; do
    b=$(basename "$lib")
    echo "$b" | grep -Eq "$skip" && continue
    if [ -n "$dedupe" ] && cmp -s "$lib" "$dedupe/lib/$b"; then
      echo "$b" >> "$dest/NEEDS"
      continue
    fi
    cp -L "$lib" "$dest/lib/$b"
  done

# Real photographs found on this machine (small; documentation pictures that
# ship with other software).  run-batch-bench.sh makes its 4K set from them.
n=0
for p in \
  /root/.rustup/toolchains/*/share/doc/rust/html/embedded-book/assets/f3.jpg \
  /usr/lib/google-cloud-sdk/platform/google_appengine/google/appengine/tools/java/jetty12/jetty-home/modules/demo.d/root/images/jetty-pic.png; do
  [ -f "$p" ] || continue
  b=$(basename "$p")
  [ -f "$dest/photos/$b" ] && continue
  cp "$p" "$dest/photos/$b"
  echo "$b	$p" >> "$dest/photos/SOURCES"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || echo "bundle-peers: no source photograph found; run-batch-bench.sh will synthesise" >&2

cat > "$dest/env.sh" <<'EOS'
# Source this file (bash or sh, from any folder) to use the bundled peers of
# bench/run-batch-bench.sh: mogrify (ImageMagick 6, png coder only) and vips.
peers_bundle=${PEERS_BUNDLE_DIR:-$(cd "$(dirname "${BASH_SOURCE:-$0}")" && pwd)}
export PATH="$peers_bundle/bin:$PATH"
export LD_LIBRARY_PATH="$peers_bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MAGICK_CODER_MODULE_PATH="$peers_bundle/magick/coders"
export MAGICK_CODER_FILTER_PATH="$peers_bundle/magick/filters"
export MAGICK_CONFIGURE_PATH="$peers_bundle/magick/config"
export MAGICK_HOME="$peers_bundle/magick"
# vips looks for its modules under $VIPSHOME/lib/vips-modules-X.Y: none here
export VIPSHOME="$peers_bundle"
export PEERS_PHOTOS="$peers_bundle/photos"
# libraries left out with --dedupe: they must come from the GStreamer bundle
if [ -f "$peers_bundle/NEEDS" ]; then
  while read -r peers_lib; do
    peers_found=
    peers_ifs=$IFS; IFS=:
    for peers_d in $LD_LIBRARY_PATH; do [ -f "$peers_d/$peers_lib" ] && peers_found=1; done
    IFS=$peers_ifs
    [ -n "$peers_found" ] || [ -f "/usr/lib/x86_64-linux-gnu/$peers_lib" ] ||
      echo "peers env.sh: $peers_lib is not on LD_LIBRARY_PATH: source the GStreamer bundle's env.sh (e.g. .gpu/gst/env.sh) too" >&2
  done < "$peers_bundle/NEEDS"
fi
EOS

parent=$(cd "$(dirname "$dest")" && pwd)
name=$(basename "$dest")
tar -C "$parent" -cJf "$parent/$name.tar.xz" "$name"
du -sh "$dest" "$parent/$name.tar.xz" | sed 's/^/bundle-peers: /'
