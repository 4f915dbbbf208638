/* gst-cudafilters kernel library: filling a rectangle of a picture with one
 * colour (cudaresize's borders). The rectangle is in pixels of the picture;
 * on subsampled planes it covers the chroma samples of those pixels, so it
 * should start and end on even pixels there.
 *
 * A colour is given as VALUES per channel (format.h): a sample is written
 * as value << lsb, the value's bits above the format's bits ignored, so the
 * bits of a sample outside its value are 0 (P010's low 6 bits). */
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

/* The format's black, as values per channel in channel order: 0 for RGB
 * and gray with opaque alpha (the largest value: 255, 65535), Y 16 and
 * U, V 128 for YUV shifted to the value's bits (<< (bits - 8): 64 and 512
 * at 10 bits, 4096 and 32768 at 16). */
void cf_fill_black (CfFormat format, uint16_t value[CF_MAX_CHANNELS]);

/* @rect clipped to the picture, in samples of plane @plane (shared by both
 * backends). Returns 0 when nothing of it is left. */
int cf_fill_plane_rect (const CfImage * image, int plane, CfRect rect,
    CfRect * out);

/* The samples of one pixel of plane @plane of @format filled with @value,
 * per sample of the pixel (shared by both backends): value << lsb for a
 * channel's, 0xffff for a padding sample (0xff in 8 bits); 0 past the
 * pixel's samples. */
void cf_fill_plane_samples (CfFormat format, int plane,
    const uint16_t value[CF_MAX_CHANNELS], uint16_t sample[4]);

/* CPU reference: sets every sample of @rect (clipped to the picture) to
 * its cf_fill_plane_samples (). Returns 0, or -1 for a bad image. */
int cf_fill_cpu (const CfImage * image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS]);
/* The same over @n_threads threads (threads.h: 0 = all the cores), each
 * filling a band of rows. cf_fill_cpu () is this with 1. */
int cf_fill_cpu_threads (const CfImage * image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS], int n_threads);

#ifdef HAVE_CUDA
/* The same on @stream, one launch per plane. */
cudaError_t cf_fill_cuda (const CfImage * d_image, CfRect rect,
    const uint16_t value[CF_MAX_CHANNELS], cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CF_FILL_H */
