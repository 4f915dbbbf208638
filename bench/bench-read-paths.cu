/* bench-read-paths: how fast can a kernel read a frame on this GPU?
 *
 * The statistics kernel (kernels/stats.cu) reads every byte of a frame
 * once; its time has the read as a floor. This program times read-only
 * kernels (each XORs what it reads, so the loads stay) over a 4K RGBA frame
 * (33.2 MB) and a 4K NV12 one as a single buffer (12.4 MB), six frames
 * rotated so that L2 (50 MB on the H100) holds none:
 * - grid-stride 16-byte loads, 2 or 1 blocks of 1024 threads a
 *   multiprocessor (the first is bench-stats' "read frame only" ceiling),
 *   4 or 8 loads in flight a thread;
 * - a contiguous chunk a block, 4 or 8 loads in flight;
 * - 1D bulk copies (the Tensor Memory Accelerator, cp.async.bulk) into a
 *   ring of shared-memory stages completing on mbarriers, the threads
 *   reading each stage from shared memory (stages x bytes, threads, blocks
 *   a multiprocessor);
 * and a device-to-device copy of the same bytes. Timing as bench-common's
 * time_launches (): an event pair around each launch, batches of 50
 * queued, median of 200 after 20 warm-up; "back to back": one event pair
 * around 50 launches, over 50 (median of 4 batches).
 *
 * No GStreamer; run it on the GPU host: ./build-gpu/bench/bench-read-paths
 */
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf (stderr, "bench-read-paths: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString (e)); exit (1);} } while (0)

__device__ unsigned int g_sink;

__global__ void __launch_bounds__ (1024, 1)
k_stride (const uint4 *d, unsigned long long n)
{
  unsigned x = 0;
  for (unsigned long long i = blockIdx.x * 1024ull + threadIdx.x; i < n;
      i += (unsigned long long) gridDim.x * 1024) {
    uint4 v = __ldcs (d + i);
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u) g_sink = x;
}

template <int U>
__global__ void __launch_bounds__ (1024, 1)
k_unroll (const uint4 *d, unsigned long long n)
{
  unsigned x = 0;
  const unsigned long long step = (unsigned long long) gridDim.x * 1024;
  unsigned long long i = blockIdx.x * 1024ull + threadIdx.x;
  for (; i + (U - 1) * step < n; i += U * step) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = __ldcs (d + i + u * step);
#pragma unroll
    for (int u = 0; u < U; u++) x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += step) { uint4 v = __ldcs (d + i); x ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (x == 0x9e3779b9u) g_sink = x;
}

// contiguous chunk per block, U loads in flight per thread
template <int U>
__global__ void __launch_bounds__ (1024, 1)
k_chunk (const uint4 *d, unsigned long long n)
{
  unsigned x = 0;
  const unsigned long long per = (n + gridDim.x - 1) / gridDim.x;
  const unsigned long long b0 = blockIdx.x * per, b1 = min (n, b0 + per);
  unsigned long long i = b0 + threadIdx.x;
  for (; i + (U - 1) * 1024 < b1; i += U * 1024) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = __ldcs (d + i + u * 1024);
#pragma unroll
    for (int u = 0; u < U; u++) x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < b1; i += 1024) { uint4 v = __ldcs (d + i); x ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (x == 0x9e3779b9u) g_sink = x;
}

// 1D bulk copies (TMA) into a ring of S stages of B bytes, contiguous chunk
// per block; all threads read each stage from shared memory.
__device__ __forceinline__ void mbar_init (unsigned long long *b, unsigned c)
{
  asm volatile ("mbarrier.init.shared.b64 [%0], %1;" ::
      "r" ((unsigned) __cvta_generic_to_shared (b)), "r" (c));
}
__device__ __forceinline__ void mbar_expect (unsigned long long *b, unsigned bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::
      "r" ((unsigned) __cvta_generic_to_shared (b)), "r" (bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait (unsigned long long *b, unsigned phase)
{
  asm volatile ("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
      " @!p bra W;\n}" :: "r" ((unsigned) __cvta_generic_to_shared (b)), "r" (phase) : "memory");
}
__device__ __forceinline__ void bulk (void *dst, const void *src, unsigned bytes,
    unsigned long long *b)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1], %2, [%3];" :: "r" ((unsigned) __cvta_generic_to_shared (dst)),
      "l" (src), "r" (bytes), "r" ((unsigned) __cvta_generic_to_shared (b)) : "memory");
}

