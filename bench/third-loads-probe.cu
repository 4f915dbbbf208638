/* third-loads-probe: the loads of third_kernel<1, 1> (kernels/resize.cu)
 * at 3x without its arithmetic, for GRAY8 3840x2160 -> 1280x720, against
 * variants of that pattern and a plain 16-byte stream of the source.
 *
 * No GStreamer (built with the CUDA backend, with bench-gpu.cu's sleep), a
 * diagnostic for docs/PERFORMANCE.md ("third_kernel staggers the loads of
 * 1-byte pixels at 3x"): it showed that the kernel's loads alone take
 * 4.8 - 5.0 us of GPU time where the kernel took 6.5, so its arithmetic
 * was not hidden.
 *
 *   build/bench/third-loads-probe       # event-timed, two rounds
 *   PROBE_QUICK=1 ncu --clock-control none \
 *       --metrics gpu__time_duration.sum -k regex:v_ \
 *       build/bench/third-loads-probe
 *
 * v_rows<uint2, R>: the kernel's row loads (not its loads of the pixels
 * either side of a lane's bytes, edge_pixels ()), a lane's 24 bytes as
 * three 8-byte loads of 3 R + 2 rows, blocks of one warp, R output rows
 * (the kernel's R is 2); v_rows<uint4, R>: 48 bytes a lane in 16-byte
 * loads; v_stream: every source byte once. The rows are xor-ed and stored
 * so that no load is dead. Medians of 200 launches after 20, each between
 * a CUDA event pair, queued behind a GPU sleep (bench_gpu_sleep ()); 16
 * frames (constant bytes) rotated, beyond L2. Every CUDA call and launch
 * is checked: a failure prints the call and exits with status 1. */
