#!/bin/sh
# Makes clip-320x180.mp4 (H.264 High, 30 frames, 4:2:0, 180 rows: not a
# multiple of 16, so the decoder crops) and clip-320x180.sha1: for each
# frame as a CPU decoder (avdec_h264) decodes it, the SHA-1 of its Y, U and
# V planes (rows without padding). The nvcodec test checks that NVDEC gives
# the same frames before it runs them through the elements.
# Needs x264enc (gstreamer1.0-plugins-ugly), avdec_h264 (gstreamer1.0-libav),
# mp4mux and python3; run it here, in tests/data/h264.
set -eu
cd "$(dirname "$0")"
gst-launch-1.0 -q videotestsrc num-buffers=30 pattern=smpte horizontal-speed=3 ! \
    video/x-raw,width=320,height=180,framerate=30/1 ! \
    x264enc bitrate=300 key-int-max=10 ! video/x-h264,profile=high ! \
    h264parse ! mp4mux ! filesink location=clip-320x180.mp4
tmp=$(mktemp)
gst-launch-1.0 -q filesrc location=clip-320x180.mp4 ! qtdemux ! h264parse ! \
    avdec_h264 ! video/x-raw,format=I420 ! filesink location="$tmp"
python3 - "$tmp" > clip-320x180.sha1 <<'PY'
import hashlib, sys
w, h = 320, 180
cw, ch = (w + 1) // 2, (h + 1) // 2
data = open(sys.argv[1], 'rb').read()
size = w * h + 2 * cw * ch
for f in range(len(data) // size):
    frame = data[f * size:(f + 1) * size]
    y, u, v = frame[:w * h], frame[w * h:w * h + cw * ch], frame[w * h + cw * ch:]
    print(' '.join(hashlib.sha1(p).hexdigest() for p in (y, u, v)))
PY
rm -f "$tmp"
