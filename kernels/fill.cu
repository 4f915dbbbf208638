/* Fills a rectangle of every plane with one colour (see fill.h): one thread
 * per pixel of the plane's rectangle writes its samples, worked out once on
 * the host (values shifted into place, padding). Small work (image
 * borders), so clarity wins over vector stores. */
#include "fill.h"

#include <cuda_runtime.h>

namespace {

struct FillArgs {
  uint8_t *data;
  size_t pitch;
  int x, y, width, height;
  int pixel_bytes, sample_bytes, samples;
  uint16_t value[4];            /* per sample of a pixel, as stored
                                 * (cf_fill_plane_samples ()) */
};

__global__ void
fill_kernel (FillArgs a)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  uint8_t *px = a.data + (size_t) (a.y + y) * a.pitch +
      (size_t) (a.x + x) * a.pixel_bytes;
  for (int k = 0; k < a.samples; k++) {
    px[k * a.sample_bytes] = (uint8_t) a.value[k];
    if (a.sample_bytes == 2)
      px[k * a.sample_bytes + 1] = (uint8_t) (a.value[k] >> 8);
  }
}

}  // namespace

extern "C" cudaError_t
cf_fill_cuda (const CfImage * d_image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS], cudaStream_t stream)
{
  const CfFormatInfo *info;

  if (cf_image_check_planar (d_image) != 0 || !value)
    return cudaErrorInvalidValue;
  info = cf_format_info (d_image->format);
  for (int p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    CfRect r;
    FillArgs a;

    if (!cf_fill_plane_rect (d_image, p, rect, &r))
      continue;
    a.data = (uint8_t *) d_image->data[p];
    a.pitch = d_image->pitch[p];
    a.x = r.x;
    a.y = r.y;
    a.width = r.width;
    a.height = r.height;
    a.pixel_bytes = l->pixel_bytes;
    a.sample_bytes = l->sample_bytes;
    a.samples = l->pixel_bytes / l->sample_bytes;
    cf_fill_plane_samples (d_image->format, p, value, a.value);
    const dim3 block (32, 8);
    const dim3 grid ((a.width + 31) / 32, (a.height + 7) / 8);
    fill_kernel<<<grid, block, 0, stream>>> (a);
  }
  return cudaGetLastError ();
}