#include "bench-gpu.h"
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call) check ((call), #call)

namespace {

constexpr int W = 3840, H = 2160, OW = 1280, OH = 720;
constexpr int kFrames = 16;

void
check (cudaError_t err, const char *what)
{
  if (err != cudaSuccess) {
    fprintf (stderr, "third-loads-probe: %s: %s (%s)\n", what,
        cudaGetErrorName (err), cudaGetErrorString (err));
    exit (1);
  }
}

__device__ void
xor_into (uint2 & s, uint2 v)
{
  s.x ^= v.x;
  s.y ^= v.y;
}

__device__ void
xor_into (uint4 & s, uint4 v)
{
  s.x ^= v.x;
  s.y ^= v.y;
  s.z ^= v.z;
  s.w ^= v.w;
}

/* A lane's 3 sizeof (V) bytes as three loads of V, of 3 R + 2 rows, in
 * blocks of one warp, giving R output rows of sizeof (V) bytes: with V =
 * uint2 and R = 2, third_kernel<1, 1>'s pattern. Whole warps stay; lanes
 * past the row load zeros and store nothing. */
template <typename V, int R>
__global__ void
v_rows (const uint8_t * src, uint8_t * dst)
{
  constexpr int J = 3 * R + 2, B = sizeof (V);
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int xi = 3 * B * t, x0 = B * t;
  const int y0 = blockIdx.y * R;
  V v[J][3];

  if (3 * B * (t & ~31) >= W)
    return;
#pragma unroll
  for (int j = 0; j < J; j++) {
    const int yi = min (max (3 * y0 - 1 + j, 0), H - 1);
    const uint8_t *row = src + (size_t) yi * W;

#pragma unroll
    for (int k = 0; k < 3; k++)
      v[j][k] = xi + 3 * B <= W ? __ldg ((const V *) (row + xi + B * k)) :
          V { };
  }
#pragma unroll
  for (int r = 0; r < R; r++) {
    V s = { };

#pragma unroll
    for (int j = 3 * r; j < 3 * r + 5; j++)
#pragma unroll
      for (int k = 0; k < 3; k++)
        xor_into (s, v[j][k]);
    if (y0 + r < OH && x0 < OW)
      *(V *) (dst + (size_t) (y0 + r) * OW + x0) = s;
  }
}

/* every source vector once, grid-stride; the destination from the xor */
__global__ void
v_stream (const uint4 * src, size_t n, uint4 * dst, size_t m)
{
  const size_t first = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  uint4 s = make_uint4 (0, 0, 0, 0);

  for (size_t i = first; i < n; i += stride) {
    const uint4 a = __ldg (src + i);

    s.x ^= a.x;
    s.y ^= a.y;
    s.z ^= a.z;
    s.w ^= a.w;
  }
  for (size_t i = first; i < m; i += stride)
    dst[i] = s;
}

}  // namespace

int
main ()
{
  const bool quick = getenv ("PROBE_QUICK") != nullptr;
  const int warmup = quick ? 2 : 20, batches = quick ? 1 : 4;
  const int batch = quick ? 10 : 50, rounds = quick ? 1 : 2;
  std::vector<uint8_t *> s (kFrames), d (kFrames);
  std::vector<cudaEvent_t> ev (2 * batch);
  int sms = 0;

  for (int f = 0; f < kFrames; f++) {
    CHECK_CUDA (cudaMalloc (&s[f], (size_t) W * H));
    CHECK_CUDA (cudaMalloc (&d[f], (size_t) OW * OH));
    CHECK_CUDA (cudaMemset (s[f], f, (size_t) W * H));
  }
  for (auto & e : ev)
    CHECK_CUDA (cudaEventCreate (&e));
  CHECK_CUDA (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
          0));
  /* @launch (f) on frame f, timed as bench-resize times a kernel */
  auto run = [&](const char *name, auto launch) {
    std::vector<float> t;

    for (int i = 0; i < warmup; i++) {
      launch (i % kFrames);
      CHECK_CUDA (cudaGetLastError ());
    }
    for (int b = 0; b < batches; b++) {
      CHECK_CUDA (bench_gpu_sleep (3000, 0));
      for (int j = 0; j < batch; j++) {
        CHECK_CUDA (cudaEventRecord (ev[2 * j]));
        launch ((b * batch + j) % kFrames);
        CHECK_CUDA (cudaGetLastError ());
        CHECK_CUDA (cudaEventRecord (ev[2 * j + 1]));
      }
      CHECK_CUDA (cudaDeviceSynchronize ());
      for (int j = 0; j < batch; j++) {
        float ms;

        CHECK_CUDA (cudaEventElapsedTime (&ms, ev[2 * j], ev[2 * j + 1]));
        t.push_back (ms * 1000);
      }
    }
    std::sort (t.begin (), t.end ());
    printf ("%-34s median %5.2f min %5.2f us\n", name, t[t.size () / 2],
        t[0]);
  };
  const size_t n = (size_t) W * H / 16, m = (size_t) OW * OH / 16;
  const unsigned ours_x = (W / 24 + 31) / 32, wide_x = (W / 48 + 31) / 32;

  for (int round = 0; round < rounds; round++) {
    run ("ours R2 (8-byte x3, 32-thr blocks)", [&](int f) {
          v_rows<uint2, 2><<<dim3 (ours_x, OH / 2), 32>>> (s[f], d[f]);
        });
    run ("ours R4", [&](int f) {
          v_rows<uint2, 4><<<dim3 (ours_x, OH / 4), 32>>> (s[f], d[f]);
        });
    run ("ours R1", [&](int f) {
          v_rows<uint2, 1><<<dim3 (ours_x, OH), 32>>> (s[f], d[f]);
        });
    run ("wide R2 (16-byte x3)", [&](int f) {
          v_rows<uint4, 2><<<dim3 (wide_x, OH / 2), 32>>> (s[f], d[f]);
        });
    run ("wide R1", [&](int f) {
          v_rows<uint4, 1><<<dim3 (wide_x, OH), 32>>> (s[f], d[f]);
        });
    run ("stream 16-byte, 2 blocks/SM x 1024", [&](int f) {
          v_stream<<<2 * sms, 1024>>> ((const uint4 *) s[f], n,
              (uint4 *) d[f], m);
        });
    run ("stream 16-byte, 1 thread/vec", [&](int f) {
          v_stream<<<(n + 255) / 256, 256>>> ((const uint4 *) s[f], n,
              (uint4 *) d[f], m);
        });
  }
  for (auto & e : ev)
    CHECK_CUDA (cudaEventDestroy (e));
  for (int f = 0; f < kFrames; f++) {
    CHECK_CUDA (cudaFree (s[f]));
    CHECK_CUDA (cudaFree (d[f]));
  }
  return 0;
}
