/* Device helpers of the benchmarks (see bench-common.h). */
#include "bench-gpu.h"

#include <cuda_runtime.h>

namespace {

/* Spins on the global timer, sleeping between looks. */
__global__ void
sleep_kernel (unsigned long long ns)
{
  unsigned long long start, now;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (start));
  do {
    __nanosleep (1000);
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (now));
  } while (now - start < ns);
}

/* One block a span: reads it (16-byte loads, kBatch in flight a thread,
 * a checksum kept) or writes it. */
constexpr int kBatch = 4;

__global__ void
traffic_kernel (const uint8_t * src, uint8_t * dst, const BenchSpan * spans,
    unsigned int *sink)
{
  const BenchSpan sp = spans[blockIdx.x];
  unsigned int x = 0;

  if (sp.write) {
    uint4 *d = (uint4 *) (dst + sp.offset);
    for (unsigned int i = threadIdx.x; i < sp.n_vecs; i += blockDim.x)
      d[i] = make_uint4 (i, i, i, i);
    return;
  }
  const uint4 *s = (const uint4 *) (src + sp.offset);
  for (unsigned int i = threadIdx.x; i < sp.n_vecs; i += kBatch * blockDim.x) {
    uint4 v[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; k++)
      v[k] = i + k * blockDim.x < sp.n_vecs ? s[i + k * blockDim.x] :
          make_uint4 (0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < kBatch; k++)
      x ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (x == 0x9e3779b9u)         /* keeps the loads; practically never true */
    *sink = x;
}

}  // namespace

extern "C" cudaError_t
bench_gpu_sleep (unsigned int microseconds, cudaStream_t stream)
{
  sleep_kernel<<<1, 1, 0, stream>>> (1000ull * microseconds);
  return cudaGetLastError ();
}

extern "C" cudaError_t
bench_gpu_traffic (const uint8_t * src, uint8_t * dst,
    const BenchSpan * d_spans, int n_spans, unsigned int *d_sink,
    cudaStream_t stream)
{
  traffic_kernel<<<n_spans, 256, 0, stream>>> (src, dst, d_spans, d_sink);
  return cudaGetLastError ();
}
