/* Device helpers shared by the kernel families' .cu files (C++ only; the
 * families' interfaces are their plain C headers). */
#ifndef CF_CUDA_COMMON_CUH
#define CF_CUDA_COMMON_CUH

#include <stdint.h>

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

#ifdef __CUDACC__
/* c + the two 16-bit halves of @w times bytes 0 and 1 (HI false) or 2 and
 * 3 (HI true) of @b, the bytes unsigned, the halves int16 (SIGNED) or
 * uint16: PTX dp2a, an exact sum (the caller keeps it within int32). */
template <bool HI, bool SIGNED = true>
__device__ __forceinline__ int32_t
dot2 (uint32_t w, uint32_t b, int32_t c)
{
  int32_t d;
  if (SIGNED && HI)
    asm ("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r" (d) : "r" (w), "r" (b),
        "r" (c));
  else if (SIGNED)
    asm ("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r" (d) : "r" (w), "r" (b),
        "r" (c));
  else if (HI)
    asm ("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r" (d) : "r" (w), "r" (b),
        "r" (c));
  else
    asm ("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r" (d) : "r" (w), "r" (b),
        "r" (c));
  return d;
}
#endif

#endif /* CF_CUDA_COMMON_CUH */
