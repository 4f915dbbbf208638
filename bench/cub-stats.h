/* The CUB peer of cf_stats_cuda (), for bench-stats.
 *
 * What it computes, per channel, for an RGBA or an NV12 frame in device
 * memory (the numbers of CfStats, so they can be compared field by field):
 *
 *   histogram  256 bins: cub::DeviceHistogram::MultiHistogramEven<4, 4> over
 *              the RGBA pixels; for NV12 HistogramEven over the Y plane and
 *              MultiHistogramEven<2, 2> over the interleaved UV plane.
 *   min, max, sum, sum of squares
 *              one cub::DeviceReduce::TransformReduce per plane: the plane is
 *              read as 64-byte items (16 RGBA pixels, 64 Y samples or 32 UV
 *              pairs; four 16-byte loads); the transform turns each into
 *              per-channel {min, max, sum, sum of squares} (32-bit sums
 *              inside an item, 64-bit in the 72-byte accumulator) and a
 *              per-channel min/max/add operator combines them. So each
 *              channel gets its own numbers, as the kernel gives them, in
 *              one pass per plane. (Items of 4 and of 16 bytes measured
 *              1.8 and 1.2 times slower on an H100.)
 *   count      from the frame's geometry (no kernel).
 *
 * So a frame costs two passes over its bytes (histogram, then reduction):
 * 2 CUB calls for RGBA, 4 for NV12, each of one or two kernel launches.
 * CUB_STATS_DERIVE instead derives min, max, sum and sum of squares from
 * the histogram (as the kernel itself does) with one small kernel of a block
 * per channel (cub::BlockReduce) after the histogram: the same numbers from
 * one pass over the frame.
 * Temporary storage and outputs are allocated once by cub_stats_setup ();
 * cub_stats_run () only enqueues work on the stream: no allocation, no
 * synchronisation, no copy.
 *
 * Planes must be dense (pitch == row bytes), start on a 16-byte boundary and
 * hold a multiple of 64 bytes, as the frames of bench-stats do; other images
 * get cudaErrorInvalidValue.
 */
#ifndef CUB_STATS_H
#define CUB_STATS_H

#include "format.h"
#include "stats.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _CubStats CubStats;

/* What cub_stats_run () enqueues. */
enum {
  CUB_STATS_HISTOGRAM = 1 << 0,
  CUB_STATS_REDUCE = 1 << 1,
  CUB_STATS_DERIVE = 1 << 2,    /* moments from the histogram: with HISTOGRAM */
  CUB_STATS_ALL = CUB_STATS_HISTOGRAM | CUB_STATS_REDUCE
};

/* Whether the peer takes @format: CF_FORMAT_RGBA and CF_FORMAT_NV12. */
int cub_stats_takes (CfFormat format);

/* For @width x @height frames of a format cub_stats_takes (): sizes and
 * allocates the temporary storage and the outputs. */
cudaError_t cub_stats_setup (CfFormat format, int width, int height,
    CubStats ** out);

/* Enqueues the @parts of the statistics of the device image @d_image (of the
 * format and size given to setup) on @stream. */
cudaError_t cub_stats_run (CubStats * s, const CfImage * d_image,
    unsigned int parts, cudaStream_t stream);

/* Waits for the last run and converts its outputs to a CfStats; then
 * overwrites them with garbage, so that a later read sees only a later run. */
cudaError_t cub_stats_read (CubStats * s, CfStats * result);

void cub_stats_free (CubStats * s);

#ifdef __cplusplus
}
#endif
#endif /* CUB_STATS_H */
