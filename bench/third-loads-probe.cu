/* third-loads-probe: the loads of third_kernel<1, 1> (kernels/resize.cu)
 * at 3x without its arithmetic, for GRAY8 3840x2160 -> 1280x720, against
 * variants of that pattern and a plain 16-byte stream of the source.
 *
 * Self-contained (no project headers; built with the CUDA backend), a
 * diagnostic for docs/PERFORMANCE.md ("third_kernel staggers the loads of 1-byte pixels
 * at 3x"): it showed that the kernel's loads alone take 4.8 - 5.0 us of
 * GPU time where the kernel took 6.5, so its arithmetic was not hidden.
 *
 *   build/bench/third-loads-probe       # event-timed, two rounds
 *   PROBE_QUICK=1 ncu --clock-control none \
 *       --metrics gpu__time_duration.sum -k regex:v_ \
 *       build/bench/third-loads-probe
 *
 * v_ours<R>: main's pattern (a lane's 24 bytes as three 8-byte loads, 3 R
 * + 2 rows, blocks of one warp, R output rows); v_wide<R>: 48 bytes a lane
 * in 16-byte loads; v_stream: every source byte once. The rows are xor-ed
 * and stored so that no load is dead. Medians of 200 launches after 20,
 * each between a CUDA event pair, queued behind a GPU sleep; 16 frames
 * rotated (beyond L2). Every CUDA call is checked. */
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cstdlib>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
constexpr int W = 3840, H = 2160, OW = 1280, OH = 720, NF = 16;

// V0: main's pattern: lane = 24 bytes (3 x 8-byte loads) of ROWS rows (3*R+2), 32-thread blocks, R output rows
template <int R>
__global__ void v_ours (const uint8_t * src, uint8_t * dst)
{
  constexpr int J = 3 * R + 2;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int xi = 24 * t, x0 = 8 * t;
  const int y0 = blockIdx.y * R;
  if (24 * (t & ~31) >= W) return;
  uint2 v[J][3];
#pragma unroll
  for (int j = 0; j < J; j++) {
    const int yi = min (max (3 * y0 - 1 + j, 0), H - 1);
    const uint8_t *row = src + (size_t) yi * W;
#pragma unroll
    for (int k = 0; k < 3; k++)
      v[j][k] = xi + 24 <= W ? __ldg ((const uint2 *) (row + xi + 8 * k)) : make_uint2 (0, 0);
  }
#pragma unroll
  for (int r = 0; r < R; r++) {
    uint2 s = make_uint2 (0, 0);
#pragma unroll
    for (int j = 3 * r; j < 3 * r + 5; j++)
#pragma unroll
      for (int k = 0; k < 3; k++) { s.x ^= v[j][k].x; s.y ^= v[j][k].y; }
    if (y0 + r < OH && x0 < OW) *(uint2 *) (dst + (size_t) (y0 + r) * OW + x0) = s;
  }
}

// V1: lane = 48 bytes (3 x 16-byte loads), 16 output bytes, R output rows
template <int R>
__global__ void v_wide (const uint8_t * src, uint8_t * dst)
{
  constexpr int J = 3 * R + 2;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int xi = 48 * t, x0 = 16 * t;
  const int y0 = blockIdx.y * R;
  if (xi >= W) return;
  uint4 v[J][3];
#pragma unroll
  for (int j = 0; j < J; j++) {
    const int yi = min (max (3 * y0 - 1 + j, 0), H - 1);
    const uint8_t *row = src + (size_t) yi * W;
#pragma unroll
    for (int k = 0; k < 3; k++)
      v[j][k] = __ldg ((const uint4 *) (row + xi + 16 * k));
  }
#pragma unroll
  for (int r = 0; r < R; r++) {
    uint4 s = make_uint4 (0, 0, 0, 0);
#pragma unroll
    for (int j = 3 * r; j < 3 * r + 5; j++)
#pragma unroll
      for (int k = 0; k < 3; k++) { s.x ^= v[j][k].x; s.y ^= v[j][k].y; s.z ^= v[j][k].z; s.w ^= v[j][k].w; }
    if (y0 + r < OH && x0 < OW) *(uint4 *) (dst + (size_t) (y0 + r) * OW + x0) = s;
  }
}

