/* Device helpers of the benchmarks (see bench-common.h). */
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

}  // namespace

extern "C" cudaError_t
bench_gpu_sleep (unsigned int microseconds, cudaStream_t stream)
{
  sleep_kernel<<<1, 1, 0, stream>>> (1000ull * microseconds);
  return cudaGetLastError ();
}