template <int S, int B, int T>
__global__ void __launch_bounds__ (T, 1)
k_bulk (const uint4 *d, unsigned long long n)
{
  extern __shared__ __align__ (128) uint4 sm[];
  __shared__ unsigned long long bar[S];
  constexpr int V = B / 16;
  const unsigned long long per = ((n + gridDim.x - 1) / gridDim.x + V - 1) / V * V;
  const unsigned long long b0 = blockIdx.x * per, b1 = min (n, b0 + per);
  const long long n_tiles = b1 > b0 ? (long long) ((b1 - b0 + V - 1) / V) : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; s++) mbar_init (&bar[s], 1);
    asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads ();
  if (threadIdx.x == 0)
    for (int s = 0; s < S && s < n_tiles; s++) {
      const unsigned long long o = b0 + (unsigned long long) s * V;
      const unsigned bytes = (unsigned) (min ((unsigned long long) V, b1 - o) * 16);
      mbar_expect (&bar[s], bytes);
      bulk (sm + s * V, d + o, bytes, &bar[s]);
    }
  unsigned x = 0;
  for (long long t = 0; t < n_tiles; t++) {
    const int s = t % S;
    mbar_wait (&bar[s], (t / S) & 1);
    const unsigned long long o = b0 + (unsigned long long) t * V;
    const int nv = (int) min ((unsigned long long) V, b1 - o);
    for (int i = threadIdx.x; i < nv; i += T) { uint4 v = sm[s * V + i]; x ^= v.x ^ v.y ^ v.z ^ v.w; }
    __syncthreads ();
    if (threadIdx.x == 0 && t + S < n_tiles) {
      const unsigned long long o2 = b0 + (unsigned long long) (t + S) * V;
      const unsigned bytes = (unsigned) (min ((unsigned long long) V, b1 - o2) * 16);
      mbar_expect (&bar[s], bytes);
      bulk (sm + s * V, d + o2, bytes, &bar[s]);
    }
  }
  if (x == 0x9e3779b9u) g_sink = x;
}

typedef void (*Launch) (const uint4 *, unsigned long long, int sms);

// as bench-common's time_launches (): batches of 50 launches, an event pair
// around each, synchronised after the batch; median of 200. *b2b: the same
// launches back to back, one event pair around each batch of 50.
static float
timeit (Launch f, std::vector<uint4 *> &frames, unsigned long long n, int sms,
    float *b2b)
{
  const int B = 50;
  static cudaEvent_t ev[2 * B];
  static bool made = false;
  if (!made) { for (auto &x : ev) CK (cudaEventCreate (&x)); made = true; }
  std::vector<float> t, tb;
  for (int i = 0; i < 20; i++) f (frames[i % frames.size ()], n, sms);
  CK (cudaDeviceSynchronize ());
  for (int i = 0; i < 200; i += B) {
    for (int j = 0; j < B; j++) {
      CK (cudaEventRecord (ev[2 * j]));
      f (frames[(i + j) % frames.size ()], n, sms);
      CK (cudaEventRecord (ev[2 * j + 1]));
    }
    CK (cudaDeviceSynchronize ());
    for (int j = 0; j < B; j++) {
      float ms; CK (cudaEventElapsedTime (&ms, ev[2 * j], ev[2 * j + 1]));
      t.push_back (ms * 1000);
    }
  }
  for (int i = 0; i < 4; i++) {
    CK (cudaEventRecord (ev[0]));
    for (int j = 0; j < B; j++) f (frames[j % frames.size ()], n, sms);
    CK (cudaEventRecord (ev[1]));
    CK (cudaDeviceSynchronize ());
    float ms; CK (cudaEventElapsedTime (&ms, ev[0], ev[1]));
    tb.push_back (ms * 1000 / B);
  }
  CK (cudaGetLastError ());
  std::sort (t.begin (), t.end ());
  std::sort (tb.begin (), tb.end ());
  *b2b = tb[tb.size () / 2];
  return t[t.size () / 2];
}

