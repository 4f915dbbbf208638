/* Device helpers shared by the kernel families' .cu files (C++ only; the
 * families' interfaces are their plain C headers). */
#ifndef CF_CUDA_COMMON_CUH
#define CF_CUDA_COMMON_CUH

/* Through the read-only data cache on the device; a plain load on the host,
 * where the kernels' per-thread functions can be run against the C
 * references without a GPU. */
template <typename T>
__host__ __device__ __forceinline__ T
ld (const T * p)
{
#ifdef __CUDA_ARCH__
  return __ldg (p);
#else
  return *p;
#endif
}

#endif /* CF_CUDA_COMMON_CUH */
