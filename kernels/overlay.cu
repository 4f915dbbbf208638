/* The statistics overlay on the GPU (see overlay.h): one launch per plane,
 * one thread per pixel of the plane's rectangle: the panel's, or the whole
 * plane of channel 0 when zebra is on.
 *
 * A block that meets the panel first works out, in shared memory, what the
 * whole panel needs: the largest bin of each graph channel (a shared
 * atomicMax over the 256 bins, one thread per bin) and the text lines,
 * formatted from the device CfStats by one thread per line. Then each
 * thread draws its pixel exactly as cf_overlay_cpu () does: zebra, then the
 * panel's palette index (text glyph, bar or background) blended into the
 * colour samples. The text, bar and panel rules are the C reference's own
 * code (overlay-shared.h, included by both); the tests compare the bytes.
 *
 * The plan travels by value as a __grid_constant__ kernel argument (about
 * 0.6 KiB: palette and font), so no device memory and no copy per frame.
 * The panel is small and zebra a read-modify-write of one plane: clarity
 * wins over vector loads here.
 */
#include "overlay.h"
#include "cuda-common.cuh"

#include <cuda_runtime.h>

#include <stdint.h>

namespace {

struct Args {
  CfOverlayPlan plan;
  uint8_t *data;
  size_t pitch;
  int plane;
  int x0, y0, width, height;    /* the rectangle drawn, plane samples */
  int pixel_bytes, sample_bytes, samples, shift_x, shift_y;
  int8_t channel[4];
  const CfStats *stats;
  int fps_x10;
};

#include "overlay-shared.h"

__global__ void
overlay_kernel (const __grid_constant__ Args a)
{
  __shared__ unsigned long long s_top[3];
  __shared__ char s_text[CF_OVERLAY_MAX_LINES][CF_OVERLAY_LINE_CHARS + 1];
  __shared__ int s_len[CF_OVERLAY_MAX_LINES];
  const CfOverlayPlan *plan = &a.plan;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int x = a.x0 + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = a.y0 + blockIdx.y * blockDim.y + threadIdx.y;

  /* Does the block meet the panel? The same answer for all its threads. */
  const int bx0 = (a.x0 + (int) (blockIdx.x * blockDim.x)) << a.shift_x;
  const int by0 = (a.y0 + (int) (blockIdx.y * blockDim.y)) << a.shift_y;
  const int bx1 = (a.x0 + (int) ((blockIdx.x + 1) * blockDim.x)) << a.shift_x;
  const int by1 = (a.y0 + (int) ((blockIdx.y + 1) * blockDim.y)) << a.shift_y;
  const bool panel = bx0 < plan->panel_x + plan->panel_width
      && bx1 > plan->panel_x && by0 < plan->panel_y + plan->panel_height
      && by1 > plan->panel_y;

  if (panel) {
    const int n = graph_channels (plan);

    if (tid < 3)
      s_top[tid] = 0;
    if (tid < plan->text_lines)
      s_len[tid] = cf_ovl_text_line (plan, a.stats, a.fps_x10, tid, s_text[tid]);
    __syncthreads ();
    for (int b = tid; b < CF_STATS_BINS; b += blockDim.x * blockDim.y)
      for (int c = 0; c < n; c++)
        atomicMax (&s_top[c], (unsigned long long) bin_value (plan, a.stats,
                c, b));
    __syncthreads ();
    if (tid == 0) {
      unsigned long long all = 0;

      for (int c = 0; c < 3; c++) {
        s_top[c] = scaled (plan, s_top[c]);
        all = s_top[c] > all ? s_top[c] : all;
      }
      if (plan->channels == CF_OVERLAY_CHANNELS_RGB)
        for (int c = 0; c < 3; c++)
          s_top[c] = all;
    }
    __syncthreads ();
  }
  if (x >= a.x0 + a.width || y >= a.y0 + a.height)
    return;

  uint8_t *px = a.data + (size_t) y * a.pitch + (size_t) x * a.pixel_bytes;
  const int lx = x << a.shift_x, ly = y << a.shift_y;
  const int sb = a.sample_bytes;
  unsigned v[4];
  int idx;

  for (int k = 0; k < a.samples; k++)
    v[k] = sb == 2 ? px[2 * k] | (unsigned) px[2 * k + 1] << 8 : px[k];

  if (plan->zebra && a.plane == 0 && (lx + ly) / plan->zebra_period % 2 == 0) {
    unsigned rgb[3] = { 0, 0, 0 }, luma, value;

    for (int k = 0; k < a.samples; k++)
      if (a.channel[k] >= 0 && a.channel[k] < 3)
        rgb[a.channel[k]] = v[k];
    if (a.samples >= 3) {
      luma = (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8;
      value = luma;
    } else {
      value = rgb[0];
      luma = sb == 2 ? value >> 8 : value;
    }
    idx = luma >= (unsigned) plan->zebra_level ? CF_OVERLAY_ZEBRA_HIGH :
        plan->zebra_zero && value == 0 ? CF_OVERLAY_ZEBRA_ZERO : -1;
    for (int k = 0; idx >= 0 && k < a.samples; k++)
      if (a.channel[k] >= 0 && a.channel[k] < 3)
        v[k] = plan->palette[idx][a.channel[k]];
  }

  idx = panel ? panel_index (plan, a.stats, s_top, s_text, s_len, lx, ly) :
      -1;
  if (idx >= 0) {
    const unsigned alpha = idx == CF_OVERLAY_BACKGROUND ? plan->alpha : 256;

    for (int k = 0; k < a.samples; k++)
      if (a.channel[k] >= 0 && a.channel[k] < 3)
        v[k] = (v[k] * (256 - alpha) + plan->palette[idx][a.channel[k]] *
            alpha + 128) >> 8;
  }

  for (int k = 0; k < a.samples; k++) {
    if (sb == 2) {
      px[2 * k] = (uint8_t) v[k];
      px[2 * k + 1] = (uint8_t) (v[k] >> 8);
    } else {
      px[k] = (uint8_t) v[k];
    }
  }
}

}  // namespace

extern "C" cudaError_t
cf_overlay_cuda (const CfOverlayPlan * plan, const CfImage * d_image,
    const CfStats * d_stats, int fps_x10, cudaStream_t stream)
{
  const CfFormatInfo *info;

  if (!plan || !d_image || !d_stats || plan->format == CF_FORMAT_COUNT
      || cf_image_check (d_image) != 0 || d_image->format != plan->format
      || d_image->width != plan->width || d_image->height != plan->height)
    return cudaErrorInvalidValue;
  info = cf_format_info (d_image->format);
  for (int p = 0; p < info->n_planes; p++) {
    const CfPlaneLayout *l = &info->plane[p];
    int x0, y0, x1, y1;
    Args a;

    cf_ovl_plane_rect (plan, d_image, p, &x0, &y0, &x1, &y1);
    if (x1 <= x0 || y1 <= y0)
      continue;
    a.plan = *plan;
    a.data = (uint8_t *) d_image->data[p];
    a.pitch = d_image->pitch[p];
    a.plane = p;
    a.x0 = x0;
    a.y0 = y0;
    a.width = x1 - x0;
    a.height = y1 - y0;
    a.pixel_bytes = l->pixel_bytes;
    a.sample_bytes = l->sample_bytes;
    a.samples = l->pixel_bytes / l->sample_bytes;
    a.shift_x = l->shift_x;
    a.shift_y = l->shift_y;
    for (int k = 0; k < 4; k++)
      a.channel[k] = k < a.samples ? l->channel[k] : -1;
    a.stats = d_stats;
    a.fps_x10 = fps_x10;

    const dim3 block (CF_OVERLAY_BLOCK_W, CF_OVERLAY_BLOCK_H);
    const dim3 grid ((a.width + CF_OVERLAY_BLOCK_W - 1) / CF_OVERLAY_BLOCK_W,
        (a.height + CF_OVERLAY_BLOCK_H - 1) / CF_OVERLAY_BLOCK_H);
    overlay_kernel<<<grid, block, 0, stream>>> (a);
    const cudaError_t err = cudaGetLastError ();
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}
