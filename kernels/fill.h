/* gst-cudafilters kernel library: filling a rectangle of a picture with one
 * colour (cudaresize's borders). The rectangle is in pixels of the picture;
 * on subsampled planes it covers the chroma samples of those pixels, so it
 * should start and end on even pixels there. */
#ifndef CF_FILL_H
#define CF_FILL_H

#include "format.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int x, y, width, height;
} CfRect;

/* The format's black: 0 for RGB and gray with opaque alpha (and padding
 * bytes), Y 16 and U, V 128 for YUV; per channel, in channel order. */
void cf_fill_black (CfFormat format, uint16_t value[CF_MAX_CHANNELS]);

/* @rect clipped to the picture, in samples of plane @plane (shared by both
 * backends). Returns 0 when nothing of it is left. */
int cf_fill_plane_rect (const CfImage * image, int plane, CfRect rect,
    CfRect * out);

/* CPU reference: sets every sample of @rect (clipped to the picture) to
 * @value of its channel; padding samples get 0xff (0xffff for 16 bits).
 * Returns 0, or -1 for a bad image. */
int cf_fill_cpu (const CfImage * image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS]);

#ifdef HAVE_CUDA
/* The same on @stream, one launch per plane. */
cudaError_t cf_fill_cuda (const CfImage * d_image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS], cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_FILL_H */
