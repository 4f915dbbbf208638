/* bench-copy-engines: why the statistics do not travel by cudaMemcpyAsync.
 *
 * A 4K RGBA frame (33 MB) is copied between pinned host memory and the
 * device on one stream; right after, on other streams that start with it
 * (an event), a CfStats-sized copy (4200 bytes) goes the same way, once by
 * cudaMemcpyAsync and once by a one-block kernel reading or writing the
 * page-locked host memory directly (what cf_stats_cuda () and
 * cf_stats_copy_cuda () do). Printed: when each finished, µs after the
 * start, for six rounds of: the frame downloaded; the frame downloaded
 * while another is uploaded; the frame uploaded. On the H100 the small
 * download finished only after the frame's (about 655 µs against 15 µs
 * by the kernel): a copy engine runs its copies one after another,
 * whatever their streams.
 *
 * No GStreamer; run it on the GPU host: ./build-gpu/bench/bench-copy-engines
 */
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do {                                                      \
    cudaError_t e_ = (x);                                               \
    if (e_ != cudaSuccess) {                                            \
      fprintf (stderr, "bench-copy-engines: %s:%d: %s\n", __FILE__,     \
          __LINE__, cudaGetErrorString (e_));                           \
      return 1;                                                         \
    }                                                                   \
  } while (0)

__global__ void
copy_words (unsigned *dst, const unsigned *src, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
}

int
main ()
{
  const size_t big = 3840ull * 2160 * 4, small = 4200;
  void *d_big, *h_big, *d_big2, *h_big2, *d_small, *h_small, *h_small2;
  cudaStream_t s[4];
  cudaEvent_t e0, e_big, e_copy, e_kernel;
  cudaDeviceProp prop;
  int engines;

  CK (cudaGetDeviceProperties (&prop, 0));
  CK (cudaDeviceGetAttribute (&engines, cudaDevAttrAsyncEngineCount, 0));
  printf ("device: %s, %d copy engines\n", prop.name, engines);
  CK (cudaMalloc (&d_big, big));
  CK (cudaMalloc (&d_big2, big));
  CK (cudaMalloc (&d_small, small));
  CK (cudaHostAlloc (&h_big, big, cudaHostAllocPortable));
  CK (cudaHostAlloc (&h_big2, big, cudaHostAllocPortable));
  CK (cudaHostAlloc (&h_small, small, cudaHostAllocPortable));
  CK (cudaHostAlloc (&h_small2, small, cudaHostAllocPortable |
          cudaHostAllocMapped));
  for (int i = 0; i < 4; i++)
    CK (cudaStreamCreateWithFlags (&s[i], cudaStreamNonBlocking));
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e_big));
  CK (cudaEventCreate (&e_copy));
  CK (cudaEventCreate (&e_kernel));
  /* mode 0: download; 1: download during an upload; 2: upload */
  for (int mode = 0; mode < 3; mode++) {
    const bool up = mode == 2;
    const cudaMemcpyKind kind = up ? cudaMemcpyHostToDevice :
        cudaMemcpyDeviceToHost;

    for (int round = 0; round < 6; round++) {
      float t_big, t_copy, t_kernel;

      CK (cudaDeviceSynchronize ());
      CK (cudaEventRecord (e0, s[0]));
      CK (cudaMemcpyAsync (up ? d_big : h_big, up ? h_big : d_big, big, kind,
              s[0]));
      CK (cudaEventRecord (e_big, s[0]));
      if (mode == 1)
        CK (cudaMemcpyAsync (d_big2, h_big2, big, cudaMemcpyHostToDevice,
                s[3]));
      CK (cudaStreamWaitEvent (s[1], e0, 0));
      CK (cudaStreamWaitEvent (s[2], e0, 0));
      CK (cudaMemcpyAsync (up ? d_small : h_small, up ? h_small : d_small,
              small, kind, s[1]));
      CK (cudaEventRecord (e_copy, s[1]));
      copy_words <<< 1, 256, 0, s[2] >>> ((unsigned *) (up ? d_small :
              h_small2), (const unsigned *) (up ? h_small2 : d_small),
          (int) (small / 4));
      CK (cudaGetLastError ());
      CK (cudaEventRecord (e_kernel, s[2]));
      CK (cudaDeviceSynchronize ());
      CK (cudaEventElapsedTime (&t_big, e0, e_big));
      CK (cudaEventElapsedTime (&t_copy, e0, e_copy));
      CK (cudaEventElapsedTime (&t_kernel, e0, e_kernel));
      printf ("%-22s frame done %7.1f us; 4200 bytes by cudaMemcpyAsync "
          "%7.1f us, by a kernel %7.1f us\n", mode == 0 ? "download:" :
          mode == 1 ? "download during upload:" : "upload:", 1e3 * t_big,
          1e3 * t_copy, 1e3 * t_kernel);
    }
  }
  return 0;
}