// V2: plain stream: every source byte once in 16-byte loads, grid-stride, 256 threads, dst written from the xor
__global__ void v_stream (const uint4 * src, size_t n, uint4 * dst, size_t m)
{
  uint4 s = make_uint4 (0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x) {
    uint4 a = __ldg (src + i); s.x ^= a.x; s.y ^= a.y; s.z ^= a.z; s.w ^= a.w;
  }
  const size_t o = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  for (size_t i = o; i < m; i += (size_t) gridDim.x * blockDim.x) dst[i] = s;
}

__global__ void sleep_k (unsigned long long ns)
{
  unsigned long long a, b;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (a));
  do { __nanosleep (1000); asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (b)); } while (b - a < ns);
}

int main ()
{
  std::vector<uint8_t *> s (NF), d (NF);
  for (int f = 0; f < NF; f++) { CK (cudaMalloc (&s[f], (size_t) W * H)); CK (cudaMalloc (&d[f], (size_t) OW * OH)); CK (cudaMemset (s[f], f, (size_t) W * H)); }
  cudaEvent_t e0, e1; CK (cudaEventCreate (&e0)); CK (cudaEventCreate (&e1));
  int sms; CK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<cudaEvent_t> ev (100);
  for (auto & e : ev) CK (cudaEventCreate (&e));
  auto run = [&](const char *name, auto launch) {
    std::vector<float> t;
    const bool quick = getenv ("PROBE_QUICK") != nullptr;
    for (int i = 0; i < (quick ? 2 : 20); i++) launch (i % NF);
    for (int b = 0; b < (quick ? 1 : 4); b++) {
      sleep_k<<<1, 1>>> (3000000ull);
      for (int j = 0; j < (quick ? 10 : 50); j++) { CK (cudaEventRecord (ev[2 * j])); launch ((b * 50 + j) % NF); CK (cudaGetLastError ()); CK (cudaEventRecord (ev[2 * j + 1])); }
      CK (cudaDeviceSynchronize ());
      for (int j = 0; j < (quick ? 10 : 50); j++) { float ms; CK (cudaEventElapsedTime (&ms, ev[2 * j], ev[2 * j + 1])); t.push_back (ms * 1000); }
    }
    std::sort (t.begin (), t.end ());
    printf ("%-34s median %5.2f min %5.2f us\n", name, t[t.size () / 2], t[0]);
    return 0;
  };
  for (int round = 0; round < (getenv ("PROBE_QUICK") ? 1 : 2); round++) {
    run ("ours R2 (8-byte x3, 32-thr blocks)", [&](int f) { v_ours<2><<<dim3 ((W / 24 + 31) / 32, OH / 2), 32>>> (s[f], d[f]); });
    run ("ours R4", [&](int f) { v_ours<4><<<dim3 ((W / 24 + 31) / 32, OH / 4), 32>>> (s[f], d[f]); });
    run ("ours R1", [&](int f) { v_ours<1><<<dim3 ((W / 24 + 31) / 32, OH), 32>>> (s[f], d[f]); });
    run ("wide R2 (16-byte x3)", [&](int f) { v_wide<2><<<dim3 ((W / 48 + 31) / 32, OH / 2), 32>>> (s[f], d[f]); });
    run ("wide R1", [&](int f) { v_wide<1><<<dim3 ((W / 48 + 31) / 32, OH), 32>>> (s[f], d[f]); });
    run ("stream 16-byte, 2 blocks/SM x 1024", [&](int f) { v_stream<<<2 * sms, 1024>>> ((const uint4 *) s[f], (size_t) W * H / 16, (uint4 *) d[f], (size_t) OW * OH / 16); });
    run ("stream 16-byte, 1 thread/vec", [&](int f) { v_stream<<<(W * H / 16 + 255) / 256, 256>>> ((const uint4 *) s[f], (size_t) W * H / 16, (uint4 *) d[f], (size_t) OW * OH / 16); });
  }
  return 0;
}