template <int S, int B, int T, int PER_SM>
static void L_bulk (const uint4 *d, unsigned long long n, int sms)
{
  static bool set = false;
  if (!set) {
    CK (cudaFuncSetAttribute (k_bulk<S, B, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, S * B));
    set = true;
  }
  k_bulk<S, B, T><<<sms * PER_SM, T, S * B>>> (d, n);
}
static void L_stride (const uint4 *d, unsigned long long n, int sms) { k_stride<<<sms * 2, 1024>>> (d, n); }
static void L_stride1 (const uint4 *d, unsigned long long n, int sms) { k_stride<<<sms, 1024>>> (d, n); }
template <int U> static void L_unroll (const uint4 *d, unsigned long long n, int sms) { k_unroll<U><<<sms, 1024>>> (d, n); }
template <int U> static void L_chunk (const uint4 *d, unsigned long long n, int sms) { k_chunk<U><<<sms, 1024>>> (d, n); }

int
main ()
{
  int sms; CK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop; CK (cudaGetDeviceProperties (&prop, 0));
  printf ("%s, %d multiprocessors\n", prop.name, sms);
  const unsigned long long sizes[2] = { 3840ull * 2160 * 4, 3840ull * 2160 * 3 / 2 };
  const char *names[2] = { "4K RGBA", "4K NV12" };
  struct { const char *name; Launch f; } ks[] = {
    {"stride 2x1024/SM (bench ceiling)", L_stride},
    {"stride 1x1024/SM", L_stride1},
    {"stride unroll 4", L_unroll<4>},
    {"stride unroll 8", L_unroll<8>},
    {"chunk unroll 4", L_chunk<4>},
    {"chunk unroll 8", L_chunk<8>},
    {"bulk 8x16KB 256t", L_bulk<8, 16384, 256, 1>},
    {"bulk 6x32KB 256t", L_bulk<6, 32768, 256, 1>},
    {"bulk 12x16KB 512t", L_bulk<12, 16384, 512, 1>},
    {"bulk 4x24KB 256t 2/SM", L_bulk<4, 24576, 256, 2>},
    {"bulk 8x8KB 128t 3/SM", L_bulk<8, 8192, 128, 3>},
  };
  for (int z = 0; z < 2; z++) {
    std::vector<uint4 *> frames (6);
    for (auto &f : frames) { CK (cudaMalloc (&f, sizes[z])); CK (cudaMemset (f, 7, sizes[z])); }
    const unsigned long long n = sizes[z] / 16;
    printf ("%s (%.1f MB)\n", names[z], sizes[z] / 1e6);
    for (int round = 0; round < 2; round++)
      for (auto &k : ks) {
        float b2b, us = timeit (k.f, frames, n, sms, &b2b);
        printf ("  %-34s %7.2f us  %6.2f TB/s   back to back %7.2f us  %6.2f TB/s\n",
            k.name, us, sizes[z] / us / 1e6, b2b, sizes[z] / b2b / 1e6);
      }
    {
      // d2d copy of the same bytes, for scale
      uint4 *dst; CK (cudaMalloc (&dst, sizes[z]));
      cudaEvent_t a, b; cudaEventCreate (&a); cudaEventCreate (&b);
      std::vector<float> t;
      for (int i = 0; i < 220; i++) {
        cudaEventRecord (a);
        CK (cudaMemcpyAsync (dst, frames[i % 6], sizes[z], cudaMemcpyDeviceToDevice));
        cudaEventRecord (b); cudaEventSynchronize (b);
        float ms; cudaEventElapsedTime (&ms, a, b); if (i >= 20) t.push_back (ms * 1000);
      }
      std::sort (t.begin (), t.end ());
      printf ("  %-34s %7.2f us\n", "d2d copy (read+write)", t[t.size () / 2]);
      cudaFree (dst);
    }
    for (auto f : frames) cudaFree (f);
  }
  return 0;
}
