#!/usr/bin/env python3
"""opencv-peer.py: OpenCV's sepFilter2D, the CPU peer of `cudastencil
backend=cpu` in bench/run-cpu-bench.sh: a gaussian of radius R (2R + 1 taps,
sigma as cudastencil's preset: R / 3) along both axes of a W x H 4-channel
8-bit picture (BORDER_REFLECT_101, cudastencil's border=mirror), on N
threads (cv2.setNumThreads). Prints one line: frames/s, the median of
--reps timed runs of --frames calls each, after a warm-up.

  python3 bench/opencv-peer.py --threads 16 [--radius 8] [--size 3840x2160]
"""
import argparse
import sys
import time

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(0)

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--radius", type=int, default=8)
ap.add_argument("--size", default="3840x2160")
ap.add_argument("--frames", type=int, default=20)
ap.add_argument("--reps", type=int, default=3)
a = ap.parse_args()
w, h = (int(v) for v in a.size.split("x"))
cv2.setNumThreads(a.threads)
rng = np.random.default_rng(20241124)
img = rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)
taps = 2 * a.radius + 1
k = cv2.getGaussianKernel(taps, a.radius / 3.0)
dst = np.empty_like(img)
cv2.sepFilter2D(img, -1, k, k, dst=dst, borderType=cv2.BORDER_REFLECT_101)
fps = []
for _ in range(a.reps):
    t0 = time.perf_counter()
    for _ in range(a.frames):
        cv2.sepFilter2D(img, -1, k, k, dst=dst,
                        borderType=cv2.BORDER_REFLECT_101)
    fps.append(a.frames / (time.perf_counter() - t0))
fps.sort()
print(f"{fps[len(fps) // 2]:.1f} fps (OpenCV {cv2.__version__}, "
      f"{cv2.getNumThreads()} threads, {taps} taps, {w}x{h} 4 channels)")
