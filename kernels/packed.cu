/* Packed 4:2:2 to planar and back (see packed.h): one thread per
 * macropixel, its four bytes read (or written) as one 32-bit word where
 * the rows allow it. */
#include "packed.h"

#include <cuda_runtime.h>

namespace {

struct PackedArgs {
  uint8_t *packed;
  size_t packed_pitch;
  uint8_t *plane[3];            /* Y, U, V of the planar image */
  size_t pitch[3];
  int width, height, macropixels;
  CfPackedOffsets o;
  bool words;                   /* 4-byte aligned rows: one word per
                                 * macropixel */
};

__global__ void
unpack_kernel (PackedArgs a)
{
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (m >= a.macropixels)
    return;
  const uint8_t *in = a.packed + (size_t) y * a.packed_pitch + 4 * m;
  uint8_t b[4];
  if (a.words) {
    const uint32_t w = *(const uint32_t *) in;
    for (int k = 0; k < 4; k++)
      b[k] = (uint8_t) (w >> (8 * k));
  } else {
    for (int k = 0; k < 4; k++)
      b[k] = in[k];
  }
  uint8_t *luma = a.plane[0] + (size_t) y * a.pitch[0];
  luma[2 * m] = b[a.o.y0];
  if (2 * m + 1 < a.width)
    luma[2 * m + 1] = b[a.o.y1];
  a.plane[1][(size_t) y * a.pitch[1] + m] = b[a.o.u];
  a.plane[2][(size_t) y * a.pitch[2] + m] = b[a.o.v];
}

__global__ void
pack_kernel (PackedArgs a)
{
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (m >= a.macropixels)
    return;
  const uint8_t *luma = a.plane[0] + (size_t) y * a.pitch[0];
  uint8_t b[4];
  b[a.o.y0] = luma[2 * m];
  b[a.o.y1] = luma[2 * m + 1 < a.width ? 2 * m + 1 : 2 * m];
  b[a.o.u] = a.plane[1][(size_t) y * a.pitch[1] + m];
  b[a.o.v] = a.plane[2][(size_t) y * a.pitch[2] + m];
  uint8_t *out = a.packed + (size_t) y * a.packed_pitch + 4 * m;
  if (a.words) {
    *(uint32_t *) out = b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16
        | (uint32_t) b[3] << 24;
  } else {
    for (int k = 0; k < 4; k++)
      out[k] = b[k];
  }
}

cudaError_t
launch (const CfImage * packed, const CfImage * planar, bool unpack,
    cudaStream_t stream)
{
  PackedArgs a;

  if (cf_packed_check (packed, planar, &a.o) != 0)
    return cudaErrorInvalidValue;
  a.packed = (uint8_t *) packed->data[0];
  a.packed_pitch = packed->pitch[0];
  for (int p = 0; p < 3; p++) {
    a.plane[p] = (uint8_t *) planar->data[p];
    a.pitch[p] = planar->pitch[p];
  }
  a.width = packed->width;
  a.height = packed->height;
  a.macropixels = (packed->width + 1) / 2;
  a.words = ((uintptr_t) a.packed | a.packed_pitch) % 4 == 0;
  const dim3 block (256);
  const dim3 grid ((a.macropixels + 255) / 256, a.height);
  if (unpack)
    unpack_kernel<<<grid, block, 0, stream>>> (a);
  else
    pack_kernel<<<grid, block, 0, stream>>> (a);
  return cudaGetLastError ();
}

}  // namespace

extern "C" cudaError_t
cf_packed_unpack_cuda (const CfImage * d_src, const CfImage * d_dst,
    cudaStream_t stream)
{
  return launch (d_src, d_dst, true, stream);
}

extern "C" cudaError_t
cf_packed_pack_cuda (const CfImage * d_src, const CfImage * d_dst,
    cudaStream_t stream)
{
  return launch (d_dst, d_src, false, stream);
}
